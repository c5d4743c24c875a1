import Foundation
import Synchronization
import Testing

@testable import GalleryDocument
@testable import GalleryModel

/// What makes a 100,000-item document cheap to edit: items copied as references, a large
/// items array read and checked on two cores. Pure: no file, no process. The oracle of
/// each test is the one-piece reading or check that these must agree with exactly.
@Suite("Large models: shared items, reading and checking in two halves")
struct LargeModelTests {
  static func model(count: Int, source: (Int) -> String = { "file:///p/\($0).jpg" }) -> GalleryModel {
    var model = GalleryModel(title: "large", now: JournalTests.date)
    model.items = (0..<count).map { n in
      var item = JournalTests.item("i\(n)", n % 7)
      item.source = source(n)
      return item
    }
    return model
  }

  /// The items of an encoded model read in one piece, as before the split.
  static func itemsInOnePiece(_ data: Data) throws -> [Item] {
    try data.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      var items: [Item] = []
      try reader.object { reader, key in
        if case "items" = key { try reader.array { items.append(try $0.item()) } } else { try reader.skipValue() }
      }
      return items
    }
  }

  /// The error a one-piece reading of the whole model meets (the oracle for refusals).
  static func errorInOnePiece(_ data: Data) -> String? {
    do {
      _ = try itemsInOnePiece(data)
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test("ForkJoin runs both pieces of work and returns both results; each changes only what it captures")
  func forkJoin() {
    var left = [Int]()
    var right = [Int]()
    let results = ForkJoin.both(
      { () -> Int in
        for n in 0..<10_000 { left.append(n) }
        return left.count
      },
      { () -> String in
        for n in 0..<20_000 { right.append(n) }
        return "\(right.count)"
      })
    #expect(results.0 == 10_000 && results.1 == "20000")
    #expect(left == Array(0..<10_000) && right == Array(0..<20_000))
  }

  @Test("An item is a value: a copy changed alone, equal by content whatever shares storage, coded as before")
  func itemIsAValue() throws {
    let original = JournalTests.item("abc", 3)
    var copy = original
    copy.source = "file:///elsewhere.jpg"
    copy.width = 9
    #expect(original.source == "file:///p/abc-3.jpg" && original.width == 103)
    #expect(copy.source == "file:///elsewhere.jpg" && copy.width == 9 && copy.id == "abc")
    #expect(copy != original)
    copy.source = original.source
    copy.width = original.width
    #expect(copy == original, "equal by content, though no longer sharing storage")
    // A list copied and edited leaves the list it came from as it was.
    let list = [original, JournalTests.item("def")]
    var edited = list
    edited[1].state = .failed
    #expect(list[1].state == .ready && edited[1].state == .failed && edited[0] == list[0])
    // Foundation's coders see the members `gallery.json` has.
    let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(original)) as? [String: Any]
    #expect(
      Set(json?.keys.map { $0 } ?? []) == [
        "id", "source", "state", "aspectRatio", "width", "height", "hash", "thumbnail", "added",
      ])
    #expect(try JSONDecoder().decode(Item.self, from: JSONEncoder().encode(original)) == original)
  }

  @Test("All the items read through an outline, on two cores, are the one-piece reading; a fault in either half names its item")
  func readAllAgrees() throws {
    let sources: [(String, (Int) -> String)] = [
      ("plain", { "file:///p/\($0).jpg" }),
      ("braces in strings", { "file:///p/%7D,%7B/" + String(repeating: "},{", count: $0 % 5) + "\($0).jpg" }),
      ("escapes", { "file:///p/\"quoted\"\\\($0)/é.jpg" }),
    ]
    for (label, source) in sources {
      var model = Self.model(count: 6_000, source: source)
      model.trash = []
      let (data, outline) = ModelCoding.encodeWithOutline(model)
      #expect(try StoredItemTests.source(data, outline).readAll() == model.items, "\(label)")
      #expect(try Self.itemsInOnePiece(data) == model.items, "\(label)")
    }
    let (_, data, outline) = StoredItemTests.encoded(count: 6_000)
    Self.expectCommaChecked(before: 3_000, data, outline)
    for index in [10, 5_990] {
      let broken = try StoredItemTests.withUnknownState(item: index, in: data, outline)
      #expect(Self.errorInOnePiece(broken) != nil)
      Self.expectWholeReadFails(naming: index, broken, outline)
    }
  }

  @Test("A whole read takes each half a chunk at a time: the item that starts a chunk is read and its comma checked as any other")
  func readAllInChunks() throws {
    let (model, data, outline) = StoredItemTests.encoded(count: 24_000)
    let reads = StoredItemTests.Reads()
    #expect(try StoredItemTests.source(data, outline, reads: reads).readAll() == model.items)
    // Each half is more than a chunk: a whole read is never one piece.
    let halfBytes = outline.starts[outline.starts.count / 2] - outline.starts[0]
    #expect(halfBytes > 2 * ItemSource.copyBytes)
    #expect(reads.count.withLock { $0 } >= 4)
    // The first item that does not fit in the first half's first chunk starts the next one.
    let chunkStart = try #require(
      outline.starts.indices.first { outline.starts[$0] + outline.lengths[$0] - outline.starts[0] > ItemSource.copyBytes })
    Self.expectCommaChecked(before: chunkStart, data, outline)
  }

  /// A whole read of `data` with the comma before item `index` made a space names that item.
  static func expectCommaChecked(before index: Int, _ data: Data, _ outline: CheckpointOutline) {
    var separated = data
    separated[outline.starts[index] - 1] = UInt8(ascii: " ")
    expectWholeReadFails(naming: index, separated, outline, saying: " does not follow a comma")
  }

  /// A whole read of `data` fails on item `index`, and says so (and `what` of it).
  static func expectWholeReadFails(
    naming index: Int, _ data: Data, _ outline: CheckpointOutline, saying what: String = ""
  ) {
    #expect {
      try StoredItemTests.source(data, outline).readAll()
    } throws: { "\($0)".contains("item \(index + 1) (i\(index)) of gallery.json\(what)") }
  }

  @Test("A search through the outline finds what filtering the items finds, in their order, after moves, changes and removals")
  func matchesAgree() throws {
    let (model, data, outline) = StoredItemTests.encoded(count: 24_000)
    let reads = StoredItemTests.Reads()
    let source = StoredItemTests.source(data, outline, reads: reads)
    var working = WorkingModel(head: model, storedItemIDs: source.itemIDs)
    let ids = model.items.map(\.id)
    // Since the checkpoint: moved both ways, changed (no longer stored), removed.
    working.move([ids[17_770]], to: 4)
    working.move([ids[770]], to: Int.max)
    try working.update([working.items.key(at: 5)], reading: source.item) { $0.caption = "77 at dusk" }
    try working.update([working.items.key(at: 9_000)], reading: source.item) { $0.tags = ["77"] }
    working.remove(items: Set((10_000..<10_050).map { working.items.key(at: $0) }))
    let query = try ItemQuery("77")
    let readsBefore = reads.value
    let found = try source.matches(of: query, among: working.items)
    #expect(reads.value - readsBefore >= 4, "read a chunk at a time")
    let items = try working.model(reading: source.item).items
    let expected = items.enumerated().filter { query.matches($0.element) }
    #expect(found.map(\.position) == expected.map { $0.offset + 1 })
    #expect(found.map(\.item) == expected.map(\.element))
    #expect(found.count > 400 && found.contains { $0.position == 4 } && found.contains { $0.position == 6 })
  }

  @Test("show --json of a large list, written in two halves and handed out in pieces, is byte for byte the one-piece listing")
  func listingsAgree() throws {
    for count in [0, 1, ForkJoin.itemsWorthSplitting - 1, ForkJoin.itemsWorthSplitting, 5_001] {
      var model = Self.model(count: count)
      // Some pending and failed ones, so that every display state is written.
      for index in stride(from: 0, to: count, by: 7) {
        model.items[index] =
          index % 2 == 0
          ? Item.placeholder(id: "p\(index)", source: "https://x.invalid/\(index)") : model.items[index].failed(because: "no")
      }
      var oracle = JSONWriter()
      oracle.bytes.append(UInt8(ascii: "["))
      for (index, item) in model.items.enumerated() {
        if index > 0 { oracle.bytes.append(UInt8(ascii: ",")) }
        oracle.item(item, position: index + 1, display: item.displayState.rawValue)
      }
      oracle.bytes.append(UInt8(ascii: "]"))
      let listing = DocumentListingJSON.make(path: "/d/x.gallery", model: model)
      let json = try #require(try JSONSerialization.jsonObject(with: Data(listing)) as? [String: Any], "\(count)")
      #expect((json["items"] as? [Any])?.count == count)
      #expect(Data(listing).range(of: Data(oracle.bytes)) != nil, "\(count): the same bytes")
      // In pieces of any size: the same bytes, the first half's pieces never much over the size.
      for pieceSize in [1, 5_000] {
        let emitted = Mutex<[[UInt8]]>([])
        DocumentListingJSON.write(path: "/d/x.gallery", model: model, pieceSize: pieceSize) { piece in
          emitted.withLock { $0.append(piece) }
        }
        let pieces = emitted.withLock { $0 }
        #expect(pieces.flatMap { $0 } == listing, "\(count) in pieces of \(pieceSize)")
        let firstHalf = count >= ForkJoin.itemsWorthSplitting ? pieces.dropFirst().dropLast(2) : pieces.dropFirst().dropLast()
        #expect(firstHalf.allSatisfy { $0.count < pieceSize + 1_000 }, "\(count) in pieces of \(pieceSize)")
        #expect(pieceSize > 1 || count == 0 || firstHalf.count >= (count >= ForkJoin.itemsWorthSplitting ? count / 2 : count))
      }
    }
  }

  @Test("Checking a large list on two cores finds what the one-piece check finds, in document order")
  func checksAgree() throws {
    var model = Self.model(count: ForkJoin.itemsWorthSplitting * 2)
    #expect(ModelValidation.eachIsValid(model.items))
    #expect(ModelValidation.problems(of: model).isEmpty)
    for bad in [[3], [3_900], [12, 3_000], [1_999, 2_000]] {
      var broken = model
      for index in bad { broken.items[index].width = -1 }
      #expect(!ModelValidation.eachIsValid(broken.items), "\(bad)")
      let expected = broken.items.flatMap { ModelValidation.problems(of: $0) }
      #expect(ModelValidation.problems(of: broken) == expected, "\(bad)")
    }
    // A duplicate id is a rule of the list, found the same with clean items.
    model.items[3_500].id = model.items[20].id
    model.items[3_500].thumbnail = model.items[20].thumbnail
    #expect(ModelValidation.eachIsValid(model.items))
    #expect(ModelValidation.problems(of: model).map(\.description) == [#"item id "i20" is used more than once"#])
  }
}
