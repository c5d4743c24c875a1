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
    // What the index says of the history is what its records say.
    #expect((try? indexed.history.undoStack()) == (try? scanned.history.undoStack()), "\(step): undo stack")
    let ids = scanned.model.ids
    #expect(
      (try? indexed.history.itemIDs().union(ids)) == (try? scanned.history.itemIDs().union(ids)), "\(step): history ids")
    #expect(indexed.checkpointRevision == scanned.checkpointRevision, "\(step): checkpoint")
    #expect(indexed.checkpointBytes == scanned.checkpointBytes, "\(step): checkpoint bytes")
    #expect(indexed.journalBytes == scanned.journalBytes && indexed.journalRecords == scanned.journalRecords, "\(step): journal")
    #expect(indexed.liveBytes == scanned.liveBytes, "\(step): live bytes")
    #expect(indexed.tornBytes == 0 && scanned.tornBytes == 0 && scanned.damage == nil, "\(step): clean")
  }

  /// Each thumbnail's data, by name, as a whole scan finds the file.
  func thumbnails(_ path: String) throws -> [String: Data] {
    let file = try FileHandleFD(path: path, flags: O_RDONLY)
    let layout = try DocumentArchive.scan(file)
    var found: [String: Data] = [:]
    for (name, location) in layout.entries.named(withPrefix: "thumbnails/") {
      found[name] = try DocumentArchive.read(location, named: name, from: file)
    }
    return found
  }

  @Test("A save's compaction writes what a whole scan reads, not what the index gave")
  func compactionFromTheScan() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(6)).status == 0)
    for _ in 0..<3 { #expect(try Run.gallery(["move", document, "1", "--to", "end"]).status == 0) }
    let before = try bothWays(document).scanned
    let pictures = try thumbnails(document)
    #expect(pictures.count == 6)
    // Compacts a copy as a save does, after it saved through a layout read through the
    // index: here changed, as an index that disagreed with its file would have given it.
    func compacted(_ change: (inout ArchiveLayout) -> Void) throws -> ArchiveLayout {
      let copy = work.path("copy.gallery")
      try? FileManager.default.removeItem(atPath: copy)
      try FileManager.default.copyItem(atPath: document, toPath: copy)
      let lock = try DocumentLock(path: copy)
      var layout = try DocumentArchive.openThroughIndex(lock.file, lazily: true)
      #expect(layout.readThroughIndex)
      change(&layout)
      #expect(try DocumentCompaction.compactIfSound(lock: lock, layout: layout))
      let (indexed, scanned) = try bothWays(copy)
      expectSame(indexed, scanned, "compacted")
      #expect(scanned.revisions == 1 && scanned.deadBytes == 0)
      #expect(try thumbnails(copy) == pictures)
      return scanned
    }
    #expect(try compacted { _ in }.model == before.model)
    // The scan's model, not the one the index gave.
    let retitled = try compacted { $0.working.head.title = "not what the file holds" }
    #expect(retitled.model == before.model)
    // Each thumbnail where the scan read it, not where the index put it.
    let names = pictures.keys.sorted()
    let swapped = try compacted { layout in
      let (first, second) = (layout.entries[names[0]]!, layout.entries[names[1]]!)
      layout.entries.update(second, for: names[0])
      layout.entries.update(first, for: names[1])
    }
    #expect(swapped.model == before.model)
  }

  @Test("Entry names are judged as bytes: only printable ASCII names are a document's")
  func sizeLimitsOnBytes() {
    let model = DocumentArchive.modelSizeLimit
    let thumbnail = DocumentArchive.thumbnailSizeLimit
    let expected: [(String, Int64?)] = [
      ("gallery.json", model), ("gallery.index", model), ("journal/0000000001.json", model), ("journal/", model),
      ("cover.jpg", thumbnail), ("thumbnails/abc.jpg", thumbnail), ("thumbnails/", thumbnail),
      ("originals/x.jpeg", DocumentArchive.originalSizeLimit), ("mimetype", 256),
      ("gallery.end", Int64(ArchiveTrailer.blockLimit) * 512),
      // Near misses, look-alikes, and names that are not printable ASCII.
      ("originals", nil), ("gallery.json ", nil), ("Gallery.json", nil), ("cover.jpg\u{301}", nil),
      ("journal/\u{301}x", nil), ("thumbnails\u{301}/a.jpg", nil), ("gallery.json\r\n", nil), ("journal/\r\n", nil),
      ("\u{212A}", nil), ("mimetype\u{0}", nil), ("", nil), ("thumbnails/\u{FF0E}jpg", nil), ("originals/\r", nil),
      ("gallery.end\r", nil), ("journal/caf\u{E9}.json", nil),
    ]
    for (name, limit) in expected {
      #expect(DocumentArchive.sizeLimit(of: name) == limit, "\(name.debugDescription)")
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
        var model = try edit.wholeModel()
        JournalTests.randomEdit(&model, &random, next: &next)
        // The test's own items have no thumbnail entry: failed, so the cover never needs one.
        func made(_ item: Item) -> Bool { item.state == .ready && !dropped.contains(item.id) }
        model.items = model.items.map { made($0) ? $0.failed(because: "made by the test") : $0 }
        for index in model.trash.indices where made(model.trash[index].item) {
          model.trash[index].item = model.trash[index].item.failed(because: "made by the test")
        }
        edit.replaceModel(model)
      }
      if step == 40 { try GalleryDocument.compact(document) }
      // Undo and redo now and then, so the index's undo stack has undone operations too.
      if step % 7 == 3 { _ = try? DocumentHistory.undo(document) }
      if step % 11 == 5 { _ = try? DocumentHistory.redo(document) }
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
  /// `whole` cut at `cut` opens as `before` or `after`, and an edit (the first item moved to
  /// `position`) mends it: read through its new index it is what a whole scan reads.
  func expectCutMended(
    _ whole: Data, at cut: Int, in work: TestWorkspace, before: GalleryModel, after: GalleryModel,
    moving position: Int, _ place: String
  ) throws {
    let copy = work.path("cut-\(cut).gallery")
    try whole.prefix(cut).write(to: URL(fileURLWithPath: copy))
    // A revision ends within the file: a cut in an entry's padding makes that entry torn.
    let cutLayout = try DocumentArchive.scan(FileHandleFD(path: copy, flags: O_RDONLY))
    #expect(cutLayout.revisionEnd <= cutLayout.fileSize, "cut \(place): a revision ends past the end of the file")
    let model = try GalleryDocument.open(copy).model
    #expect(model == before || model == after, "cut \(place)")
    #expect(throws: Never.self, "cut \(place)") {
      try GalleryDocument.edit(copy) { edit in edit.move([edit.itemID(at: 0)], to: position) }
    }
    let (indexed, scanned) = try bothWays(copy)
    expectSame(indexed, scanned, "cut \(place), then a move")
  }

  func patch(_ path: String, _ text: String, _ replacement: String) throws {
    precondition(text.utf8.count == replacement.utf8.count)
    var data = try Data(contentsOf: URL(fileURLWithPath: path))
    let range = try #require(data.lastRange(of: Data(text.utf8)), "\(text) not found")
    data.replaceSubrange(range, with: Data(replacement.utf8))
    try data.write(to: URL(fileURLWithPath: path))
  }

  @Test("A record after the index that gives an item the id of one in the items or the trash is damage, read either way")
  func recordAfterTheIndexReusingAnID() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(3, width: 60, height: 40)).status == 0)
    let before = try GalleryDocument.open(document).model.items.map(\.id)
    #expect(try Run.gallery(["trash", document, before[1]]).status == 0)
    try GalleryDocument.compact(document)
    // A drop after the checkpoint: its records bring in a new id (in the placeholder save and
    // the commit), which each copy below makes an id the model has.
    #expect(try Run.gallery(["drop", document, try work.image("later.jpg", width: 50, height: 40, seed: 9)]).status == 0)
    let added = try #require(try GalleryDocument.open(document).model.items.last?.id)
    for taken in [before[0], before[1]] {
      let copy = work.path("reused-\(taken).gallery")
      var data = try Data(contentsOf: URL(fileURLWithPath: document))
      while let range = data.range(of: Data("\"\(added)\"".utf8)) { data.replaceSubrange(range, with: Data("\"\(taken)\"".utf8)) }
      try data.write(to: URL(fileURLWithPath: copy))
      // Read through the index, it is not believed; the whole scan that follows names it.
      let file = try FileHandleFD(path: copy, flags: O_RDONLY)
      #expect(throws: (any Error).self) { _ = try DocumentArchive.openThroughIndex(file, lazily: true) }
      let opened = try GalleryDocument.open(copy)
      #expect(opened.damage?.contains("\(taken) would be used twice") == true, "\(String(describing: opened.damage))")
      #expect(try Run.gallery(["move", copy, "1", "--to", "2"]).status == 65)
    }
  }

  @Test(
    "A trailer or index that lies is not believed: the document opens by a whole scan, info shows the truth, check names it and --fix mends it",
    arguments: [
      "trailer points elsewhere", "summary lies", "index overlaps", "index misplaces the checkpoint", "outline lies",
      "outline holds a brace", "index names another revision", "history stack lies", "history misplaces a record",
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
    case "history stack lies":
      // The drop is r1 (its placeholders) and r2 (its commit): r2 starts no operation.
      try patch(document, "\"undoable\":[1]", "\"undoable\":[2]")
    case "history misplaces a record":
      try patch(document, "\"records\":[[1,", "\"records\":[[0,")
    case "outline lies":
      // The items array said to end a byte early: its items no longer tile it.
      let data = try Data(contentsOf: URL(fileURLWithPath: document))
      let start = try #require(data.lastRange(of: Data("\"checkpointOutline\":{\"array\":[".utf8))).upperBound
      let bounds = String(decoding: data[start..<start + 40], as: UTF8.self).prefix { $0 != "]" }
      let parts = bounds.split(separator: ",")
      let shorter = String(try #require(Int(parts[1])) - 1)
      try #require(shorter.count == parts[1].count)
      try patch(document, "\"array\":[\(bounds)]", "\"array\":[\(parts[0]),\(shorter)]")
    case "outline holds a brace":
      // Where the rest of the index is read from, beside the outline: inside an id.
      let id = honest.items[0].id
      try patch(document, "\"items\":[[\"\(id)\"", "\"items\":[[\"\(id.prefix(2))}\(id.dropFirst(3))\"")
    default:
      let checkpoint = try #require(try bothWays(document).scanned.entries[DocumentArchive.modelEntry])
      let earlier = String(checkpoint.offset - 512)
      try #require(earlier.count == String(checkpoint.offset).count)
      try patch(document, "\"gallery.json\",\(checkpoint.offset)", "\"gallery.json\",\(earlier)")
    }
    let file = try FileHandleFD(path: document, flags: O_RDONLY)
    // Only an edit reads the outline: it is the one that must not believe it.
    let editing = lie.hasPrefix("outline")
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
    "A history record damaged before the index is found when it is needed: show, move, undo of the move and history work; undo of the drop and show --at name the damage; check finds it"
  )
  func damagedHistoryFoundWhenNeeded() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(3, width: 60, height: 40)).status == 0)
    try GalleryDocument.compact(document)
    let kept = try GalleryDocument.open(document).layout.history
    // The drop's records: its placeholder save and its commit, or one save when the images
    // loaded before the document was open.
    #expect((1...2).contains(kept.count) && kept.entries.allSatisfy { if case .located = $0 { true } else { false } })
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
    // The move's record reads; the listing reads no change.
    #expect(try Run.gallery(["undo", document]).status == 0)
    #expect(try Run.gallery(["history", document]).status == 0)
    // Before the drop: its records are taken back (one save or two, whichever it was).
    for command in [["undo", document], ["show", "--at", "0", document]] {
      let refused = try Run.gallery(command)
      #expect(refused.status == 65, "\(command[0]): \(refused.stderr)")
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

extension IndexTests {
  /// A random history of drops (placeholders), their commits (continuing the drop or only
  /// settling its placeholders), retries, other edits, undos and redos, as records.
  static func randomHistory(_ random: inout SplitMix, length: Int) -> [JournalRecord] {
    var model = GalleryModel(title: "t", now: JournalTests.date)
    var records: [JournalRecord] = []
    var next = 0
    for revision in 1...length {
      let before = model
      var undoing: Int?
      var redoing: Int?
      var continues: Int?
      let stack = UndoStack(records)
      let placeholders = model.items.filter { $0.state == .placeholder }.map(\.id)
      switch Int.random(in: 0..<10, using: &random) {
      case 0, 1:
        let new = (0..<Int.random(in: 1...3, using: &random)).map { _ -> Item in
          next += 1
          return Item.placeholder(id: "p\(next)", source: "file:///p\(next).jpg", now: JournalTests.date)
        }
        model.insert(new, at: nil)
      case 2...3 where !placeholders.isEmpty:
        // A commit: some placeholders load; half the time it says which operation it ends.
        for id in placeholders.shuffled(using: &random).prefix(Int.random(in: 1...placeholders.count, using: &random)) {
          let index = model.items.firstIndex { $0.id == id }!
          model.items[index] = JournalTests.item(id)
        }
        if Bool.random(using: &random), let first = stack.undoable.last { continues = first }
      case 4 where model.items.contains { $0.state == .ready }:
        // A retry makes a loaded item a placeholder again.
        let index = model.items.firstIndex { $0.state == .ready }!
        model.items[index].state = .placeholder
        model.items[index].placeholder = Item.placeholder(id: "x", source: "file:///x", now: JournalTests.date).placeholder
      case 5 where !stack.undoable.isEmpty:
        let target = stack.undoable.last!
        let taken = records.filter { stack.operations[target]!.contains($0.revision) }
        for record in taken.reversed() { _ = record.change.reversed.apply(to: &model) }
        undoing = target
      case 6 where !stack.redoable.isEmpty:
        let target = stack.redoable.last!
        for record in records where stack.operations[target]!.contains(record.revision) { _ = record.change.apply(to: &model) }
        redoing = target
      default:
        JournalTests.randomEdit(&model, &random, next: &next)
      }
      records.append(
        JournalRecord(
          revision: revision, id: JournalRecord.newID(), parent: records.last?.id, time: JournalTests.date, summary: "",
          undoing: undoing, redoing: redoing, continues: continues, change: ModelChange(from: before, to: model)))
    }
    return records
  }

  @Test("The undo stack an index stores, read back and continued with the records after it, is the stack of the whole history")
  func indexedUndoStack() throws {
    var random = SplitMix(state: 11)
    for _ in 0..<30 {
      let records = Self.randomHistory(&random, length: 40)
      let whole = UndoStack(records)
      #expect(!whole.operations.values.allSatisfy { $0.count == 1 } || records.allSatisfy { $0.continues == nil })
      for split in 0...records.count {
        let stored = IndexedHistory(
          places: records.prefix(split).map(\.place),
          digest: History.Digest(count: split, undo: UndoStack(Array(records.prefix(split))), ids: ["abc234", "q9"]))
        var writer = JSONWriter(capacity: 256)
        stored.write(into: &writer)
        let read = try writer.bytes.withUnsafeBytes { raw in
          var reader = JSONReader(raw)
          return try IndexedHistory(&reader)
        }
        #expect(read == stored)
        var continued = read.undo
        for record in records[split...] { continued.add(record) }
        #expect(continued == whole, "split at \(split)")
      }
    }
  }
}

extension IndexTests {
  @Test("A placeholder belongs to the operation that made it one: a retry's load is the retry's, not the first drop's")
  func retriedPlaceholdersBelongToTheRetry() {
    let date = JournalTests.date
    let empty = GalleryModel(title: "t", now: date)
    var placed = empty
    placed.insert([Item.placeholder(id: "p1", source: "file:///p1", now: date)], at: nil)
    var failed = placed
    failed.items[0] = placed.items[0].failed(because: "not there yet")
    var retried = failed
    retried.items[0] = placed.items[0]
    var loaded = retried
    loaded.items[0] = JournalTests.item("p1")
    var records: [JournalRecord] = []
    func add(_ from: GalleryModel, _ to: GalleryModel, continues: Int? = nil) {
      records.append(
        JournalRecord(
          revision: records.count + 1, id: JournalRecord.newID(), parent: records.last?.id, time: date, summary: "",
          continues: continues, change: ModelChange(from: from, to: to)))
    }
    add(empty, placed)
    add(placed, failed, continues: 1)
    add(failed, retried)
    add(retried, loaded)
    let stack = UndoStack(records)
    #expect(stack.operations[1] == [1, 2] && stack.operations[3] == [3, 4] && stack.undoable == [1, 3])
    #expect(stack.placedBy.isEmpty)
  }
}
