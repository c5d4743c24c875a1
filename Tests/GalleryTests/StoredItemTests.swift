import Foundation
import Synchronization
import Testing

@testable import GalleryDocument
@testable import GalleryModel
@testable import GallerySystem

/// An edit of a large document reads only the items it needs, through the index's outline
/// of the checkpoint. Pure tests of the outline and the item source first (no file), then
/// real archives: the lazy reading agrees with a whole scan, and an item that breaks a rule
/// stops exactly the edits that read it.
@Suite("Format 2: edits read only the items they need")
struct StoredItemTests {
  /// A model of `count` items, encoded, with its outline.
  static func encoded(count: Int) -> (model: GalleryModel, data: Data, outline: CheckpointOutline) {
    var model = LargeModelTests.model(count: count)
    model.trash = [TrashedItem(item: JournalTests.item("gone"), trashed: JournalTests.date, position: 3)]
    let (data, outline) = ModelCoding.encodeWithOutline(model)
    return (model, data, outline)
  }

  /// A source reading `data` as the checkpoint, counting the reads it makes.
  static func source(_ data: Data, _ outline: CheckpointOutline, reads: Reads = Reads()) -> ItemSource {
    ItemSource(outline) { offset, count in
      reads.count.withLock { $0 += 1 }
      reads.bytes.withLock { $0 += count }
      return data.subdata(in: offset..<min(data.count, offset + count))
    }
  }

  /// A model of `count` items encoded, and a source reading it that counts its reads.
  static func counted(count: Int) -> (model: GalleryModel, outline: CheckpointOutline, reads: Reads, source: ItemSource) {
    let (model, data, outline) = encoded(count: count)
    let reads = Reads()
    return (model, outline, reads, source(data, outline, reads: reads))
  }

  /// `data` with item `index`'s state made unknown ("reaDy"), at the same length.
  static func withUnknownState(item index: Int, in data: Data, _ outline: CheckpointOutline) throws -> Data {
    var broken = data
    let item = outline.starts[index]..<outline.starts[index] + outline.lengths[index]
    let state = try #require(broken[item].firstRange(of: Data("\"state\":\"ready\"".utf8)))
    broken.replaceSubrange(state, with: Data("\"state\":\"reaDy\"".utf8))
    return broken
  }

  final class Reads: Sendable {
    let count = Mutex(0)
    let bytes = Mutex(0)
    var value: Int { count.withLock { $0 } }
  }

  @Test("The outline of an encoded model places every item, and its items read back as the model's")
  func outlineRoundTrips() throws {
    let (model, data, outline) = Self.encoded(count: 50)
    #expect(outline.check(checkpointSize: data.count) == nil)
    #expect(outline.ids == model.items.map(\.id))
    #expect(data[outline.array.lowerBound] == UInt8(ascii: "[") && data[outline.array.upperBound - 1] == UInt8(ascii: "]"))
    for index in [0, 17, 49] {
      let slice = data.subdata(in: outline.starts[index]..<outline.starts[index] + outline.lengths[index])
      let item = try slice.withUnsafeBytes { raw in
        var reader = JSONReader(raw)
        return try reader.item()
      }
      #expect(item == model.items[index])
    }
    let empty = ModelCoding.encodeWithOutline(GalleryModel(title: "empty", now: JournalTests.date))
    #expect(empty.outline.check(checkpointSize: empty.data.count) == nil && empty.outline.array.count == 2)
  }

  @Test(
    "An outline that does not tile its items array is refused",
    arguments: ["gap", "overlap", "short of the end", "past the end", "array out of range", "bad id", "lists differ"])
  func outlineThatLies(lie: String) {
    let (_, data, honest) = Self.encoded(count: 20)
    var outline = honest
    switch lie {
    case "gap": outline.starts[5] += 1
    case "overlap": outline.lengths[4] += 1
    case "short of the end": outline.lengths[19] -= 1
    case "past the end": outline.array = outline.array.lowerBound..<(data.count + 1)
    case "array out of range": outline.array = 0..<outline.array.upperBound
    case "bad id": outline.ids[3] = "12345"
    default: outline.ids.removeLast()
    }
    #expect(outline.check(checkpointSize: data.count) != nil, "\(lie)")
  }

  @Test("Stored items are read when asked, a chunk at a time; ids need no read; a change is the working model's own")
  func storedItemsReadOnDemand() throws {
    let (model, _, reads, source) = Self.counted(count: 3000)
    let working = WorkingModel(head: model, storedItemIDs: source.itemIDs)
    #expect(Array(working.items.keys) == model.items.map(\.id) && reads.value == 0)
    #expect((0..<3000).allSatisfy { working.items.storedIndex(at: $0) == $0 })
    // One read brings the item and its neighbours up to a chunk, not the rest.
    #expect(try source.item(10) == model.items[10])
    #expect(reads.value == 1)
    #expect(try source.item(11).source == model.items[11].source && reads.value == 1)
    // Changing a stored item reads it, and changes the copy that changed it only.
    var changed = working
    try changed.update([model.items[2500].id], reading: source.item) { $0.failure = "changed" }
    #expect(try changed.items.element(at: 2500, reading: source.item).failure == "changed")
    #expect(changed.items.storedIndex(at: 2500) == nil && working.items.storedIndex(at: 2500) == 2500)
    // Every item, read in chunks: far fewer reads than items.
    #expect(try working.model(reading: source.item).items == model.items)
    #expect(reads.value < 3000 / 50)
    #expect(source.failure == nil)
  }

  @Test("Items needed far apart (a replay of scattered trashes) are read with few neighbours, however many")
  func storedItemsReadFarApart() throws {
    let (model, _, reads, source) = Self.counted(count: 3000)
    for index in stride(from: 7, to: 1500, by: 100) { #expect(try source.item(index) == model.items[index]) }
    #expect(reads.value == 15)
    #expect(reads.bytes.withLock { $0 } <= 15 * ItemSource.firstChunkBytes)
    // Read on through the half not touched yet, the chunks grow again.
    #expect(try (1500..<3000).allSatisfy { try source.item($0) == model.items[$0] })
    #expect(reads.value - 15 < 15)
  }

  @Test("Items needed backwards (as a replay may) come in chunks too, and no byte is read twice")
  func storedItemsReadBackwards() throws {
    let (model, outline, reads, source) = Self.counted(count: 3000)
    #expect(try source.item(1500) == model.items[1500])
    #expect(try source.item(1499) == model.items[1499] && source.item(1501) == model.items[1501] && reads.value == 1)
    let rest = (0..<3000).reversed().filter { !(1499...1501).contains($0) }
    #expect(try rest.allSatisfy { try source.item($0) == model.items[$0] })
    #expect(reads.value < 3000 / 50)
    // Each read covers items not read before, with the comma between two.
    let itemBytes = outline.lengths.reduce(0, +)
    #expect(reads.bytes.withLock { $0 } == itemBytes + 3000 - reads.value)
  }

  @Test("A checkpoint written in pieces (runs copied, changed items encoded) is the one a whole encoding writes")
  func checkpointPlanWritesWhatEncodingWrites() throws {
    let (model, _, _, source) = Self.counted(count: 3000)
    var edited = WorkingModel(head: model, storedItemIDs: source.itemIDs)
    let ids = model.items.map(\.id)
    edited.move([ids[10], ids[2000]], to: 1)
    try edited.trash([ids[500], ids[2999]], now: JournalTests.date, reading: source.item)
    try edited.update([ids[700]], reading: source.item) { $0.failure = "changed by the test" }
    edited.insert([JournalTests.item("new1", 1), JournalTests.item("new2", 2)], at: 1500)
    edited.remove(items: [edited.items.key(at: 0)])
    _ = try edited.items.element(at: 42, reading: source.item)  // read, unchanged: still copied
    let plan = CheckpointPlan(edited, source: source)
    source.check(plan.copied)
    #expect(source.failure == nil)
    #expect(plan.pieces.count < 40, "runs, not items")
    var written: [UInt8] = []
    let writtenOutline = try plan.write { written += $0 }
    let whole = ModelCoding.encodeWithOutline(try edited.model(reading: source.item))
    #expect(written.count == plan.size)
    #expect(Data(written) == whole.data)
    // The same outline, with the CRC of the items array as written.
    #expect(writtenOutline == whole.outline && plan.outline.itemsCRC32 == nil)
    #expect(whole.outline.itemsCRC32 == whole.data[whole.outline.array].withUnsafeBytes { CRC32($0).value })
    // Without a source, every item is encoded.
    var unsourced: [UInt8] = []
    try CheckpointPlan(WorkingModel(try edited.model(reading: source.item)), source: nil).write { unsourced += $0 }
    #expect(Data(unsourced) == whole.data)
  }

  @Test(
    "What a checkpoint copies is checked first: a broken item stops it, a removed one does not; so does a non-comma between two"
  )
  func checkpointPlanChecksWhatItCopies() throws {
    let (model, data, outline) = Self.encoded(count: 300)
    let source = Self.source(try Self.withUnknownState(item: 200, in: data, outline), outline)
    let edited = WorkingModel(head: model, storedItemIDs: source.itemIDs)
    var without = edited
    without.remove(items: [model.items[200].id])
    source.check(CheckpointPlan(without, source: source).copied)
    #expect(source.failure == nil)
    source.check(CheckpointPlan(edited, source: source).copied)
    #expect(source.failure?.contains("item 201") == true, "\(source.failure ?? "")")

    var commaless = data
    commaless[outline.starts[100] - 1] = UInt8(ascii: " ")
    let other = Self.source(commaless, outline)
    let plan = CheckpointPlan(WorkingModel(head: model, storedItemIDs: other.itemIDs), source: other)
    other.check(plan.copied)
    #expect(other.failure == nil)  // every item reads
    #expect(throws: (any Error).self) { try plan.write { _ in } }
  }

  @Test("CRC-32 is zlib's (gzip's), the same given whole or in pieces")
  func crcIsZlibs() {
    let bytes = Array("123456789".utf8)
    #expect(bytes.withUnsafeBytes { CRC32($0).value } == 0xCBF4_3926)
    #expect(CRC32().value == 0)
    var pieces = CRC32()
    bytes.withUnsafeBytes { raw in
      for cut in [(0, 1), (1, 1), (2, 5), (7, 2)] { pieces.update(UnsafeRawBufferPointer(rebasing: raw[cut.0..<cut.0 + cut.1])) }
    }
    #expect(pieces.value == 0xCBF4_3926)
  }

  @Test(
    "Items whose array is as written (the outline's CRC) are not checked again before a copy; changed bytes, or no CRC, are checked item by item"
  )
  func checkTrustsTheCRC() throws {
    let (_, data, outline) = Self.encoded(count: 300)
    let all = Array(0..<300)
    let broken = try Self.withUnknownState(item: 200, in: data, outline)
    // The CRC written with the intact items: the changed byte sends the check item by item.
    let changed = Self.source(broken, outline)
    #expect(changed.changedSinceWritten == [DocumentArchive.modelEntry])
    changed.check(all)
    #expect(changed.failure?.contains("item 201") == true, "\(changed.failure ?? "")")
    // So does an outline without a CRC (an index of an earlier version).
    var unsummed = outline
    unsummed.itemsCRC32 = nil
    let earlier = Self.source(broken, unsummed)
    #expect(earlier.changedSinceWritten.isEmpty)
    earlier.check(all)
    #expect(earlier.failure?.contains("item 201") == true)
    // A CRC of the bytes as they lie is taken as a save's word that it checked or encoded
    // them: one read of the array, no item decoded. A read of the item still applies the
    // rules, and refuses it.
    var asWritten = outline
    asWritten.itemsCRC32 = broken[outline.array].withUnsafeBytes { CRC32($0).value }
    let reads = Reads()
    let trusted = Self.source(broken, asWritten, reads: reads)
    #expect(trusted.changedSinceWritten.isEmpty)
    trusted.check(all)
    #expect(trusted.failure == nil && reads.value == 2 && reads.bytes.withLock { $0 } == 2 * outline.array.count)
    #expect(throws: (any Error).self) { try trusted.item(200) }
    #expect(trusted.failure?.contains("item 201") == true)
    // Intact: nothing to find either way.
    let intact = Self.source(data, outline)
    intact.check(all)
    #expect(intact.failure == nil && intact.changedSinceWritten.isEmpty)
  }

  @Test("An item that breaks a rule throws and is recorded when it is read, not when a neighbour is")
  func brokenItemRecordedWhenRead() throws {
    let (model, data, outline) = Self.encoded(count: 100)
    let source = Self.source(try Self.withUnknownState(item: 60, in: data, outline), outline)
    #expect(try source.item(0) == model.items[0])
    #expect(source.failure == nil)
    #expect(try source.item(61) == model.items[61])  // its chunk holds item 60 too
    #expect(source.failure == nil)
    #expect(throws: (any Error).self) { try source.item(60) }
    let failure = try #require(source.failure)
    #expect(failure.contains("item 61") && failure.contains(model.items[60].id), "\(failure)")
    // An item whose object holds another id than the outline's is refused too.
    var renamed = outline
    renamed.ids[7] = "other7"
    let lying = ItemSource(renamed) { offset, count in
      data.subdata(in: offset..<offset + count)
    }
    #expect(throws: (any Error).self) { try lying.item(7) }
    #expect(lying.failure?.contains("not the one the index gives") == true)
  }
}

extension StoredItemTests {
  /// A document of 4 dropped images followed by `count` failed items, compacted, so that its
  /// checkpoint holds them all and its index outlines them. With `trashed` items in its
  /// trash (more than a delta holds: see `GalleryDocument.deltaTrashLimit`), its saves write
  /// no delta, and a checkpoint as the journal grows.
  static func largeDocument(
    _ work: TestWorkspace, count: Int, name: String = "test.gallery", trashed: Int = 0
  ) throws -> String {
    let document = try work.document(name)
    #expect(try Run.gallery(["drop", document] + work.images(4, width: 60, height: 40)).status == 0)
    try GalleryDocument.edit(document) { edit in
      edit.insert((0..<count).map { JournalTests.item("f\($0)", $0 % 7).failed(because: "made by the test") }, at: nil)
      let bin = (0..<trashed).map { JournalTests.item("t\($0)", 1).failed(because: "thrown away by the test") }
      edit.insert(bin, at: nil)
      try edit.trash(bin.map(\.id))
    }
    try GalleryDocument.compact(document)
    return document
  }

  /// A document as `largeDocument` makes it, whose saves write checkpoints, not deltas.
  static func documentWithoutDeltas(_ work: TestWorkspace, count: Int, name: String = "test.gallery") throws -> String {
    try largeDocument(work, count: count, name: name, trashed: GalleryDocument.deltaTrashLimit + 1)
  }

  @Test("Opened for an edit, a large document's items stay in the file until needed, and read as a whole scan reads them")
  func lazyOpeningAgreesWithScan() throws {
    let work = try TestWorkspace()
    let document = try Self.largeDocument(work, count: 3000)
    let file = try FileHandleFD(path: document, flags: O_RDONLY)
    let lazy = try DocumentArchive.openThroughIndex(file, lazily: true)
    #expect(lazy.itemSource != nil && (0..<lazy.working.items.count).allSatisfy { lazy.working.items.storedIndex(at: $0) == $0 })
    let scanned = try DocumentArchive.scan(file)
    #expect(try lazy.wholeModel() == scanned.model && lazy.itemSource?.failure == nil)
    // Edits through the command line, each opening lazily; a whole scan agrees after each.
    let ids = scanned.model.items.map(\.id)
    for arguments in [
      ["move", document, "2000", "--to", "1"], ["trash", document, ids[2500]], ["restore", document, ids[2500]],
      ["move", document, ids[3], "--to", "end"], ["undo", document], ["trash", document, "3003"],
    ] {
      let run = try Run.gallery(arguments)
      #expect(run.status == 0, "\(arguments): \(run.stderr)")
      let now = try FileHandleFD(path: document, flags: O_RDONLY)
      let (indexed, whole) = (try DocumentArchive.openThroughIndex(now, lazily: true), try DocumentArchive.scan(now))
      #expect(try indexed.wholeModel() == whole.model, "\(arguments)")
      let trailer = try DocumentArchive.trailer(of: now)
      #expect(trailer.summary == DocumentSummary(whole), "\(arguments): summary")
    }
    #expect(try Run.gallery(["check", document]).status == 0)
  }

  @Test("A damaged item stops the edits that read it (65, nothing saved), not those that do not; show and check find it")
  func damagedItemStopsOnlyItsEdits() throws {
    let work = try TestWorkspace()
    let document = try Self.largeDocument(work, count: 3000)
    let model = try GalleryDocument.open(document).model
    let victim = model.items[2500]
    var writer = JSONWriter()
    writer.item(victim)
    let text = try #require(String(bytes: writer.bytes, encoding: .utf8))
    let damaged = text.replacingOccurrences(of: "\"state\":\"failed\"", with: "\"state\":\"faiLed\"")
    try #require(damaged != text)
    try IndexTests().patch(document, text, damaged)
    // A move among the first items reads them and the cover's, not item 2501.
    let move = try Run.gallery(["move", document, "3", "--to", "1"])
    #expect(move.status == 0, "\(move.stderr)")
    // Trashing the damaged item reads it: refused, and nothing is written.
    let before = try Data(contentsOf: URL(fileURLWithPath: document))
    let trash = try Run.gallery(["trash", document, victim.id])
    #expect(trash.status == 65 && trash.stderr.contains("damaged") && trash.stderr.contains(victim.id), "\(trash.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: document)) == before)
    // Reading every item finds it.
    #expect(try Run.gallery(["show", "--json", document]).status == 65)
    let check = try Run.gallery(["check", document])
    #expect(check.status != 0 && (check.stdout + check.stderr).contains("faiLed"), "\(check.stdout)\(check.stderr)")
  }
}

extension StoredItemTests {
  /// Edits `document` in this process (moves among its first items) until one writes a
  /// checkpoint, or one throws; returns how many were saved and what was thrown.
  static func editUntilCheckpoint(_ document: String) throws -> (saved: Int, thrown: (any Error)?) {
    let checkpoints = try archiveNames(document).filter { $0 == DocumentArchive.modelEntry }.count
    for count in 0..<400 {
      do {
        try GalleryDocument.edit(document) { edit in edit.move([edit.itemID(at: count % 40 + 1)], to: 1) }
      } catch {
        return (count, error)
      }
      if try archiveNames(document).filter({ $0 == DocumentArchive.modelEntry }).count > checkpoints {
        return (count + 1, nil)
      }
    }
    Issue.record("no checkpoint after 400 edits")
    return (400, nil)
  }

  /// Item `index` of `document`, and its JSON as a checkpoint holds it.
  static func itemText(_ document: String, at index: Int) throws -> (item: Item, text: String) {
    let item = try GalleryDocument.open(document).model.items[index]
    var writer = JSONWriter()
    writer.item(item)
    return (item, try #require(String(bytes: writer.bytes, encoding: .utf8)))
  }

  @Test(
    "An edit that writes a checkpoint copies the items it did not read, checked when their CRC differs; one broken stops it (65, nothing saved)"
  )
  func checkpointCopiesCheckedItems() throws {
    let work = try TestWorkspace()
    let document = try Self.documentWithoutDeltas(work, count: 300)
    let (saved, thrown) = try Self.editUntilCheckpoint(document)
    #expect(thrown == nil && saved > 1)
    let file = try FileHandleFD(path: document, flags: O_RDONLY)
    let (indexed, whole) = (try DocumentArchive.openThroughIndex(file, lazily: true), try DocumentArchive.scan(file))
    #expect(try indexed.wholeModel() == whole.model && indexed.itemSource != nil && indexed.indexIsComplete)
    #expect(try Run.gallery(["check", document]).status == 0)

    // The same, with an item deep in the checkpoint broken: the edits before the checkpoint
    // do not read it and save; the one that would copy it refuses and writes nothing.
    let other = try Self.documentWithoutDeltas(work, count: 300, name: "other.gallery")
    let (victim, text) = try Self.itemText(other, at: 250)
    try IndexTests().patch(other, text, text.replacingOccurrences(of: "\"state\":\"failed\"", with: "\"state\":\"faiLed\""))
    let revision = try DocumentArchive.openThroughIndex(FileHandleFD(path: other, flags: O_RDONLY), lazily: true).head.revision
    let (savedBefore, refusal) = try Self.editUntilCheckpoint(other)
    let error = try #require(refusal as? DocumentError)
    guard case .damaged = error else {
      Issue.record("not damage: \(error)")
      return
    }
    #expect("\(error)".contains(victim.id), "\(error)")
    #expect(savedBefore > 1)
    // The refused save is cut off again: the file ends with the last saved revision, its
    // trailer and its end marker, as tar tools and the index read it.
    let now = try FileHandleFD(path: other, flags: O_RDONLY)
    let reopened = try DocumentArchive.openThroughIndex(now, lazily: true)
    #expect(reopened.head.revision == revision + savedBefore && reopened.tornBytes == 0)
    #expect(try archiveNames(other).filter { $0 == DocumentArchive.modelEntry }.count == 1)

    // A byte changed where the item still reads (bit rot in a reason): `check` tells the CRC
    // differs, an edit's checkpoint checks the items one by one and copies them, and from
    // there the CRC is the new checkpoint's.
    let rotten = try Self.documentWithoutDeltas(work, count: 300, name: "rotten.gallery")
    let (_, reasonText) = try Self.itemText(rotten, at: 150)
    try IndexTests().patch(rotten, reasonText, reasonText.replacingOccurrences(of: "made by the test", with: "made by the tesT"))
    let rotCheck = try Run.gallery(["check", rotten])
    #expect(rotCheck.status != 0 && rotCheck.stdout.contains("CRC-32"), "\(rotCheck.stdout)")
    #expect(try GalleryDocument.open(rotten).model.items[150].failure == "made by the tesT")
    #expect(try Self.editUntilCheckpoint(rotten).thrown == nil)
    let mended = try Run.gallery(["check", rotten])
    #expect(mended.status == 0, "\(mended.stdout)")

    // A space instead of the comma between two items: every item reads, but the copy finds
    // it while writing, and the save already under way is cut off.
    let third = try Self.documentWithoutDeltas(work, count: 300, name: "third.gallery")
    let (_, object) = try Self.itemText(third, at: 101)
    try IndexTests().patch(third, "," + object, " " + object)
    let (savedFirst, stopped) = try Self.editUntilCheckpoint(third)
    let copyError = try #require(stopped as? DocumentError)
    #expect("\(copyError)".contains("comma"), "\(copyError)")
    let cut = try DocumentArchive.openThroughIndex(FileHandleFD(path: third, flags: O_RDONLY), lazily: true)
    #expect(cut.tornBytes == 0 && savedFirst > 1)
    #expect(try archiveNames(third).filter { $0 == DocumentArchive.modelEntry }.count == 1)
  }

  @Test("A document whose index does not outline its checkpoint (an earlier version's) gets one from its next edit")
  func indexWithoutOutlineGetsOne() throws {
    let work = try TestWorkspace()
    let document = try Self.largeDocument(work, count: 50)
    // The member renamed: a reader skips what it does not know, as it would an older index.
    try IndexTests().patch(document, "{\"checkpointOutline\":", "{\"checkpointOutlinX\":")
    let file = try FileHandleFD(path: document, flags: O_RDONLY)
    let before = try DocumentArchive.openThroughIndex(file, lazily: true)
    #expect(before.itemSource == nil && !before.indexIsComplete && before.readThroughIndex)
    let indexes = try archiveNames(document).filter { $0 == ArchiveIndex.name }.count
    #expect(try Run.gallery(["move", document, "3", "--to", "1"]).status == 0)
    #expect(try archiveNames(document).filter { $0 == ArchiveIndex.name }.count == indexes + 1)
    let after = try DocumentArchive.openThroughIndex(try FileHandleFD(path: document, flags: O_RDONLY), lazily: true)
    #expect(after.itemSource != nil && after.indexIsComplete)
    // And the one after it writes none.
    #expect(try Run.gallery(["move", document, "3", "--to", "1"]).status == 0)
    #expect(try archiveNames(document).filter { $0 == ArchiveIndex.name }.count == indexes + 1)
  }
}
