import Foundation
import GalleryTestSupport
import Testing

@testable import GalleryCommands
@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryKit
@testable import GalleryModel
@testable import GallerySystem

@Suite("Note cards: text items among the images")
struct NoteCardTests {
  @Test("A card is its text: no source, no image, not empty; the query language and the listing see it")
  func rules() throws {
    let card = Item.noteCard(id: "n0te1a", text: "Trip to the coast\nBring the long lens")
    #expect(card.state == .note && card.displayState == .note && card.isNoteCard)
    #expect(ModelValidation.problems(of: card).isEmpty)
    var sourced = card
    sourced.source = "file:///photos/a.jpg"
    var pictured = card
    pictured.thumbnail = "thumbnails/n0te1a.jpg"
    var empty = card
    empty.note = nil
    for (broken, words) in [(sourced, "with a source"), (pictured, "an image's members"), (empty, "without text")] {
      #expect(ModelValidation.problems(of: broken).map(\.description).joined().contains(words))
    }
    #expect(MetadataEdit.cardProblem("") != nil && MetadataEdit.cardProblem("a\0b") != nil)
    #expect(MetadataEdit.cardProblem("fine\ntext") == nil)
    let photo = OrganizeTests.item("p1")
    #expect(try ItemQuery("state:note").matches(card) && !(try ItemQuery("state:note").matches(photo)))
    #expect(try ItemQuery("lens").matches(card), "words match its text")
    #expect(ItemLine.format(position: 2, item: card).hasSuffix("\"Trip to the coast\""))
    // Written and read by the model's codec as any item.
    var model = GalleryModel(title: "cards")
    model.items = [photo, card]
    #expect(try ModelCoding.decode(Data(ModelCoding.encode(model))).items == model.items)
  }

  @Test("add-note puts a card where asked as one undoable edit; its text is changed, never cleared")
  func commands() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + (try work.images(2))).status == 0)
    let added = try Run.gallery(["add-note", document, "Plan\nsecond line", "--at", "2"])
    #expect(added.status == 0 && added.stdout.hasPrefix("2\t") && added.stdout.hasSuffix("\tPlan\n"))
    let json = try Run.gallery(["add-note", document, "-", "--json"], stdin: Data("From stdin".utf8))
    let listed = try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]]
    #expect(listed?.first?["state"] as? String == "note" && listed?.first?["note"] as? String == "From stdin")
    #expect(try Run.gallery(["add-note", document, ""]).status == 64)
    var items = try GalleryDocument.open(document).model.items
    #expect(items.map(\.state) == [.ready, .note, .ready, .note])
    #expect(items[1].note == "Plan\nsecond line" && items[3].note == "From stdin")

    // Its text is its note: changed by `note`, refused when cleared (and nothing saved).
    #expect(try Run.gallery(["note", document, items[1].id, "Changed"]).status == 0)
    let cleared = try Run.gallery(["note", document, items[1].id, ""])
    #expect(cleared.status == 64 && cleared.stderr.contains("note card"))
    #expect(try GalleryDocument.open(document).model.items[1].note == "Changed")
    // Tagged and rated like an image; moved, trashed, restored, undone.
    #expect(try Run.gallery(["tag", document, items[1].id, "+plans"]).status == 0)
    #expect(try Run.gallery(["move", document, items[1].id, "--to", "end"]).status == 0)
    #expect(try Run.gallery(["trash", document, items[3].id]).status == 0)
    #expect(try Run.gallery(["undo", document]).status == 0)
    items = try GalleryDocument.open(document).model.items
    #expect(items.map(\.state) == [.ready, .ready, .note, .note] && items[3].tags == ["plans"])
    let history = try Run.gallery(["history", document, "--limit", "9"]).stdout
    #expect(history.contains("add a note card"))

    // What is about images leaves cards alone, or says why.
    #expect(try Run.gallery(["uris", document]).stdout.split(separator: "\r\n").count == 2)
    let export = try Run.gallery(["export", document, items[2].id, "--to", work.folder.appendingPathComponent("out").path])
    #expect(export.status != 0 && export.stderr.contains("note card"))
    #expect(try Run.gallery(["retry", document, items[2].id]).stderr.contains("note card"))
    let found = try Run.gallery(["find", document, "state:note"]).stdout
    #expect(found.split(separator: "\n").count == 3)
    let info = try Run.gallery(["info", document, "--json"])
    let counts = try JSONSerialization.jsonObject(with: info.stdoutData) as? [String: Any]
    #expect(counts?["notes"] as? Int == 2 && counts?["ready"] as? Int == 2 && counts?["items"] as? Int == 4)
    #expect(try Run.gallery(["check", document]).status == 0)
  }

  @Test("Cards travel: a merge and a drag payload carry them, each kept even when two say the same")
  func travel() throws {
    let work = try TestWorkspace()
    let source = try work.document("source.gallery")
    let target = try work.document("target.gallery")
    #expect(try Run.gallery(["drop", source] + (try work.images(1))).status == 0)
    for _ in 0..<2 { #expect(try Run.gallery(["add-note", source, "Same words"]).status == 0) }
    let cards = try GalleryDocument.open(source).model.items.filter(\.isNoteCard).map(\.id)
    let payload = try DragPayload.make(from: source, ids: cards, move: false)
    let decoded = try #require(try DragPayload.decode(try payload.encoded()))
    let outcome = try decoded.drop(into: target, at: nil)
    #expect(outcome.items.count == 2 && outcome.items.allSatisfy { $0.isNoteCard && $0.note == "Same words" })
    try DocumentMerge.merge([source], into: target, create: false)
    let merged = try GalleryDocument.open(target).model.items
    #expect(merged.filter(\.isNoteCard).count == 4 && merged.count == 5)
    #expect(try Run.gallery(["check", target]).status == 0)
  }

  @Test("A contact sheet draws a card as its text on paper, not as a missing image")
  func sheet() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["add-note", document, "Words on a card"]).status == 0)
    let png = try ContactSheet.render(try GalleryDocument.open(document), width: 400, layout: .rowHeight(200))
    try VipsRuntime.start()
    // The sheet as PPM at its own size: one card of 200 x 200 with a margin of 8.
    let size = try ImageProcessor.process(png, options: ImageOptions(thumbnailSize: 4096))
    #expect(size.width == 216 && size.height == 216)
    let ppm = try png.withUnsafeBytes { try VipsImageHandle.thumbnail(of: $0, width: 216, height: 216).encoded(as: ".ppm") }
    // Its header: P6, width, height, 255, each on a line; comment lines start with #.
    var lines: [Substring] = []
    var start = ppm.startIndex
    while lines.count < 4 {
      let end = ppm[start...].firstIndex(of: 0x0A)!
      let line = String(decoding: ppm[start..<end], as: UTF8.self)
      if !line.hasPrefix("#") { lines.append(contentsOf: line.split(separator: " ")) }
      start = end + 1
    }
    #expect(lines == ["P6", "216", "216", "255"])
    let pixels = [UInt8](ppm[start...])
    func at(_ x: Int, _ y: Int) -> [UInt8] { Array(pixels[(y * 216 + x) * 3..<(y * 216 + x) * 3 + 3]) }
    // Inside the frame, below the text: the card's paper (pale yellow), and ink somewhere.
    #expect(at(20, 200) == [255, 244, 186])
    let dark = stride(from: 0, to: pixels.count, by: 3).contains { pixels[$0] < 120 && pixels[$0 + 1] < 120 }
    #expect(dark, "its text is drawn")
  }
}
