import Foundation
import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem

/// Merging galleries: the items of each source in order, the same content only once, their
/// thumbnails (and embedded originals) carried over as they are: nothing is refetched or
/// thumbnailed again.
public enum DocumentMerge {
  /// An item of a source document with its stored data.
  public struct Carried: Sendable {
    public var item: Item
    public var thumbnail: Thumbnail?
    public var original: Data?
  }

  /// The items of a document that can be carried elsewhere (ready and failed ones), with data.
  public static func carried(from path: String, ids: [String]? = nil) throws -> [Carried] {
    let document = try GalleryDocument.open(path)
    let items =
      ids.map { wanted in
        let positions = document.model.positions(of: wanted)
        return wanted.compactMap { positions[$0].map { document.model.items[$0] } }
      } ?? document.model.items
    return try items.filter { $0.state != .placeholder }.map { item in
      var thumbnail: Thumbnail?
      if item.thumbnail != nil {
        let ext = (item.thumbnail! as NSString).pathExtension
        thumbnail = Thumbnail(data: try document.thumbnail(of: item), fileExtension: ext.isEmpty ? "jpg" : ext)
      }
      return Carried(item: item, thumbnail: thumbnail, original: try document.original(of: item))
    }
  }

  /// Adds carried items at a position (nil: the end), skipping content the document has
  /// (or that came earlier in `carried`). Returns the items added, with their new ids.
  public static func add(_ carried: [Carried], to edit: inout DocumentEdit, at position: Int?) throws -> [Item] {
    try addKeepingTrack(carried, to: &edit, at: position, skippingDuplicates: true).map(\.item)
  }

  /// `add`, telling for each item added the id it had in its source; with
  /// `skippingDuplicates` false every carried item is added (what a user dragged is kept).
  static func addKeepingTrack(
    _ carried: [Carried], to edit: inout DocumentEdit, at position: Int?, skippingDuplicates: Bool
  ) throws -> [(sourceID: String, item: Item)] {
    let whole = try edit.wholeModel()
    var hashes = Set(whole.items.compactMap(\.hash) + whole.trash.compactMap(\.item.hash))
    var sources = Set(whole.items.filter { $0.state == .failed }.map(\.source))
    var added: [Item] = []
    var sourceIDs: [String] = []
    // An item keeps its id unless the items, the trash or the history have it (a thumbnail
    // undo may bring back is never replaced).
    var taken = try edit.takenIDs()
    for entry in carried {
      var item = entry.item
      if item.isNoteCard {
        // A card is what a person wrote: never taken for another's duplicate.
      } else if let hash = item.hash {
        guard hashes.insert(hash).inserted || !skippingDuplicates else { continue }
      } else {
        guard sources.insert(item.source).inserted || !skippingDuplicates else { continue }
      }
      sourceIDs.append(item.id)
      if taken.contains(item.id) { item.id = ItemID.make(avoiding: taken) }
      taken.insert(item.id)
      item.thumbnail = entry.thumbnail.map { edit.addThumbnail($0, for: item.id) }
      if let original = entry.original, let hash = item.originalHash {
        let named = item.original.map { ($0 as NSString).pathExtension } ?? ""
        item.original = edit.addOriginal(original, hash: hash, format: item.format ?? named)
      } else {
        item.original = nil
      }
      added.append(item)
    }
    edit.insert(added, at: position)
    return Array(zip(sourceIDs, added))
  }

  /// Merges `sources` into `target`: a new document (`create`) or an existing one.
  @discardableResult
  public static func merge(_ sources: [String], into target: String, create: Bool) throws -> [Item] {
    let carried = try sources.flatMap { try Self.carried(from: $0) }
    if create { try GalleryDocument.create(target) }
    do {
      return try GalleryDocument.edit(target) { edit in try add(carried, to: &edit, at: nil) }
    } catch {
      if create { FileSystem.remove(target) }
      throw error
    }
  }
}
