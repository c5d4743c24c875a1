import GalleryDocument
import GalleryModel

/// What an edit command did, as its `--json` says it: the revision it made (absent when the
/// items already were so, and nothing was saved), what the history calls it, and the items
/// it named, where they stand now (no position: in the trash, or emptied from it).
struct EditReport: Encodable {
  struct Placed: Encodable {
    var id: String
    var position: Int?
  }

  var revision: Int?
  var summary: String?
  var items: [Placed]?

  /// Runs `body` as one edit of `document`; `body` answers the ids of the items it named
  /// (nil for every item, which the report leaves out). With `json` the report goes to
  /// standard output; without, an edit that changed nothing says so on standard error
  /// (unless `sayingUnchanged` is false).
  static func edit(
    _ document: String, json: Bool, sayingUnchanged: Bool = true, _ body: (inout DocumentEdit) throws -> [String]?
  ) throws {
    var positions: [String: Int] = [:]
    let (named, _, saved) = try GalleryDocument.editRecordingSave(document) { edit in
      let named = try body(&edit)
      if json, let named { positions = edit.positions(of: named) }
      return named
    }
    if json {
      let items = named.map { $0.map { Placed(id: $0, position: positions[$0].map { $0 + 1 }) } }
      try JSONOutput.write(EditReport(revision: saved?.revision, summary: saved?.summary, items: items))
    } else if saved == nil && sayingUnchanged {
      Terminal.message("nothing changed: the items already were so")
    }
  }
}
