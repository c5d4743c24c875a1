import Foundation

/// Reading a large items array on two cores: an edit of a 100,000-item document reads and
/// checks every item first, and this machine has a second core that would otherwise wait.
///
/// Both halves follow the ordinary rules. The second one starts at a *guessed* boundary
/// between two items; it counts only if the first half, read as usual from the start,
/// ends exactly there after a whole item. Whatever else happens (the guess fell inside a
/// string, either half meets an error) is read again in one piece, so that what a document
/// reads as, and every error it gets, are the serial reading's.
extension JSONReader {
  /// Items arrays shorter than this (in bytes; about 3,000 items) are read in one piece.
  package static let splitItemBytes = 1 << 20

  /// The items array, the reader at its `[`.
  package mutating func items() throws -> [Item] {
    let start = index
    if bytes.count - index >= Self.splitItemBytes, let items = itemsInTwoHalves() { return items }
    index = start
    var items: [Item] = []
    // Room for as many items as a document of this size usually holds (one of ours takes
    // about 330 bytes), so that 100,000 items are not moved again at every doubling.
    items.reserveCapacity((bytes.count - index) / 256)
    try array { items.append(try $0.item()) }
    return items
  }

  /// Both halves read at once, or nil when the guess does not hold.
  package mutating func itemsInTwoHalves() -> [Item]? {
    guard (try? peek()) == UInt8(ascii: "["), let boundary = boundaryGuess(after: index + (bytes.count - index) / 2)
    else { return nil }
    var first = self
    var second = self
    second.index = boundary + 1
    let (firstItems, secondItems) = ForkJoin.both(
      { try? first.itemsBefore(boundary) }, { try? second.itemsToTheEnd() })
    guard let firstItems, let secondItems else { return nil }
    index = second.index
    return firstItems + secondItems
  }

  /// The offset of the `,` in the first `},{` at or after `offset`: where one of our items
  /// ends and the next begins, unless it lies inside a string (which the first half tells).
  private func boundaryGuess(after offset: Int) -> Int? {
    var at = offset
    while at + 2 < bytes.count {
      if bytes[at] == UInt8(ascii: "}"), bytes[at + 1] == UInt8(ascii: ","), bytes[at + 2] == UInt8(ascii: "{") {
        return at + 1
      }
      at += 1
    }
    return nil
  }

  /// The items from the `[` up to the item that ends exactly at `boundary`; nil when none
  /// does (the guess was not a boundary between two items of this array).
  private mutating func itemsBefore(_ boundary: Int) throws -> [Item]? {
    try expect(UInt8(ascii: "["))
    var items: [Item] = []
    items.reserveCapacity((boundary - index) / 256)
    while index < boundary {
      items.append(try item())
      if index == boundary { return items }
      guard try peek() == UInt8(ascii: ",") else { return nil }
      index += 1
    }
    return nil
  }

  /// The items from one that starts here to the array's `]`, which it reads past.
  private mutating func itemsToTheEnd() throws -> [Item] {
    var items: [Item] = []
    items.reserveCapacity((bytes.count - index) / 256)
    while true {
      items.append(try item())
      switch try peek() {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        return items
      default: throw fail("expected ',' or ']'")
      }
    }
  }
}
