import Foundation
import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem

/// Loads again the items a drop could not finish: stale placeholders (their loader was
/// killed) and failed items. Each becomes a placeholder of this process again, is loaded
/// with no lock held, and is committed where it stands then; one that fails again stays as
/// a failed item, with the new reason. An image given as bytes (`urn:sha256:`) loads from
/// the bytes the document holds, saved with its placeholder.
public enum ImageRetry {
  /// Why an item cannot be retried.
  public struct Refusal: Error, CustomStringConvertible {
    public var description: String
  }

  /// Retries the given items, or every stale placeholder and failed item when `ids` is nil.
  public static func retry(_ ids: [String]?, in path: String, options: DropOptions = .init()) async throws -> DropReport {
    let settings = try await BlockingWork.run { try GalleryDocument.loadingSettings(path) }
    let imageOptions = ImageOptions(
      thumbnailSize: settings.thumbnailSize, maxPixels: options.maxPixels ?? settings.maxPixels,
      keepOriginal: options.embed ?? settings.embedOriginals, maxFileBytes: options.web.maxBytes)

    // Each item becomes a placeholder of this process again, where it stands; one whose
    // source names nothing loadable stays failed, with the reason. What each was goes in
    // `originals`: a load cancelled by a shutdown gives it back, never takes it away.
    let (targets, unusable, originals) = try await BlockingWork.run { try placeholders(for: ids, in: path) }
    guard !targets.isEmpty else { return DropReport(failures: unusable) }

    var report = try await ImageLoader.using(imageOptions, options, needsWeb: targets.contains { $0.source.isWeb }) { loader in
      try await LoadPipeline.run(
        targets.map(\.source), loader: loader, into: FollowedDocument(path), keepFailed: true,
        spacing: .seconds(options.commitInterval), restoring: originals
      ) { _ in (targets.map(\.id), nil, EarlyOutcomes.Settled()) }
    }
    // A retry keeps what fails again as a failed item, and says why.
    report.failures = unusable + report.keptFailures
    report.keptFailures = []
    return report
  }

  private static func placeholders(
    for ids: [String]?, in path: String
  ) throws -> (targets: [(id: String, source: DropSource)], unusable: [DropFailure], originals: [String: Item]) {
    var unusable: [DropFailure] = []
    var originals: [String: Item] = [:]
    let targets: [(id: String, source: DropSource)] = try GalleryDocument.edit(path) { edit in
      let wanted = try ids ?? edit.wholeModel().items.filter { $0.state == .failed || $0.displayState == .stale }.map(\.id)
      var targets: [(String, DropSource)] = []
      let positions = edit.positions(of: wanted)
      for id in wanted {
        guard let index = positions[id] else {
          throw DocumentError.itemNotFound("with id \(id)")
        }
        let item = try edit.item(at: index)
        switch item.displayState {
        case .ready: throw Refusal(description: "item \(id) is ready: nothing to retry")
        case .note: throw Refusal(description: "item \(id) is a note card: nothing to retry")
        case .pending:
          // Another machine's process (a document synced between them) cannot be checked
          // here: named, its placeholder is taken over, or a killed drop there would leave
          // it pending here for good.
          guard ids != nil, let owner = item.placeholder?.owner, !owner.isOnThisHost else {
            throw Refusal(description: "item \(id) is being loaded by process \(item.placeholder?.owner.pid ?? 0)")
          }
        case .failed, .stale: break
        }
        // Given as bytes (no URL to load them from): the bytes the document holds.
        if item.source.hasPrefix("urn:"), let data = try? edit.original(of: item) {
          edit.replaceItem(at: index, with: item.placeholderAgain())
          originals[id] = item
          targets.append((id, .data(data, given: item.source)))
          continue
        }
        switch DropSourceParser.source(for: item.source) {
        case .success(let source):
          edit.replaceItem(at: index, with: item.placeholderAgain())
          originals[id] = item
          targets.append((id, source))
        case .failure(let failure):
          edit.replaceItem(at: index, with: item.failed(because: failure.reason))
          unusable.append(failure)
        }
      }
      return targets
    }
    return (targets, unusable, originals)
  }
}
