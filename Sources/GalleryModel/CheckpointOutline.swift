import Foundation

/// Where a checkpoint's items lie in its JSON: the `items` array, and each item's object in
/// it. Written into the index after every checkpoint, so that an edit reads the items it
/// needs, not all of them.
package struct CheckpointOutline: Sendable, Equatable {
  /// The items array, from its `[` to just after its `]`, in the checkpoint's data.
  package var array: Range<Int>
  package var ids: [String]
  package var starts: [Int]
  package var lengths: [Int]
  /// The CRC-32 of the items array (`array`) as written: a checkpoint that copies items
  /// takes a match for proof that they are still what was checked or encoded, and checks
  /// them one by one only without it (nil in an index written before it).
  package var itemsCRC32: UInt32?

  package init(
    array: Range<Int>, ids: [String] = [], starts: [Int] = [], lengths: [Int] = [], itemsCRC32: UInt32? = nil
  ) {
    self.array = array
    self.ids = ids
    self.starts = starts
    self.lengths = lengths
    self.itemsCRC32 = itemsCRC32
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
