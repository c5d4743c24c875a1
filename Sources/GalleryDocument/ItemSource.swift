import Foundation
import GalleryModel
import GallerySystem
import Synchronization

// An edit of a 100,000-item document moves, trashes or retitles a few items. Reading and
// checking all of them first would cost several times the edit.
// So an edit opens the checkpoint through its outline (each item's id and where its JSON
// lies, kept in the index): its model's items are handles that know their ids
// (`WorkingModel`), and an item is read when the edit needs it, explicitly (the items it
// changes, the first ones the cover shows). Every item read is checked by the same rules as
// a whole checkpoint; one that fails throws, is recorded, and the edit refuses to save.

/// The items of one checkpoint (or of one delta's model: see `ItemSource`) as its outline
/// places them, read from the file on demand.
///
/// An item is read with its neighbours, a chunk at a time. The first chunk is small (an edit
/// needs a few items, mostly the first ones), and while the neighbours a read brought get
/// used, each read doubles the next up to `chunkBytes`, so that an edit that comes to need
/// every item (a new checkpoint) reads the file in large pieces, not item by item. A read
/// whose neighbours went unused starts small again: a replay of hundreds of records, each
/// trashing one item somewhere among 100,000, reads those items, not a chunk around each.
final class StoredItems: Sendable {
  typealias Reader = ItemSource.Reader
  static let chunkBytes = ItemSource.chunkBytes
  static let firstChunkBytes = ItemSource.firstChunkBytes
  static let copyBytes = ItemSource.copyBytes

  /// The entry the items are in, for the errors that name one.
  let entry: String
  private let reader: Reader
  /// Where each item's JSON object lies in the checkpoint's data, in item order.
  private let starts: [Int]
  private let lengths: [Int]
  private let ids: [String]
  /// The items array, and its CRC as written (see `CheckpointOutline.itemsCRC32`).
  private let array: Range<Int>
  private let itemsCRC32: UInt32?
  private let state = Mutex<State>(State())

  private struct State {
    /// Items read with a neighbour and not yet taken.
    var ahead: [Int: Item] = [:]
    /// Items a read has produced (taken or ahead): a later read does not cover them again.
    var read: [UInt64] = []
    /// How many bytes the next read may cover.
    var chunkBytes = StoredItems.firstChunkBytes
    /// Whether a neighbour brought by the last read has been taken since.
    var aheadTaken = false
    /// The first item that could not be read, and why.
    var failure: String?

    func wasRead(_ index: Int) -> Bool { read[index >> 6] & (1 << UInt64(index & 63)) != 0 }
    mutating func markRead(_ index: Int) { read[index >> 6] |= 1 << UInt64(index & 63) }

    /// The size of this read: the first chunk's when the last read's neighbours went
    /// unused, and the next one's double.
    mutating func nextChunk() -> Int {
      if !aheadTaken { chunkBytes = StoredItems.firstChunkBytes }
      aheadTaken = false
      defer { chunkBytes = min(chunkBytes * 2, StoredItems.chunkBytes) }
      return chunkBytes
    }
  }

  /// `outline` is already checked to tile the checkpoint's items array (see
  /// `CheckpointOutline.check`).
  init(_ outline: CheckpointOutline, entry: String, reader: @escaping Reader) {
    precondition(
      outline.ids.count == outline.starts.count && outline.starts.count == outline.lengths.count
        && outline.ids.count < Int32.max)
    self.entry = entry
    ids = outline.ids
    starts = outline.starts
    lengths = outline.lengths
    array = outline.array
    itemsCRC32 = outline.itemsCRC32
    self.reader = reader
    state.withLock { $0.read = [UInt64](repeating: 0, count: (ids.count + 63) / 64) }
  }

  /// The items' ids, in order.
  var itemIDs: [String] { ids }

  /// The bytes of the items array.
  var arrayBytes: Int { array.count }

  /// The length of item `index`'s JSON.
  func length(of index: Int) -> Int { lengths[index] }

  /// Why an item could not be read, if one could not: the edit that read it must not save.
  var failure: String? { state.withLock { $0.failure } }

  /// Item `first`: read with its neighbours (those not read yet, on both sides: an edit's
  /// replay may walk the items backwards) up to a chunk, unless an earlier read brought it.
  /// An item that does not read or breaks a rule throws, and is recorded as the failure.
  func item(_ first: Int) throws -> Item {
    enum Plan {
      case ready(Item)
      case read(Range<Int>, bytes: Int)
    }
    let plan = state.withLock { state -> Plan in
      if let item = state.ahead.removeValue(forKey: first) {
        state.aheadTaken = true
        return .ready(item)
      }
      let budget = state.nextChunk()
      var range = first..<first + 1
      var bytes = lengths[first]
      func fits(_ index: Int) -> Bool { !state.wasRead(index) && bytes + lengths[index] + 1 <= budget }
      // Backwards up to half the chunk, forwards with the rest, backwards with what is left.
      while range.lowerBound > 0, bytes * 2 <= budget, fits(range.lowerBound - 1) {
        range = range.lowerBound - 1..<range.upperBound
        bytes += lengths[range.lowerBound] + 1
      }
      while range.upperBound < starts.count, fits(range.upperBound) {
        bytes += lengths[range.upperBound] + 1
        range = range.lowerBound..<range.upperBound + 1
      }
      while range.lowerBound > 0, fits(range.lowerBound - 1) {
        range = range.lowerBound - 1..<range.upperBound
        bytes += lengths[range.lowerBound] + 1
      }
      return .read(range, bytes: bytes)
    }
    let range: Range<Int>
    let bytes: Int
    switch plan {
    case .ready(let item): return item
    case .read(let planned, let plannedBytes): (range, bytes) = (planned, plannedBytes)
    }
    let decoded: [Result<Item, ItemReadError>]
    do {
      let data = try reader(starts[range.lowerBound], bytes)
      guard data.count == bytes else { throw ItemReadError(description: "the file ends inside its items") }
      decoded = data.withUnsafeBytes { raw in
        range.map { index in
          let offset = starts[index] - starts[range.lowerBound]
          return Self.decode(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + lengths[index]]), id: ids[index])
        }
      }
    } catch {
      decoded = range.map { _ in .failure(ItemReadError(description: "\(error)")) }
    }
    return try state.withLock { state throws(ItemReadError) in
      // A neighbour that failed is recorded only if it is needed itself (read again then).
      for (index, result) in zip(range, decoded) where index != first && !state.wasRead(index) {
        guard case .success(let item) = result else { continue }
        state.ahead[index] = item
        state.markRead(index)
      }
      state.markRead(first)
      switch decoded[first - range.lowerBound] {
      case .success(let item): return item
      case .failure(let error):
        let failure = ItemReadError(description: "item \(first + 1) (\(ids[first])) of \(entry): \(error)")
        if state.failure == nil { state.failure = failure.description }
        throw failure
      }
    }
  }

  /// Every item, decoded on both cores (the two halves split where the outline places an
  /// item, so neither guesses), each half read a chunk at a time: the items' bytes are
  /// never in memory whole, and the chunks' memory is used again instead of fresh pages.
  /// Throws what the first item that does not read or breaks a rule says.
  func readAll() throws -> [Item] {
    let count = ids.count
    let middle = count / 2
    // Each half is decoded into its place in the one array: items are large values, and a
    // list of 100,000 joined from two would be copied once more, into fresh memory.
    return try [Item](unsafeUninitializedCapacity: count) { buffer, initialized in
      let (front, back) = ForkJoin.both(
        { self.readAll(0..<middle, into: buffer) }, { self.readAll(middle..<count, into: buffer) })
      let halves = [(start: 0, result: front), (start: middle, result: back)]
      let failure = halves.lazy.compactMap { half -> (any Error)? in
        if case .failure(let partial) = half.result { partial.error } else { nil }
      }.first
      guard let failure else {
        initialized = count
        return
      }
      // What either half put in place goes: the array is left empty.
      for half in halves {
        let done =
          switch half.result {
          case .success(let done): done
          case .failure(let partial): partial.done
          }
        (buffer.baseAddress! + half.start).deinitialize(count: done)
      }
      initialized = 0
      throw failure
    }
  }

  /// Why a half could not be read, and how many of its items were put in place before.
  private struct PartialRead: Error {
    var error: any Error
    var done: Int
  }

  /// The items in `range` decoded into their places in `buffer`, in order, a chunk at a
  /// time; how many were.
  private func readAll(_ range: Range<Int>, into buffer: UnsafeMutableBufferPointer<Item>) -> Result<Int, PartialRead> {
    var done = 0
    do {
      try forEachJSON(in: range) { index, json in
        (buffer.baseAddress! + index).initialize(to: try item(index, from: json))
        done += 1
      }
    } catch {
      return .failure(PartialRead(error: error, done: done))
    }
    return .success(done)
  }

  /// Each item's JSON in `range`, in order, read a chunk (`copyBytes`) at a time: what lies
  /// between two items must be their comma, as in any JSON array, the comma before a
  /// chunk's first item too.
  private func forEachJSON(
    in range: Range<Int>, _ body: (Int, UnsafeRawBufferPointer) throws -> Void
  ) throws {
    var first = range.lowerBound
    while first < range.upperBound {
      // From the comma before `first` (but for the very first item) to the last item that fits.
      let start = first == 0 ? starts[0] : starts[first] - 1
      var end = first + 1
      while end < range.upperBound, starts[end] + lengths[end] - start <= Self.copyBytes { end += 1 }
      let count = starts[end - 1] + lengths[end - 1] - start
      let data = try reader(start, count)
      guard data.count == count else { throw ItemReadError(description: "the file ends inside its items") }
      try data.withUnsafeBytes { raw in
        for index in first..<end { try body(index, try json(of: index, in: raw, from: start)) }
      }
      first = end
    }
  }

  /// The items among these that `query` matches, with their 1-based positions: `placing`
  /// gives where each item stands in the model (-1 where it does not). An item is decoded,
  /// and checked as any item read is, only when its stored JSON may match
  /// (`ItemQuery.mayMatch`): a search of 100,000 items decodes the few it finds. Read in
  /// their own order, on both cores, a chunk at a time; throws what the first item that does
  /// not read, or that may match and does not decode, says.
  func matches(of query: ItemQuery, placing positions: [Int32]) throws -> [(position: Int, item: Item)] {
    typealias Found = [(position: Int, item: Item)]
    func search(_ range: Range<Int>) -> Result<Found, any Error> {
      var hits: Found = []
      do {
        try forEachJSON(in: range) { index, json in
          guard positions[index] >= 0, query.mayMatch(json: json) else { return }
          let decoded = try item(index, from: json)
          if query.matches(decoded) { hits.append((Int(positions[index]) + 1, decoded)) }
        }
      } catch {
        return .failure(error)
      }
      return .success(hits)
    }
    let middle = ids.count / 2
    let (front, back) = ForkJoin.both({ search(0..<middle) }, { search(middle..<self.ids.count) })
    return try front.get() + back.get()
  }

  /// Item `index`'s JSON in `raw`, the items' bytes from offset `base` of the checkpoint:
  /// what lies between two items must be their comma, as in any JSON array.
  private func json(
    of index: Int, in raw: UnsafeRawBufferPointer, from base: Int
  ) throws(ItemReadError)
    -> UnsafeRawBufferPointer
  {
    let offset = starts[index] - base
    guard index == 0 || raw[offset - 1] == UInt8(ascii: ",") else {
      throw ItemReadError(description: "item \(index + 1) (\(ids[index])) of \(entry) does not follow a comma")
    }
    return UnsafeRawBufferPointer(rebasing: raw[offset..<offset + lengths[index]])
  }

  /// Item `index`, decoded from its JSON and checked; an error names it.
  private func item(_ index: Int, from json: UnsafeRawBufferPointer) throws(ItemReadError) -> Item {
    switch Self.decode(json, id: ids[index]) {
    case .success(let item): return item
    case .failure(let error): throw ItemReadError(description: "item \(index + 1) (\(ids[index])) of \(entry): \(error)")
    }
  }

  /// One item's JSON, read and checked as a whole checkpoint's items are.
  private static func decode(_ bytes: UnsafeRawBufferPointer, id: String) -> Result<Item, ItemReadError> {
    do {
      var reader = JSONReader(bytes)
      let item = try reader.item()
      reader.skipSpace()
      guard reader.index == bytes.count else { throw ItemReadError(description: "trailing data after the item") }
      guard item.id == id else { throw ItemReadError(description: "its id is not the one the index gives") }
      let problems = ModelValidation.problems(of: item)
      guard problems.isEmpty else { throw ModelValidation.Failure(problems: problems) }
      return .success(item)
    } catch let error as ItemReadError {
      return .failure(error)
    } catch {
      return .failure(ItemReadError(description: "\(error)"))
    }
  }
}

private struct ItemReadError: Error, CustomStringConvertible {
  var description: String
}

extension StoredItems {
  /// Checks the items at `indices` that no read has brought yet, by the rules a read
  /// applies, without keeping their fields: a checkpoint about to copy them from the file
  /// must not copy one that breaks a rule. Items whose array is as written (its CRC the
  /// outline's) were checked or encoded then. Otherwise neighbours are read together, on
  /// both cores; an item that fails becomes `failure`.
  func check(_ indices: [Int]) {
    let unread = state.withLock { state in indices.filter { !state.wasRead($0) } }
    guard !unread.isEmpty, isAsWritten() != true else { return }
    let half = unread.count / 2
    _ = ForkJoin.both({ self.check(unread[..<half]) }, { self.check(unread[half...]) })
  }

  /// Whether the items array's CRC is the outline's (false when a read fails, nil without one).
  func isAsWritten() -> Bool? {
    guard let expected = itemsCRC32 else { return nil }
    var crc = CRC32()
    var offset = array.lowerBound
    while offset < array.upperBound {
      let count = min(Self.copyBytes, array.upperBound - offset)
      guard let data = try? reader(offset, count), data.count == count else { return false }
      data.withUnsafeBytes { crc.update($0) }
      offset += count
    }
    return crc.value == expected
  }

  private func check(_ indices: ArraySlice<Int>) {
    var position = indices.startIndex
    while position < indices.endIndex {
      // A run of neighbours, up to a chunk.
      let first = indices[position]
      var end = position + 1
      var bytes = lengths[first]
      while end < indices.endIndex, indices[end] == indices[end - 1] + 1,
        bytes + lengths[indices[end]] + 1 <= Self.chunkBytes
      {
        bytes += lengths[indices[end]] + 1
        end += 1
      }
      do {
        let data = try reader(starts[first], bytes)
        guard data.count == bytes else { throw ItemReadError(description: "the file ends inside its items") }
        data.withUnsafeBytes { raw in
          for index in indices[position..<end] {
            let offset = starts[index] - starts[first]
            let item = UnsafeRawBufferPointer(rebasing: raw[offset..<offset + lengths[index]])
            if case .failure(let error) = Self.decode(item, id: ids[index]) { record(error, at: index) }
          }
        }
      } catch {
        record(error, at: first)
      }
      position = end
    }
  }

  /// Writes the items `run` (neighbours, ascending) as the checkpoint holds them, with the
  /// commas between them, a MiB at a time. A byte between two that is not a comma (the
  /// outline places items, it does not read what lies between them) is damage: it throws.
  func copy(_ run: ClosedRange<Int>, to write: (UnsafeRawBufferPointer) throws -> Void) throws {
    var first = run.lowerBound
    while first <= run.upperBound {
      // From the comma before `first` (but for the run's first item) to the last item that fits.
      let start = first == run.lowerBound ? starts[first] : starts[first] - 1
      var last = first
      while last < run.upperBound, starts[last + 1] + lengths[last + 1] - start <= Self.copyBytes { last += 1 }
      let end = starts[last] + lengths[last]
      let data = try reader(start, end - start)
      guard data.count == end - start else {
        let error = ItemReadError(description: "the file ends inside its items")
        record(error, at: first)
        throw error
      }
      try data.withUnsafeBytes { raw in
        for index in first...last where index != run.lowerBound {
          guard raw[starts[index] - 1 - start] == UInt8(ascii: ",") else {
            let error = ItemReadError(description: "it does not follow a comma")
            record(error, at: index)
            throw error
          }
        }
        try write(raw)
      }
      first = last + 1
    }
  }

  private func record(_ error: any Error, at index: Int) {
    state.withLock { state in
      if state.failure == nil { state.failure = "item \(index + 1) (\(ids[index])) of \(entry): \(error)" }
    }
  }
}

/// The stored items a model opened for an edit may hold: those of the last checkpoint, then
/// those of each delta written after it (the items a delta's model holds that no earlier
/// part holds), numbered one after another. A handle of the model is a number here; each
/// call goes to the part that holds it, so that neighbours are read together only within
/// one part, where they lie side by side.
package final class ItemSource: Sendable {
  /// Reads `count` bytes at `offset` of the checkpoint's data.
  package typealias Reader = @Sendable (_ offset: Int, _ count: Int) throws -> Data

  package static let chunkBytes = 256 * 1024
  package static let firstChunkBytes = 4 * 1024
  /// What a checkpoint copies at a time (see `copy`).
  package static let copyBytes = 1 << 20

  private let parts: [StoredItems]
  /// The number of each part's first item.
  private let firsts: [Int]
  /// Every part's ids, one after another.
  package let itemIDs: [String]

  /// The items of one checkpoint, placed by an outline already checked to tile its items
  /// array (see `CheckpointOutline.check`).
  package convenience init(
    _ outline: CheckpointOutline, entry: String = DocumentArchive.modelEntry, reader: @escaping Reader
  ) {
    self.init(parts: [StoredItems(outline, entry: entry, reader: reader)])
  }

  /// The items of `sources`, in order: a checkpoint's, then its deltas'.
  package convenience init(_ sources: [ItemSource]) { self.init(parts: sources.flatMap(\.parts)) }

  private init(parts: [StoredItems]) {
    self.parts = parts
    var firsts: [Int] = []
    var count = 0
    for part in parts {
      firsts.append(count)
      count += part.itemIDs.count
    }
    precondition(count < Int32.max)
    self.firsts = firsts
    // One part's ids are shared, not copied (100,000 of them at every opening); several
    // parts' are copied into one array made once.
    if parts.count == 1 {
      itemIDs = parts[0].itemIDs
    } else {
      var all: [String] = []
      all.reserveCapacity(count)
      for part in parts { all.append(contentsOf: part.itemIDs) }
      itemIDs = all
    }
  }

  /// How many items each part holds and the bytes of its items array: the checkpoint's,
  /// then each delta's.
  package var partSizes: [(items: Int, bytes: Int)] { parts.map { ($0.itemIDs.count, $0.arrayBytes) } }

  /// The items of the first `count` parts: what a delta that takes in the parts after them
  /// keeps (see `CheckpointPlan(_:keeping:source:)`).
  package func prefix(parts count: Int) -> ItemSource {
    count == parts.count ? self : ItemSource(parts: Array(parts.prefix(count)))
  }

  /// The part that holds item `index`, and its number there.
  private func locate(_ index: Int) -> (part: Int, index: Int) {
    var low = 0
    var high = firsts.count - 1
    while low < high {
      let middle = (low + high + 1) / 2
      if firsts[middle] <= index { low = middle } else { high = middle - 1 }
    }
    return (low, index - firsts[low])
  }

  /// The length of item `index`'s JSON.
  package func length(of index: Int) -> Int {
    let (part, local) = locate(index)
    return parts[part].length(of: local)
  }

  /// Whether item `next` follows item `index` in one part, a comma between them: a run
  /// of such items is copied as it lies.
  package func isNeighbour(_ index: Int, _ next: Int) -> Bool {
    next == index + 1 && locate(index).part == locate(next).part
  }

  /// Why an item could not be read, if one could not: the edit that read it must not save.
  package var failure: String? { parts.lazy.compactMap(\.failure).first }

  /// Item `index`, read with its neighbours in its part (see `StoredItems.item`).
  package func item(_ index: Int) throws -> Item {
    let (part, local) = locate(index)
    return try parts[part].item(local)
  }

  /// Every item of every part, in order (see `StoredItems.readAll`).
  package func readAll() throws -> [Item] {
    if parts.count == 1 { return try parts[0].readAll() }
    var all: [Item] = []
    all.reserveCapacity(itemIDs.count)
    for part in parts { all += try part.readAll() }
    return all
  }

  /// The positions (1-based) and items of `items`, a working model's whose items may still
  /// be stored here, that `query` matches, in order: those stored searched in their parts
  /// (see `StoredItems.matches`), the others read.
  package func matches(of query: ItemQuery, among items: HandleList<Item>) throws -> [(position: Int, item: Item)] {
    var placings = parts.map { [Int32](repeating: -1, count: $0.itemIDs.count) }
    var found: [(position: Int, item: Item)] = []
    for position in 0..<items.count {
      if let index = items.storedIndex(at: position) {
        let (part, local) = locate(index)
        placings[part][local] = Int32(position)
      } else {
        let item = try items.element(at: position, reading: self.item)
        if query.matches(item) { found.append((position + 1, item)) }
      }
    }
    for (part, placing) in zip(parts, placings) { found += try part.matches(of: query, placing: placing) }
    return found.sorted { $0.position < $1.position }
  }

  /// The entries whose items array is not as written (its CRC not the outline's): bytes
  /// no save wrote, though each item may still read. One without a CRC is not told.
  package var changedSinceWritten: [String] { parts.filter { $0.isAsWritten() == false }.map(\.entry) }

  /// Checks the items at `indices` (ascending within each part) by the rules a read
  /// applies (see `StoredItems.check`).
  package func check(_ indices: [Int]) {
    var byPart = parts.map { _ in [Int]() }
    for index in indices {
      let (part, local) = locate(index)
      byPart[part].append(local)
    }
    for (part, local) in zip(parts, byPart) where !local.isEmpty { part.check(local) }
  }

  /// Writes the items `run`, neighbours in one part (see `isNeighbour`), as they lie.
  package func copy(_ run: ClosedRange<Int>, to write: (UnsafeRawBufferPointer) throws -> Void) throws {
    let (part, first) = locate(run.lowerBound)
    try parts[part].copy(first...first + run.count - 1, to: write)
  }
}

/// A checkpoint to write in pieces: the model's JSON around its items, the items an edit
/// changed or made (encoded), and runs of items copied as the previous checkpoint holds
/// them (each checked first): writing a checkpoint of 100,000 items neither decodes them
/// nor holds them (which cost several times the model's size in memory).
package struct CheckpointPlan {
  package enum Piece {
    case bytes([UInt8])
    case copied(ClosedRange<Int>)
  }

  package private(set) var pieces: [Piece] = []
  /// The checkpoint's size in bytes.
  package private(set) var size = 0
  package private(set) var outline: CheckpointOutline
  /// A delta's items in order, as runs of stored items (see `IndexDelta`).
  package private(set) var order: [Range<Int>] = []
  private let source: ItemSource?

  /// The plan for `model`, whose items still stored are `source`'s (read from the file):
  /// its items those it does not refer to among the first `kept` stored ones, which
  /// `order` numbers as they are, and its own items numbered after those, the stored ones
  /// copied as `source` holds them (each checked first), the others encoded. A checkpoint
  /// keeps none; a delta (see `IndexDelta`) keeps the items of the parts of its chain it
  /// does not take in.
  package init(_ model: WorkingModel, keeping kept: Int = 0, source: ItemSource?) {
    self.source = source
    let shell = Self.shell(of: model)
    outline = CheckpointOutline(array: shell.array..<shell.array)
    if kept == 0 {
      outline.ids.reserveCapacity(model.items.count)
      outline.starts.reserveCapacity(model.items.count)
      outline.lengths.reserveCapacity(model.items.count)
    }
    add(.bytes(shell.head), size: shell.head.count)
    func number(_ number: Int) {
      if let last = order.last, last.upperBound == number {
        order[order.count - 1] = last.lowerBound..<number + 1
      } else {
        order.append(number..<number + 1)
      }
    }
    var own = 0
    var run: ClosedRange<Int>?
    func endRun() {
      if let open = run { pieces.append(.copied(open)) }
      run = nil
    }
    for position in 0..<model.items.count {
      let index = model.items.storedIndex(at: position)
      if let index, index < kept {
        number(index)
        continue
      }
      if let index, let source {
        let length = source.length(of: index)
        if let open = run, source.isNeighbour(open.upperBound, index) {
          run = open.lowerBound...index
          size += 1  // the comma between them, copied
        } else {
          endRun()
          if own > 0 { add(.bytes([UInt8(ascii: ",")]), size: 1) }
          run = index...index
        }
        place(model.items.key(at: position), length: length)
        size += length
      } else {
        endRun()
        if own > 0 { add(.bytes([UInt8(ascii: ",")]), size: 1) }
        let item = model.items[position]
        var encoder = JSONWriter(capacity: 512)
        encoder.item(item)
        place(item.id, length: encoder.bytes.count)
        add(.bytes(encoder.bytes), size: encoder.bytes.count)
      }
      number(kept + own)
      own += 1
    }
    endRun()
    outline.array = shell.array..<size + 1
    add(.bytes(shell.tail), size: shell.tail.count)
  }

  /// The model without its items, cut where they go: its bytes up to the items array's
  /// `[`, those from its `]`, and where the array starts.
  private static func shell(of model: WorkingModel) -> (head: [UInt8], tail: [UInt8], array: Int) {
    var shell = model.head
    shell.trash = model.trash.elements
    var writer = JSONWriter(capacity: 4096)
    let array = writer.model(shell).array.lowerBound
    return (Array(writer.bytes[...array]), Array(writer.bytes[(array + 1)...]), array)
  }

  private mutating func add(_ piece: Piece, size count: Int) {
    pieces.append(piece)
    size += count
  }

  private mutating func place(_ id: String, length: Int) {
    outline.ids.append(id)
    outline.starts.append(size)
    outline.lengths.append(length)
  }

  /// The items to copy, ascending in each run: `check` them before writing.
  package var copied: [Int] {
    pieces.flatMap { piece -> [Int] in
      guard case .copied(let run) = piece else { return [] }
      return Array(run)
    }
  }

  /// Writes the checkpoint, a piece at a time. Returns its outline with the CRC of the
  /// items array as written.
  @discardableResult
  package func write(to write: (UnsafeRawBufferPointer) throws -> Void) throws -> CheckpointOutline {
    var offset = 0
    var crc = CRC32()
    let array = outline.array
    func written(_ bytes: UnsafeRawBufferPointer) throws {
      let lower = max(array.lowerBound - offset, 0)
      let upper = min(array.upperBound - offset, bytes.count)
      if lower < upper { crc.update(UnsafeRawBufferPointer(rebasing: bytes[lower..<upper])) }
      offset += bytes.count
      try write(bytes)
    }
    for piece in pieces {
      switch piece {
      case .bytes(let bytes): try bytes.withUnsafeBytes(written)
      case .copied(let run): try source!.copy(run, to: written)
      }
    }
    var outline = outline
    outline.itemsCRC32 = crc.value
    return outline
  }
}
