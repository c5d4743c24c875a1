import Dispatch
import Foundation
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
}

/// A cancellation flag set from a signal handler and read by the loaders; downloads in
/// progress register a handler that aborts them.
public final class DropCancellation: Sendable {
  private let flag = Atomic<Bool>(false)
  private let handlers = Mutex<(next: Int, byToken: [Int: @Sendable () -> Void])>((0, [:]))

  public init() {}

  public func cancel() {
    flag.store(true, ordering: .relaxed)
    let pending = handlers.withLock { state in
      defer { state.byToken.removeAll() }
      return Array(state.byToken.values)
    }
    for handler in pending { handler() }
  }

  public var isCancelled: Bool { flag.load(ordering: .relaxed) }

  /// Runs `handler` on cancellation; returns a token for `remove`.
  public func onCancel(_ handler: @escaping @Sendable () -> Void) -> Int {
    handlers.withLock { state in
      state.next += 1
      state.byToken[state.next] = handler
      return state.next
    }
  }

  public func remove(_ token: Int) {
    _ = handlers.withLock { $0.byToken.removeValue(forKey: token) }
  }
}

/// Drops images into a document the way the classic app did: placeholders first, saved at
/// once; the loads run with no lock held; each loaded image is committed where its placeholder
/// stands *then*, or its placeholder removed when loading failed.
public enum ImageDrop {
  public static func drop(
    _ sources: [DropSource], into path: String, options: DropOptions = .init(),
    cancellation: DropCancellation = .init(),
    progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }
  ) throws -> DropReport {
    let settings = try GalleryDocument.open(path).model.settings
    let maxPixels = options.maxPixels ?? settings.maxPixels
    let keepFailed = options.keepFailed ?? settings.keepFailed
    let imageOptions = ImageOptions(
      thumbnailSize: settings.thumbnailSize, maxPixels: maxPixels,
      keepOriginal: options.embed ?? settings.embedOriginals, maxFileBytes: options.web.maxBytes)
    var report = DropReport()

    // Refuse what can be refused without decoding, before the document is touched; web
    // sources are only known once downloaded. With keepFailed every source gets its item:
    // the full load refuses the same way, and the failure is kept.
    let accepted = keepFailed ? sources : sources.filter { source in
      guard case .file(let path) = source.location,
        let reason = LocalImageLoader.precheck(path: path, maxPixels: maxPixels, maxBytes: options.web.maxBytes)
      else { return true }
      report.failures.append(DropFailure(source: source.given, reason: reason))
      return false
    }
    guard !accepted.isEmpty else { return report }
    let hasWeb = accepted.contains(where: \.isWeb)

    // 1. Loads, with no lock held: local files at once, downloads once the placeholders
    // are saved.
    let outcomes = Mutex<[Int: Result<ProcessedImage, DropFailure>]>([:])
    let done = Atomic<Int>(0)
    let arrived = DispatchSemaphore(value: 0)
    let placeholdersSaved = DispatchGroup()
    placeholdersSaved.enter()
    let finished = DispatchGroup()
    finished.enter()
    let loading = SourceLoading(imageOptions: imageOptions, options: options, needsWeb: hasWeb)
    Thread.detachNewThread {
      loading.run(accepted, cancellation: cancellation, beforeDownloads: placeholdersSaved) { index, outcome in
        outcomes.withLock { $0[index] = outcome }
        progress(done.add(1, ordering: .relaxed).newValue, accepted.count)
        arrived.signal()
      }
      finished.leave()
      arrived.signal()
    }

    // 2. Placeholders, saved while the local files load: nothing can be committed before
    // they are saved, and a local read is no download to hold back.
    let ids: [String]
    let placeholderSave: SaveMark?
    do {
      (ids, placeholderSave) = try GalleryDocument.editRecordingSave(path) { edit in
        let ids = edit.newItemIDs(accepted.count)
        let now = Date.nowInWholeSeconds
        edit.model.insert(
          zip(ids, accepted).map { Item.placeholder(id: $0, source: $1.url, page: $1.page, now: now) }, at: options.position)
        return ids
      }
    } catch {
      cancellation.cancel()
      placeholdersSaved.leave()
      finished.wait()
      throw error
    }
    placeholdersSaved.leave()

    // 3. Commits: in batches while loading, so a long drop fills in as it goes.
    var committedAny = false
    var pendingFailures: [Int: DropFailure] = [:]
    var handled = Set<Int>()
    var cancelledLoads = Set<Int>()
    let spacing = hasWeb ? options.webCommitInterval : options.commitInterval
    var lastCommit = DispatchTime.now()
    while true {
      arrived.wait()
      // Outcomes that arrive until the next save is due join it.
      let isFinished = finished.wait(timeout: lastCommit + spacing) == .success
      let ready = outcomes.withLock { results in
        defer { results.removeAll() }
        return results
      }
      var loaded: [Int: ProcessedImage] = [:]
      var interrupted = Set<Int>()
      for (index, outcome) in ready {
        handled.insert(index)
        switch outcome {
        case .success(let image): loaded[index] = image
        // A download the drop's own cancellation aborted was not loaded, and did not fail.
        case .failure(let failure) where cancellation.isCancelled && failure.reason == WebFailure.cancelled.description:
          interrupted.insert(index)
        case .failure(let failure): pendingFailures[index] = failure
        }
      }
      cancelledLoads.formUnion(interrupted)
      let cancelled = isFinished ? Set(accepted.indices).subtracting(handled).union(cancelledLoads) : []
      // Failures wait for a batch with successes, or the end: a drop that only fails can
      // then be taken back byte for byte.
      guard !loaded.isEmpty || isFinished else { continue }
      if isFinished, !committedAny, loaded.isEmpty, !keepFailed, let placeholderSave,
        try GalleryDocument.rollBack(path, placeholderSave)
      {
        report.failures += pendingFailures.sorted { $0.key < $1.key }.map(\.value)
        report.cancelled = cancelled.count
        return report
      }
      let failures = pendingFailures
      pendingFailures = [:]
      let committed = try GalleryDocument.edit(path) { edit in
        PlaceholderCommit.apply(
          loaded: loaded.map { (ids[$0.key], $0.value) },
          failed: failures.map { (ids[$0.key], $0.value) },
          cancelled: cancelled.map { ids[$0] },
          keepFailed: keepFailed, to: &edit)
      }
      committedAny = true
      lastCommit = .now()
      if keepFailed {
        report.keptFailures += failures.sorted { $0.key < $1.key }.map(\.value)
      } else {
        report.failures += failures.sorted { $0.key < $1.key }.map(\.value)
      }
      report.committed += committed
      report.cancelled += cancelled.count
      if isFinished { break }
    }
    // Report in drop order.
    let order = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
    report.committed.sort { order[$0.id, default: 0] < order[$1.id, default: 0] }
    return report
  }
}

/// Commits loaded images where their placeholders stand now.
public enum PlaceholderCommit {
  /// Replaces each placeholder in place (wherever other edits moved it); removes the
  /// placeholders of failures (or marks them failed) and of cancelled loads. A placeholder
  /// that was trashed or removed meanwhile means the image is not added. Returns the
  /// committed items.
  public static func apply(
    loaded: [(id: String, image: ProcessedImage)], failed: [(id: String, failure: DropFailure)],
    cancelled: [String], keepFailed: Bool, to edit: inout DocumentEdit
  ) -> [Item] {
    var committed: [Item] = []
    for (id, image) in loaded {
      guard let index = edit.model.items.firstIndex(where: { $0.id == id && $0.state == .placeholder }) else {
        edit.model.trash.removeAll { $0.item.id == id && $0.item.state == .placeholder }
        continue
      }
      let name = edit.addThumbnail(image.thumbnail, for: id)
      edit.model.items[index] = edit.model.items[index].committed(with: image, thumbnailEntry: name)
      if let original = image.original {
        edit.model.items[index].original = edit.addOriginal(original, hash: image.hash, format: image.format)
      }
      committed.append(edit.model.items[index])
    }
    for (id, failure) in failed {
      guard let index = edit.model.items.firstIndex(where: { $0.id == id && $0.state == .placeholder }) else {
        edit.model.trash.removeAll { $0.item.id == id && $0.item.state == .placeholder }
        continue
      }
      if keepFailed {
        edit.model.items[index] = edit.model.items[index].failed(because: failure.reason)
        committed.append(edit.model.items[index])
      } else {
        edit.model.items.remove(at: index)
      }
    }
    let gone = Set(cancelled)
    edit.model.items.removeAll { gone.contains($0.id) && $0.state == .placeholder }
    edit.model.trash.removeAll { gone.contains($0.item.id) && $0.item.state == .placeholder }
    return committed
  }
}
