import Foundation
import GalleryKit
import Testing

/// GalleryKit as a program uses it: only what `import GalleryKit` gives (no @testable), on
/// real documents and the real photographs of Samples/.
@Suite("GalleryKit as a library")
struct GalleryLibraryTests {
  static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Samples").path

  @Test("Create, drop real photos, edit, undo, redo, revert and read the history through Gallery")
  func documentRoundTrip() async throws {
    let work = try TestWorkspace()
    let gallery = try await Gallery.create(at: work.path("Trip.gallery"), title: "Trip")
    #expect(try await gallery.model().title == "Trip")

    let photos = ["landscape.jpg", "portrait-exif-rotated.jpg", "transparent.png"].map { Self.samples + "/" + $0 }
    let report = try await gallery.drop(files: photos + [work.path("missing.jpg")])
    #expect(report.committed.count == 3)
    #expect(report.failures.map(\.source) == [work.path("missing.jpg")])
    let ids = try await gallery.items().map(\.id)
    #expect(ids == report.committed.map(\.id))
    // The drop's last revision (it may have committed its images in more than one save).
    let afterDrop = try await gallery.model().revision
    // The rotated portrait is displayed upright: taller than wide.
    let portrait = try #require(try await gallery.items().first { $0.source.hasSuffix("portrait-exif-rotated.jpg") })
    #expect(portrait.aspectRatio < 1 && portrait.displayState == .ready)
    #expect(try await gallery.thumbnail(of: ids[0]).starts(with: [0xFF, 0xD8]))

    try await gallery.move([ids[2]], to: 1)
    #expect(try await gallery.items().map(\.id) == [ids[2], ids[0], ids[1]])
    try await gallery.trash([ids[0]])
    #expect(try await gallery.model().trash.map(\.item.id) == [ids[0]])
    try await gallery.restore([ids[0]])
    try await gallery.setTitle("Summer")
    let undone = try await gallery.undo()
    #expect(undone.summary.contains("undo"))
    #expect(try await gallery.model().title == "Trip")
    try await gallery.redo()
    #expect(try await gallery.model().title == "Summer")

    let history = try await gallery.history()
    #expect(history.contains { $0.revision == afterDrop })
    let reverted = try await gallery.revert(to: afterDrop)
    #expect(reverted.target == afterDrop)
    #expect(try await gallery.items().map(\.id) == ids)
    #expect(try await gallery.model().title == "Trip")

    // An edit of one's own: one revision, taken back whole by undo.
    let revision = try await gallery.edit { edit in
      edit.move([ids[1]], to: 1)
      edit.title = "Both"
      edit.summary = "reorder and rename"
      return edit.revision + 1
    }
    #expect(try await gallery.history().last?.summary == "reorder and rename")
    #expect(try await gallery.model().revision == revision)
    try await gallery.undo()
    #expect(try await gallery.items().map(\.id) == ids)

    // The getting-started article's edit: ids and positions without reading, reads said.
    try await gallery.edit { edit in
      let last = Array(edit.itemIDs.suffix(2))
      edit.move(last, to: 1)
      try edit.update(last) { $0.rating = 5 }
      #expect(try edit.items(last).map(\.rating) == [5, 5] && edit.positions(of: last) == [last[0]: 0, last[1]: 1])
    }
    let rated = try await gallery.items()
    #expect(rated.map(\.id) == [ids[1], ids[2], ids[0]] && rated.map(\.rating) == [5, 5, nil])
    try await #require(throws: DocumentError.self) {
      try await gallery.edit { edit in
        _ = try edit.item(at: 0).id
        throw DocumentError.itemNotFound("on purpose")
      }
    }
    #expect(try await gallery.items() == rated, "an edit that throws saves nothing")
  }

  @Test("What a person writes, note cards and find, through Gallery")
  func organize() async throws {
    let work = try TestWorkspace()
    let gallery = try await Gallery.create(at: work.path("Board.gallery"), title: "Board")
    let report = try await gallery.drop(files: ["landscape.jpg", "transparent.png"].map { Self.samples + "/" + $0 })
    var change = MetadataEdit()
    change.addTags = ["places/coast"]
    change.rating = 4
    #expect(try await gallery.describe([report.committed[0].id], change) == [report.committed[0].id])
    let card = try await gallery.addNote("Coast trip\nbring the long lens", at: 2)
    #expect(try await gallery.items().map(\.id) == [report.committed[0].id, card.id, report.committed[1].id])
    #expect(try await gallery.find(try ItemQuery("tag:places rating>=4")).map(\.position) == [1])
    #expect(try await gallery.find(try ItemQuery("lens state:note")).map(\.item.id) == [card.id])
    await #expect(throws: MetadataEdit.Refusal.self) { try await gallery.addNote("") }
  }

  @Test("Library errors say what went wrong by their type and case")
  func errors() async throws {
    let work = try TestWorkspace()
    let path = work.path("a.gallery")
    let gallery = try await Gallery.create(at: path)
    await #expect {
      try await Gallery.create(at: path)
    } throws: { error in
      guard case DocumentError.exists = error else { return false }
      return "\(error)".contains(path)
    }
    await #expect {
      try await Gallery(path: work.path("none.gallery")).model()
    } throws: { error in
      guard case DocumentError.notFound = error else { return false }
      return true
    }
    await #expect {
      try await gallery.undo()
    } throws: { error in
      guard case DocumentHistory.Failure.nothingToUndo = error else { return false }
      return true
    }
    await #expect {
      try await gallery.thumbnail(of: "nosuch")
    } throws: { error in
      guard case DocumentError.itemNotFound = error else { return false }
      return true
    }
  }

  @Test("Blocking work asked by a cancelled task still runs: a cancelled drop must still save what loaded")
  func blockingWorkIgnoresCancellation() async throws {
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await BlockingWork.run { 42 }
    }
    #expect(try await task.value == 42)
  }
}
