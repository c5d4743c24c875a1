import Dispatch
import Foundation
import Logging
import Synchronization

/// Watches drop folders with inotify (libinotifytools) and turns the files that appear in
/// them into drops: a placeholder at once, the image committed where the placeholder stands
/// once the file is complete and has settled, or the placeholder removed.
///
/// One thread runs the loop and makes every libinotifytools call; images load on a pool of
/// one thread per core; saves are batched (placeholders within a few milliseconds, commits
/// at most every `commitInterval` while loads keep finishing).
public final class DropFolderWatcher {
  /// A file being imported.
  final class Tracked {
    let path: String
    let pair: Int
    var id: String?
    /// Set by IN_CLOSE_WRITE or IN_MOVED_TO (or found complete by a scan).
    var closed = false
    var stamp: (size: Int64, modified: Int64)?
    var deadline: Date?
    var loading = false
    /// What loading found, and the size and time the file had when the load began: it is
    /// committed once the settle time has passed with the file still the same.
    var outcome: Result<ProcessedImage, DropFailure>?
    var loadedStamp: (size: Int64, modified: Int64)?
    var gone = false
    var retried = false

    /// Forgets a load that the file's changes made stale.
    func changed(_ stamp: (size: Int64, modified: Int64)?, settle: TimeInterval) {
      self.stamp = stamp
      outcome = nil
      loadedStamp = nil
      deadline = Date() + settle
    }

    init(path: String, pair: Int) {
      self.path = path
      self.pair = pair
    }
  }

  struct LoadResult: Sendable {
    var path: String
    var outcome: Result<ProcessedImage, DropFailure>
  }

  /// Loads finished on the pool, waiting for the loop to commit them.
  final class Finished: Sendable {
    let results = Mutex<[LoadResult]>([])
    let inFlight = Atomic<Int>(0)
  }

  public let pairs: [DropFolder]
  let options: WatchOptions
  let logger: Logger
  let onEvent: (WatchEvent) -> Void
  /// Raised to stop the watcher (from a signal handler, say): see `stop()`.
  public let stopRequest = StopRequest()

  private var tracked: [String: Tracked] = [:]
  private var memories: [ImportMemory]
  private var settings: [GalleryModel.Settings]
  private let finished = Finished()
  private var inFlight: Int { finished.inFlight.load(ordering: .relaxed) }
  private let loadSlots: DispatchSemaphore
  private var lastCommit = Date.distantPast
  /// How long the last save took: in a long burst into a large document, saves are spaced
  /// so that saving never takes more than a small share of the time.
  private var lastSaveDuration: TimeInterval = 0
  private var firstUnsavedPlaceholder: Date?

  public init(
    pairs: [DropFolder], options: WatchOptions, logger: Logger,
    onEvent: @escaping (WatchEvent) -> Void
  ) throws {
    self.pairs = pairs
    self.options = options
    self.logger = logger
    self.onEvent = onEvent
    memories = pairs.map { ImportMemory(for: $0) }
    settings = try pairs.map { try GalleryDocument.open($0.document).model.settings }
    if options.afterCommit == .delete, !settings.allSatisfy({ options.embed ?? $0.embedOriginals }) {
      throw WatchError.deleteNeedsEmbedding
    }
    loadSlots = DispatchSemaphore(value: max(1, options.parallelism))
    for pair in pairs {
      var directory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: pair.folder, isDirectory: &directory), directory.boolValue else {
        throw WatchError.watch(pair.folder, ENOTDIR)
      }
    }
  }

  /// Asks the loop to finish: no new files are taken, loads in flight are committed, other
  /// placeholders removed, the documents saved.
  public func stop() { stopRequest.raise() }

  /// Runs until `stop()` (or, with `once`, until what is there has been imported).
  public func run() throws {
    try VipsRuntime.start()
    // Watches are set before the first scan, so nothing arriving meanwhile falls in between.
    let reader = options.once ? nil : try InotifyReader(folders: pairs.map(\.folder), recursive: options.recursive)
    for pair in pairs { logger.info("watching \(pair.folder) into \(pair.document)") }
    for index in pairs.indices { scan(pairs[index].folder, pair: index) }

    var failure: Error?
    while !stopRequest.isRaised {
      do {
        let busy = !tracked.isEmpty || inFlight > 0
        if let reader {
          for item in reader.next(timeout: busy ? 0.005 : 0.25) {
            switch item {
            case .event(let event): try handle(event)
            case .failure(let error): throw error
            case .unwatched(let folder, let error):
              // The other folders are still watched: keep going, and say so.
              logger.warning("\(error); the other folders are still watched, and this one is tried again")
              if let pair = pairIndex(for: folder + "/") { emit(.unwatched, folder: folder, pair: pair, reason: "\(error)") }
            case .watchedAgain(let folder):
              logger.info("watching \(folder) now")
              if let pair = pairIndex(for: folder + "/") {
                emit(.watched, folder: folder, pair: pair)
                scan(folder, pair: pair)
              }
            }
          }
        } else if !busy {
          break
        } else {
          usleep(2_000)
        }
        try savePlaceholders(force: false)
        startSettledLoads()
        try commitFinished(force: false)
      } catch {
        failure = error
        break
      }
    }
    try finish()
    for index in pairs.indices { emit(.stopped, folder: pairs[index].folder, pair: index) }
    if let failure { throw failure }
  }

  // MARK: - Events

  private func handle(_ event: InotifyEvent) throws {
    if event.has(.queueOverflow) {
      logger.warning("inotify queue overflowed: rescanning")
      for index in pairs.indices {
        emit(.rescan, folder: pairs[index].folder, pair: index, reason: "the inotify queue overflowed")
        scan(pairs[index].folder, pair: index)
      }
      return
    }
    guard let pair = pairIndex(for: event.path) else { return }
    if event.name.isEmpty || event.path == pairs[pair].folder + "/" {
      if event.has([.deleteSelf, .moveSelf, .unmount]),
        event.folder == pairs[pair].folder + "/"
      {
        throw WatchError.folderGone(pairs[pair].folder)
      }
      return
    }
    if event.has(.isDirectory) {
      // The reader has watched it already; files created before that are found by a scan.
      if options.recursive, event.has([.create, .movedTo]), !event.name.hasPrefix(".") {
        scan(event.path, pair: pair)
      }
      return
    }
    if event.has([.delete, .movedFrom]) {
      if let file = tracked[event.path] {
        file.gone = true
        if event.has(.movedFrom) { emit(.moved, file, id: file.id, reason: "moved out of the folder") }
      }
      return
    }
    guard !DropFolder.isTemporaryName(event.name) else { return }
    if event.has(.create) {
      appear(event.path, pair: pair)
    }
    if event.has([.closeWrite, .movedTo]), let file = appear(event.path, pair: pair) {
      file.closed = true
      file.gone = false
      file.changed(fileStamp(event.path), settle: options.settle)
    }
  }

  @discardableResult
  private func appear(_ path: String, pair: Int) -> Tracked? {
    if let file = tracked[path] { return file.loading ? nil : file }
    // Only regular files become drops: a symbolic link could point anywhere (/proc, a
    // device), and a FIFO would never complete.
    guard fileStamp(path) != nil else {
      if FileSystem.linkStatus(of: path) != nil { logger.info("ignored (not a regular file): \(path)") }
      return nil
    }
    let file = Tracked(path: path, pair: pair)
    tracked[path] = file
    if firstUnsavedPlaceholder == nil { firstUnsavedPlaceholder = Date() }
    return file
  }

  /// Takes every complete-looking file below `folder` not imported before.
  private func scan(_ folder: String, pair: Int) {
    let paths =
      options.recursive
      ? DropSourceParser.filesBelow(folder)
      : ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        .filter { !$0.hasPrefix(".") }.map { folder + "/" + $0 }
    let memory = memories[pair]
    let known = knownSources(pair: pair)
    for path in paths where !DropFolder.isTemporaryName((path as NSString).lastPathComponent) {
      guard let stamp = fileStamp(path) else { continue }
      if let file = tracked[path] {
        // Its close event may be among those an overflow lost: settle on what is there now.
        if !file.closed && !file.loading {
          file.closed = true
          file.changed(stamp, settle: options.settle)
        }
        continue
      }
      if memory.contains(path: path, size: stamp.size, modified: stamp.modified) { continue }
      if known.contains(URL(fileURLWithPath: path).standardizedFileURL.absoluteString) { continue }
      guard let file = appear(path, pair: pair) else { continue }
      file.closed = true
      file.stamp = stamp
      file.deadline = Date() + options.settle
    }
  }

  /// Sources the document already holds (also in its trash).
  private func knownSources(pair: Int) -> Set<String> {
    guard let model = try? GalleryDocument.open(pairs[pair].document).model else { return [] }
    return Set(model.items.map(\.source) + model.trash.map(\.item.source))
  }

  private func pairIndex(for path: String) -> Int? {
    pairs.indices.filter { path.hasPrefix(pairs[$0].folder + "/") }
      .max { pairs[$0].folder.count < pairs[$1].folder.count }
  }

  // MARK: - Placeholders, loads, commits

  private func savePlaceholders(force: Bool) throws {
    guard let first = firstUnsavedPlaceholder,
      force || Date().timeIntervalSince(first) >= max(options.placeholderDelay, lastSaveDuration * 2)
    else { return }
    firstUnsavedPlaceholder = nil
    let started = Date()
    defer { lastSaveDuration = Date().timeIntervalSince(started) }
    for pair in pairs.indices {
      let files = tracked.values.filter { $0.pair == pair && $0.id == nil && !$0.gone }.sorted { $0.path < $1.path }
      guard !files.isEmpty else { continue }
      let ids = try GalleryDocument.edit(pairs[pair].document) { edit in
        let ids = edit.newItemIDs(files.count)
        edit.model.insert(
          zip(ids, files).map {
            Item.placeholder(id: $0, source: URL(fileURLWithPath: $1.path).standardizedFileURL.absoluteString)
          },
          at: nil)
        return ids
      }
      for (id, file) in zip(ids, files) {
        file.id = id
        emit(.placeholder, file, id: id)
      }
      logger.debug("\(files.count) placeholder(s) in \(pairs[pair].document)")
    }
  }

  /// Starts loading closed files at once: the load runs during the settle time, and its
  /// result counts only if the file is still the same when that time is over.
  private func startSettledLoads() {
    let now = Date()
    for file in tracked.values where file.closed && !file.loading && file.outcome == nil && !file.gone && file.id != nil {
      // A retry waits for the settle time: the writer may still be at work.
      if file.retried, let deadline = file.deadline, deadline > now { continue }
      guard let stamp = fileStamp(file.path) else {
        file.gone = true
        continue
      }
      guard loadSlots.wait(timeout: .now()) == .success else { return }
      file.loading = true
      file.loadedStamp = stamp
      finished.inFlight.add(1, ordering: .relaxed)
      let path = file.path
      let imageOptions = ImageOptions(
        thumbnailSize: settings[file.pair].thumbnailSize, maxPixels: settings[file.pair].maxPixels,
        keepOriginal: options.embed ?? settings[file.pair].embedOriginals, followLinks: false)
      DispatchQueue.global().async { [finished, loadSlots] in
        let outcome = LocalImageLoader.load(path: path, options: imageOptions)
        finished.results.withLock { $0.append(LoadResult(path: path, outcome: outcome)) }
        finished.inFlight.subtract(1, ordering: .relaxed)
        loadSlots.signal()
      }
    }
  }

  /// Files whose load is done and whose settle time has passed unchanged.
  private func settledFiles() -> [Tracked] {
    let now = Date()
    var settled: [Tracked] = []
    for file in tracked.values where file.outcome != nil && !file.loading && !file.gone {
      guard let deadline = file.deadline, deadline <= now else { continue }
      let stamp = fileStamp(file.path)
      guard let stamp else {
        file.gone = true
        continue
      }
      // Written again since the load began: load again once it settles.
      if file.loadedStamp.map({ $0 != stamp }) ?? true {
        file.changed(stamp, settle: options.settle)
        continue
      }
      settled.append(file)
    }
    return settled
  }

  private func commitFinished(force: Bool) throws {
    let batch = finished.results.withLock { results in
      defer { results.removeAll() }
      return results
    }
    for result in batch {
      guard let file = tracked[result.path] else { continue }
      file.loading = false
      file.outcome = result.outcome
    }
    let settled = settledFiles()
    let goneWaiting = tracked.values.contains { $0.gone && !$0.loading }
    guard !settled.isEmpty || goneWaiting else { return }
    let settledPaths = Set(settled.map(\.path))
    let loadsPending = tracked.values.contains { file in
      file.loading || (file.outcome != nil && !file.gone && !settledPaths.contains(file.path))
    }
    let interval = max(options.commitInterval, lastSaveDuration * 10)
    guard force || !loadsPending || Date().timeIntervalSince(lastCommit) >= interval else { return }
    lastCommit = Date()
    defer { lastSaveDuration = Date().timeIntervalSince(lastCommit) }
    for pair in pairs.indices {
      try commit(settled.filter { $0.pair == pair }, pair: pair)
    }
  }

  private func commit(_ files: [Tracked], pair: Int) throws {
    var loaded: [(file: Tracked, image: ProcessedImage, source: String?)] = []
    var rejected: [(file: Tracked, reason: String)] = []
    for file in files {
      guard let outcome = file.outcome else { continue }
      switch outcome {
      case .success(let image):
        var source: String?
        if case .move(let folder) = options.afterCommit, let moved = moveAside(file.path, into: folder) {
          source = URL(fileURLWithPath: moved).standardizedFileURL.absoluteString
        }
        loaded.append((file, image, source))
      case .failure(let failure):
        // A writer may have reopened the file: one more try after the settle time.
        if !file.retried, failure.reason != ImageRefusal.notAnImage.description, fileStamp(file.path) != nil {
          file.retried = true
          file.changed(fileStamp(file.path), settle: options.settle)
          continue
        }
        rejected.append((file, failure.reason))
      }
    }
    let gone = tracked.values.filter { $0.pair == pair && $0.gone && !$0.loading }
    guard !loaded.isEmpty || !rejected.isEmpty || !gone.isEmpty else { return }

    var duplicates: [Tracked] = []
    try GalleryDocument.edit(pairs[pair].document) { edit in
      var hashes = Set(edit.model.items.compactMap(\.hash) + edit.model.trash.compactMap(\.item.hash))
      var accepted: [(id: String, image: ProcessedImage)] = []
      for (file, image, _) in loaded {
        guard let id = file.id else { continue }
        if !options.allowDuplicates, !hashes.insert(image.hash).inserted {
          duplicates.append(file)
          continue
        }
        accepted.append((id, image))
      }
      let removed = (duplicates + rejected.map(\.file) + gone).compactMap(\.id)
      _ = PlaceholderCommit.apply(loaded: accepted, failed: [], cancelled: removed, keepFailed: false, to: &edit)
      for (file, _, source) in loaded {
        if let source, let index = edit.model.items.firstIndex(where: { $0.id == file.id }) {
          edit.model.items[index].source = source
        }
      }
    }
    // Durably saved: now the files may be remembered, moved aside, reported.
    var remembered: [(path: String, record: ImportMemory.Record)] = []
    for (file, image, source) in loaded {
      tracked[file.path] = nil
      if duplicates.contains(where: { $0 === file }) {
        emit(.duplicate, file, id: file.id, reason: "the document has this image already (\(image.hash))")
        logger.info("duplicate of an image already in the document: \(file.path)")
      } else {
        emit(.committed, file, id: file.id, path: source.flatMap { URL(string: $0)?.path })
        logger.info("committed \(file.path)")
        // Its bytes are inside the document, which is on disk (fsynced) by now.
        if options.afterCommit == .delete, image.original != nil {
          FileSystem.remove(file.path)
          continue
        }
      }
      if let stamp = fileStamp(source.flatMap { URL(string: $0)?.path } ?? file.path) {
        remembered.append((file.path, ImportMemory.Record(size: stamp.size, modified: stamp.modified, hash: image.hash)))
      }
    }
    memories[pair].remember(remembered)
    for (file, reason) in rejected {
      tracked[file.path] = nil
      var moved: String?
      if let folder = options.rejectTo { moved = moveAside(file.path, into: folder) }
      emit(.rejected, file, id: file.id, reason: reason)
      logger.warning("not an image we can use: \(file.path): \(reason)\(moved.map { " (moved to \($0))" } ?? "")")
    }
    for file in gone {
      tracked[file.path] = nil
      if file.id != nil { emit(.removed, file, id: file.id, reason: "the file went away before it was complete") }
      logger.info("gone before it was complete: \(file.path)")
    }
  }

  /// Stops cleanly: commits what is loading, removes the other placeholders, saves.
  private func finish() throws {
    while inFlight > 0 { usleep(2_000) }
    for result in finished.results.withLock({ $0 }) {
      tracked[result.path]?.outcome = result.outcome
      tracked[result.path]?.loading = false
    }
    finished.results.withLock { $0.removeAll() }
    // Loaded and unchanged since: commit. Anything else: take its placeholder back.
    var complete: [Tracked] = []
    for file in tracked.values {
      if case .success = file.outcome, let stamp = fileStamp(file.path), file.loadedStamp.map({ $0 == stamp }) ?? false {
        complete.append(file)
      } else {
        file.gone = true
      }
    }
    for pair in pairs.indices { try commit(complete.filter { $0.pair == pair }, pair: pair) }
    tracked.removeAll()
  }

  /// Moves a file into a folder under a free name; returns the new path.
  private func moveAside(_ path: String, into folder: String) -> String? {
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for name in FileSystem.candidateNames(for: (path as NSString).lastPathComponent, separator: "-", count: 1000) {
      let candidate = folder + "/" + name
      do {
        try FileSystem.renameWithoutReplacing(path, to: candidate)
        return candidate
      } catch  where error.errno == EXDEV {
        guard (try? FileManager.default.copyItem(atPath: path, toPath: candidate)) != nil else { continue }
        FileSystem.remove(path)
        return candidate
      } catch  where error.errno == EEXIST {
        continue
      } catch {
        return nil
      }
    }
    return nil
  }

  private func emit(_ kind: WatchEvent.Kind, folder: String, pair: Int, reason: String? = nil) {
    onEvent(WatchEvent(event: kind, path: folder, document: pairs[pair].document, id: nil, reason: reason))
  }

  private func emit(_ kind: WatchEvent.Kind, _ file: Tracked, id: String?, reason: String? = nil, path: String? = nil) {
    onEvent(WatchEvent(event: kind, path: path ?? file.path, document: pairs[file.pair].document, id: id, reason: reason))
  }
}

/// A flag that asks a running watcher to stop, safe to raise from any thread.
public final class StopRequest: Sendable {
  private let raised = Atomic<Bool>(false)
  public init() {}
  public func raise() { raised.store(true, ordering: .relaxed) }
  public var isRaised: Bool { raised.load(ordering: .relaxed) }
}
