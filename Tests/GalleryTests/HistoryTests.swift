import Foundation
import Testing

@testable import GalleryDocument
@testable import GalleryModel
@testable import GallerySystem

/// Format 2 on real archives: the journal and its checkpoints, format-1 documents upgraded,
/// the history with undo, redo, revert and `show --at`, and hostile journal records.
@Suite("Format 2: journal, history, undo")
struct HistoryTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

  /// The last `gallery.json` of an archive, as Python's tarfile reads it.
  func lastCheckpoint(_ path: String) throws -> [String: Any] {
    let json = try Run.program(
      "python3",
      [
        "-c",
        "import tarfile,sys\nt=tarfile.open(sys.argv[1])\nm=[m for m in t if m.name=='gallery.json'][-1]\nsys.stdout.buffer.write(t.extractfile(m).read())",
        path,
      ])
    return try JSONSerialization.jsonObject(with: json.stdoutData) as! [String: Any]
  }

  func ids(_ path: String) throws -> [String] { try Listing.of(path).items.map(\.id) }

  @Test(
    "Format-1 documents of the previous release open as they are and are written as format 2 from their next save",
    arguments: ["format1-history.gallery", "format1-embedded.gallery", "format1-example.gallery"])
  func formatOneUpgrades(name: String) throws {
    let work = try TestWorkspace()
    let document = work.path(name)
    let source = Self.fixtures + "/" + name
    try FileManager.default.copyItem(atPath: source, toPath: document)
    let opened = try GalleryDocument.open(document)
    #expect(opened.model.format == 1 && opened.damage == nil)
    #expect(try lastCheckpoint(document)["format"] as? Int == 1)
    let before = try ids(document)
    #expect(try Run.gallery(["check", document]).status == 0)

    #expect(try Run.gallery(["move", document, "2", "--to", "1"]).status == 0)
    // The first save writes a format-2 checkpoint, so that a format-1 reader, which reads the
    // last gallery.json, refuses the document with its "newer format" message.
    #expect(try lastCheckpoint(document)["format"] as? Int == 2)
    let after = try ids(document)
    #expect(after == [before[1], before[0]] + before.dropFirst(2))
    let upgraded = try GalleryDocument.open(document)
    #expect(try upgraded.model.format == 2 && upgraded.history().count == 1)
    #expect(try upgraded.history()[0].summary == "move: 1 item")
    // Every thumbnail of the old revisions is still found, and undo goes back to the start.
    for item in upgraded.model.items where item.state == .ready { #expect(try !upgraded.thumbnail(of: item).isEmpty) }
    #expect(try Run.gallery(["undo", document]).status == 0)
    #expect(try ids(document) == before)
    #expect(try Run.gallery(["check", document]).status == 0)
  }

  @Test("A newer format than this build's is refused with the upgrade message, in a checkpoint or a journal record")
  func newerFormatRefused() throws {
    let work = try TestWorkspace()
    let source = try work.document("source.gallery")
    #expect(try Run.gallery(["drop", source, try work.image("a.jpg")]).status == 0)
    let newer = work.path("newer.gallery")
    try HostileDocument.make(from: source, to: newer) { $0["format"] = 3 }
    let show = try Run.gallery(["show", newer])
    #expect(show.status == 65)
    #expect(show.stderr.contains("newer than this gallery understands"), "\(show.stderr)")
    let record = try work.write(
      #"{"format":3,"id":"0123456789abcdef0123456789abcdef","revision":99,"summary":"x","time":"2026-01-01T00:00:00Z","change":{}}"#,
      to: "record.json")
    let journal = work.path("journal.gallery")
    try HostileDocument.make(from: source, to: journal)
    #expect(try Run.program("bsdtar", ["-rf", journal, "-s", ",.*,journal/0000000099.json,", record]).status == 0)
    let read = try Run.gallery(["show", journal])
    #expect(read.status == 65 && read.stderr.contains("newer than this gallery understands"), "\(read.stderr)")
  }

  @Test("New ids are none the items, the trash or the history hold, and each once")
  func newIDs() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    // Items, one in the trash, and one only the history knows (trashed, then emptied).
    try GalleryDocument.edit(document) { edit in
      edit.insert((0..<300).map { Item.placeholder(id: "a\(String($0, radix: 36))", source: "file:///x.jpg") }, at: nil)
    }
    try GalleryDocument.edit(document) { try $0.trash(["a0", "a1"]) }
    try GalleryDocument.edit(document) { $0.remove(items: [], trashed: ["a0"]) }
    let fresh = try GalleryDocument.edit(document) { try $0.newItemIDs(2000) }
    #expect(fresh.count == 2000 && Set(fresh).count == 2000)
    let model = try GalleryDocument.open(document).model
    #expect(model.held(fresh).isEmpty && !fresh.contains("a0"))
    #expect(fresh.allSatisfy(ModelValidation.isValidID))
    #expect(model.held(["a5", "a1", "zzzzzz", "a5"]) == ["a5", "a1"])
  }

  @Test("Saves append journal records, then deltas; a new checkpoint (here a compaction) leaves no journal after it")
  func checkpoints() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(6, width: 60, height: 40)).status == 0)
    try GalleryDocument.compact(document)
    let checkpointsBefore = try archiveNames(document).filter { $0 == "gallery.json" }.count
    var saves = 0
    // Moves behind the cover's four: nothing but journal records is appended.
    while try archiveNames(document).filter({ $0 == "gallery.json" }).count == checkpointsBefore {
      try GalleryDocument.edit(document) { $0.move([$0.itemID(at: $0.itemCount - 1)], to: 5) }
      saves += 1
      try #require(saves < 1000, "no checkpoint after 1000 saves")
    }
    // The journal since the last checkpoint stays within its allowance.
    let opened = try GalleryDocument.open(document)
    #expect(opened.layout.checkpointRevision == opened.model.revision && opened.layout.journalBytes == 0)
    #expect(saves > 10, "a checkpoint at every save would make the journal pointless")
    #expect(try opened.history().count == opened.model.revision)
    // The live bytes kept save after save (this process's cache) are those a count finds.
    #expect(opened.layout.liveBytes == opened.layout.countLiveBytes())
    #expect(try lastCheckpoint(document)["revision"] as? Int == opened.model.revision)
  }

  @Test("Random edits, then revert to every revision, undo and redo: each leaves a document that checks and edits")
  func revertToEveryRevision() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let images = try work.images(4, width: 160, height: 100)
    #expect(try Run.gallery(["drop", document] + images.prefix(2)).status == 0)
    var random = SplitMix(state: 31)
    var dropped = 2
    for _ in 0..<16 {
      let model = try GalleryDocument.open(document).model
      let items = model.items.map(\.id)
      switch Int.random(in: 0..<7, using: &random) {
      case 0 where items.count > 1:
        try GalleryDocument.edit(document) { edit in
          edit.move([items.randomElement(using: &random)!], to: Int.random(in: 1...items.count, using: &random))
        }
      case 1 where items.count > 1:
        try GalleryDocument.edit(document) { try $0.trash([items.randomElement(using: &random)!]) }
      case 2 where !model.trash.isEmpty:
        try GalleryDocument.edit(document) { $0.restore([model.trash[0].item.id]) }
      case 3:
        try GalleryDocument.edit(document) { $0.title = "title \(Int.random(in: 0..<100, using: &random))" }
      case 4 where dropped < images.count:
        // A drop: placeholders, then their commit, one operation.
        #expect(try Run.gallery(["drop", "--at", "1", document, images[dropped]]).status == 0)
        dropped += 1
      case 5:
        _ = try? DocumentHistory.undo(document)
      default:
        _ = try? DocumentHistory.redo(document)
      }
    }
    let latest = try GalleryDocument.open(document).model.revision
    let history = try GalleryDocument.open(document).history()
    for target in 0..<latest {
      let copy = work.path("r\(target).gallery")
      try FileManager.default.copyItem(atPath: document, toPath: copy)
      let expected = try GalleryDocument.open(copy).model(at: target)
      let outcome = try DocumentHistory.revert(copy, to: target)
      let reverted = try GalleryDocument.open(copy).model
      #expect(reverted.items == expected.items && reverted.trash == expected.trash, "revert to r\(target)")
      // A revision inside a drop is the drop as loaded: no placeholder comes back.
      #expect(reverted.items.allSatisfy { $0.state == .ready }, "revert to r\(target) (r\(outcome.target))")
      #expect(outcome.target == UndoStack(history).settled(target))
      let check = try Run.gallery(["check", copy])
      #expect(check.status == 0, "check after revert to r\(target): \(check.stdout) \(check.stderr)")
      if reverted.items.count > 1 {
        #expect(try Run.gallery(["move", copy, "1", "--to", "end"]).status == 0, "move after revert to r\(target)")
      }
      _ = try DocumentHistory.undo(copy)
      _ = try DocumentHistory.redo(copy)
      #expect(try Run.gallery(["check", copy]).status == 0, "check after undo and redo, revert to r\(target)")
    }
  }

  @Test("History, show --at and revert; undo and redo as new revisions; history survives compaction")
  func historyUndoRedo() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let images = try work.images(4)
    #expect(try Run.gallery(["drop", document] + images.prefix(3)).status == 0)
    let afterDrop = try ids(document)
    let dropRevision = try GalleryDocument.open(document).model.revision
    #expect(try Run.gallery(["move", document, "3", "--to", "1"]).status == 0)
    #expect(try Run.gallery(["trash", document, "2"]).status == 0)
    #expect(try Run.gallery(["trash", document, "--empty"]).status == 0)
    let emptied = try ids(document)
    #expect(emptied.count == 2)

    let history = try Run.gallery(["history", "--json", document])
    let lines = try JSONSerialization.jsonObject(with: history.stdoutData) as! [[String: Any]]
    #expect(lines.map { $0["summary"] as? String }.prefix(3) == ["trash --empty: 1 item", "trash: 1 item", "move: 1 item"])
    #expect(lines.first?["nextUndo"] as? Bool == true)
    // The drop is one line: from its placeholder save (r1; it also commits what loaded
    // before the document was open) to its last commit.
    let drop = try #require(lines.last)
    #expect(drop["revision"] as? Int == dropRevision && drop["first"] as? Int == 1)
    #expect(lines.count == 4)
    #expect(try Run.gallery(["history", "--limit", "2", document]).stdout.split(separator: "\n").count == 2)

    let past = try Run.gallery(["show", "--json", "--at", "r\(dropRevision)", document])
    #expect(past.status == 0)
    let pastIDs = (try JSONSerialization.jsonObject(with: past.stdoutData) as! [String: Any])["items"] as! [[String: Any]]
    #expect(pastIDs.map { $0["id"] as! String } == afterDrop)

    // History survives compaction, with the thumbnail of the item whose trash was emptied.
    let records = try GalleryDocument.open(document).history().count
    try GalleryDocument.compact(document)
    #expect(try GalleryDocument.open(document).history().count == records)
    let undo = try Run.gallery(["undo", document])
    #expect(undo.status == 0, "\(undo.stderr)")
    let opened = try GalleryDocument.open(document)
    #expect(opened.model.trash.count == 1)
    #expect(try !opened.thumbnail(of: opened.model.trash[0].item).isEmpty)
    #expect(try Run.gallery(["undo", document, "2"]).status == 0)
    #expect(try ids(document) == afterDrop)
    #expect(try Run.gallery(["redo", document]).status == 0)
    #expect(try ids(document) == [afterDrop[2], afterDrop[0], afterDrop[1]])
    // A new operation ends what can be redone.
    #expect(try Run.gallery(["move", document, "1", "--to", "end"]).status == 0)
    #expect(try Run.gallery(["redo", document]).status == 66)

    // Revert to the drop, itself a revision that can be undone.
    let before = try ids(document)
    let revert = try Run.gallery(["revert", document, "--to", String(dropRevision)])
    #expect(revert.status == 0, "\(revert.stderr)")
    #expect(try ids(document) == afterDrop)
    #expect(try Run.gallery(["undo", document]).status == 0)
    #expect(try ids(document) == before)
    #expect(try Run.gallery(["check", document]).status == 0)

    // Forgetting the history: nothing left to undo or show.
    #expect(try Run.gallery(["compact", "--forget-history", document]).status == 0)
    #expect(try Run.gallery(["undo", document]).status == 66)
    #expect(try Run.gallery(["show", "--at", "1", document]).status == 66)
    #expect(try archiveNames(document).allSatisfy { !$0.hasPrefix("journal/") })
  }

  @Test("Undo and redo step back and forth through drops, a move, a trash and an emptied trash, one operation at a time")
  func undoAndRedoSteps() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let images = try work.images(5)
    #expect(try Run.gallery(["drop", document] + images.prefix(2)).status == 0)
    let first = try ids(document)
    #expect(try Run.gallery(["drop", document] + images.suffix(3)).status == 0)
    let all = try ids(document)
    let (c, d, e) = (all[2], all[3], all[4])
    #expect(try Run.gallery(["move", document, d, "--to", "1"]).status == 0)
    #expect(try Run.gallery(["trash", document, e]).status == 0)
    #expect(try Run.gallery(["trash", document, "--empty"]).status == 0)
    func state() throws -> [String] {
      try ids(document) + ["|"] + GalleryDocument.open(document).model.trash.map(\.item.id)
    }
    let moved = [d, first[0], first[1], c]
    var expected: [[String]] = [
      moved + ["|", e],  // the emptying undone: back in the trash
      moved + [e, "|"],  // the trash undone
      all + ["|"],  // the move undone
      first + ["|"],  // the drop undone whole: its placeholders and what loaded
    ]
    for step in expected {
      let undo = try Run.gallery(["undo", document, "--json"])
      #expect(undo.status == 0, "\(undo.stderr)")
      #expect(try state() == step)
    }
    // Redo walks forward again, with the same items.
    expected = [all + ["|"], moved + [e, "|"]]
    for step in expected {
      #expect(try Run.gallery(["redo", document]).status == 0)
      #expect(try state() == step)
    }
    // Undo the redo, then a new operation: nothing is left to redo.
    #expect(try Run.gallery(["undo", document]).status == 0)
    #expect(try state() == all + ["|"])
    #expect(try Run.gallery(["move", document, c, "--to", "1"]).status == 0)
    let redo = try Run.gallery(["redo", document])
    #expect(redo.status == 66 && redo.stderr.contains("nothing to redo"), "\(redo.stderr)")
  }

  @Test("A hostile journal record: the document opens read-only at the revision before it; check names it")
  func hostileRecord() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(2)).status == 0)
    try GalleryDocument.compact(document)
    let model = try GalleryDocument.open(document).model
    let id = model.items[0].id
    // A record that inserts an id the document holds already.
    var change = ModelChange()
    change.items.inserted = [.init(index: 0, element: model.items[0])]
    let record = JournalRecord(
      revision: model.revision + 1, id: JournalRecord.newID(), parent: model.revisionID, time: model.modified,
      summary: "hostile", change: change)
    let file = work.path("record.json")
    try JournalCoding.encode(record).write(to: URL(fileURLWithPath: file))
    #expect(
      try Run.program("bsdtar", ["-rf", document, "-s", ",.*,\(DocumentArchive.journalEntry(record.revision)),", file])
        .status == 0)
    let show = try Run.gallery(["show", document])
    #expect(show.status == 0 && show.stderr.contains("damaged"), "\(show.stderr)")
    #expect(try ids(document) == model.items.map(\.id))
    let check = try Run.gallery(["check", document])
    #expect(check.status != 0 && check.stdout.contains("journal"), "\(check.stdout)")
    #expect(try Run.gallery(["move", document, id, "--to", "end"]).status == 65)
  }

  @Test(
    "Conflict copies are known by the names sync tools give them",
    arguments: [
      ("Trip.sync-conflict-20261123-031500-ABCDEF7.gallery", "Trip.gallery"),
      ("dir/Trip (Ann's conflicted copy 2026-11-23).gallery", "dir/Trip.gallery"),
      ("Trip (conflicted copy 2026-11-23 031500).gallery", "Trip.gallery"),
      ("Trip_conflict-20261123-031500.gallery", "Trip.gallery"),
      ("Trip.gallery", nil), ("Trip copy.gallery", nil), (".sync-conflict-20261123-031500-ABCDEF7.gallery", nil),
    ] as [(String, String?)])
  func conflictNames(copy: String, original: String?) {
    #expect(DocumentConflict.original(ofCopy: copy) == original)
  }

  @Test(
    "Two copies edited apart merge: both drops kept, a move on one side and a trash on the other both applied, the later title wins; the copy goes to the Trash",
    arguments: ["Trip.sync-conflict-20261123-031500-ABCDEF7.gallery", "Trip (conflicted copy 2026-11-23 031500).gallery"])
  func conflictMerge(copyName: String) throws {
    let work = try TestWorkspace()
    let document = try work.document("Trip.gallery")
    let images = try work.images(6)
    #expect(try Run.gallery(["drop", document] + images.prefix(3)).status == 0)
    let shared = try ids(document)
    let copy = work.path(copyName)
    try FileManager.default.copyItem(atPath: document, toPath: copy)

    // This machine: a drop, a move, a title.
    #expect(try Run.gallery(["drop", document, images[3]]).status == 0)
    #expect(try Run.gallery(["move", document, shared[2], "--to", "1"]).status == 0)
    try GalleryDocument.edit(document) { $0.title = "Ours" }
    // The other machine: two drops, a trash, a later title.
    #expect(try Run.gallery(["drop", copy, images[4], images[5]]).status == 0)
    #expect(try Run.gallery(["trash", copy, shared[0]]).status == 0)
    Thread.sleep(forTimeInterval: 1.1)  // a later time, to the second
    try GalleryDocument.edit(copy) { $0.title = "Theirs" }
    let theirDrops = Array(try ids(copy).suffix(2))
    let ourDrop = try ids(document).last!

    let check = try Run.gallery(["check", document])
    #expect(check.stdout.contains("conflict copy") || check.stderr.contains("conflict copy"), "\(check.stdout)\(check.stderr)")
    let browse = try Run.gallery(["browse", "--json", work.folder.path])
    #expect(browse.stdout.contains("conflictCopies"), "\(browse.stdout)")

    let merge = try Run.gallery(["merge", "--conflict", "--json", document, copy])
    #expect(merge.status == 0, "\(merge.stderr)")
    let report = try JSONSerialization.jsonObject(with: merge.stdoutData) as! [String: Any]
    #expect((report["conflicts"] as? [String]) == ["title: took the copy's later change"])
    let merged = try GalleryDocument.open(document)
    // Both sides' drops, each where its side put it (by index, within the merged list).
    #expect(Array(merged.model.items.map(\.id).prefix(2)) == [shared[2], shared[1]])
    #expect(Set(merged.model.items.map(\.id).dropFirst(2)) == Set([ourDrop] + theirDrops))
    #expect(merged.model.trash.map(\.item.id) == [shared[0]])
    #expect(merged.model.title == "Theirs")
    for item in merged.model.items { #expect(try !merged.thumbnail(of: item).isEmpty) }
    #expect(!FileManager.default.fileExists(atPath: copy))
    #expect(FileManager.default.fileExists(atPath: Run.isolatedHome["XDG_DATA_HOME"]! + "/Trash/files/" + copyName))
    // One revision, undone as one.
    #expect(try Run.gallery(["undo", document]).status == 0)
    #expect(try ids(document) == [shared[2], shared[0], shared[1], ourDrop])
    #expect(try Run.gallery(["check", document]).status == 0)

    // Documents that share no revision are not conflict copies of each other.
    let other = try work.document("Other.gallery")
    let unrelated = try Run.gallery(["merge", "--conflict", document, other])
    #expect(unrelated.status == 65 && unrelated.stderr.contains("share no revision"), "\(unrelated.stderr)")
  }

  @Test(
    "Random edits saved through the journal read back as the in-memory model; undo of any suffix gives the earlier model back")
  func journalAgreesWithMemory() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    var random = SplitMix(state: 2026)
    var next = 0
    var expected = try GalleryDocument.open(document).model
    var models = [expected]
    /// The document as a fresh reader sees it: scanned from the file, not from this
    /// process's cache of what it wrote.
    func scan() throws -> ArchiveLayout {
      try DocumentArchive.scan(try FileHandleFD(path: document, flags: O_RDONLY))
    }
    func read() throws -> GalleryModel { try scan().model }
    for step in 0..<120 {
      var edited = expected
      JournalTests.randomEdit(&edited, &random, next: &next)
      // Failed items: no thumbnail, so the cover never needs one.
      edited.items = edited.items.map { $0.state == .ready ? $0.failed(because: "made by the test") : $0 }
      for index in edited.trash.indices where edited.trash[index].item.state == .ready {
        edited.trash[index].item = edited.trash[index].item.failed(because: "made by the test")
      }
      let target = edited
      try GalleryDocument.edit(document) { edit in
        var model = try edit.wholeModel()
        model.items = target.items
        model.trash = target.trash
        model.title = target.title
        edit.replaceModel(model)
      }
      let saved = try read()
      #expect(saved.items == target.items && saved.trash == target.trash && saved.title == target.title, "step \(step)")
      if saved.revision != expected.revision { models.append(saved) }
      // The live bytes a save keeps are those a fresh count finds.
      #expect(try GalleryDocument.open(document).layout.liveBytes == (try scan()).liveBytes, "step \(step)")
      expected = saved
      if step == 60 { try GalleryDocument.compact(document) }
    }
    #expect(try read() == (try GalleryDocument.open(document).model))
    // Undo, one operation at a time, back through every saved state.
    for index in stride(from: models.count - 2, through: 0, by: -1) {
      let outcome = try DocumentHistory.undo(document)
      #expect(outcome.skipped.isEmpty)
      let now = try read()
      #expect(now.items == models[index].items && now.trash == models[index].trash, "undo back to step \(index)")
    }
  }
}
