import Foundation
import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem

/// A folder whose new images go into a document.
public struct DropFolder: Sendable, Equatable {
  /// Absolute, without a trailing slash.
  public var folder: String
  public var document: String

  public init(folder: String, document: String) {
    var absolute = DropSourceParser.absolute(folder)
    while absolute.count > 1 && absolute.hasSuffix("/") { absolute.removeLast() }
    self.folder = absolute
    self.document = DropSourceParser.absolute(document)
  }

  /// Reads `DIR:DOC` pairs, one a line, `#` comments (the config file's format).
  public static func parseList(_ text: String) throws -> [DropFolder] {
    try text.split(separator: "\n").enumerated().compactMap { number, line in
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.isEmpty || trimmed.hasPrefix("#") { return nil }
      guard let pair = DropFolder(pair: trimmed) else {
        throw WatchConfigError(line: number + 1, text: String(line))
      }
      return pair
    }
  }

  /// `DIR:DOC`; the last colon separates them, so folders may contain colons.
  public init?(pair: String) {
    guard let colon = pair.lastIndex(of: ":"), colon != pair.startIndex, pair.index(after: colon) != pair.endIndex else {
      return nil
    }
    let (folder, document) = (String(pair[..<colon]), String(pair[pair.index(after: colon)...]))
    self.init(folder: XDGDirectory.expandingTilde(folder), document: XDGDirectory.expandingTilde(document))
  }

  /// Names that writers use while a file is incomplete; their rename to a final name is
  /// what commits them.
  public static func isTemporaryName(_ name: String) -> Bool {
    let lower = name.lowercased()
    return name.hasPrefix(".") || name.hasSuffix("~")
      || [".part", ".crdownload", ".tmp", ".partial", ".download"].contains { lower.hasSuffix($0) }
  }
}

public struct WatchConfigError: Error, CustomStringConvertible {
  public var line: Int
  public var text: String
  public var description: String { "line \(line): expected DIR:DOC, found \"\(text)\"" }
}

/// What happens to a source file once its image is committed.
public enum AfterCommit: Sendable, Equatable {
  /// The item references the file where it is.
  case keep
  /// The file moves into this folder (before the commit, so the item references its new place).
  case move(String)
  /// The file is deleted once the document holding its embedded original is durably saved.
  case delete
}

/// How a watcher behaves.
public struct WatchOptions: Sendable {
  public var recursive = false
  /// How long a closed file must keep its size and modification time before it is loaded.
  public var settle: TimeInterval = 0.2
  public var afterCommit: AfterCommit = .keep
  public var rejectTo: String?
  public var allowDuplicates = false
  /// Embed the originals (default: each document's setting). `.delete` requires it.
  public var embed: Bool?
  /// Only import what is there now, then stop.
  public var once = false
  public var parallelism = ProcessInfo.processInfo.activeProcessorCount
  /// Placeholders are saved at most this long after their file appears.
  public var placeholderDelay: TimeInterval = 0.03
  /// Committed images are saved in batches at most this often while loads keep finishing.
  public var commitInterval: TimeInterval = 0.5
  /// Where what was imported is remembered (default: `$XDG_STATE_HOME`).
  public var stateFolder: String?
  /// The configuration file the pairs were read from: it follows a document renamed while
  /// the watcher runs, as those of `WatchConfig.folder` do.
  public var configFile: String?

  public init() {}
}

/// One line of `gallery watch --events json`.
public struct WatchEvent: Sendable, Encodable {
  public enum Kind: String, Sendable, Encodable {
    case placeholder, committed, rejected, removed, duplicate
    /// A tracked file was moved out of the folder (its placeholder goes).
    case moved
    /// The inotify queue overflowed: the folder was scanned again.
    case rescan
    /// A new folder could not be watched (the watch limit): tried again every few seconds.
    case unwatched
    /// A folder that could not be watched is watched now, and was scanned; or a drop
    /// folder renamed is watched under its new name (its `path`).
    case watched
    /// A save found no room on the disk: the watcher waits for room (`reason` says why).
    case waiting
    /// The save that waited for room is made.
    case resumed
    /// The watcher stopped (a signal, or --once done) after saving.
    case stopped
  }

  public var event: Kind
  public var path: String
  public var document: String
  public var id: String?
  public var reason: String?
  /// When it happened, in seconds since 1970 (for latency measurements and logs).
  public var time: Double = Date().timeIntervalSince1970

  private enum CodingKeys: String, CodingKey {
    case event, path, pathURL, document, documentURL, id, reason, time
  }

  /// Paths as JSON gives them: their text, and a path that is not UTF-8 also exactly, as a
  /// `file:` URL (`PathBytes.forJSON`).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(event, forKey: .event)
    try container.encodePath(path, forKey: .path, urlKey: .pathURL)
    try container.encodePath(document, forKey: .document, urlKey: .documentURL)
    try container.encodeIfPresent(id, forKey: .id)
    try container.encodeIfPresent(reason.map(PathBytes.displayed), forKey: .reason)
    try container.encode(time, forKey: .time)
  }
}
