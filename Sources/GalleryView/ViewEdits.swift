import Foundation
import GalleryDocument
import GalleryKit
import GalleryModel
import GallerySystem

/// The page's edits in terms of the model: a page says "before this item" (or the end),
/// and the position is taken under the document's lock, where the items stand then.
package enum ViewEdits {
  /// The 1-based position of the first of `moving` items placed before `before` (nil or an
  /// item gone: the end) once they have left their places.
  package static func position(before: String?, in ids: some Collection<String>, moving: Set<String> = []) -> Int {
    guard let before else { return Int.max }
    let staying = ids.filter { !moving.contains($0) }
    // Dropped before one of the moving items: before the first one that stays after it.
    guard let anchor = ids.firstIndex(of: before) else { return Int.max }
    guard let next = ids[anchor...].first(where: { !moving.contains($0) }) else { return Int.max }
    return (staying.firstIndex(of: next) ?? staying.count) + 1
  }

  /// The same, for a drop that adds items (nil: the end), in the document as it is now
  /// (read through the server's open documents: no second read of the archive).
  package static func position(before: String?, in path: String, documents: ServedDocuments) throws -> Int? {
    guard before != nil else { return nil }
    return position(before: before, in: try documents.model(of: path).items.lazy.map(\.id))
  }

  /// Reorders: the items (in their order in the gallery) go before `before`.
  package static func move(_ ids: [String], before: String?, in path: String) throws -> [Item] {
    try GalleryDocument.edit(path) { edit in
      let moving = Set(edit.positions(of: ids).keys)
      edit.move(Array(moving), to: position(before: before, in: edit.itemIDs, moving: moving))
      return try edit.items(Array(moving))
    }
  }

  /// A note card holding `text`, before `before` (nil or an item gone: the end).
  package static func addNote(_ text: String, before: String?, in path: String) throws -> Item {
    try GalleryDocument.edit(path) { edit in
      try edit.addNote(text, at: position(before: before, in: edit.itemIDs))
    }
  }

  /// Copies or moves items from one document to another, as `gallery drag --type gallery`
  /// and `gallery drop` do: a move takes the items out of the source (into its trash) only
  /// after the destination has saved them. Within one document, a move reorders.
  package static func transfer(
    _ ids: [String], from source: String, to target: String, move: Bool, before: String?, documents: ServedDocuments
  ) throws -> [Item] {
    if move, FileSystem.isSameFile(source, target) { return try Self.move(ids, before: before, in: target) }
    let payload = try DragPayload.make(from: source, ids: ids, move: move)
    let outcome = try payload.drop(into: target, at: try position(before: before, in: target, documents: documents))
    if let notMoved = outcome.notMoved { throw ViewError.conflict(notMoved) }
    return outcome.items
  }
}
