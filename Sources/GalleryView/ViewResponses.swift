import Hummingbird

// What the view's routes answer, as Codable values (Hummingbird encodes them as JSON). The
// answers that carry items or a whole document are the model's own JSON (`ViewJSON`).

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
