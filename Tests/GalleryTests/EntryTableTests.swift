import Foundation
import Testing

@testable import GalleryDocument
@testable import GalleryModel

/// The table of where entries lie: an index's names kept as bytes, under the names written
/// since. Pure: no files.
@Suite("Entry table")
struct EntryTableTests {
  func at(_ offset: Int64, size: Int64 = 10) -> EntryLocation { EntryLocation(offset: offset, span: 1024, size: size) }

  /// An index of `names`, one after the other, followed by its checkpoint.
  func index(_ names: [String]) -> ArchiveIndex {
    var table = EntryTable()
    for (position, name) in names.enumerated() { table.update(at(Int64(position) * 1024), for: name) }
    table.update(at(Int64(names.count) * 1024), for: DocumentArchive.modelEntry)
    return ArchiveIndex(revision: 3, revisions: 2, liveBytes: 0, entries: table)
  }

  func decoded(_ text: String, end: Int64) throws -> EntryTable {
    try ArchiveIndex.decode(Data(text.utf8), at: end).entries
  }

  @Test("Names written after the index win over it; counts, prefixes and iteration see each name once, at its newest place")
  func newerWins() throws {
    let names = (0..<500).map { "thumbnails/item\($0).jpg" } + ["journal/0000000001.json", "journal/0000000002.json"]
    let written = index(names)
    var table = try ArchiveIndex.decode(Data(written.encode()), at: Int64(names.count + 1) * 1024).entries
    #expect(table == written.entries)
    #expect(table.count == 503)
    #expect(table["thumbnails/item7.jpg"] == at(7 * 1024))
    #expect(table["thumbnails/item500.jpg"] == nil)

    let original = table
    table.update(at(900_000), for: "thumbnails/item7.jpg")
    table.update(at(901_000), for: "journal/0000000003.json")
    table.update(at(902_000), for: "journal/0000000002.json")
    #expect(table["thumbnails/item7.jpg"] == at(900_000))
    #expect(table.count == 504)
    #expect(table.names.count == 504 && Set(table.names).count == 504)
    #expect(Dictionary(uniqueKeysWithValues: table.map { ($0.name, $0.location) })["thumbnails/item7.jpg"] == at(900_000))
    let journal = table.named(withPrefix: DocumentArchive.journalFolder).sorted { $0.name < $1.name }
    #expect(journal.map(\.name) == ["journal/0000000001.json", "journal/0000000002.json", "journal/0000000003.json"])
    #expect(journal.map(\.location) == [at(500 * 1024), at(902_000), at(901_000)])
    var inFileOrder: [(name: String, location: EntryLocation)] = []
    table.forEachInFileOrder { inFileOrder.append((String(decoding: $0, as: UTF8.self), $1)) }
    #expect(inFileOrder.map(\.location.offset) == table.map(\.location.offset).sorted())
    #expect(Set(inFileOrder.map(\.name)) == Set(table.names) && inFileOrder.count == table.count)
    // A copy is a value: the table it came from still says what the index said.
    #expect(original["thumbnails/item7.jpg"] == at(7 * 1024) && original.count == 503)
    #expect(original != table)
  }

  @Test("The lists of a chain of deltas make one layer over the index's: as their names would be one by one")
  func layeredTable() throws {
    let names = (0..<50).map { "thumbnails/item\($0).jpg" } + [DocumentArchive.coverEntry]
    let base = try ArchiveIndex.decode(Data(index(names).encode()), at: Int64(names.count + 1) * 1024).entries
    // Two deltas' lists, in file order after the index: the second lists again a name the
    // first lists, both one the index lists.
    let lists: [[(String, EntryLocation)]] = [
      [("thumbnails/item3.jpg", at(60_000)), ("thumbnails/new1.jpg", at(61_000)), (DocumentArchive.coverEntry, at(62_000))],
      [("thumbnails/new1.jpg", at(70_000)), ("thumbnails/new2.jpg", at(71_000)), (DocumentArchive.coverEntry, at(72_000))],
    ]
    func merged(_ lists: [[(String, EntryLocation)]]) throws -> IndexedEntries.Merged {
      var bytes: [UInt8] = []
      var ends: [Int] = []
      for (name, _) in lists.joined() {
        bytes += Array(name.utf8)
        ends.append(bytes.count)
      }
      return try IndexedEntries.merging(
        names: bytes, ends: ends, locations: lists.joined().map(\.1), counts: lists.map(\.count))
    }
    var layered = base.adding(try merged(lists))
    var oneByOne = base
    for (name, location) in lists.joined() { oneByOne.update(location, for: name) }
    #expect(layered == oneByOne && layered.count == 54)
    #expect(layered["thumbnails/item3.jpg"] == at(60_000) && layered["thumbnails/new1.jpg"] == at(70_000))
    #expect(layered[DocumentArchive.coverEntry] == at(72_000) && layered["thumbnails/item5.jpg"] == at(5 * 1024))
    var listed: [(name: String, offset: Int64)] = []
    layered.forEachInFileOrder { name, location in listed.append((String(decoding: name, as: UTF8.self), location.offset)) }
    #expect(listed.count == 54 && Set(listed.map(\.name)).count == 54 && listed.map(\.offset) == listed.map(\.offset).sorted())
    var after: [String] = []
    layered.forEachInFileOrder(after: 61_000) { name, _ in after.append(String(decoding: name, as: UTF8.self)) }
    #expect(after == ["thumbnails/new1.jpg", "thumbnails/new2.jpg", DocumentArchive.coverEntry])
    #expect(layered.named(withPrefix: "thumbnails/new").map(\.name).sorted() == ["thumbnails/new1.jpg", "thumbnails/new2.jpg"])
    // Written and forgotten after it, as a save does: the newest wins, in every layer.
    layered.update(at(90_000), for: "thumbnails/new2.jpg")
    layered.update(at(91_000), for: "thumbnails/item9.jpg")
    layered.remove("thumbnails/item3.jpg")
    oneByOne.update(at(90_000), for: "thumbnails/new2.jpg")
    oneByOne.update(at(91_000), for: "thumbnails/item9.jpg")
    oneByOne.remove("thumbnails/item3.jpg")
    #expect(layered == oneByOne && layered.count == 53 && layered["thumbnails/item3.jpg"] == nil)
    #expect(Set(layered.names) == Set(oneByOne.names))
    // One list naming an entry twice is refused, as an index that does.
    #expect(throws: NameTable.DuplicateName.self) {
      try merged([[("thumbnails/a.jpg", at(60_000)), ("thumbnails/a.jpg", at(61_000))]])
    }
  }

  @Test("A name is found as a String would find it: canonically equal Strings are one name, other bytes are not")
  func stringEquality() throws {
    let table = try ArchiveIndex.decode(Data(index(["thumbnails/K.jpg"]).encode()), at: 2048).entries
    #expect(table["thumbnails/\u{212A}.jpg"] == at(0))  // KELVIN SIGN is K
    #expect(table["thumbnails/k.jpg"] == nil)
    #expect(table["thumbnails/K.jpg\u{301}"] == nil)
    var newer = table
    newer.update(at(9000), for: "thumbnails/\u{212A}.jpg")
    #expect(newer.count == 2 && newer["thumbnails/K.jpg"] == at(9000))
  }

  @Test("An index is read as JSON (escapes, spaces) but refused when a name is not printable ASCII or is listed twice")
  func hostileIndexes() throws {
    /// An index of `entries` (`@` stands for each one's offset), its checkpoint last.
    func text(_ entries: [String]) -> (text: String, end: Int64) {
      let placed = entries.enumerated().map { $1.replacingOccurrences(of: "@", with: String(1024 * $0)) }
      let checkpoint = #"["gallery.json",\#(1024 * entries.count),1024,10]"#
      let members = #""format":\#(GalleryModel.formatVersion),"liveBytes":0,"revision":3,"revisions":2"#
      return (#"{"entries":[\#((placed + [checkpoint]).joined(separator: ","))],\#(members)}"#, Int64(1024 * (entries.count + 1)))
    }
    func read(_ index: (text: String, end: Int64)) throws -> EntryTable { try decoded(index.text, end: index.end) }
    func refused(_ entries: [String]) -> Bool { (try? read(text(entries))) == nil }

    let plain = text([#"["thumbnails/a.jpg",@,1024,10]"#])
    #expect(try read(plain)["thumbnails/a.jpg"] == at(0))
    let escaped = (plain.text.replacingOccurrences(of: "gallery.json", with: #"gallery\u002ejson"#), plain.end)
    #expect(try read(escaped)[DocumentArchive.modelEntry] == at(1024))
    let spaced = (plain.text.replacingOccurrences(of: ",", with: " ,\n "), plain.end)
    #expect(try read(spaced).count == 2)

    #expect(refused([#"["thumbnails/a.jpg",@,1024,10]"#, #"["thumbnails/a.jpg",@,1024,10]"#]))
    #expect(refused([#"["thumbnails/\u00e9.jpg",@,1024,10]"#]))
    #expect(refused([#"["thumbnails/é.jpg",@,1024,10]"#]))
    #expect(refused([#"["thumbnails/a\r.jpg",@,1024,10]"#]))
    #expect(refused([#"["README",@,1024,10]"#]))
    #expect(refused([#"["thumbnails/a.jpg",@,1024,600]"#]))

    // What the compact reader does not read goes to the general one, which reads it as JSON
    // or refuses it, never halfway.
    #expect(try read(text([#"["thumbnails/a.jpg",@,1024,10.0]"#]))["thumbnails/a.jpg"] == at(0))
    #expect(refused([#"["thumbnails/a.jpg",@,1024,0000000000000000000010]"#]))  // no JSON number
    #expect(refused([#"["thumbnails/a.jpg",@,1024,010]"#]))
    #expect(try read(text([#"["thumbnails/a\".jpg",@,1024,10]"#]))["thumbnails/a\".jpg"] == at(0))
    #expect(try read(text([#"[ "thumbnails/a.jpg",@,1024,10 ]"#]))["thumbnails/a.jpg"] == at(0))
    #expect(refused([#"["thumbnails/a.jpg",@,1024,-10]"#]))
    #expect(refused([#"["thumbnails/a.jpg",@,1024,99999999999999999999]"#]))
    #expect(refused([#"["thumbnails/a.jpg",@,1024]"#]))
    #expect(refused([#"["thumbnails/a.jpg",@,1024,10,5]"#]))
    #expect(refused([#"["thumbnails/a.jpg",@,1024,10"#]))
  }

  @Test("An outline's items are read as JSON (escapes, spaces, whole numbers), refused when they are not its items")
  func outlineItems() throws {
    /// An outline of two items of 5 and 7 bytes, tiling the array at 10..<25, with `items`.
    func outline(_ items: String) throws -> CheckpointOutline {
      let text = #"{"array":[10,25],"checkpoint":[0,1024,100],"items":\#(items)}"#
      return try ArchiveIndex.checkedOutline(in: Data(text.utf8), at: 0).outline
    }
    let plain = try outline(#"[["ab",5],["cd",7]]"#)
    #expect(plain.ids == ["ab", "cd"] && plain.lengths == [5, 7] && plain.starts == [11, 17])
    #expect(try outline(#"[ [ "ab" , 5 ] ,["cd",7]]"#) == plain)
    #expect(try outline(#"[["\u0061b",5],["cd",7.0]]"#) == plain)
    #expect(try outline(#"[["ab",5],["cd",7e0]]"#) == plain)
    #expect((try? outline(#"[["ab",05],["cd",7]]"#)) == nil)
    #expect((try? outline(#"[["ab",5],["cd",7]"#)) == nil)
    #expect((try? outline(#"[["ab",5],["cd",6]]"#)) == nil)  // does not tile the array
    #expect((try? outline(#"[["ab",5,1],["cd",7]]"#)) == nil)
    #expect((try? outline(#"[["a b",5],["cd",7]]"#)) == nil)  // not an id
  }

  @Test("A table finds every name it holds and no other, and refuses a name listed twice")
  func hashTable() throws {
    let names = (0..<2000).map { "thumbnails/\($0).jpg" } + [DocumentArchive.modelEntry]
    var bytes: [UInt8] = []
    var ends: [Int] = []
    for name in names {
      bytes += name.utf8
      ends.append(bytes.count)
    }
    let locations = names.indices.map { at(Int64($0) * 1024) }
    let table = EntryTable(indexed: try IndexedEntries(names: bytes, ends: ends, locations: locations))
    #expect(names.indices.allSatisfy { table[names[$0]] == locations[$0] })
    #expect(table["thumbnails/2000.jpg"] == nil && table["thumbnails/1.jp"] == nil)
    for again in ["thumbnails/7.jpg", "thumbnails/0.jpg", DocumentArchive.modelEntry] {
      let twice = bytes + Array(again.utf8)
      #expect(throws: NameTable.DuplicateName.self) {
        try NameTable(names: twice, ends: ends + [twice.count])
      }
      do {
        _ = try NameTable(names: twice, ends: ends + [twice.count])
      } catch {
        #expect(error.name == again)
      }
    }
    // A name that is the start of another, or another with one byte more, is not it.
    let pair = try NameTable(names: Array("ab".utf8) + Array("abc".utf8), ends: [2, 5])
    #expect(pair.position(of: "ab") == 0 && pair.position(of: "abc") == 1 && pair.position(of: "a") == nil)
    #expect(!pair.isSipHashed)
  }

  @Test("Names chosen to collide under the fast hash (as one who knew the seed would) make a table hashed by Hasher")
  func collidingNames() throws {
    // 300 names of one slot of a 1,024-slot table: those after the 129th probe past the limit.
    var colliding: [String] = []
    var candidate = 0
    while colliding.count < 300 {
      let name = "thumbnails/\(candidate).jpg"
      candidate += 1
      var utf8 = name
      let hash = utf8.withUTF8 { NameTable.hash(UnsafeRawBufferPointer($0), sipHashed: false) }
      if hash & 1023 == 0 { colliding.append(name) }
    }
    func table(_ names: [String]) throws -> NameTable {
      var bytes: [UInt8] = []
      var ends: [Int] = []
      for name in names {
        bytes += name.utf8
        ends.append(bytes.count)
      }
      return try NameTable(names: bytes, ends: ends)
    }
    let hostile = try table(colliding)
    #expect(hostile.isSipHashed && colliding.count > NameTable.probeLimit)
    #expect(colliding.indices.allSatisfy { hostile.position(of: colliding[$0]) == $0 })
    #expect(hostile.position(of: "thumbnails/x.jpg") == nil)
    #expect(throws: NameTable.DuplicateName.self) { try table(colliding + [colliding[150]]) }
    // Random names probe a few slots; names looked up across tables hashed either way.
    let plain = try table((0..<200).map { "thumbnails/p\($0).jpg" } + colliding.suffix(50))
    #expect(!plain.isSipHashed)
    var shared: [Int: Int] = [:]
    hostile.forEachShared(with: plain) { here, there in shared[here] = there }
    #expect(shared == Dictionary(uniqueKeysWithValues: (250..<300).map { ($0, $0 - 50) }))
  }
}
