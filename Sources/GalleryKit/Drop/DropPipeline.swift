import Foundation
import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem
import Synchronization

/// Options of one drop.
public struct DropOptions: Sendable {
  /// 1-based position for the first dropped item; nil or past the end means the end.
  public var position: Int?
  /// Keep a `failed` item for a source that cannot be loaded (default: the document's setting).
  public var keepFailed: Bool?
  /// Pixel limit (default: the document's setting).
  public var maxPixels: Int?
  /// Embed the originals in the document (default: the document's setting).
  public var embed: Bool?
  /// How many images decode at once (default: one per core).
  public var parallelism: Int = ProcessInfo.processInfo.activeProcessorCount
  /// How many web downloads run at once.
  public var downloads: Int = 8
  /// Timeouts, body and redirect limits of web downloads.
  public var web = WebLimits()
  /// Where downloads are cached; nil downloads every time.
  public var cache: DownloadCache? = DownloadCache()
  /// Local files are committed in batches at most this often, so a long drop shows progress
  /// without saving for every file.
  public var commitInterval: TimeInterval = 1
  /// Web images are committed as soon as they are ready, at most this often.
  public var webCommitInterval: TimeInterval = 0.05

  public init() {}
}

/// What a drop did.
public struct DropReport: Sendable {
  /// Items committed (ready, or failed when kept), in drop order.
  public var committed: [Item] = []
  public var failures: [DropFailure] = []
  /// Sources that failed and were kept as failed items (`--keep-failed`).
  public var keptFailures: [DropFailure] = []
  /// Sources not loaded because the drop was cancelled.
  public var cancelled = 0
  /// Web sources whose download failed and whose copy in the download cache stood in.
  public var standIns: [DropFailure] = []
  /// Where the document is now: another path than the one given when it was renamed or
  /// moved while the drop ran (the drop followed it). Nil when nothing was saved.
  public var document: String?

  public init(committed: [Item] = [], failures: [DropFailure] = [], keptFailures: [DropFailure] = [], cancelled: Int = 0) {
    self.committed = committed
    self.failures = failures
    self.keptFailures = keptFailures
    self.cancelled = cancelled
  }
}

/// A document opened ahead of an edit, on a core of its own, into the layout cache, where
/// the edit finds it (while no other process changed the file; otherwise it opens it anew).
/// Opening a large document costs as much as what a drop does on one core before its first
/// save: reading its arguments and checking its sources.
public struct DocumentOpening: Sendable {
  private let task: Task<Void, Never>

  public init(_ path: String) {
    task = Task { _ = try? await BlockingWork.run { () throws -> Void in _ = try GalleryDocument.openLazily(path) } }
  }

  /// Returns once the document is open (or failed to open: the edit then says why).
  func finished() async { await task.value }
}

/// Drops images into a document the way the classic app did: placeholders first, saved at
/// once; the loads run with no lock held; each loaded image is committed where its placeholder
/// stands *then*, or its placeholder removed when loading failed. Cancelling the calling
/// task (SIGINT) stops the loads: what loaded is committed, the other placeholders removed.
public enum ImageDrop {
  /// `opening`, the document being opened already (`DocumentOpening(path)` before the
  /// sources were read); nil opens it now, while the sources are checked.
  public static func drop(
    _ sources: [DropSource], into path: String, options: DropOptions = .init(), opening: DocumentOpening? = nil,
    progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }
  ) async throws -> DropReport {
    let opening = opening ?? DocumentOpening(path)
    let settings = try await BlockingWork.run { try GalleryDocument.loadingSettings(path) }
    let maxPixels = options.maxPixels ?? settings.maxPixels
    let keepFailed = options.keepFailed ?? settings.keepFailed
    let imageOptions = ImageOptions(
      thumbnailSize: settings.thumbnailSize, maxPixels: maxPixels,
      keepOriginal: options.embed ?? settings.embedOriginals, maxFileBytes: options.web.maxBytes)
    var refused: [DropFailure] = []

    // Refuse what can be refused without decoding, before the document is touched; web
    // sources are only known once downloaded. With keepFailed every source gets its item:
    // the full load refuses the same way, and the failure is kept.
    let accepted =
      keepFailed
      ? sources
      : sources.filter { source in
        guard case .file(let path) = source.location,
          let reason = LocalImageLoader.precheck(path: path, maxPixels: maxPixels, maxBytes: options.web.maxBytes)
        else { return true }
        refused.append(DropFailure(source: source.given, reason: reason))
        return false
      }
    guard !accepted.isEmpty else {
      // A missing or damaged document is the error, not its sources.
      await opening.finished()
      try await BlockingWork.run { _ = try GalleryDocument.openLazily(path) }
      return DropReport(failures: refused)
    }
    // Bytes given without a URL (standard input, a clipboard, a page's upload) have no
    // other copy to load from again: they go into the document with their placeholder, so
    // that a drop killed before its commit leaves an item `retry` loads from them.
    // Their URLs (bytes' are their hash) are made before the document's lock is taken.
    let urls = accepted.map(\.url)
    let held = accepted.map { source -> (data: Data, format: String)? in
      guard case .data(let data) = source.location else { return nil }
      return (data, ImageProcessor.formatName(sniffing: data.prefix(LocalImageLoader.precheckPrefix)) ?? "")
    }
    let hasWeb = accepted.contains(where: \.isWeb)
    let spacing = hasWeb ? options.webCommitInterval : options.commitInterval
    let document = FollowedDocument(path)
    var report = try await ImageLoader.using(imageOptions, options, needsWeb: hasWeb) { loader in
      try await LoadPipeline.run(
        accepted, loader: loader, into: document, keepFailed: keepFailed, spacing: .seconds(spacing),
        progress: progress, opening: opening
      ) { early in
        let ((ids, settled), save, _) = try document.editRecordingSave { edit in
          let ids = try edit.newItemIDs(accepted.count)
          edit.summary = "drop: " + JournalRecord.counted(accepted.count, "image")
          let now = Date.nowInWholeSeconds
          let placeholders = accepted.indices.map { index in
            var item = Item.placeholder(id: ids[index], source: urls[index], page: accepted[index].page, now: now)
            if let bytes = held[index], let hash = item.originalHash {
              item.original = edit.addOriginal(bytes.data, hash: hash, format: bytes.format)
            }
            return item
          }
          edit.insert(placeholders, at: options.position)
          let settled = try early.settle(ids: ids, keepFailed: keepFailed, in: &edit)
          // The loads this save did not settle are committed by saves that follow.
          edit.saveFollows = settled.count < accepted.count
          return (ids, settled)
        }
        return (ids, save, settled)
      }
    }
    report.failures = refused + report.failures
    return report
  }
}

/// The one path from sources to committed items, shared by drop, paste and retry: loads run
/// as child tasks (local files at once, downloads once the placeholders are saved, at most
/// `downloads` or twice `parallelism` at a time), and their outcomes are committed in
/// batches that `CommitBatch` schedules.
enum LoadPipeline {
  private enum Event: Sendable {
    case outcome(Int, LoadOutcome)
    case placeholdersSaved(ids: [String], save: SaveMark?, settled: EarlyOutcomes.Settled)
    case due
    case coverPrepared
  }

  /// How many bytes of loaded images may wait for the placeholder save, which may itself
  /// wait for another writer's lock: local loads pause there until it is done.
  static let bytesHeldBeforeSave = 256 << 20

  /// Loads `sources`, saving their placeholders with `savePlaceholders` (which returns their
  /// ids in source order, the save to take back when everything fails, and what it settled
  /// of the outcomes it was given) while local files load: opening a large document for
  /// that save costs as much as many loads. The save waits for `opening`, when given,
  /// rather than open the document a second time at once.
  static func run(
    _ sources: [DropSource], loader: ImageLoader, into document: FollowedDocument, keepFailed: Bool,
    spacing: Duration,
    restoring originals: [String: Item] = [:],
    progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in },
    opening: DocumentOpening? = nil,
    savePlaceholders:
      @escaping @Sendable (EarlyOutcomes) throws -> (
        ids: [String], save: SaveMark?, settled: EarlyOutcomes.Settled
      )
  ) async throws -> DropReport {
    let clock = ContinuousClock()
    let window = sources.contains(where: \.isWeb) ? max(loader.parallelism, loader.downloads) : 2 * loader.parallelism
    return try await withThrowingTaskGroup(of: Event.self) { group in
      var started = 0
      var running = 0
      func startNext() {
        let (index, source) = (started, sources[started])
        group.addTask { .outcome(index, await loader.load(source)) }
        started += 1
        running += 1
      }
      // Local files load while the placeholders are saved; downloads and commits wait. What
      // has loaded once the document is open goes into that save.
      let offered = EarlyOutcomes()
      group.addTask {
        await opening?.finished()
        let (ids, save, settled) = try await BlockingWork.run { try savePlaceholders(offered) }
        return .placeholdersSaved(ids: ids, save: save, settled: settled)
      }
      var early: [(index: Int, outcome: LoadOutcome)] = []
      var earlyCount = 0
      var earlyBytes = 0
      func arrivedEarly(_ index: Int, _ outcome: LoadOutcome) {
        if !offered.offer(index, outcome) { early.append((index, outcome)) }
        earlyCount += 1
      }
      var saved: (ids: [String], save: SaveMark?, settled: EarlyOutcomes.Settled)?
      while saved == nil {
        if Task.isCancelled {
          while started < sources.count {
            arrivedEarly(started, .cancelled)
            started += 1
          }
        }
        while started < sources.count, running < window, !sources[started].isWeb, earlyBytes < bytesHeldBeforeSave {
          startNext()
        }
        guard let event = try await group.next() else { preconditionFailure("the placeholder save is missing") }
        switch event {
        case .outcome(let index, let outcome):
          running -= 1
          arrivedEarly(index, outcome)
          if case .loaded(let image) = outcome { earlyBytes += image.heldBytes }
          progress(earlyCount, sources.count)
        case .placeholdersSaved(let ids, let save, let settled): saved = (ids, save, settled)
        case .due, .coverPrepared: break
        }
      }
      let (ids, placeholderSave, settled) = saved!
      // The drop's saves so far as one, from its placeholders to its last commit, while no
      // other save came between them: what a failure takes back.
      var ownSaves = placeholderSave
      // What the save did not take (it took nothing, or they came after it).
      early = offered.take() + early
      var cover = try? await BlockingWork.run { CoverPlan(document: document.path, dropped: ids) }
      var batch = CommitBatch(count: sources.count, spacing: spacing, start: clock.now)
      batch.settledEarlier(settled.count, committingAny: settled.loadedAny)
      var report = DropReport()
      report.record(settled.taken, committed: settled.committed, keepFailed: keepFailed)
      var timerSet = false
      func arrived(_ index: Int, _ outcome: LoadOutcome) {
        batch.record(index, outcome)
        // The cover is made while the last images load, not in the commit after them.
        if let thumbnails = cover?.record(index, outcome), batch.arrived < sources.count {
          group.addTask {
            await loader.prepareCover(from: thumbnails)
            return .coverPrepared
          }
        }
      }
      for (index, outcome) in early { arrived(index, outcome) }
      while true {
        // Sources not started when the drop is cancelled are not loaded.
        if Task.isCancelled {
          while started < sources.count {
            batch.record(started, .cancelled)
            started += 1
          }
        }
        while started < sources.count, running < window { startNext() }
        switch batch.next(now: clock.now) {
        case .finish:
          var rolledBack = false
          if batch.isLostCause(keepFailed: keepFailed), let placeholderSave {
            rolledBack = try await BlockingWork.run {
              try document.following { try GalleryDocument.rollBack($0, placeholderSave) }
            }
          }
          if rolledBack {
            let taken = batch.take()
            report.failures += taken.failed.map(\.failure)
            report.cancelled += taken.cancelled.count
          } else {
            try await takingBackOnFailure(ids: ids, saves: ownSaves, into: document, report: report, restoring: originals) {
              try await commit(
                batch.take(), ids: ids, keepFailed: keepFailed, into: document, operation: placeholderSave?.revision,
                restoring: originals, report: &report, saves: &ownSaves)
            }
          }
          group.cancelAll()
          // Report in drop order.
          let order = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
          report.committed.sort { order[$0.id, default: 0] < order[$1.id, default: 0] }
          report.standIns = loader.standIns
          report.document = document.path
          return report
        case .commitNow:
          try await takingBackOnFailure(ids: ids, saves: ownSaves, into: document, report: report, restoring: originals) {
            try await commit(
              batch.take(), ids: ids, keepFailed: keepFailed, into: document, operation: placeholderSave?.revision,
              restoring: originals, report: &report, saves: &ownSaves)
          }
          batch.committed(at: clock.now)
          continue
        case .commit(at: let due):
          if !timerSet {
            timerSet = true
            group.addTask {
              try? await Task.sleep(until: due, clock: clock)
              return .due
            }
          }
        case .wait:
          break
        }
        // A load runs whenever an outcome is missing: all are started, or the window is full.
        guard let event = try await group.next() else { preconditionFailure("outcomes missing with no load running") }
        switch event {
        case .outcome(let index, let outcome):
          running -= 1
          arrived(index, outcome)
          progress(batch.arrived, sources.count)
        case .due:
          timerSet = false
        case .coverPrepared, .placeholdersSaved:
          break
        }
      }
    }
  }

  /// Runs a commit; when it fails (a full disk: the failed save was cut off again), the
  /// document is left as it was, or holding what loaded, never with placeholders no process
  /// will load: the drop's own saves (`saves`, from its placeholders to its last commit) are
  /// taken back byte for byte when no other save followed them (which frees room), else the
  /// placeholders not yet committed are removed, if that can be saved.
  private static func takingBackOnFailure(
    ids: [String], saves: SaveMark?, into document: FollowedDocument, report: DropReport,
    restoring originals: [String: Item],
    _ commit: () async throws -> Void
  ) async throws {
    do { try await commit() } catch {
      if let saves,
        (try? await BlockingWork.run { try document.following { try GalleryDocument.rollBack($0, saves) } }) == true
      {
        throw error
      }
      let done = Set(report.committed.map(\.id))
      let left = ids.filter { !done.contains($0) }
      _ = try? await BlockingWork.run {
        try document.edit { edit in
          edit.summary = "drop: not saved, " + JournalRecord.counted(left.count, "placeholder") + " removed"
          _ = try PlaceholderCommit.apply(
            loaded: [], failed: [], cancelled: left, keepFailed: false, restoring: originals, to: &edit)
        }
      }
      throw error
    }
  }

  private static func commit(
    _ taken: CommitBatch.Taken, ids: [String], keepFailed: Bool, into document: FollowedDocument, operation: Int?,
    restoring originals: [String: Item], report: inout DropReport, saves: inout SaveMark?
  ) async throws {
    guard !(taken.loaded.isEmpty && taken.failed.isEmpty && taken.cancelled.isEmpty) else { return }
    let (committed, save, saved) = try await BlockingWork.run {
      try document.editRecordingSave { edit in
        // Undo takes the drop back whole: placeholders and what loaded.
        edit.continuing = operation
        edit.summary =
          "drop: " + JournalRecord.counted(taken.loaded.count, "image") + " loaded"
          + (taken.failed.isEmpty ? "" : ", \(taken.failed.count) failed")
        return try taken.commit(ids: ids, keepFailed: keepFailed, restoring: originals, to: &edit)
      }
    }
    if saved != nil { saves = save.flatMap { saves?.followed(by: $0) } }
    report.record(taken, committed: committed, keepFailed: keepFailed)
  }
}

extension DropReport {
  /// A commit of `taken` that committed `committed`.
  mutating func record(_ taken: CommitBatch.Taken, committed: [Item], keepFailed: Bool) {
    if keepFailed {
      keptFailures += taken.failed.map(\.failure)
    } else {
      failures += taken.failed.map(\.failure)
    }
    self.committed += committed
    cancelled += taken.cancelled.count
  }
}

/// Outcomes that arrive while the placeholders' save opens the document, for that save to
/// commit: a drop into a large document, whose open can take as long as the loads, then
/// saves once instead of twice, and its journal holds each such item once.
final class EarlyOutcomes: Sendable {
  /// What the placeholders' save committed of the outcomes it took.
  struct Settled: Sendable {
    var count = 0
    /// The outcomes without their images (committed, or not to be).
    var taken = CommitBatch.Taken()
    var committed: [Item] = []
    /// Whether it committed images (not only failures).
    var loadedAny = false
  }

  private let state = Mutex<(taken: Bool, outcomes: [(index: Int, outcome: LoadOutcome)])>((false, []))

  /// Keeps an outcome for the save; false once the outcomes were taken.
  func offer(_ index: Int, _ outcome: LoadOutcome) -> Bool {
    state.withLock { state in
      guard !state.taken else { return false }
      state.outcomes.append((index, outcome))
      return true
    }
  }

  /// The outcomes kept so far, in source order; none is kept after.
  func take() -> [(index: Int, outcome: LoadOutcome)] {
    state.withLock { state in
      state.taken = true
      defer { state.outcomes = [] }
      return state.outcomes.sorted { $0.index < $1.index }
    }
  }

  /// Commits the outcomes kept so far into `edit`, which holds the placeholders of `ids`.
  func settle(ids: [String], keepFailed: Bool, in edit: inout DocumentEdit) throws -> Settled {
    let outcomes = take()
    var taken = CommitBatch.Taken()
    for (index, outcome) in outcomes { taken.add(index, outcome) }
    let committed = try taken.commit(ids: ids, keepFailed: keepFailed, to: &edit)
    let loadedAny = !taken.loaded.isEmpty
    taken.loaded = []
    return Settled(count: outcomes.count, taken: taken, committed: committed, loadedAny: loadedAny)
  }
}

/// Which thumbnails the document's cover will show once a drop's images are in: the
/// thumbnails of the first ready items, counting the drop's placeholders as ready. Known as
/// soon as the images among them have loaded, so that the cover can be made ahead of the
/// commit (a guess: the commit uses it only when the thumbnails turn out the same).
struct CoverPlan {
  enum Slot {
    case stored(Data)
    case dropped(index: Int, thumbnail: Data?)
  }

  private(set) var slots: [Slot]

  /// Nil when the drop does not change the cover, or the document cannot be read.
  init?(document path: String, dropped ids: [String]) {
    // Only the first items are looked at: read as an edit reads them, not all 100,000.
    guard let document = try? GalleryDocument.openLazily(path) else { return nil }
    let dropped = Dictionary(ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    func droppedIndex(_ item: Item) -> Int? { item.state == .placeholder ? dropped[item.id] : nil }
    var shown: [Item] = []
    for index in 0..<document.itemCount {
      guard let item = try? document.item(at: index) else { return nil }
      guard item.state == .ready || droppedIndex(item) != nil else { continue }
      shown.append(item)
      if shown.count == CoverMaker.tilesAcross * CoverMaker.tilesAcross { break }
    }
    guard shown.contains(where: { droppedIndex($0) != nil }) else { return nil }
    var slots: [Slot] = []
    for item in shown {
      if let index = droppedIndex(item) {
        slots.append(.dropped(index: index, thumbnail: nil))
      } else {
        guard let thumbnail = try? document.thumbnail(of: item) else { return nil }
        slots.append(.stored(thumbnail))
      }
    }
    self.init(slots: slots)
  }

  init?(slots: [Slot]) {
    guard slots.contains(where: { if case .dropped = $0 { true } else { false } }) else { return nil }
    self.slots = slots
  }

  /// Records a load; returns the cover's thumbnails when this load was the last one they
  /// waited for. A failed or cancelled image among them means no guess.
  mutating func record(_ index: Int, _ outcome: LoadOutcome) -> [Data]? {
    guard let slot = slots.firstIndex(where: { if case .dropped(index, _) = $0 { true } else { false } }) else {
      return nil
    }
    guard case .loaded(let image) = outcome else {
      slots = []
      return nil
    }
    slots[slot] = .dropped(index: index, thumbnail: image.thumbnail.data)
    var thumbnails: [Data] = []
    for slot in slots {
      switch slot {
      case .stored(let data), .dropped(_, .some(let data)): thumbnails.append(data)
      case .dropped(_, nil): return nil
      }
    }
    return thumbnails
  }
}

/// When a drop saves what has loaded, as a value: outcomes are recorded as they arrive, and
/// `next(now:)` says whether to save now, at a later instant, or not yet. Loaded images are
/// saved at most once per `spacing` (the first batch `spacing` after the placeholders), so a
/// long drop fills in as it goes without a save per file; failures and cancellations wait
/// for a batch with loaded images, or the end, so that a drop that only fails can be taken
/// back byte for byte.
struct CommitBatch {
  enum Step: Equatable {
    /// Every outcome is in: save the rest (or take the drop back).
    case finish
    case commitNow
    case commit(at: ContinuousClock.Instant)
    /// Nothing worth a save yet: wait for the next outcome.
    case wait
  }

  struct Taken {
    var loaded: [(index: Int, image: ProcessedImage)] = []
    var failed: [(index: Int, failure: DropFailure)] = []
    var cancelled: [Int] = []

    mutating func add(_ index: Int, _ outcome: LoadOutcome) {
      switch outcome {
      case .loaded(let image): loaded.append((index, image))
      case .failed(let failure): failed.append((index, failure))
      case .cancelled: cancelled.append(index)
      }
    }

    /// Commits these outcomes of the sources whose placeholders are `ids` (in source order).
    func commit(
      ids: [String], keepFailed: Bool, restoring originals: [String: Item] = [:], to edit: inout DocumentEdit
    ) throws -> [Item] {
      try PlaceholderCommit.apply(
        loaded: loaded.map { (ids[$0.index], $0.image) }, failed: failed.map { (ids[$0.index], $0.failure) },
        cancelled: cancelled.map { ids[$0] }, keepFailed: keepFailed, restoring: originals, to: &edit)
    }
  }

  let count: Int
  let spacing: Duration
  private(set) var lastCommit: ContinuousClock.Instant
  private(set) var arrived = 0
  private(set) var committedAny = false
  private var loaded: [Int: ProcessedImage] = [:]
  private var failed: [Int: DropFailure] = [:]
  private var cancelled: Set<Int> = []

  init(count: Int, spacing: Duration, start: ContinuousClock.Instant) {
    self.count = count
    self.spacing = spacing
    lastCommit = start
  }

  mutating func record(_ index: Int, _ outcome: LoadOutcome) {
    arrived += 1
    switch outcome {
    case .loaded(let image): loaded[index] = image
    case .failed(let failure): failed[index] = failure
    case .cancelled: cancelled.insert(index)
    }
  }

  func next(now: ContinuousClock.Instant) -> Step {
    if arrived >= count { return .finish }
    guard !loaded.isEmpty else { return .wait }
    let due = lastCommit + spacing
    return now >= due ? .commitNow : .commit(at: due)
  }

  /// Nothing loaded and nothing saved: the drop can be taken back instead (unless failed
  /// items are to be kept).
  func isLostCause(keepFailed: Bool) -> Bool { !keepFailed && !committedAny && loaded.isEmpty }

  /// The outcomes recorded since the last take, in source order.
  mutating func take() -> Taken {
    defer {
      loaded = [:]
      failed = [:]
      cancelled = []
    }
    return Taken(
      loaded: loaded.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
      failed: failed.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
      cancelled: cancelled.sorted())
  }

  /// `count` outcomes were settled by the placeholders' save, which committed images when
  /// `committingAny`.
  mutating func settledEarlier(_ count: Int, committingAny: Bool) {
    arrived += count
    if committingAny { committedAny = true }
  }

  mutating func committed(at now: ContinuousClock.Instant) {
    committedAny = true
    lastCommit = now
  }
}

/// Commits loaded images where their placeholders stand now.
public enum PlaceholderCommit {
  /// Whether an original's entry (`originals/HEX.EXT`) holds the content `hash` names.
  package static func isOriginal(_ entry: String, of hash: String) -> Bool {
    hash.hasPrefix("sha256:") && entry.hasPrefix(EntryName.originalsFolder + hash.dropFirst("sha256:".count) + ".")
  }

  /// Replaces each placeholder in place (wherever other edits moved it); removes the
  /// placeholders of failures (or marks them failed) and of cancelled loads, or gives a
  /// cancelled one back the item it stood for (`restoring`: a retry's stale or failed
  /// items, which a shutdown must not take away). A placeholder that was trashed or
  /// removed meanwhile means the image is not added. Returns the committed items.
  public static func apply(
    loaded: [(id: String, image: ProcessedImage)], failed: [(id: String, failure: DropFailure)],
    cancelled: [String], keepFailed: Bool, restoring originals: [String: Item] = [:], to edit: inout DocumentEdit
  ) throws -> [Item] {
    let gone = Set(cancelled)
    // Where each placeholder this commit settles stands now, found in one pass over the
    // ids (which an item not read yet knows): only those items are read, so a commit into
    // 100,000 items costs what it commits.
    let wanted = Set(loaded.map(\.id) + failed.map(\.id)).union(gone)
    var placeholders: [String: (index: Int, item: Item)] = [:]
    for (id, index) in edit.positions(of: Array(wanted)) {
      let item = try edit.item(at: index)
      if item.state == .placeholder { placeholders[id] = (index, item) }
    }
    var inTrash: [String: Int] = [:]
    for (index, entry) in edit.trash.enumerated() where wanted.contains(entry.item.id) { inTrash[entry.item.id] = index }
    var removedFromItems = Set<String>()
    var removedFromTrash = Set<String>()
    /// A placeholder trashed or removed meanwhile: the image is not added.
    func dropFromTrash(_ id: String) {
      if let index = inTrash[id], edit.trash[index].item.state == .placeholder { removedFromTrash.insert(id) }
    }

    var committed: [Item] = []
    for (id, image) in loaded {
      guard let (index, placeholder) = placeholders[id] else {
        dropFromTrash(id)
        continue
      }
      let name = edit.addThumbnail(image.thumbnail, for: id)
      var item = placeholder.committed(with: image, thumbnailEntry: name)
      // Bytes the placeholder's save stored already (under the format their first bytes
      // said) are not stored again.
      if let original = image.original, !(placeholder.original.map { Self.isOriginal($0, of: image.hash) } ?? false) {
        item.original = edit.addOriginal(original, hash: image.hash, format: image.format)
      }
      edit.replaceItem(at: index, with: item)
      committed.append(item)
    }
    for (id, failure) in failed {
      guard let (index, placeholder) = placeholders[id] else {
        dropFromTrash(id)
        continue
      }
      if keepFailed {
        let item = placeholder.failed(because: failure.reason)
        edit.replaceItem(at: index, with: item)
        committed.append(item)
      } else {
        removedFromItems.insert(id)
      }
    }
    // A cancelled load's placeholder goes, or gives back the item it stood for.
    for id in gone {
      if let (index, _) = placeholders[id] {
        if let original = originals[id] { edit.replaceItem(at: index, with: original) } else { removedFromItems.insert(id) }
      }
      if let index = inTrash[id], edit.trash[index].item.state == .placeholder {
        if let original = originals[id] {
          edit.replaceTrashedItem(at: index, with: original)
        } else {
          removedFromTrash.insert(id)
        }
      }
    }
    edit.remove(items: removedFromItems, trashed: removedFromTrash)
    return committed
  }
}

extension Item {
  /// This placeholder, committed with what loading found.
  public func committed(with image: ProcessedImage, thumbnailEntry: String) -> Item {
    var item = self
    item.state = .ready
    item.placeholder = nil
    item.failure = nil
    item.width = image.width
    item.height = image.height
    item.aspectRatio = Double(image.width) / Double(image.height)
    item.orientation = image.orientation
    // How many pages a file says it has is its own word: an item counts up to its limit.
    item.pages = image.pages > 1 ? min(image.pages, ModelValidation.Limits.pages.upperBound) : nil
    item.camera = image.facts.camera
    item.taken = image.facts.taken
    item.lens = image.facts.lens
    item.exposure = image.facts.exposure
    item.location = image.facts.latitude.flatMap { latitude in
      image.facts.longitude.map { Item.Location(latitude: latitude, longitude: $0) }
    }
    if let xmp = image.xmp {
      item.tags = Item.tagSet(xmp.tags)
      item.rating = xmp.rating
      item.label = xmp.label.flatMap(Item.Label.init(rawValue:))
      item.caption = xmp.caption
    }
    item.format = image.format
    item.bytes = image.byteCount
    item.hash = image.hash
    item.thumbnail = thumbnailEntry
    return item
  }
}

extension ProcessedImage {
  /// The bytes a loaded image holds until it is committed.
  fileprivate var heldBytes: Int { thumbnail.data.count + (original?.count ?? 0) }
}
