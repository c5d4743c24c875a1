import CInotifyTools
import Foundation
import Synchronization

/// One event, copied out of libinotifytools' static buffer at once.
struct InotifyEvent: Sendable {
  /// The watched folder, with a trailing slash; empty for a queue overflow.
  var folder: String
  var name: String
  var mask: Mask

  var path: String { folder + name }
  func has(_ flags: Mask) -> Bool { !mask.isDisjoint(with: flags) }

  /// inotify's event bits, named for the code above this layer.
  struct Mask: OptionSet, Sendable {
    let rawValue: UInt32
    static let create = Mask(rawValue: CInotifyTools_IN_CREATE)
    static let closeWrite = Mask(rawValue: CInotifyTools_IN_CLOSE_WRITE)
    static let movedTo = Mask(rawValue: CInotifyTools_IN_MOVED_TO)
    static let movedFrom = Mask(rawValue: CInotifyTools_IN_MOVED_FROM)
    static let delete = Mask(rawValue: CInotifyTools_IN_DELETE)
    static let deleteSelf = Mask(rawValue: CInotifyTools_IN_DELETE_SELF)
    static let moveSelf = Mask(rawValue: CInotifyTools_IN_MOVE_SELF)
    static let unmount = Mask(rawValue: CInotifyTools_IN_UNMOUNT)
    static let queueOverflow = Mask(rawValue: CInotifyTools_IN_Q_OVERFLOW)
    static let isDirectory = Mask(rawValue: CInotifyTools_IN_ISDIR)
  }
}

/// Why watching failed, in words that say what to do.
public enum WatchError: Error, CustomStringConvertible {
  case initialize(Int32)
  case watchLimit(String)
  case watch(String, Int32)
  case folderGone(String)
  case deleteNeedsEmbedding

  public var description: String {
    switch self {
    case .initialize(let code): "cannot start inotify: \(String(cString: strerror(code)))"
    case .watchLimit(let path):
      "cannot watch \(path): the limit of inotify watches is reached; raise it with `sysctl fs.inotify.max_user_watches=524288` (now \(Inotify.maxUserWatches))"
    case .watch(let path, let code): "cannot watch \(path): \(String(cString: strerror(code)))"
    case .folderGone(let path): "the watched folder \(path) was deleted, moved or unmounted"
    case .deleteNeedsEmbedding:
      "--then delete needs the originals embedded in the document (--embed, or `gallery new --embed`): nothing is deleted that the document does not hold"
    }
  }
}

/// The one owner of libinotifytools' process-global state. Not thread-safe, like the library:
/// one thread makes all the calls.
final class Inotify {
  private static let taken = Atomic<Bool>(false)

  static let events: UInt32 =
    CInotifyTools_IN_CREATE | CInotifyTools_IN_CLOSE_WRITE | CInotifyTools_IN_MOVED_TO
    | CInotifyTools_IN_MOVED_FROM | CInotifyTools_IN_DELETE | CInotifyTools_IN_DELETE_SELF
    | CInotifyTools_IN_MOVE_SELF | CInotifyTools_IN_UNMOUNT

  static var maxUserWatches: Int { Int(inotifytools_get_max_user_watches()) }

  /// The corresponding C function is `inotifytools_initialize`, which returns 1 on success.
  init() throws(WatchError) {
    guard !Self.taken.exchange(true, ordering: .acquiring) else {
      preconditionFailure("libinotifytools has one global state: one Inotify per process")
    }
    guard inotifytools_initialize() == 1 else {
      Self.taken.store(false, ordering: .releasing)
      throw .initialize(Int32(inotifytools_error()))
    }
  }

  deinit {
    inotifytools_cleanup()
    Self.taken.store(false, ordering: .releasing)
  }

  /// Watches a folder, and with `recursive` every folder below it.
  /// The corresponding C functions are `inotifytools_watch_file` and `inotifytools_watch_recursively`.
  func watch(_ folder: String, recursive: Bool) throws(WatchError) {
    let result =
      recursive
      ? inotifytools_watch_recursively(folder, Int32(bitPattern: Self.events))
      : inotifytools_watch_file(folder, Int32(bitPattern: Self.events))
    guard result == 1 else {
      let code = Int32(inotifytools_error())
      throw code == ENOSPC ? .watchLimit(folder) : .watch(folder, code)
    }
  }

  /// The next event, waiting at most `timeout` seconds (0: do not wait); nil when none came.
  /// The corresponding C function is `inotifytools_next_event`.
  func next(timeout: Int) -> InotifyEvent? {
    guard let event = inotifytools_next_event(timeout) else { return nil }
    let mask = InotifyEvent.Mask(rawValue: event.pointee.mask)
    if mask.contains(.queueOverflow) { return InotifyEvent(folder: "", name: "", mask: mask) }
    var folder = inotifytools_filename_from_wd(event.pointee.wd).map { String(cString: $0) } ?? ""
    if !folder.isEmpty && !folder.hasSuffix("/") { folder += "/" }
    return InotifyEvent(folder: folder, name: String(cString: CInotifyTools_event_name(event)), mask: mask)
  }
}

/// Reads inotify events on a thread of its own, which makes every libinotifytools call after
/// start-up (the library blocks for whole seconds at least, and is not thread-safe): the
/// watch loop waits on `next(timeout:)` with millisecond timeouts instead.
///
/// With `recursive`, a folder created under a watched one is watched by this thread as soon
/// as its event is read, before the event is passed on, so the loop's scan of the new folder
/// cannot miss a file created in between.
///
/// `@unchecked Sendable` because of `inotify`, a non-Sendable owner of process-global C state:
/// after `init` only the reader thread touches it; what other threads touch is `queue` (a
/// `Mutex`) and `available` (a semaphore). (#11: to become an async sequence.)
final class InotifyReader: @unchecked Sendable {
  enum Item: Sendable {
    case event(InotifyEvent)
    case failure(WatchError)
    /// A folder created under a watched one could not be watched (the watch limit): the
    /// others are still watched, and this one is tried again every `retryInterval`.
    case unwatched(String, WatchError)
    /// A folder that could not be watched is watched now: what arrived meanwhile needs a scan.
    case watchedAgain(String)
  }

  static let retryInterval = 5

  private let inotify: Inotify
  private let recursive: Bool
  private let queue = Mutex<[Item]>([])
  private let available = DispatchSemaphore(value: 0)

  /// Watches the folders (on the calling thread), then starts reading.
  init(folders: [String], recursive: Bool) throws(WatchError) {
    inotify = try Inotify()
    self.recursive = recursive
    for folder in folders { try inotify.watch(folder, recursive: recursive) }
    let thread = Thread { [self] in self.readForever() }
    thread.name = "inotify reader"
    thread.start()
  }

  // The reader thread runs until the process exits: libinotifytools cannot be woken from a
  // blocking read, so the Inotify instance is never freed under it.

  private func readForever() {
    var unwatched: [String] = []
    while true {
      let event = inotify.next(timeout: unwatched.isEmpty ? -1 : Self.retryInterval)
      // Folders the watch limit kept out: tried again whenever the reader wakes.
      unwatched = unwatched.filter { folder in
        guard FileManager.default.fileExists(atPath: folder) else { return false }
        guard (try? inotify.watch(folder, recursive: true)) != nil else { return true }
        push(.watchedAgain(folder))
        return false
      }
      guard let event else { continue }
      if recursive, event.has(.isDirectory), event.has([.create, .movedTo]), !event.name.hasPrefix(".") {
        do { try inotify.watch(event.path, recursive: true) } catch {
          unwatched.append(event.path)
          push(.unwatched(event.path, error))
        }
      }
      push(.event(event))
    }
  }

  private func push(_ item: Item) {
    queue.withLock { $0.append(item) }
    available.signal()
  }

  /// Everything read so far, waiting up to `timeout` seconds for the first item.
  func next(timeout: TimeInterval) -> [Item] {
    guard available.wait(timeout: .now() + timeout) == .success else { return [] }
    let items = queue.withLock { items in
      defer { items.removeAll() }
      return items
    }
    // One signal was consumed by the wait; take the others that the drained items left.
    for _ in 1..<max(1, items.count) { _ = available.wait(timeout: .now()) }
    return items
  }
}
