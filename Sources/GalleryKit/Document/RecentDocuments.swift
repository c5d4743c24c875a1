import Foundation

/// Recently used documents, most recent first, in `$XDG_STATE_HOME/gallery/recent`.
public enum RecentDocuments {
  static let limit = 50

  static var file: String {
    let state = XDGDirectory.state.path
    return state + "/gallery/recent"
  }

  public static func list() -> [String] {
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").map(String.init).filter { FileManager.default.fileExists(atPath: $0) }
  }

  /// Puts a document first. Best effort: a read-only home never makes a command fail.
  public static func note(_ path: String) {
    let absolute = URL(fileURLWithPath: DropSourceParser.absolute(path)).standardizedFileURL.path
    var paths = list().filter { $0 != absolute }
    paths.insert(absolute, at: 0)
    let text = paths.prefix(limit).joined(separator: "\n") + "\n"
    try? FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try? text.write(toFile: file, atomically: true, encoding: .utf8)
  }

  public static func forget(_ path: String) {
    let absolute = URL(fileURLWithPath: DropSourceParser.absolute(path)).standardizedFileURL.path
    let paths = list().filter { $0 != absolute }
    try? (paths.joined(separator: "\n") + (paths.isEmpty ? "" : "\n")).write(toFile: file, atomically: true, encoding: .utf8)
  }
}
