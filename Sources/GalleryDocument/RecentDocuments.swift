import Foundation
import GalleryImaging
import GalleryModel
import GallerySystem

/// Recently used documents, most recent first, in `$XDG_STATE_HOME/gallery/recent`.
public enum RecentDocuments {
  package static let limit = 50

  package static var file: String {
    let state = XDGDirectory.state.path
    return state + "/gallery/recent"
  }

  public static func list() -> [String] {
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").map(String.init).filter { FileSystem.linkStatus(of: $0) != nil }
  }

  /// Puts a document first, here and in the desktop's recent files (when it was not first
  /// already). Best effort: a read-only home never makes a command fail.
  public static func note(_ path: String) {
    let absolute = XDGDirectory.standardized(path)
    guard !absolute.contains("\n") else { return }
    let changed = update { paths in
      paths.removeAll { $0 == absolute }
      paths.insert(absolute, at: 0)
    }
    if changed {
      DesktopRecentFiles.note(
        uri: PathBytes.fileURL(absolutePath: absolute), mimeType: GalleryModel.mediaType, application: "gallery",
        exec: "gallery open %u")
    }
  }

  public static func forget(_ path: String) {
    let absolute = XDGDirectory.standardized(path)
    update { $0.removeAll { $0 == absolute } }
    DesktopRecentFiles.forget(uri: PathBytes.fileURL(absolutePath: absolute))
  }

  /// Read, change and write the list under a lock, so that commands running at once do not
  /// lose each other's entries; written through a temporary file that a killed command
  /// leaves behind only until the next update removes it.
  @discardableResult
  private static func update(_ change: (inout [String]) -> Void) -> Bool {
    try? FileManager.default.createDirectory(
      atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    guard let lock = try? FileHandleFD(path: file + ".lock", flags: O_RDWR | O_CREAT, mode: 0o600),
      (try? lock.lockExclusive()) != nil
    else { return false }
    let before = list()
    var paths = before
    change(&paths)
    // Most commands name the document they named last: nothing to write (and sync).
    guard paths != before else { return false }
    let text = paths.prefix(limit).map { $0 + "\n" }.joined()
    try? FileSystem.writeAtomically(Data(text.utf8), to: file, mode: 0o600)
    withExtendedLifetime(lock) {}
    return true
  }
}
