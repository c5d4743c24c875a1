import Foundation
import Testing

@testable import GalleryDocument
@testable import GalleryKit
@testable import GalleryModel

/// Conflict merges as pure logic: random edits on two copies from a shared revision, merged,
/// against an oracle written from the rules (see `ModelMerge`), and the cases users met.
@Suite("Conflict merges (pure)")
struct MergeTests {
  typealias Aspect = ModelMerge.Aspect

  /// One side of a conflict: its model now and its records since the shared revision.
  struct Side {
    var model: GalleryModel
    var records: [JournalRecord] = []
  }

  static func edits(from base: GalleryModel, _ count: Int, _ random: inout SplitMix, next: inout Int) -> Side {
    var side = Side(model: base)
    var time = JournalTests.date
    for step in 0..<count {
      var after = side.model
      JournalTests.randomEdit(&after, &random, next: &next)
      let change = ModelChange(from: side.model, to: after)
      guard !change.isEmpty else { continue }
      // Seconds apart or in the same second, so that ties between the sides happen.
      time += Double(Int.random(in: 0...2, using: &random))
      side.records.append(
        JournalRecord(
          revision: base.revision + step + 1, id: String(format: "%032x", random.next()), parent: nil, time: time,
          summary: "", change: change))
      side.model = after
    }
    return side
  }

  /// The oracle's reading of one side: the last record that changed each item each way.
  static func lastChanges(_ side: Side) -> [String: [Aspect: JournalRecord]] {
    var last: [String: [Aspect: JournalRecord]] = [:]
    for record in side.records {
      let items = record.change.items
      let trash = record.change.trash
      for key in items.removed.map(\.element.id) + items.inserted.map(\.element.id) { last[key, default: [:]][.list] = record }
      for key in trash.removed.map(\.element.item.id) + trash.inserted.map(\.element.item.id) {
        last[key, default: [:]][.list] = record
      }
      for move in items.moved { last[move.key, default: [:]][.place] = record }
      for update in items.updated { last[update.after.id, default: [:]][.content] = record }
      for update in trash.updated { last[update.after.item.id, default: [:]][.content] = record }
    }
    return last
  }

  /// Whether `theirs` is later than `ours`: by time, the same second by id.
  static func later(_ theirs: JournalRecord, than ours: JournalRecord) -> Bool {
    theirs.time != ours.time ? theirs.time > ours.time : theirs.id > ours.id
  }

  enum List: Equatable { case items, trash, none }

  static func list(_ key: String, in model: GalleryModel) -> List {
    if model.items.contains(where: { $0.id == key }) { return .items }
    return model.trash.contains(where: { $0.item.id == key }) ? .trash : .none
  }

  static func value(_ key: String, in model: GalleryModel) -> Item? {
    model.items.first { $0.id == key } ?? model.trash.first { $0.item.id == key }?.item
  }

  @Test("Random edits on two copies from a shared revision, merged, agree with the rules item by item")
  func oracle() throws {
    for seed in UInt64(1)...300 {
      var random = SplitMix(state: seed)
      var base = GalleryModel(title: "t", now: JournalTests.date)
      var next = 0
      for _ in 0..<Int.random(in: 2...10, using: &random) { JournalTests.randomEdit(&base, &random, next: &next) }
      let ours = Self.edits(from: base, Int.random(in: 0...6, using: &random), &random, next: &next)
      let theirs = Self.edits(from: base, Int.random(in: 0...6, using: &random), &random, next: &next)
      let merged = ModelMerge.merge(
        ours: ours.model, theirs: theirs.model, ourRecords: ours.records, theirRecords: theirs.records)
      let model = merged.model
      let context = "seed \(seed)"

      let ourLast = Self.lastChanges(ours)
      let theirLast = Self.lastChanges(theirs)
      /// The side whose state counts for one item and one way of changing it.
      func takesTheirs(_ key: String, _ aspect: Aspect) -> Bool? {
        switch (ourLast[key]?[aspect], theirLast[key]?[aspect]) {
        case (nil, nil): nil
        case (.some, nil): false
        case (nil, .some): true
        case (.some(let o), .some(let t)): Self.later(t, than: o)
        }
      }
      var expectedConflicts = Set<String>()
      let keys = Set(ours.model.ids).union(theirs.model.ids)
      for key in keys {
        let listFromTheirs = takesTheirs(key, .list) ?? (Self.list(key, in: ours.model) == .none)
        let expectedList = Self.list(key, in: listFromTheirs ? theirs.model : ours.model)
        #expect(Self.list(key, in: model) == expectedList, "\(context): \(key)'s list")
        if expectedList != .none {
          let contentFromTheirs = takesTheirs(key, .content) ?? listFromTheirs
          let expected =
            Self.value(key, in: contentFromTheirs ? theirs.model : ours.model)
            ?? Self.value(key, in: listFromTheirs ? theirs.model : ours.model)
          #expect(Self.value(key, in: model) == expected, "\(context): \(key)'s content")
        }
        if Aspect.allCases.contains(where: { ourLast[key]?[$0] != nil && theirLast[key]?[$0] != nil }) {
          expectedConflicts.insert(key)
        }
      }
      // Each item changed the same way on both sides is reported once.
      let reported = merged.conflicts.compactMap { line in line.split(separator: ":").first.map(String.init) }
        .filter { $0 != "title" && $0 != "settings" }
      #expect(reported.count == Set(reported).count, "\(context): reported twice: \(merged.conflicts)")
      #expect(Set(reported) == expectedConflicts, "\(context): \(merged.conflicts)")
      // Places: what our side placed keeps our order, what theirs placed keeps theirs.
      let placedByTheirs = { (key: String) -> Bool in
        takesTheirs(key, .place) ?? (takesTheirs(key, .list) == true || Self.list(key, in: ours.model) != .items)
      }
      let order = model.items.map(\.id)
      let ourPlaced = order.filter { !placedByTheirs($0) && Self.list($0, in: ours.model) == .items }
      #expect(ourPlaced == ours.model.items.map(\.id).filter(Set(ourPlaced).contains), "\(context): our order")
      let theirPlaced = order.filter { placedByTheirs($0) }
      #expect(theirPlaced == theirs.model.items.map(\.id).filter(Set(theirPlaced).contains), "\(context): their order")
      // The title: the later change.
      let ourTitle = ours.records.last { $0.change.head.map { $0.before.title != $0.after.title } == true }
      let theirTitle = theirs.records.last { $0.change.head.map { $0.before.title != $0.after.title } == true }
      switch (ourTitle, theirTitle) {
      case (_, nil): #expect(model.title == ours.model.title, "\(context): title")
      case (nil, .some): #expect(model.title == theirs.model.title, "\(context): title")
      case (.some(let o), .some(let t)):
        #expect(model.title == (Self.later(t, than: o) ? theirs.model.title : ours.model.title), "\(context): title")
      }
      // A model the rules accept, whose change from ours replays exactly.
      #expect(ModelValidation.problems(of: model).isEmpty, "\(context): \(ModelValidation.problems(of: model))")
      var replayed = ours.model
      var ids = ModelIDs(ours.model.ids)
      try ModelChange(from: ours.model, to: model).replay(on: &replayed, ids: &ids)
      #expect(replayed == model, "\(context): replay")
    }
  }

  /// A base of three items and two sides made by `ours` and `theirs`, theirs `theirsLater`.
  /// Five items, a to e.
  static var fiveItems: GalleryModel {
    var base = GalleryModel(title: "t", now: JournalTests.date)
    base.items = ["a", "b", "c", "d", "e"].map { JournalTests.item($0) }
    return base
  }

  /// `ours` and `theirs` made on copies of `base`, one record each, merged.
  func merge(
    from base: GalleryModel = fiveItems, theirsLater: Bool, ours: (inout GalleryModel) -> Void,
    theirs: (inout GalleryModel) -> Void
  ) -> ModelMerge.Outcome {
    func side(_ edit: (inout GalleryModel) -> Void, at seconds: Double) -> Side {
      var after = base
      edit(&after)
      let record = JournalRecord(
        revision: 1, id: String(repeating: seconds > 0 ? "b" : "a", count: 32), parent: nil,
        time: JournalTests.date + seconds, summary: "", change: ModelChange(from: base, to: after))
      return Side(model: after, records: [record])
    }
    let o = side(ours, at: theirsLater ? 0 : 5)
    let t = side(theirs, at: theirsLater ? 5 : 0)
    return ModelMerge.merge(ours: o.model, theirs: t.model, ourRecords: o.records, theirRecords: t.records)
  }

  @Test("Both sides moved one item: the later move wins, either side's, reported once")
  func bothMoved() {
    for theirsLater in [false, true] {
      // (Moves of more than one place: a move to the next place is also the next item's move.)
      let merged = merge(theirsLater: theirsLater, ours: { $0.move(["a"], to: 4) }, theirs: { $0.move(["a"], to: 3) })
      #expect(merged.model.items.map(\.id) == (theirsLater ? ["b", "c", "a", "d", "e"] : ["b", "c", "d", "a", "e"]))
      #expect(merged.conflicts == ["a: " + (theirsLater ? "took the copy's" : "kept this document's") + " later change"])
    }
  }

  @Test("Both sides tagged one item: a set, both sides' additions and removals kept; the later caption wins")
  func bothTagged() {
    func tagged(_ edit: @escaping (inout Item) -> Void) -> (inout GalleryModel) -> Void {
      { model in model.update(["b"], edit) }
    }
    for theirsLater in [false, true] {
      let merged = merge(
        theirsLater: theirsLater,
        ours: tagged {
          $0.tags = ["beach", "sea"]
          $0.caption = "ours"
        },
        theirs: tagged {
          $0.tags = ["boat"]
          $0.caption = "theirs"
        })
      let b = merged.model.items.first { $0.id == "b" }
      #expect(b?.tags == ["beach", "boat", "sea"])
      #expect(b?.caption == (theirsLater ? "theirs" : "ours"))
    }
    // From a shared base of two tags: one side removes one, the other adds one.
    var base = GalleryModel(title: "t", now: JournalTests.date)
    base.items = ["a", "b"].map { JournalTests.item($0) }
    base.update(["b"]) { $0.tags = ["old", "keep"] }
    let merged = merge(
      from: base, theirsLater: true, ours: tagged { $0.tags = ["keep"] }, theirs: tagged { $0.tags = ["keep", "new", "old"] })
    #expect(merged.model.items[1].tags == ["keep", "new"])
    // Tags alone changed on both sides: both kept whole, so no later change to report; with
    // a caption changed on both too, the caption's later change is.
    #expect(merged.conflicts.isEmpty, "\(merged.conflicts)")
    let captioned = merge(
      from: base, theirsLater: false,
      ours: tagged {
        $0.tags = ["keep"]
        $0.caption = "ours"
      },
      theirs: tagged {
        $0.tags = ["new"]
        $0.caption = "theirs"
      })
    #expect(captioned.model.items[1].tags == ["new"] && captioned.model.items[1].caption == "ours")
    #expect(captioned.conflicts == ["b: kept this document's later change"])

    // Together more tags than an item holds: the later side's own, reported; the merge
    // keeps the rules, so that it saves.
    for theirsLater in [false, true] {
      let over = merge(
        from: base, theirsLater: theirsLater, ours: tagged { $0.tags = Item.tagSet((0..<300).map { "o\($0)" }) },
        theirs: tagged { $0.tags = Item.tagSet((0..<300).map { "t\($0)" }) })
      #expect(over.model.items[1].tags?.count == 300)
      #expect(over.model.items[1].tags?.first == (theirsLater ? "t0" : "o0"))
      #expect(
        over.conflicts == [
          "b: both sides' tags make 600, over the 500 an item holds: "
            + (theirsLater ? "took the copy's" : "kept this document's")
        ])
      #expect(ModelValidation.problems(of: over.model).isEmpty)
    }
  }

  @Test("Both sides trashed one item: in the trash once, reported once")
  func bothTrashed() {
    let merged = merge(theirsLater: true, ours: { $0.trash(["b"], now: JournalTests.date) }, theirs: { $0.trash(["b"]) })
    #expect(merged.model.items.map(\.id) == ["a", "c", "d", "e"])
    #expect(merged.model.trash.map(\.item.id) == ["b"])
    #expect(merged.conflicts == ["b: took the copy's later change"])
  }

  @Test("A move on one side and a trash on the other both apply; a content change follows the item into the trash")
  func differentWays() {
    let moved = merge(theirsLater: false, ours: { $0.trash(["a"]) }, theirs: { $0.move(["a"], to: 3) })
    #expect(moved.model.items.map(\.id) == ["b", "c", "d", "e"] && moved.model.trash.map(\.item.id) == ["a"])
    #expect(moved.conflicts.isEmpty)
    let changed = merge(theirsLater: false, ours: { $0.trash(["a"]) }, theirs: { $0.items[0].width = 4000 })
    #expect(changed.model.trash.map(\.item.width) == [4000])
    #expect(changed.conflicts.isEmpty)
  }
}

extension MergeTests {
  @Test("Note cards merge as items: both sides' new cards kept, a card written on both sides takes the later text")
  func noteCards() {
    for theirsLater in [false, true] {
      let merged = merge(
        theirsLater: theirsLater,
        ours: { $0.insert([Item.noteCard(id: "ours01", text: "Ours", now: JournalTests.date)], at: 1) },
        theirs: { $0.insert([Item.noteCard(id: "thrs01", text: "Theirs", now: JournalTests.date)], at: 6) })
      let ids = merged.model.items.map(\.id)
      #expect(ids.first == "ours01" && ids.last == "thrs01" && ids.count == 7)
      #expect(merged.model.items.filter(\.isNoteCard).map(\.note) == ["Ours", "Theirs"])
      #expect(ModelValidation.problems(of: merged.model).isEmpty)
    }
    // A card of the shared revision, written on both sides: the later text, reported once.
    var base = GalleryModel(title: "t", now: JournalTests.date)
    base.items = [JournalTests.item("a"), Item.noteCard(id: "card01", text: "Plan", now: JournalTests.date)]
    let merged = merge(
      from: base, theirsLater: true, ours: { $0.update(["card01"]) { $0.note = "Plan: the coast" } },
      theirs: { $0.update(["card01"]) { $0.note = "Plan: the hills" } })
    #expect(merged.model.items[1].note == "Plan: the hills" && merged.model.items[1].isNoteCard)
    #expect(merged.conflicts.count == 1)
  }

  @Test("An item carried in keeps its id unless the items, the trash or the history have it")
  func carriedItemsAvoidTheHistorysIDs() throws {
    let date = JournalTests.date
    var before = GalleryModel(title: "t", now: date)
    before.items = [JournalTests.item("gone01"), JournalTests.item("here01")]
    var after = before
    after.items.removeFirst()
    // The history took "gone01" out; undo could bring it back, with its thumbnail.
    let record = JournalRecord(
      revision: 1, id: JournalRecord.newID(), parent: nil, time: date, summary: "trash --empty",
      change: ModelChange(from: before, to: after))
    var edit = DocumentEdit(model: after, history: History([record]))
    let carried = ["gone01", "here01", "new001"].map { DocumentMerge.Carried(item: JournalTests.item($0, 7)) }
    let added = try DocumentMerge.addKeepingTrack(carried, to: &edit, at: nil, skippingDuplicates: false)
    #expect(added.map(\.sourceID) == ["gone01", "here01", "new001"])
    let ids = added.map(\.item.id)
    #expect(ids[2] == "new001" && ids[0] != "gone01" && ids[1] != "here01", "\(ids)")
    #expect(Set(ids).count == 3 && !ids.contains("gone01") && !ids.contains("here01"))
  }
}
