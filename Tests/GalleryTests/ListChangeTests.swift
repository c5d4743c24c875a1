import Testing

@testable import GalleryModel

/// The diff every save writes as its journal record, against the plain definition it
/// follows: each element's index before found through a table of every key, then one longest
/// increasing subsequence of them kept in place.
@Suite("ListChange: the smallest change between two lists (pure)")
struct ListChangeTests {
  struct Element: KeyedElement {
    var key: String
    var value = 0
  }

  /// The definition, written plainly (it was the code before elements were found in order).
  static func expected(from before: [Element], to after: [Element]) -> ListChange<Element> {
    var change = ListChange<Element>()
    var beforeIndex: [String: Int] = [:]
    for (index, element) in before.enumerated() { beforeIndex[element.key] = index }
    let afterKeys = Set(after.map(\.key))
    for (index, element) in before.enumerated() where !afterKeys.contains(element.key) {
      change.removed.append(.init(index: index, element: element))
    }
    var kept: [(from: Int, to: Int)] = []
    for (index, element) in after.enumerated() {
      if let from = beforeIndex[element.key] {
        kept.append((from, index))
      } else {
        change.inserted.append(.init(index: index, element: element))
      }
    }
    let staying = ListChange<Element>.longestIncreasing(kept.map(\.from))
    for (position, pair) in kept.enumerated() {
      if !staying[position] { change.moved.append(.init(key: after[pair.to].key, from: pair.from, to: pair.to)) }
      if before[pair.from] != after[pair.to] {
        change.updated.append(.init(from: pair.from, to: pair.to, before: before[pair.from], after: after[pair.to]))
      }
    }
    change.updated.sort { $0.to < $1.to }
    return change
  }

  static func randomEdit(_ list: inout [Element], _ random: inout SplitMix, next: inout Int) {
    let count = list.count
    switch Int.random(in: 0..<8, using: &random) {
    case 0 where count > 0:
      // A run moved elsewhere: to the end, the start, or anywhere.
      let start = Int.random(in: 0..<count, using: &random)
      let run = Array(list[start..<min(count, start + Int.random(in: 1...4, using: &random))])
      list.removeSubrange(start..<start + run.count)
      list.insert(
        contentsOf: run, at: [0, list.count, Int.random(in: 0...list.count, using: &random)].randomElement(using: &random)!)
    case 1:
      next += 1
      list.insert(Element(key: "n\(next)"), at: Int.random(in: 0...count, using: &random))
    case 2 where count > 0:
      list.remove(at: Int.random(in: 0..<count, using: &random))
    case 3 where count > 0:
      list[Int.random(in: 0..<count, using: &random)].value += 1
    case 4 where count > 1:
      list.swapAt(Int.random(in: 0..<count, using: &random), Int.random(in: 0..<count, using: &random))
    case 5 where count > 0 && Int.random(in: 0..<6, using: &random) == 0:
      list.shuffle(using: &random)
    case 6 where Int.random(in: 0..<6, using: &random) == 0:
      list.reverse()
    default:
      // Several elements removed and new ones put in their place (a revert, a merge).
      for _ in 0..<min(count, 3) { list.remove(at: Int.random(in: 0..<list.count, using: &random)) }
      next += 1
      list.insert(Element(key: "n\(next)"), at: Int.random(in: 0...list.count, using: &random))
    }
  }

  /// A list of `before` and a copy of it edited into `after`, as an edit's copy is: each
  /// element it holds unchanged keeps its handle, the others are stored anew.
  static func listAndCopy(_ before: [Element], editedInto after: [Element]) -> (HandleList<Element>, HandleList<Element>) {
    let list = HandleList(before)
    var copy = list
    var handleOf: [String: Int32] = [:]
    for (index, element) in before.enumerated() { handleOf[element.key] = list.order[index] }
    copy.order = after.map { element in
      if let handle = handleOf[element.key], before[Int(handle)] == element { return handle }
      return copy.store(element)
    }
    return (list, copy)
  }

  @Test("Random edits of lists up to a few hundred elements, apart or in a copy: the definition's change")
  func matchesTheDefinition() {
    for seed in UInt64(1)...300 {
      var random = SplitMix(state: seed)
      var next = 0
      var before = (0..<Int.random(in: 0...300, using: &random)).map { Element(key: "k\($0)") }
      for _ in 0..<6 {
        var after = before
        for _ in 0..<Int.random(in: 1...4, using: &random) { Self.randomEdit(&after, &random, next: &next) }
        let expected = Self.expected(from: before, to: after)
        #expect(ListChange(from: before, to: after) == expected, "seed \(seed)")
        // In a copy of one list, its unchanged elements found by their handles.
        let (list, copy) = Self.listAndCopy(before, editedInto: after)
        #expect(copy.elements == after, "seed \(seed)")
        #expect(ListChange(from: list, to: copy, reading: WorkingModel.neverStored) == expected, "seed \(seed)")
        before = after
      }
    }
  }

  @Test("The first element moved to the end of 100,000 is one move, found without a table")
  func firstToTheEnd() {
    let before = (0..<100_000).map { Element(key: "k\($0)") }
    let after = Array(before.dropFirst()) + [before[0]]
    let change = ListChange(from: before, to: after)
    #expect(change.moved == [.init(key: "k0", from: 0, to: 99_999)])
    #expect(change.removed.isEmpty && change.inserted.isEmpty && change.updated.isEmpty)
    let back = ListChange(from: after, to: before)
    #expect(back.moved == [.init(key: "k0", from: 99_999, to: 0)])
    // The same in a copy of one list, its elements found by their handles.
    let list = HandleList(before)
    var moved = list
    moved.order = Array(list.order.dropFirst()) + [list.order[0]]
    let change2 = ListChange(from: list, to: moved, reading: WorkingModel.neverStored)
    #expect(change2.moved == [.init(key: "k0", from: 0, to: 99_999)])
    #expect(change2.removed.isEmpty && change2.inserted.isEmpty && change2.updated.isEmpty)
  }

  @Test("One longest increasing subsequence")
  func longestIncreasing() {
    #expect(ListChange<Element>.longestIncreasing([]) == [])
    #expect(ListChange<Element>.longestIncreasing([1, 2, 3, 0]) == [true, true, true, false])
    #expect(ListChange<Element>.longestIncreasing([3, 0, 1, 2]) == [false, true, true, true])
    let values = [5, 1, 6, 2, 7, 3, 8]
    let kept = ListChange<Element>.longestIncreasing(values)
    let chosen = zip(values, kept).filter(\.1).map(\.0)
    #expect(chosen.count == 4 && chosen == chosen.sorted())
  }
}
