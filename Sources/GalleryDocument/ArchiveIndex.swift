import Foundation
import GalleryModel
import GallerySystem

/// `gallery.index`, written right after every checkpoint: where every entry before it lies,
/// so that opening reads the end of the file, this index, its checkpoint and what follows,
/// instead of every header of a file that may hold 100,000 thumbnails.
///
/// It is read from a file that may be hostile: every location must lie before the index,
/// entries may not overlap, and each one is checked again (name and size in its header)
/// when it is read. Anything wrong makes the reader fall back to scanning the whole file.
package struct ArchiveIndex {
  package static let name = "gallery.index"

  /// The revision of the checkpoint the index follows.
  package var revision: Int
  /// Complete revisions in the file up to that checkpoint.
  package var revisions: Int
  /// Bytes of the live entries before the index (see `ArchiveLayout.liveBytes`).
  package var liveBytes: Int64
  /// The newest location of each name before the index.
  package var entries: EntryTable
  /// Where the checkpoint's items lie in it, so that an edit reads only those it needs
  /// (nil in an index written before outlines, which is read whole).
  package var outline: CheckpointOutline? = nil
  /// The history up to the checkpoint: each record's place, the undo stack they make and
  /// the ids they name (nil in an index written before it carried them).
  package var history: IndexedHistory? = nil
  /// What makes this index a delta (`gallery.delta`, nil in a `gallery.index`).
  package var delta: IndexDelta? = nil
  /// Where the first entry it lists lies (read, not written).
  package var entriesStart: Int64? = nil
  /// Its entries as it lists them, when read without making their table (a delta's: opening
  /// makes one table of the entries of all the deltas of a chain).
  package var listed: EntryList? = nil

  /// The entry a delta's model is in: a model as `gallery.json` holds one, whose items are
  /// only those no earlier checkpoint or delta of its chain holds.
  package static let deltaModelEntry = "gallery.delta.json"
  package static let deltaName = "gallery.delta"

  /// The entry whose items `outline` places: the checkpoint's, or the delta's model.
  private var outlinedEntry: String { delta == nil ? DocumentArchive.modelEntry : Self.deltaModelEntry }

  /// The index's JSON, as bytes: written as they are, not copied into a `Data` (a large
  /// gallery's index is megabytes).
  package func encode() -> [UInt8] {
    // An index lists every entry and outlines every item; a delta the few since the last.
    var writer = JSONWriter(capacity: delta == nil ? 256 + entries.count * 80 : 4096 + (outline?.ids.count ?? 0) * 160)
    if delta == nil { HugePages.advise(&writer.bytes) }
    writer.object { o in
      if let outline, let checkpoint = entries[outlinedEntry] {
        o.value("checkpointOutline") { w in
          w.object { o in
            o.value("array") { $0.array([outline.array.lowerBound, outline.array.upperBound]) { $0.int($1) } }
            o.value("checkpoint") { $0.array([checkpoint.offset, checkpoint.span, checkpoint.size]) { $0.int(Int($1)) } }
            o.value("items") { w in
              // A loop of its own, not `array`: a generic of another module runs unspecialised.
              w.bytes.append(UInt8(ascii: "["))
              for index in outline.ids.indices {
                if index > 0 { w.bytes.append(UInt8(ascii: ",")) }
                w.bytes.append(UInt8(ascii: "["))
                w.string(outline.ids[index])
                w.bytes.append(UInt8(ascii: ","))
                w.int(outline.lengths[index])
                w.bytes.append(UInt8(ascii: "]"))
              }
              w.bytes.append(UInt8(ascii: "]"))
            }
            if let crc = outline.itemsCRC32 { o.int("itemsCRC32", Int(crc)) }
          }
        }
      }
      if let delta { o.value("delta") { delta.write(into: &$0) } }
      o.value("entries") { w in
        w.bytes.append(UInt8(ascii: "["))
        var first = true
        // A delta lists the entries after the index or delta before it; an index every
        // entry before it but the deltas, which it leaves dead.
        entries.forEachInFileOrder(after: delta?.previous ?? -1) { name, location in
          guard delta != nil || !ArchiveIndex.isDeltaName(name) else { return }
          if !first { w.bytes.append(UInt8(ascii: ",")) }
          first = false
          w.bytes.append(UInt8(ascii: "["))
          w.string(utf8: name)
          w.bytes.append(UInt8(ascii: ","))
          w.int(Int(location.offset))
          w.bytes.append(UInt8(ascii: ","))
          w.int(Int(location.span))
          w.bytes.append(UInt8(ascii: ","))
          w.int(Int(location.size))
          w.bytes.append(UInt8(ascii: "]"))
        }
        w.bytes.append(UInt8(ascii: "]"))
      }
      o.int("format", GalleryModel.formatVersion)
      if let history { o.value("history") { history.write(into: &$0) } }
      o.int64("liveBytes", liveBytes)
      o.int("revision", revision)
      o.int("revisions", revisions)
    }
    return writer.bytes
  }

  /// Decodes an index found at `offset` and checks that it can describe the file before it,
  /// its outline included. Its names are kept as bytes (`IndexedEntries`): 100,000 of them
  /// make no String each.
  package static func decode(_ data: Data, at offset: Int64) throws -> ArchiveIndex {
    try decode(data, at: offset) { _, _, _ in () }.index
  }

  /// The index, and what `outlined` made of its outline and the checkpoint location the
  /// outline gives (nil without an outline). The outline is the index's first member (as
  /// this version writes it): it is then read, and `outlined` run, on one core while the
  /// rest of the index is read (and its entries' table made) on the other, and what
  /// `outlined` made counts only once the index, read whole, is found to place the
  /// checkpoint there. Without `readingHistory`, its history is passed over (a later delta
  /// carries the one opening uses) and `history` is nil. Without `tablingEntries`, its
  /// entries are left as `listed` and `entries` is empty.
  package static func decode<T>(
    _ data: Data, at offset: Int64, readingHistory: Bool = true, tablingEntries: Bool = true,
    whileReading outlined: (CheckpointOutline, IDBytes, EntryLocation) -> T
  ) throws -> (index: ArchiveIndex, outlined: T?) {
    var index = ArchiveIndex(revision: -1, revisions: -1, liveBytes: -1, entries: EntryTable())
    var format = 0
    var entries = EntryList(capacity: data.count)
    var outline: (outline: CheckpointOutline, ids: IDBytes, checkpoint: EntryLocation)?
    var made: T?
    func member(_ reader: inout JSONReader, _ key: JSONKey) throws {
      switch key {
      case "entries": try entries.read(&reader, before: offset)
      case "format": format = try reader.int()
      case "checkpointOutline":
        guard outline == nil else { throw IndexMismatch("it has two outlines") }
        reader.skipSpace()
        let found = try checkedOutline(in: data, at: reader.index)
        outline = (found.outline, found.ids, found.checkpoint)
        reader.index = found.end
      case "history" where readingHistory: index.history = try IndexedHistory(&reader)
      case "delta": index.delta = try IndexDelta(&reader)
      case "liveBytes": index.liveBytes = Int64(try reader.int())
      case "revision": index.revision = try reader.int()
      case "revisions": index.revisions = try reader.int()
      default: try reader.skipValue()
      }
    }
    // The entries' table, when the core that read them made it.
    var table: IndexedEntries?
    try data.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      // The outline holds arrays of numbers and of ids (which hold no brace): it ends at its
      // first `}`, where the rest of the index is read on one core while the other reads the
      // outline (which must end there) and opens its checkpoint.
      let first = Array(#"{"checkpointOutline":"#.utf8)
      guard data.starts(with: first), let base = raw.baseAddress,
        let brace = memchr(base + first.count, Int32(UInt8(ascii: "}")), raw.count - first.count)
      else { return try reader.object(member) }
      let close = base.distance(to: UnsafeRawPointer(brace))
      reader.index = close + 1
      let (rest, early) = ForkJoin.both(
        {
          Result {
            try reader.remainingMembers(member)
            return tablingEntries ? try entries.table() : nil
          }
        },
        {
          Result {
            let found = try checkedOutline(in: data, at: first.count)
            guard found.end == close + 1 else { throw IndexMismatch("its outline does not end at its first brace") }
            return (found, outlined(found.outline, found.ids, found.checkpoint))
          }
        })
      table = try rest.get()
      let (found, opened) = try early.get()
      guard outline == nil else { throw IndexMismatch("it has two outlines") }
      outline = (found.outline, found.ids, found.checkpoint)
      made = opened
    }
    guard format == GalleryModel.formatVersion else { throw IndexMismatch("the index is of format \(format)") }
    guard ModelValidation.Limits.counter.contains(index.revision), index.revisions >= 1, index.revisions <= index.revision + 1
    else { throw IndexMismatch("its revision counts are out of range") }
    guard (0...offset).contains(index.liveBytes) else { throw IndexMismatch("its live bytes are out of range") }
    if let last = index.history?.places.last, last.revision != index.revision {
      throw IndexMismatch("its history does not end at its checkpoint")
    }
    // Entries are in file order, and the checkpoint (a delta's model) lies just before the
    // index: the last one. A delta's entries all lie after the one before it.
    let (names, ends, locations) = (entries.names, entries.ends, entries.locations)
    let lastName = names[(ends.dropLast().last ?? 0)...]
    guard let checkpoint = locations.last, lastName.elementsEqual(index.outlinedEntry.utf8),
      checkpoint.offset + checkpoint.span == offset
    else {
      throw IndexMismatch("it does not follow its checkpoint")
    }
    index.entriesStart = locations.first?.offset
    if let delta = index.delta {
      guard (0..<offset).contains(delta.previous), let first = locations.first, first.offset > delta.previous else {
        throw IndexMismatch("the delta's entries do not follow the index before it")
      }
    }
    if let outline {
      guard outline.checkpoint == checkpoint else { throw IndexMismatch("its outline is not its checkpoint's") }
      index.outline = outline.outline
      if made == nil { made = outlined(outline.outline, outline.ids, outline.checkpoint) }
    }
    if tablingEntries {
      index.entries = EntryTable(indexed: try table ?? entries.table())
    } else {
      index.listed = entries
    }
    return (index, made)
  }

  /// `outline(in:at:)`, refused unless its items tile the array of the checkpoint it names.
  package static func checkedOutline(
    in data: Data, at start: Int
  ) throws -> (
    outline: CheckpointOutline, ids: IDBytes, checkpoint: EntryLocation, end: Int
  ) {
    let found = try outline(in: data, at: start)
    if let problem = found.outline.check(checkpointSize: Int(found.checkpoint.size)) {
      throw IndexMismatch("its outline: \(problem)")
    }
    return found
  }

  /// The ids of an outline's items as bytes, one after another, and where each ends: how
  /// they are checked to be distinct (`NameTable`).
  package struct IDBytes {
    package var bytes: [UInt8] = []
    package var ends: [Int] = []

    package init() {}

    /// Room for `bytes` and `ids` without copying as they grow (memory is taken, and
    /// counts, only as it is written).
    mutating func reserve(bytes: Int, ids: Int) {
      self.bytes.reserveCapacity(bytes)
      ends.reserveCapacity(ids)
    }

    package mutating func append(_ id: some Collection<UInt8>) {
      bytes.append(contentsOf: id)
      ends.append(bytes.count)
    }
  }

  /// The outline whose value starts at `start` in `data`: the items, their ids as bytes,
  /// the checkpoint it describes and where the value ends. Its items' starts follow from
  /// their lengths, since they tile the items array.
  private static func outline(
    in data: Data, at start: Int
  ) throws -> (
    outline: CheckpointOutline, ids: IDBytes, checkpoint: EntryLocation, end: Int
  ) {
    var array: Range<Int>?
    var checkpoint: EntryLocation?
    var ids: [String] = []
    var idBytes = IDBytes()
    var lengths: [Int] = []
    var crc: UInt32?
    let end: Int = try data.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      reader.index = start
      try reader.object { reader, key in
        switch key {
        case "array":
          let bounds = try reader.integers(atMost: 2)
          guard bounds.count == 2, bounds[0] >= 0, bounds[0] <= bounds[1] else {
            throw IndexMismatch("its items array is out of range")
          }
          array = bounds[0]..<bounds[1]
        case "checkpoint":
          let numbers = try reader.integers(atMost: 3)
          guard numbers.count == 3 else { throw IndexMismatch("its checkpoint is out of range") }
          checkpoint = EntryLocation(offset: Int64(numbers[0]), span: Int64(numbers[1]), size: Int64(numbers[2]))
        case "items":
          ids.reserveCapacity(raw.count / 16)
          lengths.reserveCapacity(raw.count / 16)
          idBytes.reserve(bytes: raw.count / 2, ids: raw.count / 16)
          try reader.array { reader in
            var compact = CompactReader(bytes: raw, index: reader.index)
            if compact.byte(UInt8(ascii: "[")), let id = compact.plainString(), compact.byte(UInt8(ascii: ",")),
              let length = compact.number(), compact.byte(UInt8(ascii: "]"))
            {
              let bytes = UnsafeRawBufferPointer(rebasing: raw[id])
              ids.append(String(decoding: bytes, as: UTF8.self))
              idBytes.append(bytes.assumingMemoryBound(to: UInt8.self))
              lengths.append(Int(length))
              reader.index = compact.index
              return
            }
            // [id, length]
            try reader.expect(UInt8(ascii: "["))
            ids.append(try reader.string())
            idBytes.append(ids.last!.utf8)
            try reader.expect(UInt8(ascii: ","))
            lengths.append(try reader.int())
            try reader.expect(UInt8(ascii: "]"))
          }
        case "itemsCRC32":
          let value = try reader.int()
          guard value >= 0, value <= UInt32.max else { throw IndexMismatch("its items' checksum is out of range") }
          crc = UInt32(value)
        default: try reader.skipValue()
        }
      }
      return reader.index
    }
    guard let array, let checkpoint else { throw IndexMismatch("its outline lacks its array or its checkpoint") }
    var starts: [Int] = []
    starts.reserveCapacity(lengths.count)
    var next = array.lowerBound + 1
    for length in lengths {
      starts.append(next)
      let (sum, overflow) = next.addingReportingOverflow(length)
      guard !overflow, sum < Int.max else { throw IndexMismatch("an item of its outline is out of range") }
      next = sum + 1
    }
    return (
      CheckpointOutline(array: array, ids: ids, starts: starts, lengths: lengths, itemsCRC32: crc), idBytes, checkpoint,
      end
    )
  }

}

extension ArchiveIndex {
  /// Whether `name` (its bytes) is a delta's entry, which an index after it leaves dead.
  static func isDeltaName(_ name: UnsafeRawBufferPointer) -> Bool {
    // Told by its length first: an index lists 100,000 names.
    (name.count == deltaName.utf8.count && name.elementsEqual(deltaName.utf8))
      || (name.count == deltaModelEntry.utf8.count && name.elementsEqual(deltaModelEntry.utf8))
  }

  static func isDeltaName(_ name: String) -> Bool { name == deltaName || name == deltaModelEntry }
}

/// What makes an index a delta: written after a save whose journal since the last index or
/// delta has grown, so that opening reads the index, its checkpoint's outline and the
/// deltas after it instead of replaying every record since the checkpoint. The model at its
/// revision is its own model entry (the title, settings and trash, and the items no earlier
/// part holds) with `order`, the items in order as runs of stored items, numbered across
/// the checkpoint's items and each delta's, oldest first.
package struct IndexDelta: Equatable {
  /// Offset of the index or delta before it: its entries are those after that one.
  package var previous: Int64
  /// The revision and size of the checkpoint its chain starts from.
  package var checkpointRevision: Int
  package var checkpointBytes: Int64
  /// The journal after that checkpoint, up to the delta: its bytes and records.
  package var journalBytes: Int64
  package var journalRecords: Int
  /// The model's items in order: runs `[first, count]` of stored items.
  package var order: [Range<Int>]

  func write(into writer: inout JSONWriter) {
    writer.object { o in
      o.value("checkpoint") { $0.array([Int64(checkpointRevision), checkpointBytes]) { $0.int(Int($1)) } }
      o.value("journal") { $0.array([journalBytes, Int64(journalRecords)]) { $0.int(Int($1)) } }
      o.value("order") { w in
        w.array(order) { w, run in w.array([run.lowerBound, run.count]) { $0.int($1) } }
      }
      o.int64("previous", previous)
    }
  }

  init(
    previous: Int64, checkpointRevision: Int, checkpointBytes: Int64, journalBytes: Int64, journalRecords: Int,
    order: [Range<Int>]
  ) {
    self.previous = previous
    self.checkpointRevision = checkpointRevision
    self.checkpointBytes = checkpointBytes
    self.journalBytes = journalBytes
    self.journalRecords = journalRecords
    self.order = order
  }

  /// Reads it; the numbers in range (what the order refers to is checked by the reader
  /// that knows how many items are stored).
  init(_ reader: inout JSONReader) throws {
    var checkpoint: [Int] = []
    var journal: [Int] = []
    var order: [Range<Int>] = []
    var previous: Int?
    try reader.object { reader, key in
      switch key {
      case "checkpoint": checkpoint = try reader.integers(atMost: 2)
      case "journal": journal = try reader.integers(atMost: 2)
      case "order":
        try reader.array { reader in
          let run = try reader.integers(atMost: 2)
          guard run.count == 2, run[0] >= 0, run[1] >= 1, run[0] <= Int(Int32.max) - run[1] else {
            throw IndexMismatch("the delta's order holds a run out of range")
          }
          order.append(run[0]..<run[0] + run[1])
        }
      case "previous": previous = try reader.int()
      default: try reader.skipValue()
      }
    }
    let counter = ModelValidation.Limits.counter
    guard let previous, checkpoint.count == 2, journal.count == 2, counter.contains(checkpoint[0]),
      counter.contains(checkpoint[1]), counter.contains(journal[0]), counter.contains(journal[1])
    else { throw IndexMismatch("the delta's numbers are out of range") }
    self.init(
      previous: Int64(previous), checkpointRevision: checkpoint[0], checkpointBytes: Int64(checkpoint[1]),
      journalBytes: Int64(journal[0]), journalRecords: journal[1], order: order)
  }
}

/// What an index says of the history up to its checkpoint, so that opening reads none of
/// its records: where each stands (`records`, `[revision, id, parent]`, oldest first, each
/// the parent of the next, the last the checkpoint's own revision), the undo stack they make
/// (`undoable`, `redoable`, `operations` as lists of revisions, `placedBy` as `[item id,
/// operation]`), and the item ids they name that the checkpoint does not hold (`ids`).
package struct IndexedHistory: Equatable {
  package var places: [JournalRecord.Place]
  package var undo: UndoStack
  package var ids: Set<String>

  package init(places: [JournalRecord.Place], digest: History.Digest) {
    self.places = places
    undo = digest.undo
    ids = digest.ids
  }

  func write(into writer: inout JSONWriter) {
    writer.object { o in
      o.strings("ids", ids.sorted())
      o.value("operations") { w in
        w.array(undo.operations.keys.sorted()) { w, first in w.array(undo.operations[first]!) { $0.int($1) } }
      }
      o.value("placedBy") { w in
        w.array(undo.placedBy.sorted { $0.key < $1.key }) { w, placed in
          w.bytes.append(UInt8(ascii: "["))
          w.string(placed.key)
          w.bytes.append(UInt8(ascii: ","))
          w.int(placed.value)
          w.bytes.append(UInt8(ascii: "]"))
        }
      }
      o.value("records") { w in
        w.array(places) { w, place in
          w.bytes.append(UInt8(ascii: "["))
          w.int(place.revision)
          w.bytes.append(UInt8(ascii: ","))
          w.string(place.id)
          if let parent = place.parent {
            w.bytes.append(UInt8(ascii: ","))
            w.string(parent)
          }
          w.bytes.append(UInt8(ascii: "]"))
        }
      }
      o.value("redoable") { $0.array(undo.redoable) { $0.int($1) } }
      o.value("undoable") { $0.array(undo.undoable) { $0.int($1) } }
    }
  }

  /// Reads and checks it: the records chained, ids well formed, the stack consistent and
  /// made of exactly these revisions. Anything else is an index not to believe.
  init(_ reader: inout JSONReader) throws {
    var ids = Set<String>()
    var operations: [[Int]] = []
    var placedBy: [String: Int] = [:]
    var places: [JournalRecord.Place] = []
    var redoable: [Int] = []
    var undoable: [Int] = []
    func integers(_ reader: inout JSONReader) throws -> [Int] {
      var values: [Int] = []
      try reader.array { values.append(try $0.int()) }
      return values
    }
    try reader.object { reader, key in
      switch key {
      case "ids":
        try reader.array { reader in
          let id = try reader.string()
          guard ModelValidation.isValidID(id) else { throw IndexMismatch("its history names an invalid id") }
          ids.insert(id)
        }
      case "operations": try reader.array { operations.append(try integers(&$0)) }
      case "placedBy":
        try reader.array { reader in
          try reader.expect(UInt8(ascii: "["))
          let id = try reader.string()
          try reader.expect(UInt8(ascii: ","))
          let operation = try reader.int()
          try reader.expect(UInt8(ascii: "]"))
          guard ModelValidation.isValidID(id), placedBy.updateValue(operation, forKey: id) == nil else {
            throw IndexMismatch("its history's placeholders are not each a valid id once")
          }
        }
      case "records":
        try reader.array { reader in
          try reader.expect(UInt8(ascii: "["))
          let revision = try reader.int()
          try reader.expect(UInt8(ascii: ","))
          let id = try reader.string()
          var parent: String?
          if try reader.peek() == UInt8(ascii: ",") {
            reader.index += 1
            parent = try reader.string()
          }
          try reader.expect(UInt8(ascii: "]"))
          places.append(JournalRecord.Place(revision: revision, id: id, parent: parent))
        }
      case "redoable": redoable = try integers(&reader)
      case "undoable": undoable = try integers(&reader)
      default: try reader.skipValue()
      }
    }
    for (index, place) in places.enumerated() {
      guard ModelValidation.Limits.counter.contains(place.revision), ModelValidation.isRevisionID(place.id),
        place.parent.map(ModelValidation.isRevisionID) ?? true
      else { throw IndexMismatch("its history holds a record out of range") }
      if index > 0 {
        guard place.revision == places[index - 1].revision + 1, place.parent == places[index - 1].id else {
          throw IndexMismatch("its history's records do not follow one another")
        }
      }
    }
    let stack: UndoStack
    do {
      stack = try UndoStack(undoable: undoable, redoable: redoable, operations: operations, placedBy: placedBy)
    } catch {
      throw IndexMismatch("its history's undo stack: \(error)")
    }
    guard stack.operationOf.count == places.count, places.allSatisfy({ stack.operationOf[$0.revision] != nil }) else {
      throw IndexMismatch("its history's undo stack is not of its records")
    }
    self.places = places
    self.ids = ids
    undo = stack
  }
}

/// An index's entries, read into flat arrays (100,000 names make no String each) and
/// checked as they come.
package struct EntryList: Sendable {
  package private(set) var names: [UInt8] = []
  package private(set) var ends: [Int] = []
  package private(set) var locations: [EntryLocation] = []
  /// Where the last entry read ends: each must start at or after it.
  private var end: Int64 = 0

  init(capacity bytes: Int) {
    // Room for the most entries the bytes can list (`["a",0,512,0],` at least): none is
    // copied as they grow (memory is taken, and counts, only as it is written).
    names.reserveCapacity(bytes)
    ends.reserveCapacity(bytes / 14)
    locations.reserveCapacity(bytes / 14)
  }

  /// `[[name, offset, span, size], ...]`: entries in file order, all before `offset`.
  mutating func read(_ reader: inout JSONReader, before offset: Int64) throws {
    try reader.expect(UInt8(ascii: "["))
    if try reader.peek() == UInt8(ascii: "]") {
      reader.index += 1
      return
    }
    while true {
      if let (name, location, end) = Self.compactEntry(in: reader.bytes, at: reader.index) {
        names.append(contentsOf: UnsafeRawBufferPointer(rebasing: reader.bytes[name]).assumingMemoryBound(to: UInt8.self))
        try add(location, before: offset)
        reader.index = end
      } else {
        try readEntry(&reader, before: offset)
      }
      switch try reader.peek() {
      case UInt8(ascii: ","): reader.index += 1
      case UInt8(ascii: "]"):
        reader.index += 1
        return
      default: throw reader.fail("expected ',' or ']'")
      }
    }
  }

  /// An entry as this version writes it, `["name",1,2,3]`: its name's bytes, its location
  /// and where it ends; nil for any other form, which the JSON reader then reads (or
  /// refuses) by the same rules.
  private static func compactEntry(
    in bytes: UnsafeRawBufferPointer, at start: Int
  ) -> (name: Range<Int>, location: EntryLocation, end: Int)? {
    var reader = CompactReader(bytes: bytes, index: start)
    guard reader.byte(UInt8(ascii: "[")), let name = reader.plainString(), reader.byte(UInt8(ascii: ",")),
      let offset = reader.number(), reader.byte(UInt8(ascii: ",")), let span = reader.number(),
      reader.byte(UInt8(ascii: ",")), let size = reader.number(), reader.byte(UInt8(ascii: "]"))
    else { return nil }
    return (name, EntryLocation(offset: offset, span: span, size: size), reader.index)
  }

  private mutating func readEntry(_ reader: inout JSONReader, before offset: Int64) throws {
    try reader.expect(UInt8(ascii: "["))
    switch try reader.key() {  // a string: its bytes themselves when it has no escapes
    case .raw(let bytes): names.append(contentsOf: bytes)
    case .decoded(let text): names.append(contentsOf: text.utf8)
    }
    func number(_ reader: inout JSONReader) throws -> Int64 {
      try reader.expect(UInt8(ascii: ","))
      return Int64(try reader.int())
    }
    let location = EntryLocation(offset: try number(&reader), span: try number(&reader), size: try number(&reader))
    try reader.expect(UInt8(ascii: "]"))
    try add(location, before: offset)
  }

  /// Checks the entry whose name was just appended to `names`, and lists it.
  private mutating func add(_ location: EntryLocation, before offset: Int64) throws {
    let start = ends.last ?? 0
    let fits = names.withUnsafeBytes { all in
      let name = UnsafeRawBufferPointer(rebasing: all[start...])
      // Printable ASCII, as all our names are: bytes then compare as Strings do.
      guard let limit = DocumentArchive.sizeLimit(of: name) else { return false }
      return (0...limit).contains(location.size)
    }
    func named() -> String { String(decoding: names[start...], as: UTF8.self) }
    guard fits else { throw IndexMismatch("entry \(named()) is not one a document holds") }
    let blocks = (location.size + 511) / 512 * 512
    // Written in file order; any other order is refused. Compared without sums that a
    // hostile number could overflow.
    guard location.offset >= end, location.offset <= offset, location.span >= 512 + blocks,
      location.span <= offset - location.offset
    else { throw IndexMismatch("entry \(named()) does not fit where the index puts it") }
    end = location.offset + location.span
    ends.append(names.count)
    locations.append(location)
  }

  /// The entries, found by name: refused when a name is listed twice.
  func table() throws -> IndexedEntries {
    do { return try IndexedEntries(names: names, ends: ends, locations: locations) } catch {
      throw IndexMismatch("it lists entry \(error.name) twice")
    }
  }
}

/// Values of an index in the form this version writes them, read straight from the bytes
/// (an index lists 100,000 entries and items): each read returns nil, having read no more
/// than it can vouch for, at anything else, which the JSON reader then reads by its rules.
private struct CompactReader {
  let bytes: UnsafeRawBufferPointer
  var index: Int

  mutating func byte(_ expected: UInt8) -> Bool {
    guard index < bytes.count, bytes[index] == expected else { return false }
    index += 1
    return true
  }

  /// A string of printable ASCII without escapes: its bytes' range.
  mutating func plainString() -> Range<Int>? {
    guard byte(UInt8(ascii: "\"")) else { return nil }
    let start = index
    while index < bytes.count, case let char = bytes[index], (0x20..<0x7F).contains(char),
      char != UInt8(ascii: "\""), char != UInt8(ascii: "\\")
    {
      index += 1
    }
    let end = index
    return byte(UInt8(ascii: "\"")) ? start..<end : nil
  }

  /// A number of at most 18 digits (no overflow) and nothing else, without a leading zero.
  mutating func number() -> Int64? {
    let first = index
    var value: Int64 = 0
    while index < bytes.count, index - first < 18, case let digit = bytes[index], (0x30...0x39).contains(digit) {
      value = value * 10 + Int64(digit - 0x30)
      index += 1
    }
    guard index > first, index == first + 1 || bytes[first] != UInt8(ascii: "0"),
      index == bytes.count || !(0x30...0x39).contains(bytes[index])
    else { return nil }
    return value
  }
}

/// `gallery.end`, the last entry of every save: where the last index lies and what the
/// document holds (its summary), so that `gallery info` and `gallery browse` read a few
/// kilobytes at the end of the file instead of the whole model.
///
/// Its data is one JSON object padded with spaces to whole 512-byte blocks, ending with
/// `"blocks":N}`: a reader finds the entry's header from the end of the file without
/// scanning. It is trusted only when it is exactly the last thing before the end marker.
package struct ArchiveTrailer: Equatable {
  package static let name = "gallery.end"
  /// The largest trailer: a 4 KB title escaped as `\u` sequences fits.
  package static let blockLimit = 64

  /// Offset of the trailer's own header.
  package var end: Int64
  /// Offset of the last index's header, if the file has one.
  package var index: Int64?
  /// Offset of the last delta's header, when one follows that index (a version that does
  /// not know deltas reads the index and replays the records after it).
  package var delta: Int64? = nil
  package var summary: DocumentSummary

  /// The entry's data, the smallest whole number of blocks that holds it.
  package func encode() -> Data {
    var writer = JSONWriter(capacity: 1024)
    writer.object { o in
      if let delta { o.int64("delta", delta) }
      o.int64("end", end)
      o.int("format", GalleryModel.formatVersion)
      o.int64("index", index)
      o.value("summary", summary)
    }
    writer.bytes.removeLast()  // the object goes on: `"blocks"` is its last member
    var blocks = (writer.bytes.count + 16) / 512 + 1
    while true {
      let last = Array(",\"blocks\":\(blocks)}".utf8)
      let padding = blocks * 512 - writer.bytes.count - last.count
      if padding >= 0 {
        return Data(writer.bytes + [UInt8](repeating: 0x20, count: padding) + last)
      }
      blocks += 1
    }
  }

  /// The number of data blocks a trailer's last block announces, if it is one.
  package static func blocks(inLastBlock block: Data) -> Int? {
    guard block.count == 512, block.last == UInt8(ascii: "}") else { return nil }
    let text = String(decoding: block.suffix(24), as: UTF8.self)
    guard let range = text.range(of: "\"blocks\":", options: .backwards),
      let blocks = Int(text[range.upperBound...].dropLast()), (1...blockLimit).contains(blocks)
    else { return nil }
    return blocks
  }

  package static func decode(_ data: Data, at offset: Int64) throws -> ArchiveTrailer {
    var trailer = ArchiveTrailer(end: -1, index: nil, summary: DocumentSummary())
    var format = 0
    try data.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      try reader.object { reader, key in
        switch key {
        case "delta": trailer.delta = Int64(try reader.int())
        case "end": trailer.end = Int64(try reader.int())
        case "format": format = try reader.int()
        case "index": trailer.index = try reader.isNull() ? nil : Int64(try reader.int())
        case "summary": trailer.summary = try reader.documentSummary()
        default: try reader.skipValue()
        }
      }
    }
    guard format == GalleryModel.formatVersion, trailer.end == offset else {
      throw IndexMismatch("the trailer does not describe where it is")
    }
    if let index = trailer.index, !(0..<offset).contains(index) { throw IndexMismatch("the trailer's index is out of range") }
    if let delta = trailer.delta, trailer.index.map({ !($0 + 1..<offset).contains(delta) }) ?? true {
      throw IndexMismatch("the trailer's delta is out of range")
    }
    let problems = trailer.summary.problems
    guard problems.isEmpty else { throw IndexMismatch(problems.joined(separator: "; ")) }
    return trailer
  }
}

/// An index or trailer that does not describe the file it is in: not damage (the entries
/// are all still there), a reason to scan the whole file instead.
package struct IndexMismatch: Error, CustomStringConvertible {
  package var description: String
  package init(_ description: String) { self.description = description }
}

/// What `gallery info` and `gallery browse` show of a document, kept in every save's
/// trailer. Made from the layout a save leaves; `gallery check` compares it with the model.
public struct DocumentSummary: Sendable, Equatable {
  public var title = ""
  public var format = GalleryModel.formatVersion
  public var revision = 0
  public var created = Date(timeIntervalSince1970: 0)
  public var modified = Date(timeIntervalSince1970: 0)
  public var items = 0
  public var ready = 0
  public var failed = 0
  /// Note cards (written only when there are some: a document without cards keeps the
  /// summary earlier versions read).
  public var notes = 0
  /// Placeholders by the process loading them: whether each is pending or stale depends on
  /// that process still running, which only the reader can tell.
  public var placeholders: [Placeholders] = []
  public var trashed = 0
  public var thumbnailSize = 0
  public var maxPixels = 0
  /// The other settings that loading images needs, so that a drop can start loading before
  /// the document is opened; nil in a trailer written before the summary said them.
  public var keepFailed: Bool?
  public var embedOriginals: Bool?
  public var revisions = 0
  public var entryCount = 0
  public var liveBytes: Int64 = 0
  /// Where the last revision (with its trailer) ends.
  public var revisionEnd: Int64 = 0
  public var historyRevisions = 0
  public var oldestRevision = 0
  public var checkpointRevision = 0

  public struct Placeholders: Sendable, Equatable {
    public var owner: Item.Owner
    public var count: Int
  }

  /// At most this many owners are listed (placeholders of more are counted as of the last).
  package static let ownerLimit = 32

  public init() {}

  /// The summary of the revision `layout` holds (opened whole), every item counted.
  package init(_ layout: ArchiveLayout) { self.init(layout, counts: ItemCounts(layout.model.items)) }

  /// The summary of the revision `layout` holds, made by `change` from the one before:
  /// the items it changed are counted, not every item (most of which an edit did not read).
  package init(_ layout: ArchiveLayout, changedBy change: ModelChange) throws {
    guard let before = layout.summary.flatMap(ItemCounts.init), let counts = before.applying(change.items),
      counts.total == layout.working.items.count
    else {
      // Every item counted, those still in the file read.
      self.init(layout, counts: ItemCounts(try layout.wholeModel().items))
      return
    }
    self.init(layout, counts: counts)
  }

  private init(_ layout: ArchiveLayout, counts: ItemCounts) {
    let model = layout.head
    title = model.title
    format = model.format
    revision = model.revision
    created = model.created
    modified = model.modified
    items = layout.working.items.count
    ready = counts.ready
    failed = counts.failed
    notes = counts.notes
    placeholders = counts.owners.map { Placeholders(owner: $0.key, count: $0.value) }.sorted {
      ($0.owner.host, $0.owner.pid) < ($1.owner.host, $1.owner.pid)
    }
    if placeholders.count > Self.ownerLimit {
      let rest = placeholders[(Self.ownerLimit - 1)...].reduce(0) { $0 + $1.count }
      placeholders =
        Array(placeholders.prefix(Self.ownerLimit - 1)) + [Placeholders(owner: placeholders.last!.owner, count: rest)]
    }
    trashed = layout.working.trash.count
    thumbnailSize = model.settings.thumbnailSize
    maxPixels = model.settings.maxPixels
    keepFailed = model.settings.keepFailed
    embedOriginals = model.settings.embedOriginals
    revisions = layout.revisions
    entryCount = layout.entries.count
    liveBytes = layout.liveBytes
    revisionEnd = layout.revisionEnd
    historyRevisions = layout.history.count
    oldestRevision = ModelHistory.oldest(model, revisions: layout.history.revisions)
    checkpointRevision = layout.checkpointRevision
  }

  /// Items by state, and placeholders by the process loading them.
  struct ItemCounts {
    var ready = 0
    var failed = 0
    var notes = 0
    var owners: [Item.Owner: Int] = [:]

    init(_ items: [Item]) {
      for item in items { add(item, 1) }
    }

    /// A summary's counts, when they are exact: not when its last owner stands for several.
    init?(_ summary: DocumentSummary) {
      guard summary.placeholders.count < DocumentSummary.ownerLimit else { return nil }
      ready = summary.ready
      failed = summary.failed
      for group in summary.placeholders { owners[group.owner, default: 0] += group.count }
      notes = summary.notes
    }

    var total: Int { ready + failed + notes + owners.values.reduce(0, +) }

    mutating func add(_ item: Item, _ count: Int) {
      switch item.state {
      case .ready: ready += count
      case .failed: failed += count
      case .note: notes += count
      case .placeholder:
        guard let owner = item.placeholder?.owner else { return }
        let new = owners[owner, default: 0] + count
        owners[owner] = new == 0 ? nil : new
      }
    }

    /// The counts after `change`; nil when they do not fit it (a summary that lied).
    func applying(_ change: ListChange<Item>) -> ItemCounts? {
      var counts = self
      for removed in change.removed { counts.add(removed.element, -1) }
      for inserted in change.inserted { counts.add(inserted.element, 1) }
      for update in change.updated {
        counts.add(update.before, -1)
        counts.add(update.after, 1)
      }
      guard counts.ready >= 0, counts.failed >= 0, counts.notes >= 0, counts.owners.values.allSatisfy({ $0 > 0 }) else {
        return nil
      }
      return counts
    }
  }

  /// Placeholders whose process still runs, and those it left behind.
  public var pending: Int { placeholders.filter(\.owner.isAlive).reduce(0) { $0 + $1.count } }
  public var placeholderCount: Int { placeholders.reduce(0) { $0 + $1.count } }
  public var stale: Int { placeholderCount - pending }

  /// The summary's own rules: what a hostile trailer could say that a model could not.
  var problems: [String] {
    var problems: [String] = []
    func require(_ condition: Bool, _ message: String) { if !condition { problems.append(message) } }
    require(ModelValidation.isText(title, limit: ModelValidation.Limits.titleBytes), "the title is too long or has NUL")
    let counts = [items, ready, failed, notes, trashed, revisions, entryCount, historyRevisions] + placeholders.map(\.count)
    require(counts.allSatisfy { (0...Int(Int32.max)).contains($0) }, "a count is out of range")
    require(ready + failed + notes + placeholderCount == items, "its item counts do not add up")
    require(placeholders.count <= Self.ownerLimit, "it lists too many placeholder owners")
    require(placeholders.allSatisfy { ModelValidation.isText($0.owner.host, limit: 255) }, "an owner's host name is too long")
    for revision in [revision, oldestRevision, checkpointRevision] {
      require(ModelValidation.Limits.counter.contains(revision), "a revision is out of range")
    }
    require(
      ModelValidation.Limits.dates.contains(created) && ModelValidation.Limits.dates.contains(modified), "a date is out of range")
    require(liveBytes >= 0 && revisionEnd >= liveBytes, "its byte counts are out of range")
    require(
      ModelValidation.Limits.thumbnailSize.contains(thumbnailSize) && ModelValidation.Limits.maxPixels.contains(maxPixels),
      "its settings are out of range")
    return problems
  }
}

extension DocumentSummary: JSONWritable {
  package func write(into writer: inout JSONWriter) {
    writer.object { o in
      o.int("checkpointRevision", checkpointRevision)
      o.date("created", created)
      if let embedOriginals { o.bool("embedOriginals", embedOriginals) }
      o.int("entryCount", entryCount)
      o.int("failed", failed)
      o.int("format", format)
      o.int("historyRevisions", historyRevisions)
      o.int("items", items)
      if let keepFailed { o.bool("keepFailed", keepFailed) }
      o.int64("liveBytes", liveBytes)
      o.int("maxPixels", maxPixels)
      o.date("modified", modified)
      if notes > 0 { o.int("notes", notes) }
      o.int("oldestRevision", oldestRevision)
      o.value("placeholders") { w in
        w.array(placeholders) { w, group in
          w.object { o in
            o.int("count", group.count)
            o.string("host", group.owner.host)
            o.int("pid", Int(group.owner.pid))
            o.date("started", group.owner.started)
          }
        }
      }
      o.int("ready", ready)
      o.int("revision", revision)
      o.int64("revisionEnd", revisionEnd)
      o.int("revisions", revisions)
      o.int("thumbnailSize", thumbnailSize)
      o.string("title", title)
      o.int("trashed", trashed)
    }
  }
}

extension JSONReader {
  mutating func documentSummary() throws -> DocumentSummary {
    var summary = DocumentSummary()
    try object { reader, key in
      switch key {
      case "checkpointRevision": summary.checkpointRevision = try reader.int()
      case "created": summary.created = try reader.date()
      case "embedOriginals": summary.embedOriginals = try reader.bool()
      case "entryCount": summary.entryCount = try reader.int()
      case "failed": summary.failed = try reader.int()
      case "format": summary.format = try reader.int()
      case "historyRevisions": summary.historyRevisions = try reader.int()
      case "items": summary.items = try reader.int()
      case "keepFailed": summary.keepFailed = try reader.bool()
      case "liveBytes": summary.liveBytes = Int64(try reader.int())
      case "maxPixels": summary.maxPixels = try reader.int()
      case "modified": summary.modified = try reader.date()
      case "notes": summary.notes = try reader.int()
      case "oldestRevision": summary.oldestRevision = try reader.int()
      case "placeholders":
        try reader.array { reader in
          guard summary.placeholders.count < DocumentSummary.ownerLimit else { throw reader.fail("too many owners") }
          var owner = Item.Owner(pid: 0, host: "", started: Date(timeIntervalSince1970: 0))
          var count = -1
          try reader.object { reader, key in
            switch key {
            case "count": count = try reader.int()
            case "host": owner.host = try reader.string()
            case "pid":
              guard let pid = Int32(exactly: try reader.int()) else { throw reader.fail("pid out of range") }
              owner.pid = pid
            case "started": owner.started = try reader.date()
            default: try reader.skipValue()
            }
          }
          summary.placeholders.append(.init(owner: owner, count: count))
        }
      case "ready": summary.ready = try reader.int()
      case "revision": summary.revision = try reader.int()
      case "revisionEnd": summary.revisionEnd = Int64(try reader.int())
      case "revisions": summary.revisions = try reader.int()
      case "thumbnailSize": summary.thumbnailSize = try reader.int()
      case "title": summary.title = try reader.string()
      case "trashed": summary.trashed = try reader.int()
      default: try reader.skipValue()
      }
    }
    return summary
  }
}

extension JSONReader {
  /// An array of at most `limit` integers.
  fileprivate mutating func integers(atMost limit: Int) throws -> [Int] {
    var numbers: [Int] = []
    try array { reader in
      guard numbers.count < limit else { throw reader.fail("more than \(limit) numbers") }
      numbers.append(try reader.int())
    }
    return numbers
  }
}
