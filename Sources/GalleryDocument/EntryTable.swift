import Foundation

/// Where each entry of a document lies (the newest location of each name), for documents of
/// 100,000 thumbnails.
///
/// The names an index listed stay as it listed them (`IndexedEntries`: their bytes in one
/// buffer, found through a hash table of positions), shared by every copy of the table; so
/// do those its deltas listed, as one more such layer (a gallery grown by drops lists most
/// of its thumbnails there). Names written or read after those go into a small dictionary
/// that takes precedence. So opening a large document makes no String per name, and a save,
/// which adds a few entries to a table that the layout cache and the caller still hold,
/// copies only the few.
package struct EntryTable: Sendable, Sequence {
  /// Listed names, in file order: a layer's entries all lie after the one before it.
  private var layers: [Layer]
  private var newer: [String: EntryLocation]

  private struct Layer: Sendable {
    var entries: IndexedEntries
    /// Positions of the names a later layer, or `newer`, holds again.
    var replaced: Set<Int> = []

    func isLive(_ position: Int) -> Bool { replaced.isEmpty || !replaced.contains(position) }
  }

  package init() {
    layers = []
    newer = [:]
  }

  package init(_ locations: [String: EntryLocation]) {
    layers = []
    newer = locations
  }

  package init(indexed: IndexedEntries) {
    layers = [Layer(entries: indexed)]
    newer = [:]
  }

  /// This table's entries, then those listed after them (the entries of the deltas after
  /// an index, as one list: see `IndexedEntries.merging`), a name listed again being the
  /// later one. Made when opening, before anything was written: the table holds no entry
  /// but listed ones.
  package func adding(_ later: IndexedEntries.Merged) -> EntryTable {
    precondition(newer.isEmpty && layers.count <= 1)
    var table = self
    let added = Layer(entries: later.entries, replaced: later.superseded)
    table.layers.append(added)
    guard let base = layers.first else { return table }
    // The names of the index that the deltas list again.
    var hidden: [Int] = []
    base.entries.forEachShared(with: later.entries) { old, listed in
      if added.isLive(listed) { hidden.append(old) }
    }
    table.layers[0].replaced.formUnion(hidden)
    return table
  }

  package subscript(name: String) -> EntryLocation? {
    if let location = newer[name] { return location }
    for layer in layers.reversed() {
      if let position = layer.entries.position(of: name) {
        return layer.isLive(position) ? layer.entries.locations[position] : nil
      }
    }
    return nil
  }

  /// Records where `name` lies now.
  package mutating func update(_ location: EntryLocation, for name: String) {
    if newer.updateValue(location, forKey: name) == nil { hideListed(name) }
  }

  /// The listed entry of `name` is no longer its newest.
  private mutating func hideListed(_ name: String) {
    for layer in layers.indices.reversed() {
      if let position = layers[layer].entries.position(of: name) {
        layers[layer].replaced.insert(position)
        return
      }
    }
  }

  package mutating func update(_ locations: [String: EntryLocation]) {
    for (name, location) in locations { update(location, for: name) }
  }

  /// Forgets `name`: an entry that is dead and no longer listed.
  package mutating func remove(_ name: String) {
    newer[name] = nil
    hideListed(name)
  }

  package var count: Int { layers.reduce(newer.count) { $0 + $1.entries.count - $1.replaced.count } }

  /// Every name once (made into Strings: for checks and compaction, not for opening).
  package var names: [String] { map(\.name) }

  /// The entries whose names start with `prefix` (an ASCII folder such as `journal/`),
  /// found without making a String of the other names.
  package func named(withPrefix prefix: String) -> [(name: String, location: EntryLocation)] {
    var found: [(name: String, location: EntryLocation)] = []
    for layer in layers {
      for position in layer.entries.positions(withPrefix: prefix) where layer.isLive(position) {
        found.append((layer.entries.name(at: position), layer.entries.locations[position]))
      }
    }
    for (name, location) in newer where name.hasPrefix(prefix) { found.append((name, location)) }
    return found
  }

  /// Every entry in the order they lie in the file, each name as its UTF-8 bytes: an index
  /// of 100,000 entries is written without a String for each.
  package func forEachInFileOrder(after offset: Int64 = -1, _ body: (UnsafeRawBufferPointer, EntryLocation) -> Void) {
    let later = newer.filter { $0.value.offset > offset }.sorted { $0.value.offset < $1.value.offset }
    var next = later.startIndex
    func emitLater(before offset: Int64) {
      while next < later.endIndex, later[next].value.offset < offset {
        var name = later[next].key
        name.withUTF8 { body(UnsafeRawBufferPointer($0), later[next].value) }
        next += 1
      }
    }
    for layer in layers {
      layer.entries.forEachEntry(after: offset) { position, name, location in
        guard layer.isLive(position) else { return }
        emitLater(before: location.offset)
        body(name, location)
      }
    }
    emitLater(before: .max)
  }

  package func makeIterator() -> IndexingIterator<[(name: String, location: EntryLocation)]> {
    var all: [(name: String, location: EntryLocation)] = []
    all.reserveCapacity(count)
    for layer in layers {
      for position in 0..<layer.entries.count where layer.isLive(position) {
        all.append((layer.entries.name(at: position), layer.entries.locations[position]))
      }
    }
    for (name, location) in newer { all.append((name, location)) }
    return all.makeIterator()
  }
}

/// The names and locations an index listed, as it listed them, and a hash table to find a
/// name among them. Immutable: every copy of an `EntryTable` shares one.
package final class IndexedEntries: Sendable {
  package static let empty = IndexedEntries()

  private let names: NameTable
  package let locations: [EntryLocation]

  package var count: Int { locations.count }

  private init() {
    names = .empty
    locations = []
  }

  /// Throws on a name listed twice.
  package init(names: [UInt8], ends: [Int], locations: [EntryLocation]) throws(NameTable.DuplicateName) {
    precondition(ends.count == locations.count)
    self.names = try NameTable(names: names, ends: ends)
    self.locations = locations
  }

  /// Each name's position, bytes and location, in the order the index listed them (file
  /// order: an index listing them otherwise is refused).
  /// Those that lie after `offset` (found by halving: they are in file order).
  func forEachEntry(after offset: Int64 = -1, _ body: (Int, UnsafeRawBufferPointer, EntryLocation) -> Void) {
    var (low, high) = (0, locations.count)
    while low < high {
      let middle = (low + high) / 2
      if locations[middle].offset > offset { high = middle } else { low = middle + 1 }
    }
    names.forEachName(from: low) { position, name in body(position, name, locations[position]) }
  }

  package func name(at position: Int) -> String { names.name(at: position) }
  package func position(of name: String) -> Int? { names.position(of: name) }
  func position(ofBytes name: UnsafeRawBufferPointer) -> Int? { names.position(ofBytes: name) }
  func forEachShared(with other: IndexedEntries, _ body: (Int, Int) -> Void) {
    names.forEachShared(with: other.names, body)
  }

  /// Lists of entries one after another in the file (each an index's or a delta's, each
  /// naming a name once), as one: a name listed again is the later one, the earlier
  /// `superseded`.
  package struct Merged: Sendable {
    package var entries: IndexedEntries
    package var superseded: Set<Int>
  }

  /// `names`, `ends` and `locations` hold the lists one after another, `counts` how many
  /// entries each holds. Throws on a name one list holds twice.
  package static func merging(
    names: [UInt8], ends: [Int], locations: [EntryLocation], counts: [Int]
  ) throws(NameTable.DuplicateName) -> Merged {
    precondition(ends.count == locations.count && counts.reduce(0, +) == ends.count)
    var list = [Int32]()
    list.reserveCapacity(ends.count)
    for (number, count) in counts.enumerated() { list += repeatElement(Int32(number), count: count) }
    let (table, superseded, twice) = NameTable.latestWinning(names: names, ends: ends) { list[$0] != list[$1] }
    if let twice { throw NameTable.DuplicateName(name: table.name(at: twice)) }
    return Merged(entries: IndexedEntries(table: table, locations: locations), superseded: superseded)
  }

  private init(table: NameTable, locations: [EntryLocation]) {
    names = table
    self.locations = locations
  }
  func positions(withPrefix prefix: String) -> [Int] { names.positions(withPrefix: prefix) }
}

/// Names kept as their bytes in one buffer, with a hash table to find one: an index's
/// entries, a checkpoint's item ids. 100,000 names make no String each.
///
/// Its names are printable ASCII (an index naming anything else is not taken: the file is
/// scanned instead), so a name is found by comparing bytes, which for such names is what
/// comparing Strings means.
///
/// Names come from a file that may be hostile. They are hashed by a fast hash seeded per
/// process; a table whose names probed too long with it (names chosen to collide) is made
/// again with `Hasher`, which no choice of names defeats (Swift's own dictionaries use it):
/// a document cannot make a table slow.
package final class NameTable: Sendable {
  package static let empty = NameTable()

  private let names: [UInt8]
  /// Where each name ends in `names` (it starts where the one before it ends).
  private let ends: [Int]
  /// Each name's hash: a probe compares these before it reads a name.
  private let hashes: [Int]
  /// Open addressing: a position plus one, or zero for an empty slot.
  private let slots: [Int32]
  /// Whether `hashes` are `Hasher`'s, not the fast hash's.
  let isSipHashed: Bool

  package var count: Int { ends.count }

  /// How far an insertion may probe with the fast hash before the table is made again.
  /// A table of random names, half full, probes a few slots.
  static let probeLimit = 128

  private init() {
    names = []
    ends = []
    hashes = []
    slots = [Int32](repeating: 0, count: 16)
    isSipHashed = false
  }

  /// Throws on a name listed twice.
  package convenience init(names: [UInt8], ends: [Int]) throws(DuplicateName) {
    var duplicate: Int?
    self.init(names: names, ends: ends) { position, _ in
      duplicate = position
      return false
    }
    if let duplicate {
      throw DuplicateName(
        name: names.withUnsafeBytes { String(decoding: Self.name(at: duplicate, ends: ends, in: $0), as: UTF8.self) })
    }
  }

  /// The table of names where a name given again is the later one, when `mayRepeat(later,
  /// earlier)` allows it; also the positions of the earlier ones (found only by their
  /// position), and the first name given again that it does not allow (the table then
  /// ends before it).
  package static func latestWinning(
    names: [UInt8], ends: [Int], mayRepeat: (Int, Int) -> Bool
  ) -> (NameTable, superseded: Set<Int>, refused: Int?) {
    var superseded = Set<Int>()
    var refused: Int?
    let table = NameTable(names: names, ends: ends) { later, earlier in
      guard mayRepeat(later, earlier) else {
        refused = later
        return false
      }
      superseded.insert(earlier)
      return true
    }
    return (table, superseded, refused)
  }

  /// `again(position, earlier)` is told of a name at `position` that `earlier` holds too:
  /// true puts the later in its place, false stops (the table then holds the names before).
  /// It may be told of a pair twice (when the table is made again), and answers alike.
  private init(names: [UInt8], ends: [Int], again: (Int, Int) -> Bool) {
    precondition((ends.last ?? 0) == names.count && ends.count < Int32.max)
    var capacity = 16
    while capacity < 2 * ends.count { capacity *= 2 }
    var isSipHashed = false
    var made = Self.make(names: names, ends: ends, capacity: capacity, sipHashed: false, again: again)
    if made == nil {
      isSipHashed = true
      made = Self.make(names: names, ends: ends, capacity: capacity, sipHashed: true, again: again)
    }
    self.names = names
    self.ends = ends
    (hashes, slots) = made!
    self.isSipHashed = isSipHashed
  }

  /// The hashes and slots of a table, or nil when a fast-hashed name probed past the limit.
  private static func make(
    names: [UInt8], ends: [Int], capacity: Int, sipHashed: Bool, again: (Int, Int) -> Bool
  ) -> (hashes: [Int], slots: [Int32])? {
    let mask = capacity - 1
    // Every hash first, then the slots: a loop that only probes has many of its cache
    // misses under way at once, where hashing between two probes left one at a time.
    let hashes = names.withUnsafeBytes { bytes in
      [Int](unsafeUninitializedCapacity: ends.count) { buffer, initialized in
        for position in ends.indices {
          buffer[position] = hash(name(at: position, ends: ends, in: bytes), sipHashed: sipHashed)
        }
        initialized = ends.count
      }
    }
    var slots = [Int32](repeating: 0, count: capacity)
    let limit = sipHashed ? Int.max : probeLimit
    let madeWithinLimit = names.withUnsafeBytes { bytes in
      hashes.withUnsafeBufferPointer { hashes in
        slots.withUnsafeMutableBufferPointer { slots in
          for position in hashes.indices {
            let hash = hashes[position]
            var slot = hash & mask
            var probes = 0
            while slots[slot] != 0 {
              let other = Int(slots[slot]) - 1
              if hashes[other] == hash,
                equal(name(at: other, ends: ends, in: bytes), name(at: position, ends: ends, in: bytes))
              {
                guard again(position, other) else { return true }
                break
              }
              slot = (slot + 1) & mask
              probes += 1
              guard probes <= limit else { return false }
            }
            slots[slot] = Int32(position + 1)
          }
          return true
        }
      }
    }
    return madeWithinLimit ? (hashes, slots) : nil
  }

  private func hash(_ name: UnsafeRawBufferPointer) -> Int { Self.hash(name, sipHashed: isSipHashed) }

  static func hash(_ name: UnsafeRawBufferPointer, sipHashed: Bool) -> Int {
    if sipHashed {
      var hasher = Hasher()
      hasher.combine(bytes: name)
      return hasher.finalize()
    }
    // Eight bytes at a time, each step a bijection of the state: which names share a hash
    // depends on the seed, which a document cannot know.
    var state = seed ^ (UInt64(name.count) &* 0x9E37_79B9_7F4A_7C15)
    var offset = 0
    while offset + 8 <= name.count {
      state = mix(state ^ name.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      offset += 8
    }
    if offset < name.count {
      var last: UInt64 = 0
      for index in offset..<name.count { last |= UInt64(name[index]) << (8 * UInt64(index - offset)) }
      state = mix(state ^ last)
    }
    return Int(truncatingIfNeeded: mix(state))
  }

  static let seed = UInt64.random(in: .min ... .max)

  /// splitmix64's finalizer: every bit of the input moves every bit of the output.
  private static func mix(_ value: UInt64) -> UInt64 {
    var value = value
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }

  package struct DuplicateName: Error {
    package var name: String
  }

  /// Each name's position and bytes, in order.
  func forEachName(from first: Int = 0, _ body: (Int, UnsafeRawBufferPointer) -> Void) {
    names.withUnsafeBytes { bytes in
      for position in first..<ends.count { body(position, Self.name(at: position, ends: ends, in: bytes)) }
    }
  }

  package func name(at position: Int) -> String {
    names.withUnsafeBytes { String(decoding: Self.name(at: position, ends: ends, in: $0), as: UTF8.self) }
  }

  package func contains(_ name: String) -> Bool { position(of: name) != nil }

  package func position(of name: String) -> Int? {
    var name = name
    if !name.withUTF8({ $0.allSatisfy { $0 < 0x80 } }) {
      // A String equals an ASCII one when its canonical composition is that ASCII
      // ("\u{212A}" KELVIN SIGN is "K"), as a dictionary keyed by Strings would find it.
      name = name.precomposedStringWithCanonicalMapping
      guard name.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
    }
    return name.withUTF8 { position(ofBytes: UnsafeRawBufferPointer($0)) }
  }

  /// Each name this table and `other` both hold, as its position here and there (each
  /// position of a name given more than once: see `latestWinning`). Looked up from the
  /// smaller table, with the hashes it made when both hash alike (a hash is the same for a
  /// name throughout a process): a gallery grown by drops holds most of its names in its
  /// deltas, one written at once in its checkpoint and index.
  func forEachShared(with other: NameTable, _ body: (_ here: Int, _ there: Int) -> Void) {
    let (small, large) = count <= other.count ? (self, other) : (other, self)
    let sameHashes = small.isSipHashed == large.isSipHashed
    small.names.withUnsafeBytes { bytes in
      for position in small.ends.indices {
        let name = Self.name(at: position, ends: small.ends, in: bytes)
        let hash = sameHashes ? small.hashes[position] : large.hash(name)
        guard let found = large.position(ofBytes: name, hash: hash) else { continue }
        if small === self { body(position, found) } else { body(found, position) }
      }
    }
  }

  /// The position of a name given as the bytes of printable ASCII.
  func position(ofBytes name: UnsafeRawBufferPointer) -> Int? { position(ofBytes: name, hash: hash(name)) }

  /// The same, its hash given (as another table made it).
  func position(ofBytes name: UnsafeRawBufferPointer, hash: Int) -> Int? {
    names.withUnsafeBytes { bytes in
      var slot = hash & (slots.count - 1)
      while slots[slot] != 0 {
        let position = Int(slots[slot]) - 1
        if hashes[position] == hash, Self.equal(Self.name(at: position, ends: ends, in: bytes), name) { return position }
        slot = (slot + 1) & (slots.count - 1)
      }
      return nil
    }
  }

  func positions(withPrefix prefix: String) -> [Int] {
    let prefix = Array(prefix.utf8)
    // Byte by byte, not the generic `starts(with:)`: an edit asks this of 100,000 names.
    return names.withUnsafeBytes { bytes in
      ends.indices.filter { position in
        let name = Self.name(at: position, ends: ends, in: bytes)
        guard name.count >= prefix.count else { return false }
        for index in prefix.indices where name[index] != prefix[index] { return false }
        return true
      }
    }
  }

  /// Byte for byte, without the generic sequence comparison (100,000 names a table).
  private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    for index in 0..<a.count where a[index] != b[index] { return false }
    return true
  }

  private static func name(at position: Int, ends: [Int], in bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: bytes[(position == 0 ? 0 : ends[position - 1])..<ends[position]])
  }
}

extension EntryTable: Equatable {
  /// The same names at the same locations, however each table holds them.
  package static func == (lhs: EntryTable, rhs: EntryTable) -> Bool {
    lhs.count == rhs.count && lhs.allSatisfy { rhs[$0.name] == $0.location }
  }
}
