import Foundation
import GalleryModel
import GallerySystem
import Synchronization

/// A document that long work saves into more than once (a drop's commits while its
/// downloads run, a drop folder's watcher), followed by its file rather than by the name it
/// had when the work began: renamed or moved meanwhile (`gallery rename`, a file manager,
/// `mv` within the filesystem), it is saved into under its new name, not given up as gone.
///
/// It holds an `O_PATH` descriptor of the file its name names (nothing is read or locked
/// through it), taken anew when a save or a compaction put a new file under the name; when
/// the name names nothing, the kernel's name for that file is the new name
/// (`FileHandleFD.currentPath`). A document removed, or replaced and then renamed before
/// anything here looked at it again, stays gone: the edit says so.
/// `@unchecked Sendable`: its descriptor, a class, is touched only under `state`'s lock.
package final class FollowedDocument: @unchecked Sendable {
  private struct State {
    var path: String
    var hold: FileHandleFD?
  }
  private let state: Mutex<State>
  private let renamed: @Sendable (_ from: String, _ to: String) -> Void

  /// `renamed` is told each time the document is found under a new name.
  package init(_ path: String, renamed: @escaping @Sendable (_ from: String, _ to: String) -> Void = { _, _ in }) {
    state = Mutex(State(path: path, hold: FileSystem.holdOn(to: path)))
    self.renamed = renamed
  }

  /// The document's name now: its name while that names a file (held anew when another file
  /// is there now), else the name the file it held was renamed to.
  package var path: String { follow().path }

  /// The name now, and whether it changed since the last look.
  @discardableResult
  package func follow() -> (path: String, renamed: Bool) {
    let (before, now) = state.withLock { state -> (String, String) in
      let before = state.path
      if FileSystem.status(of: state.path) != nil {
        if state.hold?.isNamed(by: state.path) != true { state.hold = FileSystem.holdOn(to: state.path) }
      } else if let renamed = state.hold?.currentPath() {
        state.path = renamed
      }
      return (before, state.path)
    }
    if now != before { renamed(before, now) }
    return (now, now != before)
  }

  /// `GalleryDocument.edit` of the document under its name now; once more under its new
  /// name when it was renamed between the look at its name and the edit's lock.
  @discardableResult
  package func edit<T>(_ body: (inout DocumentEdit) throws -> T) throws -> T {
    try editRecordingSave(body).result
  }

  /// `GalleryDocument.editRecordingSave`, following the document as `edit` does.
  package func editRecordingSave<T>(
    _ body: (inout DocumentEdit) throws -> T
  ) throws -> (result: T, save: SaveMark?, saved: SavedRevision?) {
    try following { path in
      let saved = try GalleryDocument.editRecordingSave(path, body)
      // Held anew when the save compacted (a new file under the name), so that a rename
      // right after it is followed too.
      follow()
      return saved
    }
  }

  /// `body` on the document's name now; again on its new name when `body` found the name
  /// gone and the file was renamed.
  package func following<T>(_ body: (String) throws -> T) throws -> T {
    var path = self.path
    while true {
      do { return try body(path) } catch DocumentError.notFound(let missing) where missing == path {
        let now = follow()
        guard now.renamed || now.path != path else { throw DocumentError.notFound(missing) }
        path = now.path
      }
    }
  }
}
