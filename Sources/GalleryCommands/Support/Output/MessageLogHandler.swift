import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem
import Logging

/// Logs in the one message style of every command: `gallery: message` on standard error,
/// `gallery: warning: message` above notice, control characters escaped. Under systemd
/// (`JOURNAL_STREAM` naming standard error itself) a line is `<N>message` instead: journald
/// adds the time and the program name itself, and reads the syslog priority N.
package struct MessageLogHandler: LogHandler {
  package var logLevel: Logger.Level
  package var metadata: Logger.Metadata = [:]
  let journal: Bool

  package init(level: Logger.Level, environment: [String: String] = ProcessInfo.processInfo.environment) {
    logLevel = level
    journal = environment["JOURNAL_STREAM"].map { StandardStream.error.isFile($0) } ?? false
  }

  package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  package func log(event: LogEvent) {
    Terminal.err(line(level: event.level, message: "\(event.message)") + "\n")
  }

  /// The line for one message, without its newline.
  package func line(level: Logger.Level, message: String) -> String {
    let text = TerminalText.escaped(message)
    if journal { return "<\(Self.priority(level))>\(text)" }
    switch level {
    case .trace, .debug, .info, .notice: return "gallery: \(text)"
    case .warning: return "gallery: warning: \(text)"
    case .error, .critical: return "gallery: error: \(text)"
    }
  }

  /// syslog priorities (sd-daemon(3)).
  static func priority(_ level: Logger.Level) -> Int {
    switch level {
    case .trace, .debug: 7
    case .info: 6
    case .notice: 5
    case .warning: 4
    case .error: 3
    case .critical: 2
    }
  }
}
