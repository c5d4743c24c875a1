import Foundation
import GalleryDocument
import GalleryModel
import GallerySystem

/// The JSON the page reads, written with the model's one codec: every string is escaped by
/// it, and the page puts strings into the DOM only as text.
package enum ViewJSON {
  package static func encode(_ body: (inout JSONWriter) -> Void) -> String {
    var writer = JSONWriter()
    body(&writer)
    return String(decoding: writer.bytes, as: UTF8.self)
  }

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

  /// One entry of the document browser.
  package struct Summary {
    package var id: String
    package var path: String
    package var title: String?
    package var items = 0
    package var pending = 0
    package var stale = 0
    package var failed = 0
    package var trashed = 0
    package var modified: Date?
    package var problem: String?
  }

  package static func documents(_ summaries: [Summary], folders: [String]) -> [UInt8] {
    var writer = JSONWriter()
    writer.object { o in
      o.value("documents") { w in
        w.array(summaries) { w, summary in
          w.object { d in
            d.int("failed", summary.failed)
            d.string("folder", PathBytes.displayed((summary.path as NSString).deletingLastPathComponent))
            d.string("id", summary.id)
            d.int("items", summary.items)
            d.date("modified", summary.modified)
            d.string("name", PathBytes.displayed((summary.path as NSString).lastPathComponent))
            d.int("pending", summary.pending)
            d.string("problem", summary.problem)
            d.int("stale", summary.stale)
            d.string("title", summary.title)
            d.int("trashed", summary.trashed)
          }
        }
      }
      o.strings("folders", folders)
    }
    return writer.bytes
  }

  /// Items as the page lists them after an edit.
  package static func items(_ items: [Item]) -> [UInt8] {
    var writer = JSONWriter()
    writer.object { o in o.strings("ids", items.map(\.id)) }
    return writer.bytes
  }
}
