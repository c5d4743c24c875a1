import Foundation
import Testing

@testable import GalleryDocument
@testable import GalleryModel
@testable import GallerySystem

/// Opening through the trailer and the index on real archives: it reads what a whole scan
/// reads, and a trailer or index that does not describe its file is never believed.
@Suite("Format 2: index and trailer")
struct IndexTests {
  /// A fresh reader's two ways to open `path`: through the trailer and index, and whole.
  func bothWays(_ path: String) throws -> (indexed: ArchiveLayout, scanned: ArchiveLayout) {
    let file = try FileHandleFD(path: path, flags: O_RDONLY)
    return (try DocumentArchive.openThroughIndex(file), try DocumentArchive.scan(file))
  }

  func expectSame(_ indexed: ArchiveLayout, _ scanned: ArchiveLayout, _ step: String) {
    #expect(indexed.model == scanned.model, "\(step): model")
    #expect(indexed.entries == scanned.entries, "\(step): entries")
    #expect(indexed.revisionEnd == scanned.revisionEnd && indexed.fileSize == scanned.fileSize, "\(step): end")
    #expect(indexed.revisions == scanned.revisions, "\(step): revisions")
    // Through the index, the records are kept as bytes until needed; decoded, they are the
    // scan's.
    #expect(indexed.history.revisions == scanned.history.revisions, "\(step): history")
    #expect((try? indexed.history.records()) == (try? scanned.history.records()), "\(step): history records")
    #expect(indexed.checkpointRevision == scanned.checkpointRevision, "\(step): checkpoint")
    #expect(indexed.checkpointBytes == scanned.checkpointBytes, "\(step): checkpoint bytes")
    #expect(indexed.journalBytes == scanned.journalBytes && indexed.journalRecords == scanned.journalRecords, "\(step): journal")
    #expect(indexed.liveBytes == scanned.liveBytes, "\(step): live bytes")
    #expect(indexed.tornBytes == 0 && scanned.tornBytes == 0 && scanned.damage == nil, "\(step): clean")
  }

  @Test("Entry names are judged as bytes as they were as Characters: combining marks, look-alikes, CR LF")
  func sizeLimitsOnBytes() {
    let names = [
      "gallery.json", "gallery.index", "gallery.end", "mimetype", "cover.jpg", "thumbnails/abc.jpg", "journal/0000000001.json",
      "originals/x.jpeg", "thumbnails/", "journal/", "originals", "gallery.json ", "Gallery.json", "cover.jpg\u{301}",
      "journal/\u{301}x", "thumbnails\u{301}/a.jpg", "gallery.json\r\n", "journal/\r\n", "\u{212A}", "mimetype\u{0}", "",
      "thumbnails/\u{FF0E}jpg", "originals/\r", "gallery.end\r",
    ]
    for name in names {
      #expect(
        DocumentArchive.sizeLimit(of: name) == DocumentArchive.sizeLimit(comparingCharacters: name), "\(name.debugDescription)")
    }
  }

  @Test("Through the index a document reads as scanned whole, save after save, across checkpoints and compactions")
  func indexAgreesWithScan() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(5, width: 60, height: 40)).status == 0)
    let dropped = Set(try GalleryDocument.open(document).model.items.map(\.id))
    var random = SplitMix(state: 7)
    var next = 0
    for step in 0..<80 {
      try GalleryDocument.edit(document) { edit in
        var model = edit.model
        JournalTests.randomEdit(&model, &random, next: &next)
        // The test's own items have no thumbnail entry: failed, so the cover never needs one.
        func made(_ item: Item) -> Bool { item.state == .ready && !dropped.contains(item.id) }
        model.items = model.items.map { made($0) ? $0.failed(because: "made by the test") : $0 }
        for index in model.trash.indices where made(model.trash[index].item) {
          model.trash[index].item = model.trash[index].item.failed(because: "made by the test")
        }
        edit.model.items = model.items
        edit.model.trash = model.trash
        edit.model.title = model.title
      }
      if step == 40 { try GalleryDocument.compact(document) }
      let (indexed, scanned) = try bothWays(document)
      expectSame(indexed, scanned, "step \(step)")
      // The trailer's summary is what the document holds.
      let trailer = try DocumentArchive.trailer(of: try FileHandleFD(path: document, flags: O_RDONLY))
      #expect(trailer.summary == DocumentSummary(scanned), "step \(step): summary")
    }
    // Not every save wrote a checkpoint: most were read from the records after the index.
    #expect(try archiveNames(document).filter { $0 == ArchiveIndex.name }.count < 40)
    #expect(DocumentCheck.indexProblem(try GalleryDocument.open(document, scanningWhole: true)) == nil)
    // `info` shows the trailer's summary (it reads nothing else), and `check` compares it.
    let title = try GalleryDocument.open(document).model.title
    try patch(document, "\"title\":\"\(title)\"", "\"title\":\"" + String(repeating: "Z", count: title.count) + "\"")
    #expect(try Run.gallery(["info", document]).stdout.contains(String(repeating: "Z", count: title.count)))
    let check = try Run.gallery(["check", document])
    #expect(check.status != 0 && check.stdout.contains("summary"), "\(check.stdout)")
  }

  @Test("Plain tar tools still list the document and extract the last model; a tar -r append is read by a whole scan")
  func tarToolsAndAppends() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(2, width: 60, height: 40)).status == 0)
    for tool in ["bsdtar", "tar"] {
      let names = try archiveNames(document, tool: tool)
      #expect(names.last == ArchiveTrailer.name && names.contains(ArchiveIndex.name), "\(tool): \(names)")
    }
    // GNU tar appends after the trailer: the file no longer ends with one, and opens whole.
    let extra = work.path("extra.txt")
    try Data("x".utf8).write(to: URL(fileURLWithPath: extra))
    #expect(try Run.program("tar", ["-rf", document, "-C", work.path(""), "extra.txt"]).status == 0)
    let file = try FileHandleFD(path: document, flags: O_RDONLY)
    #expect(throws: (any Error).self) { try DocumentArchive.openThroughIndex(file) }
    let opened = try GalleryDocument.open(document)
    #expect(opened.model.items.count == 2 && !opened.layout.readThroughIndex)
    #expect(try Run.gallery(["info", document]).stdout.contains("2 ready"))
    // The next save makes it quick to open again.
    #expect(try Run.gallery(["move", document, "2", "--to", "1"]).status == 0)
    let (indexed, scanned) = try bothWays(document)
    expectSame(indexed, scanned, "after the append")
  }

  /// Overwrites the last occurrence of `text` in the file with `replacement` (same length).
  func patch(_ path: String, _ text: String, _ replacement: String) throws {
    precondition(text.utf8.count == replacement.utf8.count)
    var data = try Data(contentsOf: URL(fileURLWithPath: path))
    let range = try #require(data.lastRange(of: Data(text.utf8)), "\(text) not found")
    data.replaceSubrange(range, with: Data(replacement.utf8))
    try data.write(to: URL(fileURLWithPath: path))
  }

  @Test(
    "A trailer or index that lies is not believed: the document opens by a whole scan, info shows the truth, check names it and --fix mends it",
    arguments: [
      "trailer points elsewhere", "summary lies", "index overlaps", "index misplaces the checkpoint", "outline lies",
      "index names another revision",
    ])
  func lyingIndex(lie: String) throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(3, width: 60, height: 40)).status == 0)
    try GalleryDocument.compact(document)
    let honest = try GalleryDocument.open(document).model
    let trailer = try DocumentArchive.trailer(of: try FileHandleFD(path: document, flags: O_RDONLY))
    let index = try #require(trailer.index)
    switch lie {
    case "trailer points elsewhere":
      let other = String(index - 512)
      try patch(
        document, "\"index\":\(index)", "\"index\":" + String(repeating: "0", count: String(index).count - other.count) + other)
    case "summary lies":
      try patch(document, "\"items\":3", "\"items\":9")
    case "index overlaps":
      // The cover's span made larger than the distance to the next entry.
      let cover = try #require(try bothWays(document).scanned.entries[DocumentArchive.coverEntry])
      let bigger = String(cover.span + 1024)
      try #require(bigger.count == String(cover.span).count)
      try patch(document, "\"cover.jpg\",\(cover.offset),\(cover.span)", "\"cover.jpg\",\(cover.offset),\(bigger)")
    case "index names another revision":
      let revision = try GalleryDocument.open(document).model.revision
      let other = String(revision + 1)
      try #require(other.count == String(revision).count)
      try patch(document, "\"revision\":\(revision),\"revisions\":", "\"revision\":\(other),\"revisions\":")
    case "outline lies":
      // The items array said to end a byte early: its items no longer tile it.
      let data = try Data(contentsOf: URL(fileURLWithPath: document))
      let start = try #require(data.lastRange(of: Data("\"checkpointOutline\":{\"array\":[".utf8))).upperBound
      let bounds = String(decoding: data[start..<start + 40], as: UTF8.self).prefix { $0 != "]" }
      let parts = bounds.split(separator: ",")
      let shorter = String(try #require(Int(parts[1])) - 1)
      try #require(shorter.count == parts[1].count)
      try patch(document, "\"array\":[\(bounds)]", "\"array\":[\(parts[0]),\(shorter)]")
    default:
      let checkpoint = try #require(try bothWays(document).scanned.entries[DocumentArchive.modelEntry])
      let earlier = String(checkpoint.offset - 512)
      try #require(earlier.count == String(checkpoint.offset).count)
      try patch(document, "\"gallery.json\",\(checkpoint.offset)", "\"gallery.json\",\(earlier)")
    }
    let file = try FileHandleFD(path: document, flags: O_RDONLY)
    // Only an edit reads the outline: it is the one that must not believe it.
    let editing = lie == "outline lies"
    #expect(throws: (any Error).self) {
      let indexed = try DocumentArchive.openThroughIndex(file, lazily: editing)
      // A summary that lies is refused as the trailer is read.
      if lie == "summary lies" { _ = try DocumentArchive.trailer(of: file) }
      _ = indexed
    }
    let opened = editing ? try DocumentArchive.open(file, lazily: true) : try GalleryDocument.open(document).layout
    #expect(opened.model == honest && !opened.readThroughIndex, "\(lie)")
    #expect(try Run.gallery(["info", "--json", document]).stdout.contains("\"items\":3"), "\(lie)")
    let check = try Run.gallery(["check", document])
    #expect(check.status != 0 && check.stdout.contains("index"), "\(lie): \(check.stdout)")
    // An edit reads it whole, and its save writes a new checkpoint and index.
    if editing { #expect(try Run.gallery(["move", document, "3", "--to", "1"]).status == 0) }
    #expect(try Run.gallery(["check", "--fix", document]).status == 0)
    let (indexed, scanned) = try bothWays(document)
    expectSame(indexed, scanned, "\(lie), mended")
  }
}

extension IndexTests {
  @Test(
    "A history record damaged before the index is found when the history is needed: show and move work, undo and history name the damage, check finds it"
  )
  func damagedHistoryFoundWhenNeeded() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(3, width: 60, height: 40)).status == 0)
    try GalleryDocument.compact(document)
    let kept = try GalleryDocument.open(document).layout.history
    #expect(kept.count == 2 && kept.entries.allSatisfy { if case .stored = $0 { true } else { false } })
    // Same length, so every location still holds: the first item state in the file is in the
    // drop's records (a compaction writes the history first), and "reddy" is no state.
    var data = try Data(contentsOf: URL(fileURLWithPath: document))
    let range = try #require(data.range(of: Data("\"state\":\"ready\"".utf8)))
    data.replaceSubrange(range, with: Data("\"state\":\"reddy\"".utf8))
    try data.write(to: URL(fileURLWithPath: document))

    let opened = try GalleryDocument.open(document)
    #expect(opened.layout.readThroughIndex && opened.model.items.count == 3)
    #expect(throws: DocumentError.self) { try opened.history() }
    #expect(try Run.gallery(["show", "--json", document]).status == 0)
    #expect(try Run.gallery(["move", document, "3", "--to", "1"]).status == 0)
    for command in [["undo", document], ["history", document]] {
      let refused = try Run.gallery(command)
      #expect(refused.status == ExitStatus.dataError.rawValue, "\(command[0]): \(refused.stderr)")
      #expect(
        refused.stderr.contains("history's record of r") && refused.stderr.contains("reddy"), "\(command[0]): \(refused.stderr)")
    }
    // A whole scan reads the record and calls it damage, as it always did.
    let scanned = try DocumentArchive.scan(try FileHandleFD(path: document, flags: O_RDONLY))
    #expect(scanned.damage?.contains("journal record") == true)
    #expect(try Run.gallery(["check", document]).status != 0)
  }
}

extension Data {
  fileprivate func lastRange(of pattern: Data) -> Range<Int>? {
    range(of: pattern, options: .backwards).map { $0.lowerBound..<$0.upperBound }
  }
}
