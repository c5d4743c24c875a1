import Foundation

/// The XDG base directories (`$XDG_STATE_HOME`, ...), with the spec's defaults under `$HOME`
/// when unset, empty or relative (the spec says a relative path is to be ignored).
package enum XDGDirectory {
  case cache, config, data, state

  package var path: String {
    let (variable, fallback) =
      switch self {
      case .cache: ("XDG_CACHE_HOME", "/.cache")
      case .config: ("XDG_CONFIG_HOME", "/.config")
      case .data: ("XDG_DATA_HOME", "/.local/share")
      case .state: ("XDG_STATE_HOME", "/.local/state")
      }
    let environment = ProcessInfo.processInfo.environment
    if let value = environment[variable], value.hasPrefix("/") { return value }
    return Self.home + fallback
  }

  /// `$HOME` when it is set to an absolute path (as every other program reads it), else the
  /// home directory of the user's passwd entry.
  package static var home: String {
    if let home = ProcessInfo.processInfo.environment["HOME"], home.hasPrefix("/") {
      return home.count > 1 && home.hasSuffix("/") ? String(home.dropLast()) : home
    }
    return NSHomeDirectory()
  }

  /// `~` and `~/...` under `home` (Foundation's expansion reads the passwd entry instead).
  package static func expandingTilde(_ path: String) -> String {
    if path == "~" { return home }
    if path.hasPrefix("~/") { return home + path.dropFirst(1) }
    return path
  }

  /// `path` made absolute: `~` expanded, a relative path taken from the current folder.
  /// The one spelling of a path that lists and records compare: absolute, with `.`, `..`
  /// and repeated slashes resolved (links are not followed).
  package static func standardized(_ path: String) -> String {
    URL(fileURLWithPath: absolute(path)).standardizedFileURL.path
  }

  package static func absolute(_ path: String) -> String {
    let expanded = expandingTilde(path)
    if expanded.hasPrefix("/") { return expanded }
    return FileSystem.currentDirectory() + "/" + expanded
  }
}
