import GalleryDocument
import GalleryModel

/// What a document holds by source and by content (items and trash together), counted at
/// one revision, and brought to a later one by the changes its journal records made: a
/// drop folder's scan and commit into a gallery of 100,000 items read the records since
/// they last looked, not every item.
package struct ContentCensus: Sendable, Equatable {
  package private(set) var revision: Int
  package private(set) var revisionID: String?
  private var sources: [String: Int] = [:]
  private var hashes: [String: Int] = [:]
  /// Of each source, what its items with content hold (file size and hash, and whether
  /// the document keeps the original's bytes), counted.
  private var contents: [String: [Content: Int]] = [:]

  package struct Content: Hashable, Sendable {
    package var bytes: Int
    package var hash: String
    package var keepsOriginal: Bool
  }

  /// Counted from every item (each read).
  package init(_ model: GalleryModel) {
    revision = model.revision
    revisionID = model.revisionID
    for item in model.items { count(item, by: 1) }
    for entry in model.trash { count(entry.item, by: 1) }
  }

  package func holds(source: String) -> Bool { sources[source] != nil }
  package func holds(hash: String) -> Bool { hashes[hash] != nil }

  /// What the items of `source` hold, when every one of them has content (none is a
  /// placeholder or a failed item); nil otherwise.
  package func contents(of source: String) -> Set<Content>? {
    let held = contents[source] ?? [:]
    guard held.values.reduce(0, +) == sources[source, default: 0] else { return nil }
    return Set(held.keys)
  }

  /// The census of `model`, whose history is `history`: `previous` with the records since,
  /// or counted again when they are not all there (a compaction forgot them, another
  /// lineage) or do not read.
  package static func current(_ previous: ContentCensus?, of model: GalleryModel, history: History) -> ContentCensus {
    current(previous, revision: model.revision, revisionID: model.revisionID, history: history) { model }
  }

  /// The census at `revision`: `previous` with the records since, or counted from the
  /// model `whole` reads (every item) when it cannot be brought forward.
  package static func current(
    _ previous: ContentCensus?, revision: Int, revisionID: String?, history: History,
    counting whole: () throws -> GalleryModel
  ) rethrows -> ContentCensus {
    if var census = previous, census.revision <= revision {
      let since = Set(history.revisions.filter { $0 > census.revision })
      if since.count == revision - census.revision, let records = try? history.records(since) {
        var followed = true
        for record in records where followed { followed = census.apply(record) }
        if followed, census.revision == revision, census.revisionID == revisionID { return census }
      }
    }
    return ContentCensus(try whole())
  }

  /// Counts what `record` changed; false, with nothing counted, when it does not follow.
  mutating func apply(_ record: JournalRecord) -> Bool {
    guard record.revision == revision + 1, record.parent == revisionID else { return false }
    let change = record.change
    for removed in change.items.removed { count(removed.element, by: -1) }
    for inserted in change.items.inserted { count(inserted.element, by: 1) }
    for updated in change.items.updated {
      count(updated.before, by: -1)
      count(updated.after, by: 1)
    }
    for removed in change.trash.removed { count(removed.element.item, by: -1) }
    for inserted in change.trash.inserted { count(inserted.element.item, by: 1) }
    for updated in change.trash.updated {
      count(updated.before.item, by: -1)
      count(updated.after.item, by: 1)
    }
    revision = record.revision
    revisionID = record.id
    return true
  }

  private mutating func count(_ item: Item, by step: Int) {
    Self.count(item.source, in: &sources, by: step)
    if let hash = item.hash { Self.count(hash, in: &hashes, by: step) }
    if let hash = item.hash, let bytes = item.bytes {
      let content = Content(bytes: bytes, hash: hash, keepsOriginal: item.original != nil)
      Self.count(content, in: &contents[item.source, default: [:]], by: step)
      if contents[item.source]?.isEmpty == true { contents[item.source] = nil }
    }
  }

  private static func count<Key: Hashable>(_ key: Key, in counts: inout [Key: Int], by step: Int) {
    let total = counts[key, default: 0] + step
    counts[key] = total > 0 ? total : nil
  }
}
