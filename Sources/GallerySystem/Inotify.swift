import CInotifyTools
import Foundation
import NIOPosix
import Synchronization

/// One event, copied out of libinotifytools' static buffer at once.
package struct InotifyEvent: Sendable, Equatable {
  /// The watched folder, with a trailing slash; empty for a queue overflow.
  package var folder: String
  package var name: String
  package var mask: Mask

  package init(folder: String, name: String, mask: Mask) {
    self.folder = folder
    self.name = name
    self.mask = mask
  }

  package var path: String { folder + name }
  package func has(_ flags: Mask) -> Bool { !mask.isDisjoint(with: flags) }

  /// inotify's event bits, named for the code above this layer.
  package struct Mask: OptionSet, Sendable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }
    package static let create = Mask(rawValue: CInotifyTools_IN_CREATE)
    package static let closeWrite = Mask(rawValue: CInotifyTools_IN_CLOSE_WRITE)
    package static let movedTo = Mask(rawValue: CInotifyTools_IN_MOVED_TO)
    package static let movedFrom = Mask(rawValue: CInotifyTools_IN_MOVED_FROM)
    package static let delete = Mask(rawValue: CInotifyTools_IN_DELETE)
    package static let deleteSelf = Mask(rawValue: CInotifyTools_IN_DELETE_SELF)
    package static let moveSelf = Mask(rawValue: CInotifyTools_IN_MOVE_SELF)
    package static let unmount = Mask(rawValue: CInotifyTools_IN_UNMOUNT)
    package static let queueOverflow = Mask(rawValue: CInotifyTools_IN_Q_OVERFLOW)
    package static let isDirectory = Mask(rawValue: CInotifyTools_IN_ISDIR)
  }
}

/// Why watching failed, in words that say what to do.
package enum WatchError: Error, CustomStringConvertible {
  case initialize(Int32)
  case watchLimit(String)
  case watch(String, Int32)
  case notAFolder(String)
  case folderGone(String)
  case deleteNeedsEmbedding
  /// libinotifytools has one state per process: one watcher at a time.
  case alreadyWatching

  package var description: String {
    switch self {
    case .initialize(let code): "cannot start inotify: \(FileSystem.errorText(code))"
    case .watchLimit(let path):
      "cannot watch \(path): the limit of inotify watches is reached; raise it with `sysctl fs.inotify.max_user_watches=524288` (now \(Inotify.maxUserWatches))"
    case .watch(let path, let code): "cannot watch \(path): \(FileSystem.errorText(code))"
    case .notAFolder(let path): "cannot watch \(path): not a folder"
    case .folderGone(let path): "the watched folder \(path) was deleted, moved or unmounted"
    case .deleteNeedsEmbedding:
      "--then delete needs the originals embedded in the document (--embed, or `gallery new --embed`): nothing is deleted that the document does not hold"
    case .alreadyWatching: "this process watches folders already: give one watcher all the folders"
    }
  }
}

/// The one owner of libinotifytools' process-global state while a watcher reads it. Not
/// thread-safe, like the library: one thread at a time makes the calls.
///
/// The library is initialized once per process and stays so (as libvips does): it keeps
/// events it has read in a static buffer that its cleanup does not empty, and a later
/// session would take them for its own. What a session owns is its watches: its `deinit`
/// removes every one, so that events left over from it name no watch and are dropped, and
/// the next session's watches get new numbers from the kernel.
package final class Inotify {
  private static let inSession = Atomic<Bool>(false)
  private static let initialized = Mutex<Bool>(false)

  package static let events: UInt32 =
    CInotifyTools_IN_CREATE | CInotifyTools_IN_CLOSE_WRITE | CInotifyTools_IN_MOVED_TO
    | CInotifyTools_IN_MOVED_FROM | CInotifyTools_IN_DELETE | CInotifyTools_IN_DELETE_SELF
    | CInotifyTools_IN_MOVE_SELF | CInotifyTools_IN_UNMOUNT

  package static var maxUserWatches: Int { Int(inotifytools_get_max_user_watches()) }

  /// The highest watch number this session has seen: its watches are at most this and the
  /// count of watches above it.
  private var highestWatch: Int32 = 0

  /// Takes libinotifytools for one session; `deinit` gives it back. A factory rather than a
  /// throwing `init`: an instance that failed to take it must not run `deinit`.
  /// The corresponding C function is `inotifytools_initialize`, which returns 1 on success.
  package static func start() throws(WatchError) -> Inotify {
    guard !inSession.exchange(true, ordering: .acquiring) else { throw .alreadyWatching }
    let ready = initialized.withLock { done in
      if !done { done = inotifytools_initialize() == 1 }
      return done
    }
    guard ready else {
      inSession.store(false, ordering: .releasing)
      throw .initialize(Int32(inotifytools_error()))
    }
    return Inotify()
  }

  private init() {}

  deinit {
    removeWatches()
    Self.inSession.store(false, ordering: .releasing)
  }

  /// Removes every watch of this session (again at `deinit`: none is left then).
  /// The corresponding C functions are `inotifytools_filename_from_wd` and
  /// `inotifytools_remove_watch_by_wd`.
  func removeWatches() {
    var remaining = Int(inotifytools_get_num_watches())
    var watch: Int32 = 1
    // Watches of a recursive watch follow its folder's number; a margin covers any gap.
    while remaining > 0 && watch <= highestWatch + Int32(clamping: remaining) + 1024 {
      if inotifytools_filename_from_wd(watch) != nil {
        inotifytools_remove_watch_by_wd(watch)
        remaining -= 1
      }
      watch += 1
    }
  }

  /// Watches a folder, and with `recursive` every folder below it.
  /// The corresponding C functions are `inotifytools_watch_file` and `inotifytools_watch_recursively`.
  package func watch(_ folder: String, recursive: Bool) throws(WatchError) {
    let result =
      recursive
      ? PathBytes.withCString(folder) { inotifytools_watch_recursively($0, Int32(bitPattern: Self.events)) }
      : PathBytes.withCString(folder) { inotifytools_watch_file($0, Int32(bitPattern: Self.events)) }
    guard result == 1 else {
      let code = Int32(inotifytools_error())
      throw code == ENOSPC ? .watchLimit(folder) : .watch(folder, code)
    }
    let top = max(
      PathBytes.withCString(folder) { inotifytools_wd_from_filename($0) },
      PathBytes.withCString(folder + "/") { inotifytools_wd_from_filename($0) })
    highestWatch = max(highestWatch, Int32(top))
  }

  /// The next event, waiting at most `timeout` (nil: as long as it takes); nil when none
  /// came. The corresponding C function is `inotifytools_next_event` (whose 0 means no limit).
  package func next(timeout: Duration?) -> InotifyEvent? {
    let seconds = timeout.map { max(1, Int($0.components.seconds)) } ?? -1
    guard let event = inotifytools_next_event(seconds) else { return nil }
    let mask = InotifyEvent.Mask(rawValue: event.pointee.mask)
    if mask.contains(.queueOverflow) { return InotifyEvent(folder: "", name: "", mask: mask) }
    highestWatch = max(highestWatch, event.pointee.wd)
    // No folder: a watch removed since (an earlier session's); the watcher ignores it.
    var folder = inotifytools_filename_from_wd(event.pointee.wd).map { PathBytes.string(cString: $0) } ?? ""
    if !folder.isEmpty && !folder.hasSuffix("/") { folder += "/" }
    return InotifyEvent(folder: folder, name: PathBytes.string(cString: CInotifyTools_event_name(event)), mask: mask)
  }
}

/// What the reader passes on.
package enum InotifyItem: Sendable {
  case event(InotifyEvent)
  /// A folder created under a watched one could not be watched (the watch limit): the
  /// others are still watched, and this one is tried again every `retryInterval`.
  case unwatched(String, WatchError)
  /// A folder that could not be watched is watched now: what arrived meanwhile needs a scan.
  case watchedAgain(String)
}

/// Reads inotify events for the length of a scope: `InotifyReader.reading(...) { events in }`
/// sets the watches, reads on one thread of its own (libinotifytools blocks and is not
/// thread-safe), passes the events on as an async sequence, and when the scope ends wakes
/// that thread, waits for it and frees libinotifytools' state, so that another watcher can
/// start in the same process.
///
/// The library cannot be woken from a blocking read, except by an event: the reader also
/// watches a private folder of its own, and a file created there is its signal to end.
///
/// With `recursive`, a folder created under a watched one is watched by the reading thread as
/// soon as its event is read, before the event is passed on, so the watcher's scan of the new
/// folder cannot miss a file created in between.
package enum InotifyReader {
  package static let retryInterval: Duration = .seconds(5)

  package static func reading<T: Sendable>(
    folders: [String], recursive: Bool, _ body: (AsyncStream<InotifyItem>) async throws -> T
  ) async throws -> T {
    let inotify = try Inotify.start()
    for folder in folders { try inotify.watch(folder, recursive: recursive) }
    let wake = try FileSystem.makePrivateFolder(prefix: "gallery-watch")
    defer { FileSystem.removeTree(wake) }
    try inotify.watch(wake, recursive: false)
    let loop = ReadLoop(inotify: inotify, wakeFolder: wake + "/", recursive: recursive)
    let (items, continuation) = AsyncStream.makeStream(of: InotifyItem.self)
    let thread = NIOThreadPool(numberOfThreads: 1)
    thread.start()
    return try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask {
        // Runs to its end even when the scope is cancelled: the wake-up below ends it.
        try await thread.runIfActive { loop.run(continuation) }
      }
      let result: Result<T, any Error>
      do { result = .success(try await body(items)) } catch { result = .failure(error) }
      // The reader's signal to end (see above); the file goes with the folder.
      _ = try? FileHandleFD(path: wake + "/end", flags: O_WRONLY | O_CREAT)
      try? await group.waitForAll()
      try? await thread.shutdownGracefully()
      // The reading thread has ended: the watches go before the wake-up folder does.
      inotify.removeWatches()
      return try result.get()
    }
  }

  /// The loop of the reading thread. `@unchecked Sendable`: it is handed to that thread,
  /// which alone touches `inotify` (a non-Sendable owner of process-global C state) until
  /// the loop returns.
  private final class ReadLoop: @unchecked Sendable {
    package let inotify: Inotify
    package let wakeFolder: String
    package let recursive: Bool

    package init(inotify: Inotify, wakeFolder: String, recursive: Bool) {
      self.inotify = inotify
      self.wakeFolder = wakeFolder
      self.recursive = recursive
    }

    package func run(_ items: AsyncStream<InotifyItem>.Continuation) {
      defer { items.finish() }
      var unwatched: [String] = []
      while true {
        let event = inotify.next(timeout: unwatched.isEmpty ? nil : InotifyReader.retryInterval)
        // Folders the watch limit kept out: tried again whenever the reader wakes.
        unwatched = unwatched.filter { folder in
          guard FileSystem.linkStatus(of: folder) != nil else { return false }
          guard (try? inotify.watch(folder, recursive: true)) != nil else { return true }
          items.yield(.watchedAgain(folder))
          return false
        }
        guard let event else { continue }
        if event.folder == wakeFolder { return }
        if recursive, event.has(.isDirectory), event.has([.create, .movedTo]), !event.name.hasPrefix(".") {
          do { try inotify.watch(event.path, recursive: true) } catch {
            unwatched.append(event.path)
            items.yield(.unwatched(event.path, error))
          }
        }
        items.yield(.event(event))
      }
    }
  }
}
