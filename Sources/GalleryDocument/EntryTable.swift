import Foundation

/// Where each entry of a document lies (the newest location of each name), for documents of
/// 100,000 thumbnails.
///
/// The names an index listed stay as it listed them (`IndexedEntries`: their bytes in one
/// buffer, found through a hash table of positions), shared by every copy of the table.
/// Names written or read after the index go into a small dictionary that takes precedence.
/// So opening a large document makes no String per name, and a save, which adds a few
/// entries to a table that the layout cache and the caller still hold, copies only the few.
package struct EntryTable: Sendable, Sequence {
  private var indexed: IndexedEntries
  private var newer: [String: EntryLocation]
  /// Positions in `indexed` of the names `newer` holds again.
  private var replaced: Set<Int> = []

  package init() {
    indexed = .empty
    newer = [:]
  }

  package init(_ locations: [String: EntryLocation]) {
    indexed = .empty
    newer = locations
  }

  package init(indexed: IndexedEntries) {
    self.indexed = indexed
    newer = [:]
  }

  package subscript(name: String) -> EntryLocation? {
    if let location = newer[name] { return location }
    return indexed.position(of: name).map { indexed.locations[$0] }
  }

  /// Records where `name` lies now.
  package mutating func update(_ location: EntryLocation, for name: String) {
    if newer.updateValue(location, forKey: name) == nil, let position = indexed.position(of: name) {
      replaced.insert(position)
    }
  }

  package mutating func update(_ locations: [String: EntryLocation]) {
    for (name, location) in locations { update(location, for: name) }
  }

  package var count: Int { indexed.count + newer.count - replaced.count }

  /// Every name once (made into Strings: for checks and compaction, not for opening).
  package var names: [String] { map(\.name) }

  /// The entries whose names start with `prefix` (an ASCII folder such as `journal/`),
  /// found without making a String of the other names.
  package func named(withPrefix prefix: String) -> [(name: String, location: EntryLocation)] {
    var found: [(name: String, location: EntryLocation)] = []
    for position in indexed.positions(withPrefix: prefix) where !replaced.contains(position) {
      found.append((indexed.name(at: position), indexed.locations[position]))
    }
    for (name, location) in newer where name.hasPrefix(prefix) { found.append((name, location)) }
    return found
  }

  /// Every entry in the order they lie in the file, each name as its UTF-8 bytes: an index
  /// of 100,000 entries is written without a String for each.
  package func forEachInFileOrder(_ body: (UnsafeRawBufferPointer, EntryLocation) -> Void) {
    let later = newer.sorted { $0.value.offset < $1.value.offset }
    var next = later.startIndex
    func emitLater(before offset: Int64) {
      while next < later.endIndex, later[next].value.offset < offset {
        var name = later[next].key
        name.withUTF8 { body(UnsafeRawBufferPointer($0), later[next].value) }
        next += 1
      }
    }
    indexed.forEachEntry { position, name, location in
      guard replaced.isEmpty || !replaced.contains(position) else { return }
      emitLater(before: location.offset)
      body(name, location)
    }
    emitLater(before: .max)
  }

  package func makeIterator() -> IndexingIterator<[(name: String, location: EntryLocation)]> {
    var all: [(name: String, location: EntryLocation)] = []
    all.reserveCapacity(count)
    for position in 0..<indexed.count where !replaced.contains(position) {
      all.append((indexed.name(at: position), indexed.locations[position]))
    }
    for (name, location) in newer { all.append((name, location)) }
    return all.makeIterator()
  }
}

/// The names and locations an index listed, as it listed them, and a hash table to find a
/// name among them. Immutable: every copy of an `EntryTable` shares one.
///
/// Its names are printable ASCII (an index naming anything else is not taken: the file is
/// scanned instead), so a name is found by comparing bytes, which for such names is what
/// comparing Strings means.
package final class IndexedEntries: Sendable {
  package static let empty = IndexedEntries()

  private let names: [UInt8]
  /// Where each name ends in `names` (it starts where the one before it ends).
  private let ends: [Int]
  package let locations: [EntryLocation]
  /// Open addressing: a position plus one, or zero for an empty slot.
  private let slots: [Int32]
  /// The hash the slots were placed by.
  private let hash: NameHash

  package var count: Int { locations.count }

  private init() {
    names = []
    ends = []
    locations = []
    slots = [Int32](repeating: 0, count: 16)
    hash = .fast
  }

  /// Throws on a name listed twice. `fastProbeLimit` is for tests (see `slots`).
  package init(
    names: [UInt8], ends: [Int], locations: [EntryLocation], fastProbeLimit: Int? = nil
  ) throws(DuplicateName) {
    precondition(ends.count == locations.count && (ends.last ?? 0) == names.count && ends.count < Int32.max)
    self.names = names
    self.ends = ends
    self.locations = locations
    (slots, hash) = try Self.slots(names: names, ends: ends, fastProbeLimit: fastProbeLimit)
  }

  /// The hash table of the names `names` and `ends` hold, and the hash it was built with;
  /// throws on a name listed twice. Also how an outline's 100,000 item ids are checked: as
  /// bytes, not as a Set of Strings, which costs four times as much.
  ///
  /// Built with the fast hash first. If its probes run long (names chosen to collide under
  /// it, or bad luck), it is built again with `Hasher`: a hostile file costs at most twice
  /// the time, never a quadratic one.
  package static func slots(
    names: [UInt8], ends: [Int], fastProbeLimit: Int? = nil
  ) throws(DuplicateName) -> (slots: [Int32], hash: NameHash) {
    let limit = fastProbeLimit ?? 8 * ends.count + 64
    if let fast = try slots(names: names, ends: ends, hash: .fast, probeLimit: limit) {
      return (fast, .fast)
    }
    return (try slots(names: names, ends: ends, hash: .strong, probeLimit: nil)!, .strong)
  }

  /// Nil when the probes pass `probeLimit`.
  private static func slots(
    names: [UInt8], ends: [Int], hash: NameHash, probeLimit: Int?
  ) throws(DuplicateName) -> [Int32]? {
    var capacity = 16
    while capacity < 2 * ends.count { capacity *= 2 }
    var slots = [Int32](repeating: 0, count: capacity)
    enum Outcome {
      case built
      case duplicate(Int)
      case tooLong
    }
    let outcome: Outcome = names.withUnsafeBytes { bytes in
      ends.withUnsafeBufferPointer { ends in
        slots.withUnsafeMutableBufferPointer { slots in
          var start = 0
          var probes = 0
          for position in ends.indices {
            let name = UnsafeRawBufferPointer(rebasing: bytes[start..<ends[position]])
            start = ends[position]
            var slot = hash(name) & (capacity - 1)
            while slots[slot] != 0 {
              let other = Int(slots[slot]) - 1
              if Self.equal(UnsafeRawBufferPointer(rebasing: bytes[(other == 0 ? 0 : ends[other - 1])..<ends[other]]), name) {
                return .duplicate(position)
              }
              slot = (slot + 1) & (capacity - 1)
              probes += 1
              if let probeLimit, probes > probeLimit { return .tooLong }
            }
            slots[slot] = Int32(position + 1)
          }
          return .built
        }
      }
    }
    switch outcome {
    case .built: return slots
    case .tooLong: return nil
    case .duplicate(let position):
      throw DuplicateName(
        name: names.withUnsafeBytes { String(decoding: Self.name(at: position, ends: ends, in: $0), as: UTF8.self) })
    }
  }

  package struct DuplicateName: Error {
    package var name: String
  }

  /// Each name's position, bytes and location, in the order the index listed them (file
  /// order: an index listing them otherwise is refused).
  func forEachEntry(_ body: (Int, UnsafeRawBufferPointer, EntryLocation) -> Void) {
    names.withUnsafeBytes { bytes in
      for position in locations.indices { body(position, Self.name(at: position, ends: ends, in: bytes), locations[position]) }
    }
  }

  package func name(at position: Int) -> String {
    names.withUnsafeBytes { String(decoding: Self.name(at: position, ends: ends, in: $0), as: UTF8.self) }
  }

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

  private func position(ofBytes name: UnsafeRawBufferPointer) -> Int? {
    names.withUnsafeBytes { bytes in
      var slot = hash(name) & (slots.count - 1)
      while slots[slot] != 0 {
        let position = Int(slots[slot]) - 1
        if Self.equal(Self.name(at: position, ends: ends, in: bytes), name) { return position }
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

/// How a table of names hashes them. Both are seeded per process: names come from a file
/// that may be hostile, and must not be chosen to collide.
/// - `fast`: eight bytes at a time, multiplied and folded (a few nanoseconds a name, where
///   `Hasher` takes about thirty: an edit of 100,000 items hashes 200,000 names). Its seed is
///   secret, but it is not built to withstand a search for collisions: a table whose probes
///   run long is built again with `strong` (see `IndexedEntries.slots`).
/// - `strong`: `Hasher` (SipHash).
package enum NameHash: Sendable {
  case fast, strong

  private static let seed = UInt64.random(in: .min ... .max)

  func callAsFunction(_ name: UnsafeRawBufferPointer) -> Int {
    switch self {
    case .strong:
      var hasher = Hasher()
      hasher.combine(bytes: name)
      return hasher.finalize()
    case .fast:
      var state = Self.seed ^ (UInt64(name.count) &* 0x9E37_79B9_7F4A_7C15)
      func mix(_ word: UInt64) {
        state = (state ^ word) &* 0xBF58_476D_1CE4_E5B9
        state ^= state >> 31
      }
      var offset = 0
      while offset + 8 <= name.count {
        mix(name.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        offset += 8
      }
      if offset < name.count {
        var last: UInt64 = 0
        for index in offset..<name.count { last = last << 8 | UInt64(name[index]) }
        mix(last)
      }
      state = (state ^ (state >> 29)) &* 0x94D0_49BB_1331_11EB
      return Int(truncatingIfNeeded: state ^ (state >> 32))
    }
  }
}

extension EntryTable: Equatable {
  /// The same names at the same locations, however each table holds them.
  package static func == (lhs: EntryTable, rhs: EntryTable) -> Bool {
    lhs.count == rhs.count && lhs.allSatisfy { rhs[$0.name] == $0.location }
  }
}
