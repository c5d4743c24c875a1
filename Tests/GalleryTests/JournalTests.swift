import Foundation
import Testing

@testable import GalleryModel

/// The journal's rules as pure logic: changes made by comparing models, replayed exactly,
/// taken back, encoded; the undo stack. No file, no process.
@Suite("Journal: changes, replay, undo (pure)")
struct JournalTests {
  static let date = Date(timeIntervalSince1970: 1_790_000_000)

  static func item(_ id: String, _ n: Int = 0) -> Item {
    var item = Item.placeholder(id: id, source: "file:///p/\(id)-\(n).jpg", now: date)
    item.state = .ready
    item.placeholder = nil
    item.width = 100 + n
    item.height = 100
    item.aspectRatio = Double(100 + n) / 100
    item.hash = "sha256:" + String(repeating: "a", count: 64)
    item.thumbnail = "thumbnails/\(id).jpg"
    return item
  }

  /// One random edit of the kinds the commands make.
  static func randomEdit(_ model: inout GalleryModel, _ random: inout SplitMix, next: inout Int) {
    let count = model.items.count
    switch Int.random(in: 0..<9, using: &random) {
    case 0, 1:
      let new = (0..<Int.random(in: 1...3, using: &random)).map { _ -> Item in
        next += 1
        return item("n\(next)")
      }
      model.insert(new, at: count == 0 ? nil : Int.random(in: 1...(count + 1), using: &random))
    case 2...3 where count > 0:
      let ids = Array(model.items.shuffled(using: &random).prefix(Int.random(in: 1...min(3, count), using: &random))).map(\.id)
      model.move(ids, to: Int.random(in: 1...(count + 1), using: &random))
    case 4 where count > 0:
      model.trash([model.items[Int.random(in: 0..<count, using: &random)].id], now: date)
    case 5 where !model.trash.isEmpty:
      model.restore([model.trash[Int.random(in: 0..<model.trash.count, using: &random)].item.id])
    case 6 where count > 0:
      let index = Int.random(in: 0..<count, using: &random)
      model.items[index].width = Int.random(in: 1...5000, using: &random)
      if !model.trash.isEmpty, Bool.random(using: &random) {
        model.trash[Int.random(in: 0..<model.trash.count, using: &random)].item.height = Int.random(
          in: 1...5000, using: &random)
      }
    case 7:
      model.title = "title \(Int.random(in: 0..<5, using: &random))"
    case 8 where !model.trash.isEmpty && Int.random(in: 0..<4, using: &random) == 0:
      _ = model.emptyTrash()
    default:
      model.items.reverse()
    }
  }

  @Test("A change replays exactly, takes back exactly, and encodes and decodes unchanged (random edits)")
  func property() throws {
    for seed in UInt64(1)...40 {
      var random = SplitMix(state: seed)
      var model = GalleryModel(title: "t", now: Self.date)
      var next = 0
      var models = [model]
      var changes: [ModelChange] = []
      var ids = ModelIDs(model.ids)
      var seen = model.ids
      // Every record replayed on one model, as opening replays a journal.
      var chained = WorkingModel(model)
      var chainedIDs = ModelIDs(model.ids)
      for step in 0..<60 {
        var after = model
        Self.randomEdit(&after, &random, next: &next)
        let change = ModelChange(from: model, to: after)
        #expect(change.isEmpty == (model.items == after.items && model.trash == after.trash && model.title == after.title))

        var replayed = model
        try change.replay(on: &replayed, ids: &ids)
        #expect(replayed == after, "seed \(seed) step \(step): replay")
        try change.replay(on: &chained, ids: &chainedIDs, reading: WorkingModel.neverStored)
        #expect(chained.current == after, "seed \(seed) step \(step): replay after the others")
        // Kept record after record since the first model: every id seen, in or out.
        seen.formUnion(after.ids)
        #expect(seen.allSatisfy { ids.contains($0) == after.ids.contains($0) }, "seed \(seed) step \(step): ids kept")

        var back = after
        var backIDs = ModelIDs(after.ids)
        try change.reversed.replay(on: &back, ids: &backIDs)
        #expect(back == model, "seed \(seed) step \(step): reversed")

        let record = JournalRecord(
          revision: step + 1, id: JournalRecord.newID(), parent: nil, time: Self.date, summary: JournalRecord.describe(change),
          change: change)
        #expect(try JournalCoding.decode(JournalCoding.encode(record)) == record, "seed \(seed) step \(step): coding")
        #expect(try JournalCoding.decodePlace(JournalCoding.encode(record)) == record.place, "seed \(seed) step \(step): place")
        #expect(
          JournalCoding.namedIDs(JournalCoding.encode(record)).isSuperset(of: change.keys), "seed \(seed) step \(step): ids")

        model = after
        models.append(model)
        changes.append(change)
      }
      // A revert: from the model as it is now straight to any earlier one, many items
      // moved and changed at once, replays and takes back exactly too.
      for (index, past) in models.enumerated() {
        var reverted = past
        reverted.revision = model.revision
        let change = ModelChange(from: model, to: reverted)
        var replayed = model
        var revertIDs = ModelIDs(model.ids)
        try change.replay(on: &replayed, ids: &revertIDs)
        #expect(replayed == reverted, "seed \(seed): revert to \(index)")
        var back = reverted
        var backIDs = ModelIDs(reverted.ids)
        try change.reversed.replay(on: &back, ids: &backIDs)
        #expect(back == model, "seed \(seed): revert to \(index), reversed")
        var applied = model
        #expect(change.apply(to: &applied).isEmpty, "seed \(seed): revert to \(index) skipped something")
        #expect(applied.items == past.items && applied.trash == past.trash, "seed \(seed): revert to \(index), applied")
      }
      // Undo of any suffix, applied to the model as it is now, gives the earlier model back.
      for start in stride(from: changes.count - 1, through: 0, by: -7) {
        var undone = model
        for change in changes[start...].reversed() {
          #expect(change.reversed.apply(to: &undone).isEmpty, "seed \(seed): undo from \(start) skipped something")
        }
        #expect(undone.items == models[start].items, "seed \(seed): undo back to \(start)")
        #expect(undone.trash == models[start].trash, "seed \(seed): undo back to \(start) (trash)")
        #expect(undone.title == models[start].title)
      }
    }
  }

  /// A model made by `edits` random edits, with the generator and item counter after them.
  static func randomModel(seed: UInt64, edits: Int) -> (model: GalleryModel, random: SplitMix, next: Int) {
    var random = SplitMix(state: seed)
    var model = GalleryModel(title: "t", now: date)
    var next = 0
    for _ in 0..<edits { randomEdit(&model, &random, next: &next) }
    return (model, random, next)
  }

  /// Counts the reads of stored items.
  final class Reads: @unchecked Sendable {
    var count = 0
  }

  /// One random edit of the kinds the commands make, on a working model (each item it
  /// needs read by `read`) and the same on a model whose items are all read.
  static func randomEdit(
    _ working: inout WorkingModel, _ model: inout GalleryModel, _ random: inout SplitMix, next: inout Int,
    reading read: HandleList<Item>.Read
  ) throws {
    let count = model.items.count
    let some = Array(model.items.shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random))).map(\.id)
    switch Int.random(in: 0..<8, using: &random) {
    case 0:
      next += 1
      let position = Int.random(in: 1...(count + 1), using: &random)
      working.insert([item("n\(next)")], at: position)
      model.insert([item("n\(next)")], at: position)
    case 1, 2:
      let position = Int.random(in: 1...(count + 1), using: &random)
      working.move(some, to: position)
      model.move(some, to: position)
    case 3:
      try working.trash(some, now: date, reading: read)
      model.trash(some, now: date)
    case 4 where !model.trash.isEmpty:
      let id = model.trash[Int.random(in: 0..<model.trash.count, using: &random)].item.id
      working.restore([id])
      model.restore([id])
    case 5:
      let width = Int.random(in: 1...5000, using: &random)
      try working.update(some, reading: read) { $0.width = width }
      model.update(some) { $0.width = width }
    case 6 where Int.random(in: 0..<6, using: &random) == 0:
      try working.sort(by: .size, reading: read)
      model.sort(by: .size)
    default:
      working.head.title = "title \(Int.random(in: 0..<5, using: &random))"
      model.title = working.head.title
    }
  }

  @Test("Items still stored: edits, the change they make, its replay and its undo agree with read items; a move reads none")
  func storedItemsAgree() throws {
    for seed in UInt64(1)...30 {
      var (model, random, next) = Self.randomModel(seed: seed, edits: 30)
      // That model as a checkpoint: its items stored, read only through `read`.
      let stored = model.items
      let reads = Reads()
      let read: HandleList<Item>.Read = { index in
        reads.count += 1
        return stored[index]
      }
      let checkpoint = WorkingModel(head: model, storedItemIDs: stored.map(\.id))
      var working = checkpoint
      var edited = model
      for step in 0..<20 {
        try Self.randomEdit(&working, &edited, &random, next: &next, reading: read)
        #expect(try working.model(reading: read) == edited, "seed \(seed) step \(step): edited alike")
      }
      let change = try ModelChange(from: checkpoint, to: working, reading: read)
      #expect(change == ModelChange(from: model, to: edited), "seed \(seed): one change")
      var replayed = checkpoint
      var ids = ModelIDs(model.ids)
      try change.replay(on: &replayed, ids: &ids, reading: read)
      #expect(try replayed.model(reading: read) == edited, "seed \(seed): replayed on stored items")
      var undone = working
      #expect(try change.reversed.apply(to: &undone, reading: read).isEmpty, "seed \(seed): undo skipped something")
      let back = try undone.model(reading: read)
      #expect(back.items == model.items && back.trash == model.trash, "seed \(seed): undone")
    }
    // A move among stored items is known to change nothing but places: no item is read.
    let stored = (0..<1000).map { Self.item("s\($0)") }
    let reads = Reads()
    let read: HandleList<Item>.Read = { index in
      reads.count += 1
      return stored[index]
    }
    let checkpoint = WorkingModel(head: GalleryModel(title: "t", now: Self.date), storedItemIDs: stored.map(\.id))
    var moved = checkpoint
    moved.move(["s3", "s700"], to: 1000)
    moved.move(["s10"], to: 1)
    let change = try ModelChange(from: checkpoint, to: moved, reading: read)
    #expect(change.items.moved.map(\.key).sorted() == ["s10", "s3", "s700"] && change.items.updated.isEmpty)
    #expect(reads.count == 0)
  }

  @Test("A move of one item among 10,000 is a small change")
  func moveIsSmall() {
    var before = GalleryModel(title: "t", now: Self.date)
    before.items = (0..<10_000).map { Self.item("i\($0)") }
    var after = before
    after.move(["i9999"], to: 1)
    let change = ModelChange(from: before, to: after)
    #expect(change.items.moved.count == 1 && change.items.inserted.isEmpty && change.items.removed.isEmpty)
    #expect(change.items.updated.isEmpty)
    let record = JournalRecord(
      revision: 2, id: JournalRecord.newID(), parent: nil, time: Self.date, summary: "move", change: change)
    #expect(JournalCoding.encode(record).count < 400)
  }

  @Test("Replaying on another model is refused, never trapped")
  func mismatch() {
    var before = GalleryModel(title: "t", now: Self.date)
    before.items = [Self.item("a1"), Self.item("b1")]
    var after = before
    after.trash(["a1"], now: Self.date)
    let change = ModelChange(from: before, to: after)
    var other = GalleryModel(title: "t", now: Self.date)
    other.items = [Self.item("b1")]
    var ids = ModelIDs(other.ids)
    #expect(throws: ChangeMismatch.self) { try change.replay(on: &other, ids: &ids) }
    // An insertion of an id the model holds already.
    var twice = after
    var twiceIDs = ModelIDs(twice.ids)
    let insert = ModelChange(from: GalleryModel(title: "t", now: Self.date), to: before)
    #expect(throws: ChangeMismatch.self) { try insert.replay(on: &twice, ids: &twiceIDs) }
  }

  @Test("Undo works on the items as they are now, and names what it cannot take back")
  func undoOnCurrent() {
    var start = GalleryModel(title: "t", now: Self.date)
    start.items = [Self.item("a1"), Self.item("b1")]
    var dropped = start
    dropped.insert([Self.item("c1"), Self.item("d1")], at: 1)
    let drop = ModelChange(from: start, to: dropped)
    // Since the drop: c1 moved to the end, d1 was trashed.
    var now = dropped
    now.move(["c1"], to: 5)
    now.trash(["d1"], now: Self.date)
    let skipped = drop.reversed.apply(to: &now)
    #expect(now.items.map(\.id) == ["a1", "b1"])
    #expect(now.trash.map(\.item.id) == ["d1"])
    #expect(skipped == ["d1 is no longer in the gallery"])

    // Undoing a trash puts the item back, unless the document holds its id again: restored
    // since (in the gallery), or an item of the trash (itself trashed again since).
    var trashedTwo = start
    trashedTwo.trash(["a1", "b1"], now: Self.date)
    let trash = ModelChange(from: start, to: trashedTwo)
    var restored = trashedTwo
    restored.restore(["b1"])
    #expect(trash.reversed.apply(to: &restored) == ["b1 is no longer in the trash", "b1 is already in the document"])
    #expect(restored.items.map(\.id) == ["a1", "b1"] && restored.trash.isEmpty)
    var many = GalleryModel(title: "t", now: Self.date)
    many.items = (0..<20).map { Self.item("m\($0)") }
    var insertedMany = many
    insertedMany.insert((0..<12).map { Self.item("n\($0)") }, at: 3)
    let dropMany = ModelChange(from: many, to: insertedMany)
    var holding = many
    holding.insert([Self.item("n4")], at: 1)
    holding.trash(["m7"], now: Self.date)
    holding.trash.append(TrashedItem(item: Self.item("n9"), trashed: Self.date, position: 1))
    #expect(Set(dropMany.apply(to: &holding)) == ["n4 is already in the document", "n9 is already in the document"])
    #expect(holding.items.filter { $0.id == "n4" }.count == 1 && !holding.items.contains { $0.id == "n9" })
    #expect(holding.items.count == 20 + 10)
  }

  @Test("Encoded out of order or with an id changed by an update: refused as data")
  func hostileRecords() {
    let base = #"{"format":2,"id":"0123456789abcdef0123456789abcdef","revision":3,"summary":"x","time":"2026-01-01T00:00:00Z","#
    let outOfOrder = base + #""change":{"items":{"moved":[{"id":"a","from":0,"to":5},{"id":"b","from":1,"to":2}]}}}"#
    #expect(throws: (any Error).self) { try JournalCoding.decode(Data(outOfOrder.utf8)) }
    let item = #"{"added":"2026-01-01T00:00:00Z","aspectRatio":1,"id":"ID","source":"file:///x","state":"failed"}"#
    let renamed =
      base + #""change":{"items":{"updated":[{"from":0,"to":0,"before":"#
      + item.replacingOccurrences(of: "ID", with: "aaa") + #","after":"# + item.replacingOccurrences(of: "ID", with: "bbb")
      + "}]}}}"
    #expect(throws: (any Error).self) { try JournalCoding.decode(Data(renamed.utf8)) }
    let badID = base.replacingOccurrences(of: "0123456789abcdef0123456789abcdef", with: "../x") + #""change":{}}"#
    #expect(throws: ModelValidation.Failure.self) { try JournalCoding.decode(Data(badID.utf8)) }
    let newer = #"{"format":3,"id":"0123456789abcdef0123456789abcdef"}"#
    #expect(throws: DocumentError.self) { try JournalCoding.decode(Data(newer.utf8)) }
  }

  @Test("A long summary is cut between characters, within its limit")
  func summaryCut() {
    let long = String(repeating: "é", count: 400)
    let cut = JournalRecord.cut(long)
    #expect(cut.utf8.count <= JournalRecord.summaryBytes && cut.hasSuffix("…") && cut.dropLast().allSatisfy { $0 == "é" })
    #expect(JournalRecord.cut("move: 2 items") == "move: 2 items")
  }

  static func record(_ revision: Int, undoing: Int? = nil, redoing: Int? = nil, continues: Int? = nil) -> JournalRecord {
    JournalRecord(
      revision: revision, id: JournalRecord.newID(), parent: nil, time: date, summary: "r\(revision)", undoing: undoing,
      redoing: redoing, continues: continues, change: ModelChange())
  }

  @Test("The undo stack: undo, redo, a new edit clears redo, undoing a redo, operations of two records")
  func undoStack() {
    var history = [Self.record(1), Self.record(2, continues: 1), Self.record(3)]
    var stack = UndoStack(history)
    #expect(stack.undoable == [1, 3] && stack.redoable.isEmpty)
    #expect(stack.operations[1] == [1, 2])
    history.append(Self.record(4, undoing: 3))
    history.append(Self.record(5, undoing: 1))
    stack = UndoStack(history)
    #expect(stack.undoable.isEmpty && stack.redoable == [3, 1])
    history.append(Self.record(6, redoing: 1))
    stack = UndoStack(history)
    #expect(stack.undoable == [6] && stack.redoable == [3])
    history.append(Self.record(7, undoing: 6))
    stack = UndoStack(history)
    #expect(stack.undoable.isEmpty && stack.redoable == [3, 6])
    history.append(Self.record(8))
    stack = UndoStack(history)
    #expect(stack.undoable == [8] && stack.redoable.isEmpty)
  }

  @Test("A record that only settles an operation's placeholders belongs to it; once that operation is undone, not")
  func settlingRecordsJoinTheirOperation() {
    var empty = GalleryModel(title: "t", now: Self.date)
    empty.items = [Self.item("a1")]
    var placed = empty
    placed.insert([Item.placeholder(id: "p1", source: "file:///p1", now: Self.date)], at: nil)
    var loaded = placed
    loaded.items[1] = Self.item("p1")
    var moved = loaded
    moved.move(["p1"], to: 1)
    func record(_ revision: Int, _ from: GalleryModel, _ to: GalleryModel, undoing: Int? = nil) -> JournalRecord {
      JournalRecord(
        revision: revision, id: JournalRecord.newID(), parent: nil, time: Self.date, summary: "", undoing: undoing,
        change: ModelChange(from: from, to: to))
    }
    let history = [record(1, empty, placed), record(2, placed, loaded), record(3, loaded, moved)]
    let stack = UndoStack(history)
    #expect(stack.undoable == [1, 3] && stack.operations[1] == [1, 2])
    // The placeholder save undone first: a later commit of its placeholders stands alone.
    let undone = [record(1, empty, placed), record(2, placed, empty, undoing: 1), record(3, empty, empty)]
    #expect(UndoStack(undone).undoable == [3])
  }

  @Test("A past model from the history; beyond it is an error that names the oldest")
  func pastModels() throws {
    var models = [GalleryModel(title: "t", now: Self.date)]
    var history: [JournalRecord] = []
    var random = SplitMix(state: 7)
    var next = 0
    for revision in 1...20 {
      var after = models.last!
      Self.randomEdit(&after, &random, next: &next)
      after.revision = revision
      history.append(
        JournalRecord(
          revision: revision, id: JournalRecord.newID(), parent: nil, time: Self.date, summary: "",
          change: ModelChange(from: models.last!, to: after)))
      models.append(after)
    }
    for revision in [0, 5, 19, 20] {
      let past = try ModelHistory.model(at: revision, from: models[20], history: history)
      #expect(past.items == models[revision].items && past.trash == models[revision].trash && past.revision == revision)
    }
    #expect(throws: ModelHistory.Beyond.self) {
      try ModelHistory.model(at: 3, from: models[20], history: Array(history.suffix(10)))
    }
    #expect(ModelHistory.oldest(models[20], Array(history.suffix(10))) == 10)
  }
}
