import Foundation
import Testing

@testable import GalleryDocument
@testable import GalleryModel
@testable import GallerySystem

/// A save after the journal since the last index has grown writes a delta (see
/// `IndexDelta`): opening reads it instead of replaying those records. Pure tests of the
/// pieces first, then real archives: what opening through the deltas gives is what a whole
/// scan replays, after every kind of edit, a cut at any byte of a delta's save opens, and a
/// delta that does not describe the file is not believed.
@Suite("Format 2: deltas after a growing journal")
struct DeltaTests {
  static func failed(_ id: String) -> Item { JournalTests.item(id, 1).failed(because: "made by the test") }

  @Test("A delta's plan encodes the items not stored and places every item as runs of stored ones")
  func deltaPlan() throws {
    let (model, _, outline) = StoredItemTests.encoded(count: 6)
    var working = WorkingModel(head: model, storedItemIDs: outline.ids)
    working.move([outline.ids[4]], to: 0)
    working.insert([Self.failed("new1"), Self.failed("new2")], at: 2)
    working.items.replace(at: 7, with: Self.failed(outline.ids[5]))
    let plan = CheckpointPlan(working, keeping: 6, source: nil)
    // The stored items by their numbers, the others numbered after them in order.
    var next = 6
    let numbers = (0..<working.items.count).map { position in
      working.items.storedIndex(at: position)
        ?? {
          defer { next += 1 }
          return next
        }()
    }
    #expect(plan.order.flatMap { Array($0) } == numbers)
    #expect(plan.order.count == 4 && zip(plan.order, plan.order.dropFirst()).allSatisfy { $0.upperBound != $1.lowerBound })
    #expect(Set(plan.outline.ids) == ["new1", "new2", outline.ids[5]])
    var data = Data()
    try plan.write { data.append(contentsOf: $0) }
    #expect(data.count == plan.size && plan.outline.check(checkpointSize: data.count) == nil)
    let shell = try ModelCoding.decode(data)
    #expect(shell.items.map(\.id) == plan.outline.ids && shell.trash == model.trash)
  }

  @Test(
    "A save writes a delta as the journal grows; a checkpoint only when the chain is full or owed, or without deltas past an eighth of the last or at 500 records"
  )
  func bookkeeping() {
    let megabyte: Int64 = 1 << 20
    // A grown gallery: a checkpoint of 32 MiB, 4 MiB of journal since, 3 deltas.
    func decide(
      journal: (Int64, Int) = (4 * megabyte, 40), atDelta: (Int64, Int) = (3 * megabyte, 30), deltas: Int = 3,
      possible: Bool = true, owed: Bool = false, stored: Int64? = nil
    ) -> SaveBookkeeping {
      GalleryDocument.bookkeeping(
        checkpointBytes: 32 * megabyte, journal: journal, atDelta: atDelta, deltas: deltas, deltasPossible: possible,
        checkpointOwed: owed, storedBytes: stored)
    }
    // A sixty-fourth of the stored items since the last delta makes one due; less does not.
    #expect(decide() == .delta)
    #expect(decide(atDelta: (3 * megabyte + megabyte / 2 + 1, 30)) == .none)
    #expect(decide(stored: 128 * megabyte) == .none)
    // So do 32 records.
    #expect(decide(atDelta: (4 * megabyte - 1, 8)) == .delta)
    // While deltas bound the replay, no size of journal makes a checkpoint due, nor any
    // number of records...
    #expect(decide(journal: (40 * megabyte, 40), atDelta: (40 * megabyte - 1, 39)) == .none)
    #expect(decide(journal: (40 * megabyte, 40), atDelta: (30 * megabyte, 39)) == .delta)
    #expect(decide(journal: (4 * megabyte, 5001), atDelta: (4 * megabyte, 5000)) == .none)
    // ...but without them (a large trash, items not stored as the file numbers them) an
    // eighth of the checkpoint does, and so do 500 records.
    #expect(decide(journal: (5 * megabyte, 40), atDelta: (4 * megabyte, 30), possible: false) == .checkpoint)
    #expect(decide(journal: (4 * megabyte, 501), atDelta: (4 * megabyte, 500), possible: false) == .checkpoint)
    #expect(decide(possible: false) == .none)
    // A full chain when a delta is due (not before).
    #expect(decide(deltas: DocumentArchive.deltaLimit) == .checkpoint)
    #expect(decide(atDelta: (4 * megabyte - 1, 39), deltas: DocumentArchive.deltaLimit) == .none)
    // A save that another of the same process follows (a drop's placeholders, then their
    // commit) leaves the delta due to it; a checkpoint due is written all the same.
    #expect(
      GalleryDocument.bookkeeping(
        checkpointBytes: 32 * megabyte, journal: (4 * megabyte, 40), atDelta: (3 * megabyte, 30), deltas: 3,
        deltasPossible: true, checkpointOwed: false, saveFollows: true) == .none)
    #expect(
      GalleryDocument.bookkeeping(
        checkpointBytes: 32 * megabyte, journal: (4 * megabyte, 40), atDelta: (3 * megabyte, 30),
        deltas: DocumentArchive.deltaLimit, deltasPossible: true, checkpointOwed: false, saveFollows: true) == .checkpoint)
    // A checkpoint owed (format 1, an index without outline or history) whatever the journal.
    #expect(decide(journal: (1, 1), atDelta: (0, 0), deltas: 0, owed: true) == .checkpoint)
    // A small document: 16 KiB of journal before a checkpoint without deltas, 64 KiB before
    // a delta.
    #expect(
      GalleryDocument.bookkeeping(
        checkpointBytes: 2048, journal: (16 * 1024 + 1, 2), atDelta: (0, 0), deltas: 0, deltasPossible: false,
        checkpointOwed: false) == .checkpoint)
    #expect(
      GalleryDocument.bookkeeping(
        checkpointBytes: 2048, journal: (64 * 1024, 2), atDelta: (0, 0), deltas: 0, deltasPossible: true,
        checkpointOwed: false) == .none)
    #expect(
      GalleryDocument.bookkeeping(
        checkpointBytes: 2048, journal: (64 * 1024 + 1, 2), atDelta: (0, 0), deltas: 0, deltasPossible: true,
        checkpointOwed: false) == .delta)
  }

  @Test("A delta takes in the small deltas before it, as a binary counter carries, up to a limit")
  func deltasTakenIn() {
    let limit = 4096
    func taken(_ chain: [Int], _ own: Int) -> Int { GalleryDocument.deltasTakenIn(chain, adding: own, limit: limit) }
    #expect(taken([], 300) == 0)
    #expect(taken([300], 300) == 1)
    #expect(taken([600], 300) == 0)
    #expect(taken([600, 300], 300) == 2)
    #expect(taken([1200, 600, 300], 300) == 3)
    // Never past the limit: the deltas it would make larger stay.
    #expect(taken([2400, 1200, 600, 300], 300) == 3)
    #expect(taken([2400, 2400], 300) == 0)
    #expect(taken([100], 5000) == 0)
    // Deltas of no items (moves) take each other in; a drop takes them in.
    #expect(taken([300, 0], 0) == 1)
    #expect(taken([300, 0], 300) == 2)
    #expect(taken([300], 0) == 0)

    // Drops of one size: the chain holds a few deltas at any time (one per set bit of the
    // count, and those the limit froze), every item is copied a few times at most, and no
    // save copies more than the limit.
    var chain: [Int] = []
    var copies = 0
    for drop in 1...400 {
      let count = taken(chain, 100)
      let merged = chain.suffix(count).reduce(0, +)
      #expect(merged + 100 <= limit)
      copies += merged
      chain = chain.dropLast(count) + [merged + 100]
      let small = chain.filter { $0 < limit / 2 }
      #expect(small.count <= 6, "after \(drop): \(chain)")
    }
    #expect(chain.count <= 400 * 100 / (limit / 2) + 6, "\(chain)")
    #expect(copies <= 400 * 100 * 5)
  }

  @Test("Items stored in several parts are read, searched, checked and copied each in its part")
  func partsOfASource() throws {
    let first = StoredItemTests.counted(count: 40)
    let (secondModel, secondData, secondOutline) = StoredItemTests.encoded(count: 10)
    let second = (model: secondModel, outline: secondOutline)
    let source = ItemSource([first.source, StoredItemTests.source(secondData, secondOutline)])
    #expect(source.itemIDs == first.outline.ids + second.outline.ids)
    #expect(try source.item(3) == first.model.items[3] && source.item(42) == second.model.items[2])
    #expect(source.isNeighbour(38, 39) && !source.isNeighbour(39, 40) && source.isNeighbour(40, 41))
    #expect(source.length(of: 45) == second.outline.lengths[5])
    #expect(try source.readAll() == first.model.items + second.model.items)
    var copied = Data()
    try source.copy(41...43) { copied.append(contentsOf: $0) }
    #expect(copied == secondData[secondOutline.starts[1]..<secondOutline.starts[3] + secondOutline.lengths[3]])
    // A model holding items of both parts, one of them changed (held, not stored).
    var list = HandleList<Item>(storedKeys: source.itemIDs, order: [45, 2, 41])
    list.replace(at: 1, with: Self.failed("held"))
    let query = try ItemQuery("state:ready")
    let found = try source.matches(of: query, among: list)
    #expect(found.map(\.position) == [1, 3] && found.map(\.item) == [second.model.items[5], second.model.items[1]])
    #expect(try source.matches(of: try ItemQuery("state:failed"), among: list).map(\.position) == [2])
    source.check([1, 2, 44, 45])
    #expect(source.failure == nil)
  }

  /// Opening through the index and its deltas agrees with a whole scan: the model (left in
  /// the file and read whole), the history, the entries; and `check` passes.
  @discardableResult
  static func expectAgreement(_ document: String, _ note: String) throws -> ArchiveLayout {
    let file = try FileHandleFD(path: document, flags: O_RDONLY)
    let indexed = try DocumentArchive.openThroughIndex(file, lazily: true)
    let whole = try DocumentArchive.openThroughIndex(file)
    let scanned = try DocumentArchive.scan(file)
    #expect(try indexed.wholeModel() == scanned.model, "\(note)")
    // The model, entries, revisions, history, checkpoint, journal and live bytes.
    IndexTests().expectSame(whole, scanned, note)
    #expect(DocumentCheck.run(try GalleryDocument.open(document, scanningWhole: true)).problems == [], "\(note)")
    // The ids opening knew from the tables and the records since, which a save asks
    // instead of passing over every item: each of the model's, and none of the ids the
    // history names that it no longer holds, nor one never used.
    let held = scanned.model.ids
    let probes = held.union(try scanned.history.itemIDs()).union(["zz9zz9", "never"])
    #expect(indexed.ids != nil, "\(note)")
    if let known = indexed.ids {
      #expect(probes.filter(known.contains) == held, "\(note)")
    }
    return indexed
  }

  /// A document of 8,000 failed items: a checkpoint of megabytes, so that a few saves of
  /// hundreds of items fit in the journal before the next checkpoint.
  static func grownDocument(_ work: TestWorkspace) throws -> String {
    try StoredItemTests.largeDocument(work, count: 8000)
  }

  @Test("Edits of every kind after deltas open as a whole scan replays them, through chains of deltas")
  func editsAfterDeltas() throws {
    let work = try TestWorkspace()
    let document = try Self.grownDocument(work)
    var longest = 0
    var round = 0
    func step(_ note: String, _ body: (inout DocumentEdit) throws -> Void) throws {
      round += 1
      // As another process opens it (this one keeps the layout it saved).
      LayoutCache.forget(document)
      try GalleryDocument.edit(document) { try body(&$0) }
      longest = max(longest, try Self.expectAgreement(document, "\(round): \(note)").deltas)
    }
    for batch in 0..<4 {
      try step("insert") { edit in edit.insert((0..<300).map { Self.failed("b\(batch)x\($0)") }, at: batch * 100) }
      try step("move") { edit in edit.move([edit.itemID(at: 8000 + batch), edit.itemID(at: 5)], to: 10) }
      try step("caption") { edit in
        var change = MetadataEdit()
        change.caption = "seen in \(batch)"
        try edit.describe([edit.itemID(at: 1), "b\(batch)x7", edit.itemID(at: 6000)], change)
      }
      try step("trash") { edit in try edit.trash(["b\(batch)x9", edit.itemID(at: 7999)]) }
      if batch % 2 == 1 { try step("restore") { edit in edit.restore(["b\(batch)x9"]) } }
    }
    #expect(longest >= 2)
    for arguments in [
      ["undo", document, "3"], ["redo", document], ["move", document, "1", "--to", "end"], ["trash", document, "--empty"],
      ["undo", document], ["show", document, "--at", "3"],
    ] {
      let run = try Run.gallery(arguments)
      #expect(run.status == 0, "\(arguments): \(run.stderr)")
      try Self.expectAgreement(document, "\(arguments)")
    }
    let found = try GalleryDocument.find(try ItemQuery("seen"), in: document)
    let captioned = try GalleryDocument.open(document).model.items.enumerated().filter {
      $0.element.caption?.hasPrefix("seen in") == true
    }
    #expect(!found.isEmpty && found.map(\.position) == captioned.map { $0.offset + 1 })
    // Small edits one after another: a delta after a number of records too.
    let before = try Self.lastDelta(document)
    for _ in 0..<GalleryDocument.deltaRecords {
      LayoutCache.forget(document)
      try GalleryDocument.edit(document) { edit in edit.move([edit.itemID(at: 0)], to: 3) }
    }
    try Self.expectAgreement(document, "moves")
    #expect(try Self.lastDelta(document) != before)
    try GalleryDocument.compact(document)
    let compacted = try Self.expectAgreement(document, "compacted")
    let trailer = try DocumentArchive.trailer(of: FileHandleFD(path: document, flags: O_RDONLY))
    #expect(compacted.deltas == 0 && trailer.delta == nil)
  }
}

extension DeltaTests {
  /// Where the last delta lies, as the trailer says.
  static func lastDelta(_ document: String) throws -> Int64? {
    try DocumentArchive.trailer(of: FileHandleFD(path: document, flags: O_RDONLY)).delta
  }

  /// A grown document whose last save wrote a delta; the model before and after that save.
  static func documentEndingWithADelta(_ work: TestWorkspace) throws -> (String, before: GalleryModel, after: GalleryModel) {
    let document = try grownDocument(work)
    let before = try GalleryDocument.open(document).model
    LayoutCache.forget(document)
    try GalleryDocument.edit(document) { edit in edit.insert((0..<300).map { failed("late\($0)") }, at: 7) }
    let trailer = try DocumentArchive.trailer(of: FileHandleFD(path: document, flags: O_RDONLY))
    #expect(trailer.delta != nil)
    return (document, before, try GalleryDocument.open(document).model)
  }

  @Test(
    "A delta takes in the small deltas before it: their items the model holds are copied, the chain stays short, and opening agrees with a whole scan"
  )
  func deltasTakeInDeltas() throws {
    let work = try TestWorkspace()
    let document = try Self.grownDocument(work)
    let count = try GalleryDocument.open(document).model.items.count
    var written: Set<Int64> = []
    var longest = 0
    for round in 0..<24 {
      LayoutCache.forget(document)
      try GalleryDocument.edit(document) { edit in
        // Items of the deltas before: changed (the delta then holds them anew), trashed,
        // moved; and new ones, enough for a delta in each round.
        if round > 0 {
          var change = MetadataEdit()
          change.caption = "round \(round)"
          try edit.describe(["r\(round - 1)x3"], change)
          try edit.trash(["r\(round - 1)x5"])
          edit.move(["r\(round - 1)x7"], to: 0)
        }
        edit.insert((0..<300).map { Self.failed("r\(round)x\($0)") }, at: 100 + round)
      }
      let layout = try Self.expectAgreement(document, "round \(round)")
      longest = max(longest, layout.deltas)
      if let delta = try Self.lastDelta(document) { written.insert(delta) }
    }
    // A delta at every round, but the chain never as long: they took each other in.
    #expect(written.count >= 20 && longest <= 6, "\(written.count) deltas, \(longest) at most in the chain")
    let model = try GalleryDocument.open(document).model
    #expect(model.items.count == count + 24 * 300 - 23 && model.items[0].id == "r22x7")
    #expect(model.items.first { $0.id == "r5x3" }?.caption == "round 6")
    #expect(try Run.gallery(["check", document]).status == 0)
    // The commands read it as the library does.
    #expect(try Listing.of(document).items.count == model.items.count)
  }

  @Test("A process's saves keep the ids opening knew, through records, a delta and an emptied trash")
  func savesKeepTheKnownIDs() throws {
    let work = try TestWorkspace()
    let (document, _, _) = try Self.documentEndingWithADelta(work)
    LayoutCache.forget(document)
    var left: Set<String> = []
    var deltaWritten = false
    for round in 0..<8 {
      // Each edit after the first opens the layout the one before it saved.
      let lastDelta = try Self.lastDelta(document)
      try GalleryDocument.edit(document) { edit in
        #expect(edit.openedIDs != nil, "round \(round)")
        if let known = edit.openedIDs {
          let held = edit.working.ids
          let probes = held.union(left).union(["zz9zz9", "k\(round)x1"])
          #expect(probes.filter(known.contains) == held, "round \(round)")
        }
        edit.insert([Self.failed("k\(round)x1"), Self.failed("k\(round)x2")], at: round)
        try edit.trash([edit.itemID(at: 20 + round), "k\(round)x2"])
        if round == 2 { edit.restore(["k2x2"]) }
        if round == 5 {
          left.formUnion(edit.working.trash.keys)
          _ = edit.emptyTrash()
        }
        // Enough for a delta in one of the rounds.
        if round == 4 { edit.insert((0..<300).map { Self.failed("k4y\($0)") }, at: 40) }
      }
      deltaWritten = try deltaWritten || Self.lastDelta(document) != lastDelta
    }
    #expect(deltaWritten && !left.isEmpty)
  }

  @Test("New ids ask the ids opening knew: none an item, the trash or this edit's own items hold is given")
  func newIDsAskTheKnownIDs() throws {
    let work = try TestWorkspace()
    let (document, _, after) = try Self.documentEndingWithADelta(work)
    // A record after the delta: the ids are kept through its replay.
    try GalleryDocument.edit(document) { edit in try edit.trash([after.items[3].id]) }
    LayoutCache.forget(document)
    try GalleryDocument.edit(document) { edit in
      #expect(edit.openedIDs != nil)
      let (stored, trashed, delta) = (edit.itemID(at: 7999), after.items[3].id, edit.itemID(at: 7))
      try edit.trash([edit.itemID(at: 100)])
      let moved = edit.itemID(at: 0)
      edit.move([moved], to: 50)
      edit.insert([Self.failed("made1")], at: 2)
      let unused = ["zz9zz9", "late9999"]
      let asked = [stored, trashed, delta, moved, "made1"]
      #expect(edit.mayHold(asked + unused) == Set(asked))
      // Drawn ids are none of those.
      let drawn = try edit.newItemIDs(500)
      #expect(Set(drawn).count == 500 && Set(drawn).isDisjoint(with: edit.working.ids))
    }
  }

  @Test("A drop writes one delta, after its commit: the save of its placeholders leaves the delta due to it")
  func dropWritesOneDelta() throws {
    let work = try TestWorkspace()
    let document = try Self.grownDocument(work)
    // Enough placeholders that their record alone makes a delta due.
    let image = try work.image("one.jpg", width: 64, height: 48, seed: 3)
    let files = try (0..<400).map { index in
      let path = work.path("p\(index).jpg")
      try FileManager.default.linkItem(atPath: image, toPath: path)
      return path
    }
    func entries(_ prefix: String) throws -> Int {
      try Run.program("tar", ["-tf", document]).stdout.split(separator: "\n").filter {
        $0.hasPrefix(prefix) && $0 != ArchiveIndex.deltaModelEntry
      }.count
    }
    let (deltas, records) = (try entries(ArchiveIndex.deltaName), try entries("journal/"))
    let run = try Run.gallery(["drop", document] + files)
    #expect(run.status == 0, "\(run.stderr)")
    let (deltasAfter, recordsAfter) = (try entries(ArchiveIndex.deltaName), try entries("journal/"))
    // The placeholders' save and a commit (the loads take longer than that save's opening).
    #expect(recordsAfter >= records + 2)
    #expect(deltasAfter == deltas + 1)
    try Self.expectAgreement(document, "after the drop")
    #expect(try GalleryDocument.open(document).model.items.count == 8004 + 400)
  }

  @Test(
    "One process saving again and again (a server, a watcher) writes deltas only of the items as the file numbers them, across checkpoints"
  )
  func savesInOneProcess() throws {
    let work = try TestWorkspace()
    let document = try Self.grownDocument(work)
    var checkpoints = Set<Int>()
    // A trash of more items than a delta holds makes the saves write a checkpoint; emptied
    // again, deltas follow it.
    let bin = (0...GalleryDocument.deltaTrashLimit).map { "f\($0)" }
    for batch in 0..<9 {
      // The layout this process saved is kept between its edits, as a long-running one keeps it.
      try GalleryDocument.edit(document) { edit in
        edit.insert((0..<300).map { Self.failed("p\(batch)x\($0)") }, at: 50 * batch)
        edit.move([edit.itemID(at: 7000)], to: 3)
        if batch == 3 { try edit.trash(bin) }
        if batch == 5 { edit.restore(bin) }
      }
      let layout = try Self.expectAgreement(document, "save \(batch) in one process")
      checkpoints.insert(layout.checkpointRevision)
    }
    // The saves crossed a checkpoint, and deltas came after it.
    #expect(checkpoints.count >= 2)
    let trailer = try DocumentArchive.trailer(of: FileHandleFD(path: document, flags: O_RDONLY))
    #expect(trailer.delta != nil)
  }

  @Test("tar -x leaves the last delta and its model: each validates against the JSON Schemas")
  func deltaValidates() throws {
    let work = try TestWorkspace()
    let (document, _, after) = try Self.documentEndingWithADelta(work)
    let out = work.path("extracted")
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    #expect(try Run.program("tar", ["-xf", document, "-C", out]).status == 0)
    let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("docs").path
    for (schema, file) in [
      ("index.schema.json", "gallery.delta"), ("index.schema.json", "gallery.end"),
      ("gallery.schema.json", "gallery.delta.json"),
    ] {
      let result = try Run.program(
        SchemaValidator.python,
        [
          "-c",
          "import json,sys,jsonschema; jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))",
          docs + "/" + schema, out + "/" + file,
        ])
      #expect(result.status == 0, "\(file): \(result.stderr)")
    }
    // The delta's model is the model at its revision but for the items an earlier part holds.
    let model = try ModelCoding.decode(try Data(contentsOf: URL(fileURLWithPath: out + "/gallery.delta.json")))
    #expect(model.revision == after.revision && model.title == after.title && model.trash == after.trash)
    #expect(Set(model.items.map(\.id)).isSubset(of: Set(after.items.map(\.id))) && model.items.count == 300)
  }

  @Test(
    "A delta that lies is not believed: the document opens by a whole scan, check names it and --fix mends it",
    arguments: [
      "trailer points at another delta", "delta points back elsewhere", "delta names another revision",
      "delta's model is of another revision",
    ])
  func lyingDelta(lie: String) throws {
    let work = try TestWorkspace()
    let (document, _, honest) = try Self.documentEndingWithADelta(work)
    let file = try FileHandleFD(path: document, flags: O_RDONLY)
    let trailer = try DocumentArchive.trailer(of: file)
    let delta = try #require(trailer.delta)
    func earlier(_ number: Int64) throws -> String {
      let text = String(number - 512)
      try #require(text.count == String(number).count)
      return text
    }
    let indexTests = IndexTests()
    switch lie {
    case "trailer points at another delta":
      try indexTests.patch(document, "\"delta\":\(delta),", "\"delta\":\(try earlier(delta)),")
    case "delta points back elsewhere":
      let previous = try #require(try DocumentArchive.openThroughIndex(file, lazily: true).entries[ArchiveIndex.name]).offset
      try indexTests.patch(document, "\"previous\":\(previous)}", "\"previous\":\(try earlier(previous))}")
    case "delta names another revision":
      let revision = honest.revision
      try #require(String(revision + 1).count == String(revision).count)
      try indexTests.patch(document, "\"revision\":\(revision),\"revisions\":", "\"revision\":\(revision + 1),\"revisions\":")
    default:
      let revision = honest.revision
      try #require(String(revision - 1).count == String(revision).count)
      let id = try #require(honest.revisionID)
      try indexTests.patch(
        document, "\"revision\":\(revision),\"revisionId\":\"\(id)\"", "\"revision\":\(revision - 1),\"revisionId\":\"\(id)\"")
    }
    #expect(throws: (any Error).self) { _ = try DocumentArchive.openThroughIndex(file, lazily: true) }
    LayoutCache.forget(document)
    let opened = try DocumentArchive.open(file, lazily: true)
    #expect(try opened.wholeModel() == honest && !opened.readThroughIndex, "\(lie)")
    let check = try Run.gallery(["check", document])
    #expect(check.status != 0 && check.stdout.contains("index"), "\(lie): \(check.stdout)")
    #expect(try Run.gallery(["check", "--fix", document]).status == 0)
    let (indexed, scanned) = try indexTests.bothWays(document)
    indexTests.expectSame(indexed, scanned, "\(lie), mended")
    #expect(scanned.model == honest)
  }

  @Test(
    "A save that writes a delta (one that takes in the delta before it too), cut at any of its entries' edges, opens as before it or after it, and the next edit mends it",
    arguments: [false, true])
  func cutDeltaSave(takingIn: Bool) throws {
    let work = try TestWorkspace()
    var (document, before, after) = try Self.documentEndingWithADelta(work)
    if takingIn {
      // A second delta as large as the first takes it in: the chain is one delta again.
      let first = try Self.lastDelta(document)
      before = after
      LayoutCache.forget(document)
      try GalleryDocument.edit(document) { edit in edit.insert((0..<300).map { Self.failed("later\($0)") }, at: 9) }
      after = try GalleryDocument.open(document).model
      let layout = try DocumentArchive.openThroughIndex(FileHandleFD(path: document, flags: O_RDONLY), lazily: true)
      try #require(try Self.lastDelta(document) != first && layout.deltas == 1)
    }
    let whole = try Data(contentsOf: URL(fileURLWithPath: document))
    let scanned = try DocumentArchive.scan(FileHandleFD(path: document, flags: O_RDONLY))
    // The save's entries: its record, the delta's model, the delta, the trailer.
    let names = [
      DocumentArchive.journalEntry(after.revision), ArchiveIndex.deltaModelEntry, ArchiveIndex.deltaName,
      ArchiveTrailer.name,
    ]
    var cuts: [Int: String] = [whole.count - 512: "inside the end marker"]
    for name in names {
      let location = try #require(scanned.entries[name])
      let (start, data) = (Int(location.offset), Int(location.dataOffset))
      cuts[start] = "before \(name)"
      cuts[start + 100] = "inside the header of \(name)"
      cuts[data + Int(location.size) / 2] = "inside \(name)"
      cuts[Int(location.offset + location.span)] = "after \(name)"
    }
    for (cut, place) in cuts.sorted(by: { $0.key < $1.key }) {
      try IndexTests().expectCutMended(whole, at: cut, in: work, before: before, after: after, moving: 2, place)
    }
  }
}
