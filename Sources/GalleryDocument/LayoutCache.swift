import Foundation
import GalleryImaging
import GalleryModel
import GallerySystem
import Synchronization

/// The last layout this process read or wrote for each of the documents it used last, so
/// that an edit right after a read or a save (a drop's placeholder save, then its commit)
/// does not scan and parse the whole file again when no other process has changed it
/// meanwhile.
///
/// A layout holds its model (a large gallery's is tens of megabytes) and, read lazily, a
/// descriptor of the file: a view server showing one document after another keeps only the
/// `limit` it used last.
package enum LayoutCache {
  package static let limit = 8

  /// What identifies one state of a file: any write changes the size or the change time,
  /// a compaction the inode.
  package struct Stamp: Equatable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    package var modified: timespec
    package var changed: timespec

    package init(_ info: stat) {
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
      size = Int64(info.st_size)
      modified = info.st_mtim
      changed = info.st_ctim
    }

    package static func == (a: Stamp, b: Stamp) -> Bool {
      a.device == b.device && a.inode == b.inode && a.size == b.size
        && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
        && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
    }
  }

  /// The layouts kept, by path, with when each was last used.
  package struct Entries {
    package struct Entry {
      var stamp: Stamp
      var layout: ArchiveLayout
      var used: UInt64
    }
    private(set) var byPath: [String: Entry] = [:]
    private var clock: UInt64 = 0

    package init() {}

    package var paths: Set<String> { Set(byPath.keys) }

    package subscript(path: String) -> (stamp: Stamp, layout: ArchiveLayout)? {
      mutating get {
        guard let entry = byPath[path] else { return nil }
        clock += 1
        byPath[path]?.used = clock
        return (entry.stamp, entry.layout)
      }
      set {
        guard let newValue else {
          byPath.removeValue(forKey: path)
          return
        }
        clock += 1
        byPath[path] = Entry(stamp: newValue.stamp, layout: newValue.layout, used: clock)
        if byPath.count > LayoutCache.limit, let oldest = byPath.min(by: { $0.value.used < $1.value.used }) {
          byPath.removeValue(forKey: oldest.key)
        }
      }
    }

    package mutating func removeValue(forKey path: String) -> (stamp: Stamp, layout: ArchiveLayout)? {
      byPath.removeValue(forKey: path).map { ($0.stamp, $0.layout) }
    }
  }

  private static let entries = Mutex<Entries>(Entries())

  /// The layout of `file` as it is now: from the cache when the file has not changed.
  /// `lazily` (for an edit) accepts a model whose items are read when needed; otherwise
  /// every item has been read and checked.
  ///
  /// A layout is kept under the stamp the file had *before* it was read, and only when the
  /// file had the same stamp after: a read that raced another process's save may hold
  /// either revision, and keeping it under the later stamp would let the next edit append
  /// after the old revision's end, cutting off the save it did not see.
  package static func layout(
    of file: FileHandleFD, lazily: Bool = false,
    reading read: (FileHandleFD, Bool) throws(DocumentError) -> ArchiveLayout = DocumentArchive.open
  ) throws(DocumentError) -> ArchiveLayout {
    let before = try stamp(of: file)
    if let cached = entries.withLock({ $0[file.path] }), cached.stamp == before,
      lazily || cached.layout.itemSource == nil
    {
      return cached.layout
    }
    let layout = try read(file, lazily)
    if try stamp(of: file) == before {
      entries.withLock { $0[file.path] = (before, layout) }
    } else {
      forget(file.path)
    }
    return layout
  }

  private static func stamp(of file: FileHandleFD) throws(DocumentError) -> Stamp {
    do { return Stamp(try file.status()) } catch { throw .io(error) }
  }

  /// Records the layout just written to `file` by this process, which holds the document's
  /// lock (no other process can have written since).
  package static func remember(_ layout: ArchiveLayout, of file: FileHandleFD) {
    guard let info = try? file.status() else { return forget(file.path) }
    entries.withLock { $0[file.path] = (Stamp(info), layout) }
  }

  /// After this process renamed the document open as `file` from `path` to `target`: the
  /// layout read under the old name is the file's under the new one, unless the file
  /// changed meanwhile (a rename changes only its change time).
  package static func renamed(_ path: String, to target: String, file: FileHandleFD) {
    guard let info = try? file.status() else { return forget(path) }
    let now = Stamp(info)
    entries.withLock { entries in
      guard let cached = entries.removeValue(forKey: path) else { return }
      var renamed = cached.stamp
      renamed.changed = now.changed
      if renamed == now { entries[target] = (now, cached.layout) }
    }
  }

  package static func forget(_ path: String) {
    _ = entries.withLock { $0.removeValue(forKey: path) }
  }
}
