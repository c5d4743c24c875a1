import Foundation
import GalleryKit
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

@Suite("Model edits: insert, move, trash and restore")
struct ModelEditingTests {
  func model(_ ids: [String]) -> GalleryModel {
    var model = GalleryModel(title: "t")
    model.items = ids.map { Item.placeholder(id: $0, source: "file:///\($0).jpg") }
    return model
  }

  @Test("An item's original has its hash, or before it loaded the one its urn:sha256 source names")
  func originalHash() {
    let hex = String(repeating: "ab", count: 32)
    var given = Item.placeholder(id: "aaaaaa", source: "urn:sha256:" + hex)
    #expect(given.originalHash == "sha256:" + hex)
    given.hash = "sha256:" + String(repeating: "cd", count: 32)
    #expect(given.originalHash == given.hash)
    #expect(Item.placeholder(id: "bbbbbb", source: "file:///urn:sha256:x.jpg").originalHash == nil)
    #expect(PlaceholderCommit.isOriginal("originals/" + hex + ".png", of: "sha256:" + hex))
    #expect(!PlaceholderCommit.isOriginal("originals/" + hex + "0.png", of: "sha256:" + hex))
    #expect(!PlaceholderCommit.isOriginal("originals/" + hex + ".png", of: hex))
  }

  @Test("Insert at a position, at 1, and past the end")
  func insert() {
    var m = model(["aaaaaa", "bbbbbb", "cccccc"])
    m.insert([Item.placeholder(id: "xxxxxx", source: "file:///x")], at: 2)
    #expect(m.items.map(\.id) == ["aaaaaa", "xxxxxx", "bbbbbb", "cccccc"])
    m.insert([Item.placeholder(id: "yyyyyy", source: "file:///y")], at: 99)
    #expect(m.items.last?.id == "yyyyyy")
    m.insert([Item.placeholder(id: "zzzzzz", source: "file:///z")], at: nil)
    #expect(m.items.last?.id == "zzzzzz")
  }

  @Test("Several items move together, keeping their relative order; to the very end too")
  func move() {
    var m = model(["aaaaaa", "bbbbbb", "cccccc", "dddddd", "eeeeee"])
    m.move(["dddddd", "bbbbbb"], to: 1)
    #expect(m.items.map(\.id) == ["bbbbbb", "dddddd", "aaaaaa", "cccccc", "eeeeee"])
    m.move(["bbbbbb"], to: Int.max)
    #expect(m.items.map(\.id) == ["dddddd", "aaaaaa", "cccccc", "eeeeee", "bbbbbb"])
    m.move(["aaaaaa", "cccccc"], to: 4)
    #expect(m.items.map(\.id) == ["dddddd", "eeeeee", "bbbbbb", "aaaaaa", "cccccc"])
  }

  @Test("Trash and restore put a group back exactly where it was")
  func trashAndRestore() {
    var m = model(["aaaaaa", "bbbbbb", "cccccc", "dddddd"])
    m.trash(["bbbbbb", "cccccc"])
    #expect(m.items.map(\.id) == ["aaaaaa", "dddddd"])
    #expect(m.trash.map(\.position) == [2, 3])
    m.restore(["cccccc", "bbbbbb"])
    #expect(m.items.map(\.id) == ["aaaaaa", "bbbbbb", "cccccc", "dddddd"])
    #expect(m.trash.isEmpty)
  }

  @Test("Restoring many at once puts each where restoring them one by one would: shared and past-the-end positions too")
  func restoreManyAsOneByOne() {
    var random = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      var m = model((0..<Int.random(in: 0...30, using: &random)).map { "item\(String($0, radix: 36))" })
      // Trashed in separate edits (positions may repeat), some with positions past the end.
      for n in 0..<Int.random(in: 1...12, using: &random) {
        let position = Int.random(in: 1...40, using: &random)
        m.trash.append(TrashedItem(item: .placeholder(id: "trash\(n)", source: "file:///t"), trashed: .now, position: position))
      }
      let chosen = m.trash.map(\.item.id).filter { _ in Bool.random(using: &random) }
      var oneByOne = m.items
      for trashed in m.trash.filter({ chosen.contains($0.item.id) }).sorted(by: { $0.position < $1.position }) {
        oneByOne.insert(trashed.item, at: min(max(trashed.position, 1), oneByOne.count + 1) - 1)
      }
      m.restore(chosen)
      #expect(m.items.map(\.id) == oneByOne.map(\.id))
      #expect(m.trash.allSatisfy { !chosen.contains($0.item.id) })
    }
  }

  @Test("References: positions and ids, each once; unknown ones are errors")
  func references() throws {
    let m = model(["aaaaaa", "bbbbbb"])
    #expect(try m.resolve([.position(2), .id("aaaaaa"), .position(1)]) == ["bbbbbb", "aaaaaa"])
    #expect(throws: DocumentError.self) { try m.resolve([.position(3)]) }
    #expect(throws: DocumentError.self) { try m.resolve([.id("nosuch")]) }
    // Many ids (looked up in a set made once): the same answers.
    let large = model((0..<50).map { "item\(String($0, radix: 36))" })
    let asked = [ItemReference.id("item1"), .position(40), .id("item1a"), .id("item1"), .id("item5"), .id("item9")]
    #expect(try large.resolve(asked) == ["item1", "item13", "item1a", "item5", "item9"])
    #expect(throws: DocumentError.self) { try large.resolve(asked + [.id("nosuch")]) }
    // Positions of ids, found in one pass; an id not among the items is left out.
    #expect(large.positions(of: ["item9", "nosuch", "item0"]) == ["item9": 9, "item0": 0])
  }

  @Test("Items put in since the model was read are found among the stored ones, or first when they are all asked for")
  func indicesAmongStoredAndHeld() throws {
    var working = WorkingModel(head: model([]), storedItemIDs: (0..<20).map { "stored\($0)" })
    working.insert([JournalTests.item("new1", 1), JournalTests.item("new2", 2)], at: 5)
    working.items.replace(at: 10, with: JournalTests.item("changed", 3))
    // Only held items asked for (one of them twice): found without the stored ones.
    #expect(working.indices(of: ["new2", "new1", "new2"]) == [4, 5])
    #expect(working.indices(of: ["new1", "changed"]) == [4, 10])
    // Held and stored, or one not there: every item looked at.
    #expect(working.indices(of: ["stored0", "new2"]) == [0, 5])
    #expect(working.indices(of: ["new1", "nosuch"]) == [4])
    // All but the one replaced, and one put in.
    #expect(working.indices(of: (0..<20).map { "stored\($0)" } + ["new1"]).count == 20)
    // Any ids, at the ends, in the middle or not there: what a look at every item finds.
    var generator = SystemRandomNumberGenerator()
    let keys = (0..<working.items.count).map { working.items.key(at: $0) }
    for _ in 0..<200 {
      let asked = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
        Bool.random(using: &generator) ? keys.randomElement(using: &generator)! : "nosuch\(Int.random(in: 0..<3))"
      }
      #expect(working.indices(of: asked) == keys.indices.filter { asked.contains(keys[$0]) }, "\(asked)")
    }
  }

  @Test("The ids held are those of the items and the trash, whether put in since, stored, replaced or taken out")
  func heldAmongStoredAndPutIn() throws {
    var working = WorkingModel(head: model([]), storedItemIDs: (0..<20).map { "stored\($0)" })
    working.insert([JournalTests.item("new1", 1), JournalTests.item("new2", 2), JournalTests.item("new3", 3)], at: 5)
    // stored0-3, new1-3 (at 5), stored4-19
    working.items.replace(at: 11, with: JournalTests.item("changed", 4))  // stored8 is gone
    working.items.remove(sortedIndices: [1, 5])  // stored1 and new2 are gone
    working.trash(["stored3", "new3"]) { handle in JournalTests.item("stored\(handle)", 5) }
    // Only items put in since: found without the stored ones.
    #expect(working.held(["new1", "changed", "new1"]) == ["new1", "changed"])
    // Put in and then taken out, or replaced, or never there: not held.
    #expect(working.held(["new2", "stored8", "stored1", "nosuch"]).isEmpty)
    // In the trash, stored and put in alike; and a mix of all of them, more than a few.
    #expect(working.held(["stored3", "new3"]) == ["stored3", "new3"])
    let asked = (0..<20).map { "stored\($0)" } + ["new1", "new2", "new3", "changed", "nosuch"]
    let expected = Set((0..<20).map { "stored\($0)" } + ["new1", "new3", "changed"]).subtracting(["stored1", "stored8"])
    #expect(working.held(asked) == expected)
  }
}
