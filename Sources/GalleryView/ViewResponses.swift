import Foundation
import GalleryModel
import GallerySystem
import Hummingbird

// What the view's routes answer, as Codable values (Hummingbird encodes them as JSON). The
// answer that carries a whole document is the model's own JSON (`ViewJSON`).

/// An edit that has nothing to tell but that it was done: `{}`.
struct Done: ResponseEncodable {}

/// The items a search matched, in the gallery's order.
struct Matches: ResponseEncodable {
  var ids: [String]
}

/// A document moved to the Trash: the token that puts it back (`/api/documents/untrash`).
struct Trashed: ResponseEncodable {
  var token: String
}

/// A document the server now shows: created, renamed, duplicated or opened.
struct DocumentID: ResponseEncodable {
  var id: String
}

/// An undo or redo: the revision it made, what it could not take back, its summary.
struct HistoryStep: ResponseEncodable {
  var revision: Int
  var skipped: [String]
  var summary: String
}

/// A page's drop: how many sources it started loading and how many it refused.
struct DropAnswer: ResponseEncodable {
  var accepted: Int
  var refused: Int
}

/// The items an edit made or changed, as the page looks them up: their ids.
struct Edited: ResponseEncodable {
  var ids: [String]

  init(_ items: [Item]) { ids = items.map(\.id) }
}

/// The document browser's list: each document served, and the folders it lists.
struct DocumentListing: ResponseEncodable {
  var documents: [Entry]
  var folders: [String]

  /// One document, as the browser shows it; a document that does not open has its
  /// `problem` and no counts.
  struct Entry: Encodable {
    var id: String
    var name: String
    var folder: String
    var title: String?
    var items = 0
    var pending = 0
    var stale = 0
    var failed = 0
    var trashed = 0
    var modified: Date?
    var problem: String?

    init(id: String, path: String) {
      self.id = id
      name = PathBytes.displayed((path as NSString).lastPathComponent)
      folder = PathBytes.displayed((path as NSString).deletingLastPathComponent)
    }
  }
}
