import Foundation
import Synchronization

// An edit of a 100,000-item document moves, trashes or retitles a few items. Reading and
// checking all of them first (33 MB of JSON, 100,000 objects) cost four times the edit.
// So an edit opens the checkpoint through its outline (each item's id and where its JSON
// lies, kept in the index) and reads an item's fields when something first needs them:
// the items it changes, the first ones the cover shows. Every item read is checked by the
// same rules as a whole checkpoint; one that fails is recorded, and the edit refuses to save.

/// What an `Item` keeps its fields in. `isPending` says which subclass it is, so that reading
/// a field costs a load and a branch, not a dynamic cast.
/// @unchecked Sendable: the subclasses are immutable once shared (`DecodedItem`) or guard
/// their one change with a lock and an atomic flag (`PendingItem`).
class ItemStorage: @unchecked Sendable {
  let isPending: Bool
  init(isPending: Bool) { self.isPending = isPending }
}

/// An item's fields, read. @unchecked Sendable: changed in place only while one `Item`
/// holds it (`Item.fields` copies it first otherwise), as an array's buffer.
final class DecodedItem: ItemStorage, @unchecked Sendable {
  var fields: Item.Fields
  init(_ fields: Item.Fields) {
    self.fields = fields
    super.init(isPending: false)
  }
}

/// An item of a checkpoint that has not been read yet: its id (from the outline) and its
/// place in the source. @unchecked Sendable: its one change, the fields read, is made under
/// the source's lock and published by the release store of `isRead`.
final class PendingItem: ItemStorage, @unchecked Sendable {
  let id: String
  let index: Int
  let source: ItemSource
  /// Set once, under the source's lock, before `isRead` turns true; read only after it has.
  private var read: DecodedItem?
  private let isRead = Atomic<Bool>(false)

  init(id: String, index: Int, source: ItemSource) {
    self.id = id
    self.index = index
    self.source = source
    super.init(isPending: true)
  }

  var isDecoded: Bool { isRead.load(ordering: .acquiring) }

  func decoded() -> DecodedItem {
    if isRead.load(ordering: .acquiring) { return read.unsafelyUnwrapped }
    let fields = source.fields(of: self)
    return source.lock.withLock { _ in
      if isRead.load(ordering: .acquiring) { return read.unsafelyUnwrapped }
      let decoded = DecodedItem(fields)
      read = decoded
      isRead.store(true, ordering: .releasing)
      return decoded
    }
  }
}

/// The items of one checkpoint as its outline places them, read from the file on demand.
///
/// An item is read with its neighbours, a chunk of about `chunkBytes` at a time, so that an
/// edit that comes to need every item (a new checkpoint) reads the file in large pieces,
/// not item by item.
package final class ItemSource: Sendable {
  /// Reads `count` bytes at `offset` of the checkpoint's data.
  package typealias Reader = @Sendable (_ offset: Int, _ count: Int) throws -> Data

  package static let chunkBytes = 256 * 1024

  private let reader: Reader
  /// Where each item's JSON object lies in the checkpoint's data, in item order.
  private let starts: [Int]
  private let lengths: [Int]
  private let ids: [String]
  fileprivate let lock = Mutex<Void>(())
  private let state = Mutex<State>(State())

  private struct State {
    /// Fields read with a neighbour and not yet taken.
    var ahead: [Int: Item.Fields] = [:]
    /// The first item that could not be read, and why.
    var failure: String?
  }

  /// `starts`, `lengths` and `ids` come from an outline already checked to tile the
  /// checkpoint's items array (see `CheckpointOutline.check`).
  package init(ids: [String], starts: [Int], lengths: [Int], reader: @escaping Reader) {
    precondition(ids.count == starts.count && starts.count == lengths.count)
    self.ids = ids
    self.starts = starts
    self.lengths = lengths
    self.reader = reader
  }

  /// The items, all pending.
  package func items() -> [Item] {
    var items: [Item] = []
    items.reserveCapacity(ids.count)
    for index in ids.indices { items.append(Item(pendingID: ids[index], at: index, in: self)) }
    return items
  }

  /// Why an item could not be read, if one could not: the edit that read it must not save.
  package var failure: String? { state.withLock { $0.failure } }

  /// The fields of `item`: read with the next ones up to a chunk, unless an earlier read
  /// brought them. An item that does not read or breaks a rule is recorded as the failure
  /// and stands in as a failed item of the same id.
  fileprivate func fields(of item: PendingItem) -> Item.Fields {
    if let fields = state.withLock({ $0.ahead.removeValue(forKey: item.index) }) { return fields }
    var end = item.index + 1
    var bytes = lengths[item.index]
    while end < starts.count, bytes + lengths[end] + 1 <= Self.chunkBytes {
      bytes += lengths[end] + 1
      end += 1
    }
    let decoded: [Result<Item.Fields, ItemReadError>]
    do {
      let data = try reader(starts[item.index], bytes)
      guard data.count == bytes else { throw ItemReadError(description: "the file ends inside its items") }
      decoded = data.withUnsafeBytes { raw in
        (item.index..<end).map { index in
          let offset = starts[index] - starts[item.index]
          return Self.decode(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + lengths[index]]), id: ids[index])
        }
      }
    } catch {
      decoded = [.failure(ItemReadError(description: "\(error)"))]
    }
    return state.withLock { state in
      for (offset, result) in decoded.enumerated().dropFirst() {
        if case .success(let fields) = result { state.ahead[item.index + offset] = fields }
      }
      switch decoded[0] {
      case .success(let fields): return fields
      case .failure(let error):
        if state.failure == nil { state.failure = "item \(item.index + 1) (\(item.id)) of gallery.json: \(error)" }
        return Item.Fields.unreadable(id: item.id)
      }
    }
  }

  /// One item's JSON, read and checked as a whole checkpoint's items are.
  private static func decode(_ bytes: UnsafeRawBufferPointer, id: String) -> Result<Item.Fields, ItemReadError> {
    do {
      var reader = JSONReader(bytes)
      let item = try reader.item()
      reader.skipSpace()
      guard reader.index == bytes.count else { throw ItemReadError(description: "trailing data after the item") }
      guard item.id == id else { throw ItemReadError(description: "its id is not the one the index gives") }
      let problems = ModelValidation.problems(of: item)
      guard problems.isEmpty else { throw ModelValidation.Failure(problems: problems) }
      return .success(item.fields)
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

extension Item.Fields {
  /// What an item that could not be read stands in as, until the edit that read it fails.
  static func unreadable(id: String) -> Item.Fields {
    Item.Fields(
      id: id, source: "", page: nil, state: .failed, aspectRatio: 1, width: nil, height: nil, orientation: nil,
      format: nil, bytes: nil, hash: nil, thumbnail: nil, original: nil, added: Date(timeIntervalSince1970: 0),
      placeholder: nil, failure: "unreadable")
  }
}

/// Where a checkpoint's items lie in its JSON: the `items` array, and each item's object in
/// it. Written into the index after every checkpoint, so that an edit reads the items it
/// needs, not all of them.
package struct CheckpointOutline: Sendable, Equatable {
  /// The items array, from its `[` to just after its `]`, in the checkpoint's data.
  package var array: Range<Int>
  package var ids: [String]
  package var starts: [Int]
  package var lengths: [Int]

  package init(array: Range<Int>, ids: [String] = [], starts: [Int] = [], lengths: [Int] = []) {
    self.array = array
    self.ids = ids
    self.starts = starts
    self.lengths = lengths
  }

  /// Whether the outline can describe a checkpoint of `size` bytes: the items tile the
  /// array exactly (one byte, a comma, between two), so that no byte of it goes unread by
  /// the item that lies there, and every id is one an item may have.
  package func check(checkpointSize size: Int) -> String? {
    guard ids.count == starts.count, starts.count == lengths.count else { return "its item lists differ in length" }
    guard array.lowerBound >= 1, array.upperBound <= size, array.count >= 2 else { return "its items array is out of range" }
    var next = array.lowerBound + 1
    for index in starts.indices {
      guard starts[index] == next, lengths[index] >= 2, lengths[index] <= array.upperBound - 1 - next else {
        return "item \(index + 1) is not where the one before it ends"
      }
      guard ModelValidation.isValidID(ids[index]) else { return "item \(index + 1) has an invalid id" }
      next = starts[index] + lengths[index] + 1
    }
    guard next == array.upperBound || (starts.isEmpty && array.count == 2) else {
      return "its items do not fill the items array"
    }
    return nil
  }
}
