import Foundation
import GalleryDocument
import GalleryModel
import GallerySystem

/// A document as its page reads it, written with the model's codec (a page of 100,000
/// items is the view's one hot path): every string is escaped by it, and the page puts
/// strings into the DOM only as text. The view's other answers are Codable
/// (ViewResponses.swift).
package enum ViewJSON {
  /// A document for its page: the model's items and trash, each item with its display
  /// state (pending or stale for placeholders) and the version of its thumbnail.
  package static func document(id: String, path: String, model: GalleryModel) -> [UInt8] {
    var writer = JSONWriter(capacity: 256 + model.items.count * 400)
    writer.object { o in
      o.string("id", id)
      o.value("items") { w in w.array(model.items) { w, item in w.item(item, display: item.displayState.rawValue) } }
      // Stays the same for the document's path when ids change (another server): what the
      // page remembers per document (the tile size) is kept under it.
      o.string("key", String(contentHash(of: Data(path.utf8)).dropFirst("sha256:".count).prefix(16)))
      o.string("name", PathBytes.displayed((path as NSString).lastPathComponent))
      o.int("revision", model.revision)
      o.int("thumbnailSize", model.settings.thumbnailSize)
      o.string("title", model.title)
      o.value("trash") { w in
        w.array(model.trash) { w, trashed in
          w.object { t in
            t.value("item") { $0.item(trashed.item, display: trashed.item.displayState.rawValue) }
            t.int("position", trashed.position)
            t.date("trashed", trashed.trashed)
          }
        }
      }
    }
    return writer.bytes
  }
}
