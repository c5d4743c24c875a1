import Foundation

/// The XDG base directories (`$XDG_STATE_HOME`, ...), with the spec's defaults when unset or empty.
public enum XDGDirectory {
  case cache, config, data, state

  public var path: String {
    let (variable, fallback) = switch self {
    case .cache: ("XDG_CACHE_HOME", "/.cache")
    case .config: ("XDG_CONFIG_HOME", "/.config")
    case .data: ("XDG_DATA_HOME", "/.local/share")
    case .state: ("XDG_STATE_HOME", "/.local/state")
    }
    return ProcessInfo.processInfo.environment[variable].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + fallback)
  }
}
