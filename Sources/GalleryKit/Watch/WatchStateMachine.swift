import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem

/// The rules of a drop-folder watcher, as a value: what happens to each file from the moment
/// it appears until it is committed, rejected or gone. It does nothing itself: every input
/// (an inotify event translated by `translate`, a save or a load finished, the clock) returns
/// the actions that the watcher (`DropFolderWatcher`) performs, some of which answer with
/// another input. Time is given, never read, so tests drive it with a manual clock.
///
/// A file's way: it appears (`writing`); once closed after writing or renamed in, it
/// `settles`: not at all when no process holds it open for writing any more (its stamp
/// says so), for the settle time when one does or that cannot be told; its load starts at
/// once when it has a placeholder and a load slot is free (`loading`), and what the load
/// found (`loaded`) is committed once the settle time is over with the file unchanged since
/// the load began and no writer holding it (`examine`); a change means loading again, a
/// writer still holding it means looking again later. A file deleted or moved out is
/// `gone`, and its placeholder goes.
package struct WatchStateMachine {
  package typealias Instant = ContinuousClock.Instant

  package struct Configuration: Sendable {
    /// The watched folders, absolute, without a trailing slash; a pair is an index in it.
    package var folders: [String]
    package var recursive = false
    package var settle: Duration = .milliseconds(200)
    package var placeholderDelay: Duration = .milliseconds(30)
    package var commitInterval: Duration = .milliseconds(500)
    package var parallelism = 2
    package var afterCommit: AfterCommit = .keep
    package var rejectTo: String?
    /// Stop once what is there has been imported.
    package var once = false

    package init(folders: [String]) { self.folders = folders }
  }

  package enum Event: Sendable {
    /// A regular file appeared (created, not yet complete).
    case created(path: String, pair: Int)
    /// A regular file was closed after writing or renamed into a folder; `stamp` is what it
    /// is now.
    case closed(path: String, pair: Int, stamp: FileStamp)
    /// A scan found a complete-looking file that was not imported before.
    case found(path: String, pair: Int, stamp: FileStamp)
    /// A file was deleted, or moved out of the folder.
    case removed(path: String, movedOut: Bool)
    /// A folder appeared below a watched one (with `recursive`): its files need a scan.
    case folderAppeared(path: String, pair: Int)
    /// The kernel's queue overflowed: events were lost.
    case overflow
    /// A new folder could not be watched (the watch limit); it is tried again.
    case unwatched(folder: String, reason: String)
    /// A folder that could not be watched is watched now.
    case watchedAgain(folder: String)
    /// A watched folder itself was deleted, moved or unmounted.
    case folderGone(pair: Int)
    /// The placeholders of `savePlaceholders` were saved with these ids.
    case placeholdersSaved(pair: Int, paths: [String], ids: [String], took: Duration)
    /// A load asked for found the file gone before it began.
    case vanished(path: String)
    /// A load ended; `stamp` is what the file was when it began.
    case loaded(path: String, stamp: FileStamp, outcome: Result<ProcessedImage, DropFailure>)
    /// What `examine` found: each file's stamp now, nil when it is gone.
    case examined([(path: String, stamp: FileStamp?)])
    /// A `commit` was saved.
    case committed(CommitResult)
  }

  package enum Action: Sendable {
    /// Save placeholders for these files (in this order) into the pair's document, then
    /// answer `placeholdersSaved`.
    case savePlaceholders(pair: Int, paths: [String])
    /// Read the file's stamp, then load it: answer `vanished`, or `loaded` when it ends.
    case load(path: String, pair: Int)
    /// Read these files' stamps and answer `examined`.
    case examine([String])
    /// List the folder (below it too with `recursive`) and answer `found` for each regular
    /// file not imported before.
    case scan(folder: String, pair: Int)
    /// Apply a commit to the pair's document, then answer `committed`.
    case commit(Commit)
    /// Report an event (`--events json`) and log it.
    case report(WatchEvent.Kind, path: String, pair: Int, id: String?, reason: String?)
    /// The file is imported: remember it (with the stamp of `source`, where it is now) so
    /// that a restart does not import it again.
    case remember(path: String, source: String, pair: Int, hash: String)
    /// `--then delete`: the document holds the original, durably.
    case deleteSource(path: String)
    /// Stop watching with this error (after the commits above).
    case fail(WatchError)
  }

  /// What one save into one document does.
  package struct Commit: Sendable {
    package struct Loaded: Sendable {
      package var path: String
      package var id: String
      package var image: ProcessedImage
      /// `--then move:DIR`: moved there before the save, so the item references it there.
      package var moveTo: String?
    }
    package struct Rejected: Sendable {
      package var path: String
      package var id: String?
      package var reason: String
      /// `--reject-to DIR`.
      package var moveTo: String?
    }
    package struct Removed: Sendable {
      package var path: String
      package var id: String?
    }
    package var pair: Int
    package var loaded: [Loaded] = []
    package var rejected: [Rejected] = []
    package var removed: [Removed] = []
    /// Keep an image whose content the document has already (`--allow-duplicates`)?
    package var allowDuplicates: Bool
  }

  /// What saving a `Commit` did.
  package struct CommitResult: Sendable {
    package var commit: Commit
    /// Paths of loaded files not added because the document has their content.
    package var duplicates: Set<String> = []
    /// Where `moveTo` put loaded files.
    package var movedTo: [String: String] = [:]
    package var took: Duration = .zero

    package init(commit: Commit, duplicates: Set<String> = [], movedTo: [String: String] = [:], took: Duration = .zero) {
      self.commit = commit
      self.duplicates = duplicates
      self.movedTo = movedTo
      self.took = took
    }
  }

  struct File {
    let path: String
    let pair: Int
    var id: String?
    /// Its placeholder's save is asked for and not answered yet: it is not asked for again
    /// (a scan's files, fed one by one while the clock goes on, would get one each time).
    var placeholderAsked = false
    /// A failed load is tried once more after the settle time: a writer may have reopened it.
    var retried = false
    var phase: Phase
    /// When it was first seen, counted: placeholders follow the order files arrived in.
    var arrival = 0
    /// Closed empty (what a browser makes beside its `.part` download): it goes without a
    /// word, neither rejected nor reported, until a file with bytes takes its name.
    var empty = false
  }

  /// The tracked files by path, and the sets of paths that the rules look at on every
  /// input, kept here where every change of a file passes: no input walks every file (a
  /// folder of thousands would cost their square).
  struct FileTable {
    private(set) var byPath: [String: File] = [:]
    /// Settling with a placeholder, by name: what a free load slot takes, first first.
    private(set) var loadable: [String] = []
    /// Of those, the retries (which wait for their settle time).
    private(set) var retrying: Set<String> = []
    /// Loaded, with the time each may be committed from: what a commit takes.
    private(set) var loaded: [String: Instant] = [:]
    /// Of those, the ones whose time has come by `now`; the others wait in `ripening`.
    private(set) var ripe: Set<String> = []
    /// The loaded files whose time is after `now`, the earliest first.
    private var ripening = EarliestFirst()
    private(set) var now: Instant
    /// Gone, with the id of its placeholder known (or none to ask for): a commit removes it.
    private(set) var gone: Set<String> = []

    subscript(path: String) -> File? {
      get { byPath[path] }
      set {
        byPath[path] = newValue
        var (isLoadable, isGone, until) = (false, false, Instant?.none)
        switch newValue?.phase {
        case .settling: isLoadable = newValue?.id != nil
        case .loaded(_, _, let time): until = time
        case .gone: isGone = newValue?.placeholderAsked == false
        default: break
        }
        func place(in set: inout Set<String>, _ member: Bool) {
          if member { set.insert(path) } else { set.remove(path) }
        }
        var (slot, end) = (0, loadable.count)
        while slot < end {
          let middle = (slot + end) / 2
          if loadable[middle] < path { slot = middle + 1 } else { end = middle }
        }
        let listed = slot < loadable.count && loadable[slot] == path
        if isLoadable, !listed { loadable.insert(path, at: slot) }
        if !isLoadable, listed { loadable.remove(at: slot) }
        place(in: &retrying, isLoadable && newValue?.retried == true)
        place(in: &gone, isGone)
        let before = loaded[path]
        loaded[path] = until
        if before != until {
          ripe.remove(path)
          if let until { if until <= now { ripe.insert(path) } else { ripening.insert(path, at: until) } }
        }
        dropStale()
      }
    }

    init(now: Instant) { self.now = now }

    /// The clock moved on: the loaded files whose time came are ripe.
    mutating func advance(to now: Instant) {
      self.now = now
      while let first = ripening.first, first.time <= now {
        ripening.removeFirst()
        if loaded[first.path] == first.time { ripe.insert(first.path) }
      }
      dropStale()
    }

    /// The earliest time a loaded file is ripe, after `now`.
    var nextRipe: Instant? { ripening.first?.time }

    /// A file's place in `ripening` that a later change replaced is dropped when it comes first.
    private mutating func dropStale() {
      while let first = ripening.first, loaded[first.path] != first.time { ripening.removeFirst() }
    }

    var isEmpty: Bool { byPath.isEmpty }
    var count: Int { byPath.count }
  }

  enum Phase {
    /// Seen, not yet complete.
    case writing
    /// Complete-looking: loads when it has a placeholder and a slot (a retry also waits for
    /// `settleAt`).
    case settling(until: Instant)
    /// Its load runs; `gone` when the file went meanwhile.
    case loading(until: Instant, gone: Bool)
    /// Loaded from the file as it was at `stamp`: committed once `until` has passed with the
    /// file still the same.
    case loaded(Result<ProcessedImage, DropFailure>, stamp: FileStamp, until: Instant)
    /// In a commit being saved.
    case committing
    /// Deleted or moved out: its placeholder goes with the next commit.
    case gone
  }

  package let configuration: Configuration
  private(set) var files: FileTable
  private var loads = 0
  private var firstUnsavedPlaceholder: Instant?
  /// Files seen so far (see `File.arrival`).
  private var arrivals = 0
  private var lastCommit: Instant?
  /// How long the last save took: in a long burst into a large document, saves are spaced
  /// so that saving takes a small share of the time.
  private var lastSaveDuration: Duration = .zero
  /// The clock as last given; the file table keeps it, and moves loaded files on with it.
  private var now: Instant {
    get { files.now }
    set { files.advance(to: newValue) }
  }
  private var stopping = false
  private var failure: WatchError?
  private let allowDuplicates: Bool

  package init(_ configuration: Configuration, allowDuplicates: Bool = false, now: Instant) {
    self.configuration = configuration
    self.allowDuplicates = allowDuplicates
    self.files = FileTable(now: now)
  }

  /// The first scan of every folder: watches are set before, so nothing arriving meanwhile
  /// falls in between.
  package func start() -> [Action] {
    configuration.folders.indices.map { .scan(folder: configuration.folders[$0], pair: $0) }
  }

  /// Done: stopped (or, with `once`, everything there imported), every commit saved.
  package var isFinished: Bool { (stopping || configuration.once) && files.isEmpty && loads == 0 }

  /// Files being imported: tracked, not yet committed, rejected or gone for good.
  package var trackedCount: Int { files.count }

  /// When `tick` has something to do next, if nothing else happens before.
  package var nextDeadline: Instant? {
    // Stopping, only loads ending move things on.
    guard !stopping else { return nil }
    var deadlines: [Instant] = []
    if let first = firstUnsavedPlaceholder { deadlines.append(first + placeholderWait) }
    let commitGate = lastCommit.map { $0 + commitSpacing }
    for path in files.retrying {
      if case .settling(let until) = files[path]?.phase, until > now { deadlines.append(until) }
    }
    // Past its settle time, a loaded file waits for the spacing of commits, which loads
    // still running impose; so does a gone one.
    let due = max(commitGate ?? now, now)
    if !files.ripe.isEmpty { deadlines.append(due) }
    if let next = files.nextRipe { deadlines.append(next) }
    if !files.gone.isEmpty { deadlines.append(due) }
    return deadlines.min()
  }

  private var placeholderWait: Duration { max(configuration.placeholderDelay, lastSaveDuration * 2) }
  private var commitSpacing: Duration { max(configuration.commitInterval, lastSaveDuration * 10) }

  // MARK: - Inputs

  package mutating func event(_ event: Event, now: Instant) -> [Action] {
    self.event(event, now: now, advancing: true)
  }

  /// Several inputs that came together (a scan's answer: each file found), then one look at
  /// what is due: a folder of many files is taken in time that grows with their number, not
  /// with its square.
  package mutating func events(_ events: [Event], now: Instant) -> [Action] {
    guard events.count > 1 else { return events.first.map { event($0, now: now) } ?? [] }
    var actions: [Action] = []
    for event in events { actions += self.event(event, now: now, advancing: false) }
    return actions + advance()
  }

  private mutating func event(_ event: Event, now: Instant, advancing: Bool) -> [Action] {
    self.now = max(self.now, now)
    var actions: [Action] = []
    switch event {
    case .created(let path, let pair):
      guard !stopping else { break }
      if var file = files[path] {
        if case .gone = file.phase {
          file.phase = .writing
          revive(file)
        }
      } else {
        track(File(path: path, pair: pair, phase: .writing))
      }

    case .closed(let path, let pair, let stamp):
      guard !stopping else { break }
      if stamp.size == 0 {
        setAside(path)
        break
      }
      if var file = files[path] {
        file.empty = false
        switch file.phase {
        case .loading, .committing: break  // the stamp check after the load sees the change
        default:
          file.phase = .settling(until: settled(stamp))
          revive(file)
        }
      } else {
        track(File(path: path, pair: pair, phase: .settling(until: settled(stamp))))
      }

    case .found(let path, let pair, let stamp):
      guard !stopping else { break }
      if stamp.size == 0 {
        setAside(path)
        break
      }
      if var file = files[path] {
        // Its close event may be among those an overflow lost: settle on what is there now.
        if case .writing = file.phase {
          file.phase = .settling(until: settled(stamp))
          files[path] = file
        }
      } else {
        track(File(path: path, pair: pair, phase: .settling(until: settled(stamp))))
      }

    case .removed(let path, let movedOut):
      guard var file = files[path] else { break }
      switch file.phase {
      case .loading(let until, _): file.phase = .loading(until: until, gone: true)
      case .committing: break
      default: file.phase = .gone
      }
      files[path] = file
      if movedOut {
        actions.append(.report(.moved, path: path, pair: file.pair, id: file.id, reason: "moved out of the folder"))
      }

    case .folderAppeared(let path, let pair):
      guard !stopping else { break }
      actions.append(.scan(folder: path, pair: pair))

    case .overflow:
      guard !stopping else { break }
      for (pair, folder) in configuration.folders.enumerated() {
        actions.append(.report(.rescan, path: folder, pair: pair, id: nil, reason: "the inotify queue overflowed"))
        actions.append(.scan(folder: folder, pair: pair))
      }

    case .unwatched(let folder, let reason):
      if let pair = pair(of: folder) {
        actions.append(.report(.unwatched, path: folder, pair: pair, id: nil, reason: reason))
      }

    case .watchedAgain(let folder):
      if let pair = pair(of: folder) {
        actions.append(.report(.watched, path: folder, pair: pair, id: nil, reason: nil))
        if !stopping { actions.append(.scan(folder: folder, pair: pair)) }
      }

    case .folderGone(let pair):
      // What is loaded and settled is still committed; then the watcher ends with the error.
      failure = .folderGone(configuration.folders[pair])
      return actions + stop(now: now)

    case .placeholdersSaved(let pair, let paths, let ids, let took):
      lastSaveDuration = took
      for (path, id) in zip(paths, ids) where files[path] != nil {
        files[path]?.id = id
        files[path]?.placeholderAsked = false
        actions.append(.report(.placeholder, path: path, pair: pair, id: id, reason: nil))
      }

    case .vanished(let path):
      loads -= 1
      files[path]?.phase = .gone

    case .loaded(let path, let stamp, let outcome):
      loads -= 1
      guard var file = files[path], case .loading(let until, let gone) = file.phase else { break }
      file.phase = gone ? .gone : .loaded(outcome, stamp: stamp, until: until)
      files[path] = file

    case .examined(let stamps):
      return actions + commit(examined: stamps)

    case .committed(let result):
      lastSaveDuration = result.took
      actions += afterCommit(result)
    }
    return advancing ? actions + advance() : actions
  }

  /// The clock reached `now` (at `nextDeadline`, or any time: a tick with nothing due does
  /// nothing).
  package mutating func tick(now: Instant) -> [Action] {
    self.now = max(self.now, now)
    return advance()
  }

  /// Stop taking files: loads running finish and what loaded unchanged is committed; every
  /// other placeholder is removed.
  package mutating func stop(now: Instant) -> [Action] {
    self.now = max(self.now, now)
    stopping = true
    for (path, file) in files.byPath {
      switch file.phase {
      case .writing, .settling: files[path]?.phase = .gone
      default: break
      }
    }
    return advance()
  }

  // MARK: - Rules

  private mutating func track(_ file: File) {
    var file = file
    arrivals += 1
    file.arrival = arrivals
    files[file.path] = file
    if firstUnsavedPlaceholder == nil { firstUnsavedPlaceholder = now }
  }

  /// An empty file: no placeholder is saved for it, one saved already goes quietly.
  private mutating func setAside(_ path: String) {
    guard var file = files[path] else { return }
    switch file.phase {
    case .loading(let until, _): file.phase = .loading(until: until, gone: true)
    case .committing: return
    default: file.phase = .gone
    }
    file.empty = true
    files[path] = file
  }

  /// A file that was gone is back: it needs its placeholder again if it had none.
  private mutating func revive(_ file: File) {
    files[file.path] = file
    if file.id == nil, !file.placeholderAsked, firstUnsavedPlaceholder == nil { firstUnsavedPlaceholder = now }
  }

  /// Files of a pair that wait for their placeholder, in the order they are saved.
  private func pendingPlaceholders(pair: Int) -> [String] {
    files.byPath.values.filter { file in
      guard file.pair == pair, file.id == nil, !file.placeholderAsked else { return false }
      if case .gone = file.phase { return false }
      return true
    }.sorted { ($0.arrival, $0.path) < ($1.arrival, $1.path) }.map(\.path)
  }

  private mutating func advance() -> [Action] {
    var actions: [Action] = []
    if !stopping, let first = firstUnsavedPlaceholder, now >= first + placeholderWait {
      firstUnsavedPlaceholder = nil
      for pair in configuration.folders.indices {
        let paths = pendingPlaceholders(pair: pair)
        for path in paths { files[path]?.placeholderAsked = true }
        if !paths.isEmpty { actions.append(.savePlaceholders(pair: pair, paths: paths)) }
      }
      // Loads start once the placeholders' ids are known (`placeholdersSaved`).
      if !actions.isEmpty { return actions }
    }
    if stopping { firstUnsavedPlaceholder = nil }
    actions += startLoads()
    actions += commitIfDue()
    if isFinished, let failure {
      self.failure = nil
      actions.append(.fail(failure))
    }
    return actions
  }

  private mutating func startLoads() -> [Action] {
    let slots = max(1, configuration.parallelism) - loads
    guard !stopping, slots > 0 else { return [] }
    var ready: [String] = []
    for path in files.loadable where ready.count < slots {
      // A retry waits for the settle time: the writer may still be at work. A first load
      // runs during it, and counts only if the file is the same at its end.
      if files.retrying.contains(path), case .settling(let until) = files[path]?.phase, until > now { continue }
      ready.append(path)
    }
    var actions: [Action] = []
    for path in ready {
      guard var file = files[path], case .settling(let until) = file.phase else { continue }
      file.phase = .loading(until: until, gone: false)
      files[path] = file
      loads += 1
      actions.append(.load(path: path, pair: file.pair))
    }
    return actions
  }

  /// When a file closed or found with `stamp` may be committed: at once when no process
  /// holds it open for writing any more (its writer is done: `cp`, a rename into the folder);
  /// after the settle time when one still does, or when that cannot be told. A writer that
  /// opens it again before the commit changes its stamp, and the file settles again.
  private func settled(_ stamp: FileStamp) -> Instant {
    stamp.openForWriting == false ? now : now + configuration.settle
  }

  /// Asks to examine the loaded files whose settle time is over, when a commit is due: at
  /// once when no load is pending, else at most every `commitSpacing`.
  private mutating func commitIfDue() -> [Action] {
    // While loads run, commits are spaced: nothing is due before the spacing is over.
    if !stopping, loads > 0, let lastCommit, now < lastCommit + commitSpacing { return [] }
    let ripe = stopping ? Array(files.loaded.keys) : Array(files.ripe)
    let pending = loads > 0 || files.loaded.count > ripe.count
    let gone = !files.gone.isEmpty
    guard !ripe.isEmpty || gone else { return [] }
    if stopping {
      // Everything loading finishes first; then one commit takes what is left.
      guard loads == 0 else { return [] }
    } else if pending, let lastCommit, now < lastCommit + commitSpacing {
      return []
    }
    lastCommit = now
    if ripe.isEmpty { return commit(examined: []) }
    return [.examine(ripe.sorted())]
  }

  /// Commits the examined files that are unchanged since their load, and removes the
  /// placeholders of gone files.
  private mutating func commit(examined: [(path: String, stamp: FileStamp?)]) -> [Action] {
    var commits = configuration.folders.indices.map { Commit(pair: $0, allowDuplicates: allowDuplicates) }
    for (path, stamp) in examined {
      guard var file = files[path], case .loaded(let outcome, let loadedStamp, _) = file.phase else { continue }
      guard let stamp else {
        file.phase = .gone
        files[path] = file
        continue
      }
      guard stamp == loadedStamp else {
        // Written again since the load began: load again once it settles.
        file.phase = stopping ? .gone : .settling(until: now + configuration.settle)
        files[path] = file
        continue
      }
      if stamp.openForWriting == true, !stopping {
        // Unchanged, but a writer still holds it: what it writes next would be lost. Look
        // again after the settle time (without loading again while nothing changes).
        file.phase = .loaded(outcome, stamp: loadedStamp, until: now + configuration.settle)
        files[path] = file
        continue
      }
      switch outcome {
      case .success(let image):
        guard let id = file.id else { continue }
        let moveTo: String? = if case .move(let folder) = configuration.afterCommit { folder } else { nil }
        commits[file.pair].loaded.append(.init(path: path, id: id, image: image, moveTo: moveTo))
        file.phase = .committing
      case .failure(let failure):
        if stopping {
          file.phase = .gone
        } else if !file.retried, failure.refusal != .notAnImage {
          // A writer may have reopened the file: one more try after the settle time.
          file.retried = true
          file.phase = .settling(until: now + configuration.settle)
        } else {
          commits[file.pair].rejected.append(
            .init(path: path, id: file.id, reason: failure.reason, moveTo: configuration.rejectTo))
          file.phase = .committing
        }
      }
      files[path] = file
    }
    // (One whose placeholder is being saved goes once its id is known.)
    for path in files.gone {
      guard let file = files[path] else { continue }
      commits[file.pair].removed.append(.init(path: path, id: file.id))
      files[path]?.phase = .committing
    }
    return
      commits
      .filter { !$0.loaded.isEmpty || !$0.rejected.isEmpty || !$0.removed.isEmpty }
      .map { commit in
        var commit = commit
        commit.removed.sort { $0.path < $1.path }
        return .commit(commit)
      } + advance()
  }

  /// Durably saved: now the files may be reported, remembered, deleted.
  private mutating func afterCommit(_ result: CommitResult) -> [Action] {
    var actions: [Action] = []
    let pair = result.commit.pair
    for file in result.commit.loaded {
      files[file.path] = nil
      let source = result.movedTo[file.path] ?? file.path
      if result.duplicates.contains(file.path) {
        actions.append(
          .report(
            .duplicate, path: file.path, pair: pair, id: file.id,
            reason: "the document has this image already (\(file.image.hash))"))
      } else {
        actions.append(.report(.committed, path: source, pair: pair, id: file.id, reason: nil))
        // Its bytes are inside the document, which is on disk (fsynced) by now.
        if configuration.afterCommit == .delete, file.image.original != nil {
          actions.append(.deleteSource(path: file.path))
          continue
        }
      }
      actions.append(.remember(path: file.path, source: source, pair: pair, hash: file.image.hash))
    }
    for file in result.commit.rejected {
      files[file.path] = nil
      actions.append(.report(.rejected, path: file.path, pair: pair, id: file.id, reason: file.reason))
    }
    // A file that went before its placeholder was saved leaves nothing to report.
    for file in result.commit.removed {
      let quiet = files[file.path]?.empty == true
      files[file.path] = nil
      guard let id = file.id, !quiet else { continue }
      actions.append(
        .report(.removed, path: file.path, pair: pair, id: id, reason: "the file went away before it was complete"))
    }
    return actions
  }

  private func pair(of folder: String) -> Int? {
    Self.pair(of: folder + "/", in: configuration.folders)
  }

  /// The pair whose folder holds `path`: the deepest one.
  static func pair(of path: String, in folders: [String]) -> Int? {
    folders.indices.filter { path.hasPrefix(folders[$0] + "/") }.max { folders[$0].count < folders[$1].count }
  }

  // MARK: - Translation of inotify events

  /// What an inotify event means to the watcher; nil for what it ignores. `stamp` is the
  /// path's stamp now (nil when it is not a regular file, or gone).
  package static func translate(
    _ event: InotifyEvent, stamp: FileStamp?, configuration: Configuration
  ) -> Event? {
    if event.has(.queueOverflow) { return .overflow }
    let folders = configuration.folders
    guard let pair = pair(of: event.path, in: folders) else { return nil }
    if event.name.isEmpty || event.path == folders[pair] + "/" {
      if event.has([.deleteSelf, .moveSelf, .unmount]), event.folder == folders[pair] + "/" {
        return .folderGone(pair: pair)
      }
      return nil
    }
    if event.has(.isDirectory) {
      // The reader has watched it already; files created before that are found by a scan.
      guard configuration.recursive, event.has([.create, .movedTo]), !event.name.hasPrefix(".") else { return nil }
      return .folderAppeared(path: event.path, pair: pair)
    }
    if event.has([.delete, .movedFrom]) { return .removed(path: event.path, movedOut: event.has(.movedFrom)) }
    // Writers' names for incomplete files: their rename to a final name is what counts.
    guard !DropFolder.isTemporaryName(event.name) else { return nil }
    // Only regular files become drops: a symbolic link could point anywhere (/proc, a
    // device), and a FIFO would never complete.
    guard let stamp else { return nil }
    if event.has([.closeWrite, .movedTo]) { return .closed(path: event.path, pair: pair, stamp: stamp) }
    if event.has(.create) { return .created(path: event.path, pair: pair) }
    return nil
  }
}

/// Paths by a time, the earliest first (a binary heap): the next loaded file to ripen among
/// thousands, without walking them.
private struct EarliestFirst {
  private var heap: [(path: String, time: ContinuousClock.Instant)] = []

  var first: (path: String, time: ContinuousClock.Instant)? { heap.first }

  mutating func insert(_ path: String, at time: ContinuousClock.Instant) {
    heap.append((path, time))
    var child = heap.count - 1
    while child > 0, heap[(child - 1) / 2].time > heap[child].time {
      heap.swapAt(child, (child - 1) / 2)
      child = (child - 1) / 2
    }
  }

  mutating func removeFirst() {
    heap.swapAt(0, heap.count - 1)
    heap.removeLast()
    var parent = 0
    while true {
      let (left, right) = (2 * parent + 1, 2 * parent + 2)
      var smallest = parent
      if left < heap.count, heap[left].time < heap[smallest].time { smallest = left }
      if right < heap.count, heap[right].time < heap[smallest].time { smallest = right }
      guard smallest != parent else { return }
      heap.swapAt(parent, smallest)
      parent = smallest
    }
  }
}
