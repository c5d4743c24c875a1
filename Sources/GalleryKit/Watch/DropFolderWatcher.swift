import Foundation
import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem
import Logging
import ServiceLifecycle
import Synchronization

/// Watches drop folders with inotify (libinotifytools) and turns the files that appear in
/// them into drops: a placeholder at once, the image committed where the placeholder stands
/// once the file is complete and has settled, or the placeholder removed.
///
/// The rules are `WatchStateMachine`'s; this is the shell that feeds it (inotify events, the
/// loads that end, the clock) and performs what it asks (scans, saves, loads, reports), in one
/// task: the loads run in child tasks on the image loader's decoding threads, and every input
/// reaches the loop through one stream. A graceful shutdown (SIGINT or SIGTERM through a
/// `ServiceGroup`) stops it the careful way: no new files, what is loading is committed,
/// other placeholders are removed, the documents saved.
public struct DropFolderWatcher: Service {
  public let pairs: [DropFolder]
  let options: WatchOptions
  let logger: Logger
  let onEvent: @Sendable (WatchEvent) -> Void
  private let imageOptions: [ImageOptions]

  public init(
    pairs: [DropFolder], options: WatchOptions, logger: Logger,
    onEvent: @escaping @Sendable (WatchEvent) -> Void
  ) throws {
    let pairs = Self.followingRenames(pairs, options: options, logger: logger)
    self.pairs = pairs
    self.options = options
    self.logger = logger
    self.onEvent = onEvent
    let heads = try pairs.map { try GalleryDocument.openLazily($0.document).modelWithoutItems }
    let settings = heads.map(\.settings)
    if options.afterCommit == .delete, !settings.allSatisfy({ options.embed ?? $0.embedOriginals }) {
      throw WatchError.deleteNeedsEmbedding
    }
    imageOptions = settings.map {
      ImageOptions(
        thumbnailSize: $0.thumbnailSize, maxPixels: $0.maxPixels, keepOriginal: options.embed ?? $0.embedOriginals,
        followLinks: false)
    }
    for pair in pairs where !FileSystem.isDirectory(pair.folder) {
      throw WatchError.notAFolder(pair.folder)
    }
    for (pair, head) in zip(pairs, heads) {
      DocumentTrace(pair, head: head)?.save(for: pair, stateFolder: options.stateFolder)
    }
  }

  /// The pairs, each whose folder or document is gone from its name followed to the name
  /// it was given while no watcher ran (see `DocumentTrace`), with a warning; the
  /// configuration files that name it, and the import memory of the pair, follow it too.
  private static func followingRenames(_ pairs: [DropFolder], options: WatchOptions, logger: Logger) -> [DropFolder] {
    var pairs = pairs
    // First the folders: the traces are kept by the folder and document as given.
    for index in pairs.indices where FileSystem.linkStatus(of: pairs[index].folder) == nil {
      let pair = pairs[index]
      guard let found = DocumentTrace.load(for: pair, stateFolder: options.stateFolder)?.folder(beside: pair.folder)
      else { continue }
      let followed = WatchConfig.follow(
        renameOfFolder: pair.folder, to: found, also: options.configFile, stateFolder: options.stateFolder)
      logger.warning(
        "\(renamedMessage(from: pair.folder, to: found, followed: followed, fromConfig: options.configFile != nil, folder: true))"
      )
      for other in pairs.indices where pairs[other].folder == pair.folder {
        let renamed = DropFolder(folder: found, document: pairs[other].document)
        ImportMemory.follow(pairs[other], to: renamed, stateFolder: options.stateFolder)
        pairs[other].folder = found
      }
    }
    var lookedFor: Set<String> = []
    var renamed: [String: String] = [:]
    for index in pairs.indices where FileSystem.linkStatus(of: pairs[index].document) == nil {
      let pair = pairs[index]
      // Two folders may drop into one document: it is looked for once.
      if lookedFor.insert(pair.document).inserted {
        switch DocumentTrace.load(for: pair, stateFolder: options.stateFolder)?.find(beside: pair.document) {
        case .renamed(let found):
          let new = XDGDirectory.standardized(found)
          renamed[pair.document] = new
          let followed = WatchConfig.follow(
            renameOf: pair.document, to: new, also: options.configFile, stateFolder: options.stateFolder)
          logger.warning(
            "\(renamedMessage(from: pair.document, to: new, followed: followed, fromConfig: options.configFile != nil))")
        case .several(let paths):
          let names = paths.map(PathBytes.displayed).joined(separator: ", ")
          logger.warning(
            "\(PathBytes.displayed(pair.document)) is gone, and \(names) each continue it: name the one to watch into")
        case .nowhere, nil: break
        }
      }
      guard let new = renamed[pair.document] else { continue }
      ImportMemory.follow(pair, to: DropFolder(folder: pair.folder, document: new), stateFolder: options.stateFolder)
      pairs[index].document = new
    }
    return pairs
  }

  /// What the watcher says when a document it saves into (or a folder it watches) was
  /// renamed.
  static func renamedMessage(
    from: String, to: String, followed: WatchConfig.Followed, fromConfig: Bool, folder: Bool = false
  ) -> String {
    let what = folder ? "the drop folder " : ""
    let doing = folder ? "watching it" : "watching into it"
    var message =
      "\(what)\(PathBytes.displayed(from)) was renamed to \(PathBytes.displayed(to)): \(doing) under its new name"
    if !followed.rewritten.isEmpty {
      let files = followed.rewritten.map(PathBytes.displayed).joined(separator: ", ")
      message += "; \(files) now name\(followed.rewritten.count == 1 ? "s" : "") it"
    }
    if !followed.unwritable.isEmpty {
      message +=
        "; " + followed.unwritable.map(PathBytes.displayed).joined(separator: ", ")
        + " could not be rewritten and need the new name before the next start"
    } else if !fromConfig {
      message += " (a unit that names the old one needs the new one before the next start)"
    }
    return message
  }

  var configuration: WatchStateMachine.Configuration {
    var configuration = WatchStateMachine.Configuration(folders: pairs.map(\.folder))
    configuration.recursive = options.recursive
    configuration.settle = .seconds(options.settle)
    configuration.placeholderDelay = .seconds(options.placeholderDelay)
    configuration.commitInterval = .seconds(options.commitInterval)
    configuration.parallelism = options.parallelism
    configuration.afterCommit = options.afterCommit
    configuration.rejectTo = options.rejectTo
    configuration.once = options.once
    return configuration
  }

  /// Runs until a graceful shutdown (or, with `once`, until what is there has been
  /// imported). Cancellation ends it at once, leaving placeholders (stale, retried later).
  /// libvips is loaded by the first image that needs it: a watcher that only ever sees
  /// plain JPEGs never loads it (memory it would keep resident, and time at start).
  public func run() async throws {
    if options.once { return try await watch(nil) }
    do {
      // Watches are set before the first scan, so nothing arriving meanwhile falls in between.
      try await InotifyReader.reading(folders: pairs.map(\.folder), recursive: options.recursive) { events in
        try await watch(events)
      }
    } catch WatchError.folderGone(let folder) {
      // A folder renamed or moved within its parent (a file manager) is watched again under
      // its new name, as a start finds it; one deleted or moved elsewhere ends the watcher.
      guard let again = try? DropFolderWatcher(pairs: pairs, options: options, logger: logger, onEvent: onEvent),
        again.pairs.map(\.folder) != pairs.map(\.folder)
      else {
        for pair in pairs { report(.stopped, path: pair.folder, document: pair.document) }
        throw WatchError.folderGone(folder)
      }
      for (before, now) in zip(pairs, again.pairs) where before.folder != now.folder {
        report(.watched, path: now.folder, document: now.document)
      }
      try await again.run()
    }
  }

  private enum Input: Sendable {
    case inotify(InotifyItem)
    case event(WatchStateMachine.Event)
    case tick(ContinuousClock.Instant)
    case stop
  }

  private func watch(_ events: AsyncStream<InotifyItem>?) async throws {
    guard !pairs.isEmpty else { return }
    let clock = ContinuousClock()
    var machine = WatchStateMachine(configuration, allowDuplicates: options.allowDuplicates, now: clock.now)
    var dropOptions = DropOptions()
    dropOptions.parallelism = options.parallelism
    let loader = ImageLoader(imageOptions: imageOptions[0], options: dropOptions, needsWeb: false)
    let stopRequested = StopRequest()
    var performer = ActionPerformer(watcher: self, stopRequested: stopRequested)
    // Said once each document is held (see `FollowedDocument`): from here a rename is
    // followed.
    for pair in pairs { logger.info("watching \(pair.folder) into \(pair.document)") }
    let (inputs, input) = AsyncStream.makeStream(of: Input.self)

    let outcome: Result<Void, any Error> = await withGracefulShutdownHandler {
      await withTaskGroup(of: Void.self) { group in
        if let events {
          group.addTask {
            for await item in events { input.yield(.inotify(item)) }
          }
        }
        var armed: ContinuousClock.Instant?

        func run(_ actions: [WatchStateMachine.Action]) async throws {
          var queue = actions[...]
          while let action = queue.popFirst() {
            if case .load(let path, let pair) = action {
              guard let stamp = FileSystem.stamp(of: path, askingWriters: true) else {
                queue += machine.event(.vanished(path: path), now: clock.now)
                continue
              }
              let options = imageOptions[pair]
              group.addTask {
                let outcome: Result<ProcessedImage, DropFailure> =
                  switch await loader.load(DropSource(given: path, location: .file(path: path)), options: options) {
                  case .loaded(let image): .success(image)
                  case .failed(let failure): .failure(failure)
                  case .cancelled: .failure(DropFailure(source: path, reason: "cancelled"))
                  }
                input.yield(.event(.loaded(path: path, stamp: stamp, outcome: outcome)))
              }
              continue
            }
            queue += machine.events(try await performer.perform(action), now: clock.now)
          }
          performer.flush()
        }

        do {
          try await run(machine.start())
          var iterator = inputs.makeAsyncIterator()
          while !machine.isFinished {
            if let deadline = machine.nextDeadline, armed.map({ deadline < $0 }) ?? true {
              armed = deadline
              group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                input.yield(.tick(deadline))
              }
            }
            // Ends when the task is cancelled: a hard stop.
            guard let next = await iterator.next() else { break }
            switch next {
            case .inotify(let item):
              try await run(performer.translate(item, into: &machine, now: clock.now))
            case .event(let event):
              try await run(machine.event(event, now: clock.now))
            case .tick(let deadline):
              if armed == deadline { armed = nil }
              try await run(machine.tick(now: clock.now))
            case .stop:
              try await run(machine.stop(now: clock.now))
            }
          }
          group.cancelAll()
          return .success(())
        } catch {
          group.cancelAll()
          return .failure(error)
        }
      }
    } onGracefulShutdown: {
      stopRequested.request()
      input.yield(.stop)
    }
    await loader.shutdown()
    // A folder gone may have been renamed: `run` says whether the watcher stops.
    var folderGone = false
    if case .failure(WatchError.folderGone) = outcome { folderGone = true }
    for index in pairs.indices {
      let document = performer.document(of: index)
      if !folderGone { report(.stopped, path: pairs[index].folder, document: document) }
      // A revision it holds now: what the next start looks for, under the name it was
      // given (a command line that names it so again) and the one it has now.
      let given = pairs[index]
      let now = DropFolder(folder: given.folder, document: document)
      let stateFolder = options.stateFolder
      _ = try? await BlockingWork.run {
        guard let trace = DocumentTrace.current(of: now) else { return }
        for pair in given.document == document ? [given] : [given, now] { trace.save(for: pair, stateFolder: stateFolder) }
      }
    }
    try outcome.get()
  }

  func report(_ kind: WatchEvent.Kind, path: String, document: String, id: String? = nil, reason: String? = nil) {
    onEvent(WatchEvent(event: kind, path: path, document: document, id: id, reason: reason))
  }

  /// Set once a graceful shutdown is asked for: seen by work that waits inside an action
  /// (a save waiting for room on the disk), which the loop's `.stop` input cannot reach.
  private final class StopRequest: Sendable {
    private let requested = Atomic(false)
    func request() { requested.store(true, ordering: .relaxed) }
    var isRequested: Bool { requested.load(ordering: .relaxed) }
  }

  /// Performs the actions of the state machine that touch the world (the documents, the
  /// files, the logs), and says what they found.
  private struct ActionPerformer {
    let watcher: DropFolderWatcher
    let stopRequested: StopRequest
    var memories: [ImportMemory]
    /// Imported files to remember, written once the actions of an input are done.
    private var remembered: [[(path: String, record: ImportMemory.Record)]]
    /// What each document holds by source and content, as last seen (by the document's path
    /// as given: two folders may drop into one).
    private var censuses: [String: ContentCensus] = [:]
    /// Files a scan found with a stale placeholder of their own (a watcher killed while it
    /// imported them), by path: their placeholder is taken over, not made again.
    private var resuming: [String: String] = [:]
    /// The pairs whose `--then move:` folder was looked at for files a killed watcher moved.
    private var lookedAside: Set<Int> = []
    /// Each pair's document, followed to its new name when it is renamed or moved while the
    /// watcher runs (`gallery rename`, a file manager); pairs into one document share it.
    private let documents: [FollowedDocument]

    init(watcher: DropFolderWatcher, stopRequested: StopRequest) {
      self.watcher = watcher
      self.stopRequested = stopRequested
      memories = watcher.pairs.map { ImportMemory(for: $0, stateFolder: watcher.options.stateFolder) }
      remembered = watcher.pairs.map { _ in [] }
      var byPath: [String: FollowedDocument] = [:]
      let logger = watcher.logger
      let configFile = watcher.options.configFile
      let stateFolder = watcher.options.stateFolder
      documents = watcher.pairs.map { pair in
        if let shared = byPath[pair.document] { return shared }
        let document = FollowedDocument(pair.document) { from, to in
          // It writes files, and the one who noticed may be on the cooperative pool.
          Task {
            let followed = try? await BlockingWork.run {
              WatchConfig.follow(renameOf: from, to: to, also: configFile, stateFolder: stateFolder)
            }
            logger.warning(
              "\(DropFolderWatcher.renamedMessage(from: from, to: to, followed: followed ?? .init(), fromConfig: configFile != nil))"
            )
          }
        }
        byPath[pair.document] = document
        return document
      }
    }

    /// The document of `pair` as it is named now.
    func document(of pair: Int) -> String { documents[pair].path }

    /// Edits the document of `pair` under its name now (see `FollowedDocument`); returns
    /// the name it was saved under.
    ///
    /// A save the disk has no room for waits for room and is made again (on the document as
    /// it is then): a watcher that stopped would leave what arrives meanwhile unimported,
    /// and one that its unit restarts would load every waiting file again and again. Not
    /// with `--once`, nor once asked to stop: the error is thrown.
    private func edit<T: Sendable>(
      _ pair: Int, _ body: @escaping @Sendable (inout DocumentEdit) throws -> T
    ) async throws -> (result: T, document: String) {
      let document = documents[pair]
      var waited = false
      while true {
        do {
          let result = try await BlockingWork.run { (try document.edit(body), document.path) }
          if waited {
            logger.notice("\(PathBytes.displayed(result.1)): saved, with room on the disk again")
            report(.resumed, path: pairs[pair].folder, pair: pair)
          }
          return result
        } catch  where Self.isFullDisk(error) && !watcher.options.once && !stopRequested.isRequested {
          // The room there is now, before anything else: room made from here on is seen.
          let room = FileSystem.availableBytes(at: document.path)
          if !waited {
            logger.warning(
              "\(error): waiting for room on the disk, then saving again (SIGTERM stops waiting; what is not saved keeps its placeholder)"
            )
            report(.waiting, path: pairs[pair].folder, pair: pair, reason: "\(error)")
          }
          waited = true
          guard await waitForRoom(beside: document.path, moreThan: room) else { throw error }
        }
      }
    }

    /// Whether a save failed for want of room (a full disk, a quota).
    static func isFullDisk(_ error: any Error) -> Bool {
      var cause = error
      if case DocumentError.saveFailed(_, let underlying) = error { cause = underlying }
      return [ENOSPC, EDQUOT].contains(SystemErrorText.errorNumber(of: cause))
    }

    /// How long a save waits for the disk to gain room before it is tried again all the
    /// same (room a quota gives back is not seen in the filesystem's free space).
    static let roomRetry: Duration = .seconds(10)

    /// Waits until the filesystem of `document` has more room than `room`, or `roomRetry`
    /// has passed; false when the watcher is asked to stop (or cancelled) meanwhile.
    private func waitForRoom(beside document: String, moreThan room: Int64?) async -> Bool {
      let deadline = ContinuousClock.now + Self.roomRetry
      while !stopRequested.isRequested {
        guard (try? await Task.sleep(for: .milliseconds(250))) != nil else { return false }
        if ContinuousClock.now >= deadline { return true }
        if let room, let now = FileSystem.availableBytes(at: document), now > room { return true }
      }
      return false
    }

    func report(_ kind: WatchEvent.Kind, path: String, pair: Int, id: String? = nil, reason: String? = nil) {
      watcher.report(kind, path: path, document: document(of: pair), id: id, reason: reason)
    }

    var logger: Logger { watcher.logger }
    var pairs: [DropFolder] { watcher.pairs }

    /// Feeds an inotify item to the machine.
    func translate(
      _ item: InotifyItem, into machine: inout WatchStateMachine, now: ContinuousClock.Instant
    ) -> [WatchStateMachine.Action] {
      switch item {
      case .event(let event):
        if event.has(.queueOverflow) { logger.warning("inotify queue overflowed: rescanning") }
        // Only a file that may become a drop is stat'ed: not for a delete, a folder, an
        // overflow or a watch removed since (no folder).
        let mayBecomeDrop =
          !event.folder.isEmpty && event.has([.create, .closeWrite, .movedTo]) && !event.has(.isDirectory)
        let stamp = mayBecomeDrop ? FileSystem.stamp(of: event.path, askingWriters: true) : nil
        guard let translated = WatchStateMachine.translate(event, stamp: stamp, configuration: machine.configuration)
        else {
          if mayBecomeDrop, stamp == nil, !event.name.isEmpty,
            !DropFolder.isTemporaryName(event.name), FileSystem.linkStatus(of: event.path) != nil
          {
            logger.info("ignored (not a regular file): \(event.path)")
          }
          return []
        }
        return machine.event(translated, now: now)
      case .unwatched(let folder, let error):
        // The other folders are still watched: keep going, and say so.
        logger.warning("\(error); the other folders are still watched, and this one is tried again")
        return machine.event(.unwatched(folder: folder, reason: "\(error)"), now: now)
      case .watchedAgain(let folder):
        logger.info("watching \(folder) now")
        return machine.event(.watchedAgain(folder: folder), now: now)
      }
    }

    /// Performs one action; what blocks (a lock waited for, an fsync, a document read) runs
    /// on `BlockingWork`'s threads.
    mutating func perform(_ action: WatchStateMachine.Action) async throws -> [WatchStateMachine.Event] {
      switch action {
      case .savePlaceholders(let pair, let paths):
        let started = ContinuousClock.now
        let folder = pairs[pair].folder
        let resumed = resuming
        for path in paths { resuming[path] = nil }
        let (ids, document) = try await edit(pair) { edit in
          edit.summary = "watch \(PathBytes.displayed(folder)): " + JournalRecord.counted(paths.count, "file")
          // Their loads are committed by saves that follow.
          edit.saveFollows = true
          let taken = try Self.takeOver(paths.map { resumed[$0] }, sources: paths.map(DropSource.fileURL), in: &edit)
          let newPaths = zip(paths, taken).filter { $1 == nil }.map(\.0)
          let new = try edit.newItemIDs(newPaths.count)
          edit.insert(zip(new, newPaths).map { Item.placeholder(id: $0, source: DropSource.fileURL($1)) }, at: nil)
          var fresh = new[...]
          return taken.map { $0 ?? fresh.removeFirst() }
        }
        logger.debug("\(paths.count) placeholder(s) in \(document)")
        return [.placeholdersSaved(pair: pair, paths: paths, ids: ids, took: ContinuousClock.now - started)]

      case .load:
        preconditionFailure("loads start in the watcher's task group")

      case .examine(let paths):
        return [.examined(paths.map { ($0, FileSystem.stamp(of: $0, askingWriters: true)) })]

      case .scan(let folder, let pair):
        return await scan(folder, pair: pair)

      case .commit(let commit):
        return [.committed(try await save(commit))]

      case .report(let kind, let path, let pair, let id, let reason):
        report(kind, path: path, pair: pair, id: id, reason: reason)
        switch kind {
        case .committed: logger.info("committed \(path)")
        case .duplicate: logger.info("duplicate of an image already in the document: \(path)")
        case .rejected: logger.warning("not an image we can use: \(path): \(reason ?? "")")
        case .removed: logger.info("gone before it was complete: \(path)")
        case .rescan, .unwatched: break  // logged where they were seen
        default: break
        }
        return []

      case .remember(let path, let source, let pair, let hash):
        if let stamp = FileSystem.stamp(of: source, askingWriters: true) {
          remembered[pair].append((path, ImportMemory.Record(size: stamp.size, modified: stamp.modified, hash: hash)))
        }
        return []

      case .deleteSource(let path):
        _ = FileSystem.remove(path)
        return []

      case .fail(let error):
        throw error
      }
    }

    /// Writes down what was imported (where the document is named now: see `ImportMemory`).
    mutating func flush() {
      for pair in remembered.indices where !remembered[pair].isEmpty {
        memories[pair].follow(document: document(of: pair))
        memories[pair].remember(remembered[pair])
        remembered[pair].removeAll()
      }
    }

    /// Every complete-looking file below `folder` not imported before.
    private mutating func scan(_ folder: String, pair: Int) async -> [WatchStateMachine.Event] {
      // What a killed watcher left is there before this one starts: looked for once.
      if case .move(let aside) = watcher.options.afterCommit, lookedAside.insert(pair).inserted {
        await returnMovedAside(below: folder, from: aside, pair: pair)
      }
      let paths =
        watcher.options.recursive
        ? DropSourceParser.filesBelow(folder)
        : ((try? FileSystem.entries(of: folder)) ?? []).sorted()
          .filter { !$0.hasPrefix(".") }.map { folder + "/" + $0 }
      let memory = memories[pair]
      // Files the watcher moves away or deletes once imported leave the folder for good. A
      // kept file that is gone may come back (a card taken out and put in again): its
      // memory keeps an item the user removed from coming back with it.
      if watcher.options.afterCommit != .keep { memory.forget(allBut: paths) }
      let candidates = paths.compactMap { path -> (path: String, stamp: FileStamp)? in
        guard !DropFolder.isTemporaryName((path as NSString).lastPathComponent),
          let stamp = FileSystem.stamp(of: path, askingWriters: true),
          !memory.contains(path: path, size: stamp.size, modified: stamp.modified)
        else { return nil }
        return (path, stamp)
      }
      // The document is read only when there is something to compare: a watcher started on
      // an empty folder beside 100,000 items does not wait for it.
      guard !candidates.isEmpty else { return [] }
      let document = document(of: pair)
      // Counted once from every item (read on both cores), then brought forward by records.
      let previous = censuses[pairs[pair].document]
      let sources = candidates.map { DropSource.fileURL($0.path) }
      let looked = try? await BlockingWork.run { () throws -> (ContentCensus, [Finding]) in
        let opened = try previous == nil ? GalleryDocument.open(document) : GalleryDocument.openLazily(document)
        let census = try ContentCensus.current(
          previous, revision: opened.modelWithoutItems.revision, revisionID: opened.modelWithoutItems.revisionID,
          history: opened.layout.history
        ) { try previous == nil ? opened.model : GalleryDocument.open(document).model }
        // A file the document holds as a stale placeholder was being imported by a
        // watcher that was killed: it is imported now, into that placeholder. The items are
        // read only when the summary counts stale placeholders (or lists as many owners as
        // it can: the last then counts those of the rest).
        let held = Set(sources.filter(census.holds(source:)))
        var stale: [String: String] = [:]
        if !held.isEmpty,
          opened.layout.summary.map({ $0.stale > 0 || $0.placeholders.count >= DocumentSummary.ownerLimit }) ?? true
        {
          stale = try Self.stalePlaceholders(of: held, in: previous == nil ? opened : GalleryDocument.open(document))
        }
        let findings = zip(candidates, sources).map { candidate, source in
          Self.finding(candidate.path, stamp: candidate.stamp, source: source, census: census, stale: stale)
        }
        return (census, findings)
      }
      guard let (known, findings) = looked else {
        return candidates.map { .found(path: $0.path, pair: pair, stamp: $0.stamp) }
      }
      censuses[pairs[pair].document] = known
      var found: [WatchStateMachine.Event] = []
      var same: [(path: String, record: ImportMemory.Record)] = []
      for (candidate, finding) in zip(candidates, findings) {
        switch finding {
        case .new: break
        case .resuming(let id): resuming[candidate.path] = id
        case .held: continue
        case .imported(let hash, let keptOriginal):
          // A watcher killed between a commit and `--then delete` left the file.
          if watcher.options.afterCommit == .delete, keptOriginal, FileSystem.remove(candidate.path) {
            logger.info("deleted \(candidate.path): the document holds it already")
            continue
          }
          let stamp = candidate.stamp
          same.append((candidate.path, ImportMemory.Record(size: stamp.size, modified: stamp.modified, hash: hash)))
          continue
        }
        found.append(.found(path: candidate.path, pair: pair, stamp: candidate.stamp))
      }
      // Looked at once: the next scan passes them by their size and time.
      memories[pair].remember(same)
      return found
    }

    /// `--then move:DIR` moves a file aside just before the save that commits it. A watcher
    /// killed between the two left a stale placeholder naming the file where it was, and
    /// the file in DIR under its name or the next free one: the file goes back to its name,
    /// and the scan then imports it into its placeholder as it does any file a killed
    /// watcher left. A file of DIR is taken only if no item names it and it arrived there
    /// after the placeholder was made. The items are read only when the summary counts
    /// stale placeholders.
    private func returnMovedAside(below folder: String, from aside: String, pair: Int) async {
      let (document, recursive) = (document(of: pair), watcher.options.recursive)
      let returned = try? await BlockingWork.run { () throws -> [(from: String, to: String)] in
        let summary = try GalleryDocument.summary(document).summary
        guard summary.stale > 0 || summary.placeholders.count >= DocumentSummary.ownerLimit else { return [] }
        let model = try GalleryDocument.open(document).model
        let named = Set(model.items.map(\.source) + model.trash.map(\.item.source))
        let base = XDGDirectory.standardized(folder) + "/"
        var returned: [(from: String, to: String)] = []
        for item in model.items where item.displayState == .stale {
          guard let since = item.placeholder?.since,
            case .success(let source) = DropSourceParser.source(for: item.source, checkingFiles: false),
            case .file(let path) = source.location, path.hasPrefix(base),
            recursive || !path.dropFirst(base.count).contains("/"), FileSystem.linkStatus(of: path) == nil
          else { continue }
          for name in FileSystem.candidateNames(for: (path as NSString).lastPathComponent, separator: "-", count: Self.asideNames)
          {
            let candidate = aside + "/" + name
            guard let status = FileSystem.linkStatus(of: candidate) else { break }
            guard (status.st_mode & S_IFMT) == S_IFREG, !named.contains(DropSource.fileURL(candidate)),
              Double(status.st_ctim.tv_sec) >= since.timeIntervalSince1970.rounded(.down)
            else { continue }
            if Self.move(candidate, to: path) { returned.append((candidate, path)) }
            break
          }
        }
        return returned
      }
      for move in returned ?? [] {
        logger.info("moved \(move.from) back to \(move.to): a watcher was stopped before committing it")
      }
    }

    /// What a scan makes of a file not remembered as imported.
    private enum Finding {
      /// To import: the document has no item of its name, or none with its content.
      case new
      /// To import into this stale placeholder of its name.
      case resuming(String)
      /// Imported already (`hash`): an item of its name holds its content (and its bytes,
      /// `keptOriginal`).
      case imported(hash: String, keptOriginal: Bool)
      /// An item of its name has no content yet (a placeholder another process loads, a
      /// failed item): left alone.
      case held
    }

    private static func finding(
      _ path: String, stamp: FileStamp, source: String, census: ContentCensus, stale: [String: String]
    ) -> Finding {
      guard census.holds(source: source) else { return .new }
      if let id = stale[source] { return .resuming(id) }
      guard let contents = census.contents(of: source) else { return .held }
      // Its name may have been given to other content since (a camera's numbering starts
      // again after a card is formatted): it is read only when its size is one of theirs.
      guard contents.contains(where: { Int64($0.bytes) == stamp.size }),
        let data = try? FileSystem.read(path, limit: Int(stamp.size))
      else { return .new }
      let hash = contentHash(of: data)
      let same = contents.filter { $0.bytes == data.count && $0.hash == hash }
      return same.isEmpty ? .new : .imported(hash: hash, keptOriginal: same.contains(where: \.keepsOriginal))
    }

    /// The first stale placeholder of each source among `sources`, by source.
    private static func stalePlaceholders(of sources: Set<String>, in document: GalleryDocument) -> [String: String] {
      var found: [String: String] = [:]
      for item in document.model.items where item.displayState == .stale && sources.contains(item.source) {
        if found[item.source] == nil { found[item.source] = item.id }
      }
      return found
    }

    /// Makes each stale placeholder given (by id, nil for none) a placeholder of this
    /// process, where it stands, if it is still one of that source; returns the ids taken
    /// over (nil where a new placeholder is needed).
    private static func takeOver(_ ids: [String?], sources: [String], in edit: inout DocumentEdit) throws -> [String?] {
      let positions = edit.positions(of: ids.compactMap { $0 })
      var taken: [String?] = []
      for (id, source) in zip(ids, sources) {
        guard let id, let index = positions[id] else {
          taken.append(nil)
          continue
        }
        let item = try edit.item(at: index)
        guard item.displayState == .stale, item.source == source else {
          taken.append(nil)
          continue
        }
        edit.replaceItem(at: index, with: item.placeholderAgain())
        taken.append(id)
      }
      return taken
    }

    /// Saves one commit: files moved aside first (`--then move:DIR`), so that their items
    /// reference them there; duplicates left out under the document's lock; rejected files
    /// moved aside once the save is durable.
    private mutating func save(_ commit: WatchStateMachine.Commit) async throws -> WatchStateMachine.CommitResult {
      let started = ContinuousClock.now
      var result = WatchStateMachine.CommitResult(commit: commit)
      for file in commit.loaded {
        guard let folder = file.moveTo else { continue }
        if let moved = Self.moveAside(file.path, into: folder) {
          result.movedTo[file.path] = moved
        } else {
          logger.warning("\(file.path) could not be moved to \(folder): it is committed where it is")
        }
      }
      let folder = pairs[commit.pair].folder
      // What a document holds (also in its trash): counted from every item the first time,
      // then brought forward by the records saved since.
      let (previous, movedTo) = (censuses[pairs[commit.pair].document], result.movedTo)
      let saved: (duplicates: Set<String>, census: ContentCensus)
      do {
        (saved, _) = try await edit(commit.pair) { edit in
          edit.summary =
            "watch \(PathBytes.displayed(folder)): " + JournalRecord.counted(commit.loaded.count, "file") + " loaded"
          let census = try ContentCensus.current(
            previous, revision: edit.revision, revisionID: edit.revisionID, history: edit.history,
            counting: edit.wholeModel)
          let plan = WatchCommitPlan(commit, movedTo: movedTo)
          return (duplicates: try plan.apply(to: &edit, census: census), census: census)
        }
      } catch {
        // Not committed (a full disk): each file goes back where its placeholder names it,
        // and the next start imports it into that placeholder.
        for (path, moved) in movedTo where !Self.move(moved, to: path) {
          logger.warning("\(PathBytes.displayed(moved)) could not be moved back to \(PathBytes.displayed(path))")
        }
        let files = JournalRecord.counted(commit.loaded.count, "file")
        logger.warning(
          "\(files) not committed: left in \(PathBytes.displayed(folder)), each with its placeholder, which the next start imports it into"
        )
        throw error
      }
      result.duplicates = saved.duplicates
      censuses[pairs[commit.pair].document] = saved.census
      for file in commit.rejected {
        guard let folder = file.moveTo else { continue }
        guard let moved = Self.moveAside(file.path, into: folder) else {
          logger.warning("\(file.path) could not be moved to \(folder)")
          continue
        }
        logger.info("moved \(file.path) to \(moved)")
      }
      result.took = ContinuousClock.now - started
      return result
    }

    /// How many names a file moved aside tries (`NAME-2.EXT`...): a folder that has taken
    /// years of one camera's or one site's file name still takes the next.
    static let asideNames = 1_000_000

    /// Moves a file into a folder under a free name; returns the new path.
    static func moveAside(_ path: String, into folder: String) -> String? {
      try? OutputFile.makeFolder(folder)
      for name in FileSystem.candidateNames(for: (path as NSString).lastPathComponent, separator: "-", count: Self.asideNames) {
        let candidate = folder + "/" + name
        do {
          if try move(path, toFree: candidate) { return candidate }
        } catch  where error.code == .EEXIST {
          continue
        } catch {
          return nil
        }
      }
      return nil
    }

    /// Moves a file to a name nothing has, copying across filesystems.
    static func move(_ path: String, to target: String) -> Bool { (try? move(path, toFree: target)) == true }

    private static func move(_ path: String, toFree target: String) throws(FileSystemError) -> Bool {
      do {
        try FileSystem.renameWithoutReplacing(path, to: target)
        return true
      } catch  where error.code == .EXDEV {
        guard (try? FileManager.default.copyItem(atPath: path, toPath: target)) != nil else { return false }
        _ = FileSystem.remove(path)
        return true
      }
    }
  }
}

/// One watcher commit applied to a document, under its lock: each loaded image replaces its
/// placeholder unless the document (or this commit) has its content already, and the
/// placeholders of rejected and gone files go. A pure edit of the model, tested as such.
package struct WatchCommitPlan {
  let commit: WatchStateMachine.Commit
  let movedTo: [String: String]

  package init(_ commit: WatchStateMachine.Commit, movedTo: [String: String] = [:]) {
    self.commit = commit
    self.movedTo = movedTo
  }

  /// Applies the commit; returns the paths of the loaded files left out as duplicates.
  /// `census`, when given, is what the document holds as the edit read it (otherwise every
  /// item is read for its content).
  package func apply(to edit: inout DocumentEdit, census: ContentCensus? = nil) throws -> Set<String> {
    // The contents the document holds already, among the few this commit brings.
    let arriving = Set(commit.loaded.map(\.image.hash))
    var hashes = Set<String>()
    if !commit.allowDuplicates {
      if let census {
        hashes = arriving.filter(census.holds(hash:))
      } else {
        let whole = try edit.wholeModel()
        for item in whole.items { if let hash = item.hash, arriving.contains(hash) { hashes.insert(hash) } }
        for entry in whole.trash { if let hash = entry.item.hash, arriving.contains(hash) { hashes.insert(hash) } }
      }
    }
    var accepted: [(id: String, image: ProcessedImage)] = []
    var duplicates: Set<String> = []
    var duplicateIDs: [String] = []
    for file in commit.loaded {
      if !commit.allowDuplicates, !hashes.insert(file.image.hash).inserted {
        duplicates.insert(file.path)
        duplicateIDs.append(file.id)
        continue
      }
      accepted.append((file.id, file.image))
    }
    let removed = duplicateIDs + commit.rejected.compactMap(\.id) + commit.removed.compactMap(\.id)
    _ = try PlaceholderCommit.apply(loaded: accepted, failed: [], cancelled: removed, keepFailed: false, to: &edit)
    // Items of files moved aside (`--then move:DIR`) name them there: found by one pass
    // over the ids, not one per file.
    let movedIDs = Dictionary(
      commit.loaded.compactMap { file in movedTo[file.path].map { (file.id, $0) } },
      uniquingKeysWith: { first, _ in first })
    let kept = Set(commit.loaded.filter { !duplicates.contains($0.path) }.map(\.id))
    if !movedIDs.isEmpty {
      try edit.update(Array(kept.filter { movedIDs[$0] != nil })) { item in
        item.source = DropSource.fileURL(movedIDs[item.id]!)
      }
    }
    return duplicates
  }
}
