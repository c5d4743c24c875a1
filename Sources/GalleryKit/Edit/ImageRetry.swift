import Foundation
import Synchronization

/// Loads again the items a drop could not finish: stale placeholders (their loader was
/// killed) and failed items. Each becomes a placeholder of this process again, is loaded
/// with no lock held, and is committed where it stands then; one that fails again stays as
/// a failed item, with the new reason.
public enum ImageRetry {
  /// Why an item cannot be retried.
  public struct Refusal: Error, CustomStringConvertible {
    public var description: String
  }

  /// Retries the given items, or every stale placeholder and failed item when `ids` is nil.
  public static func retry(_ ids: [String]?, in path: String, options: DropOptions = .init()) throws -> DropReport {
    let settings = try GalleryDocument.open(path).model.settings
    let imageOptions = ImageOptions(
      thumbnailSize: settings.thumbnailSize, maxPixels: options.maxPixels ?? settings.maxPixels,
      keepOriginal: options.embed ?? settings.embedOriginals, maxFileBytes: options.web.maxBytes)

    let targets: [(id: String, source: String)] = try GalleryDocument.edit(path) { edit in
      let wanted = ids ?? edit.model.items.filter { $0.state == .failed || $0.displayState == .stale }.map(\.id)
      var targets: [(String, String)] = []
      for id in wanted {
        guard let index = edit.model.items.firstIndex(where: { $0.id == id }) else { throw DocumentError.itemNotFound("with id \(id)") }
        let item = edit.model.items[index]
        switch item.displayState {
        case .ready: throw Refusal(description: "item \(id) is ready: nothing to retry")
        case .pending: throw Refusal(description: "item \(id) is being loaded by process \(item.placeholder?.owner.pid ?? 0)")
        case .failed, .stale: break
        }
        var placeholder = Item.placeholder(id: id, source: item.source, page: item.page)
        placeholder.added = item.added
        edit.model.items[index] = placeholder
        targets.append((id, item.source))
      }
      return targets
    }
    guard !targets.isEmpty else { return DropReport() }

    var sources: [DropSource?] = []
    var unusable: [Int: DropFailure] = [:]
    for (index, target) in targets.enumerated() {
      switch DropSourceParser.source(for: target.source) {
      case .success(let source): sources.append(source)
      case .failure(let failure):
        sources.append(nil)
        unusable[index] = failure
      }
    }
    let outcomes = Mutex<[Int: Result<ProcessedImage, DropFailure>]>([:])
    let loadable = sources.enumerated().compactMap { index, source in source.map { (index, $0) } }
    let loading = SourceLoading(imageOptions: imageOptions, options: options, needsWeb: loadable.contains { $0.1.isWeb })
    loading.run(loadable.map(\.1), cancellation: DropCancellation()) { position, outcome in
      outcomes.withLock { $0[loadable[position].0] = outcome }
    }
    let results = outcomes.withLock { $0 }.merging(unusable.mapValues { .failure($0) }) { first, _ in first }
    var loaded: [(id: String, image: ProcessedImage)] = []
    var failed: [(id: String, failure: DropFailure)] = []
    for (index, target) in targets.enumerated() {
      switch results[index] {
      case .success(let image): loaded.append((target.id, image))
      case .failure(let failure): failed.append((target.id, failure))
      case nil: failed.append((target.id, DropFailure(source: target.source, reason: "not loaded")))
      }
    }
    var report = DropReport()
    report.committed = try GalleryDocument.edit(path) { edit in
      PlaceholderCommit.apply(loaded: loaded, failed: failed, cancelled: [], keepFailed: true, to: &edit)
    }
    report.failures = failed.map(\.failure)
    return report
  }
}
