import Foundation
import GallerySystem

/// An element of an ordered list that a change names by a key unique in its list.
public protocol KeyedElement: Sendable, Equatable {
  var key: String { get }
}

extension Item: KeyedElement {
  public var key: String { id }
}

extension TrashedItem: KeyedElement {
  public var key: String { item.id }
}

/// What one save changed: operations that replay it exactly on the revision before (how a
/// reader rebuilds a model from a checkpoint and the journal after it), and that undo and
/// redo apply to the model as it is *now*, key by key.
///
/// A change is made by comparing two models (`init(from:to:)`), so every edit gets one
/// without saying what it did.
public struct ModelChange: Sendable, Equatable {
  public var items = ListChange<Item>()
  public var trash = ListChange<TrashedItem>()
  /// The document's own fields, before and after, when any of them changed.
  public var head: HeadChange?

  public init() {}

  public init(from before: GalleryModel, to after: GalleryModel) {
    self.init(from: WorkingModel(before), to: WorkingModel(after), reading: WorkingModel.neverStored)
  }

  /// The change from `before` to `after` (a copy of `before`, changed): an item both hold
  /// unchanged is known so without being read; `read` reads what must be compared.
  // Exported for the document's reader: a generic called from another module runs
  // unspecialised, looking up its types' metadata for every element.
  @_specialize(exported:true,where Failure == any Error)
  public init<Failure>(
    from before: WorkingModel, to after: WorkingModel, reading read: HandleList<Item>.Reader<Failure>
  ) throws(Failure) {
    items = try ListChange(from: before.items, to: after.items, reading: read)
    trash = ListChange(from: before.trash, to: after.trash, reading: WorkingModel.neverStored)
    let old = Head(before.head)
    let new = Head(after.head)
    head = old == new ? nil : HeadChange(before: old, after: new)
  }

  public var isEmpty: Bool { items.isEmpty && trash.isEmpty && head == nil }

  /// The change that takes this one back.
  public var reversed: ModelChange {
    var change = ModelChange()
    change.items = items.reversed
    change.trash = trash.reversed
    change.head = head.map { HeadChange(before: $0.after, after: $0.before) }
    return change
  }

  /// The ids the change takes out of the items and the trash (an item trashed or restored
  /// is taken out of one and put into the other).
  package var leavingIDs: [String] { items.removed.map(\.element.key) + trash.removed.map(\.element.key) }
  /// The ids the change puts into the items and the trash, in order.
  package var arrivingIDs: [String] { items.inserted.map(\.element.key) + trash.inserted.map(\.element.key) }

  /// `ids` after this change, one a save made of the model they are the ids of (so that
  /// it gives no id twice: `replay` checks that of a change read from a file).
  package func ids(after ids: ModelIDs) -> ModelIDs {
    var ids = ids
    ids.remove(Set(leavingIDs))
    ids.insert(Set(arrivingIDs))
    return ids
  }

  /// Replays the change on exactly the model it was made from. Throws when the model is
  /// not that one (a journal that does not follow its checkpoint is damage).
  ///
  /// `ids` holds the ids of the model's items and trash, and is kept so: an insertion of an
  /// id the model holds already is refused without a scan of the whole model.
  public func replay(on model: inout GalleryModel, ids: inout ModelIDs) throws(ChangeMismatch) {
    var replaying = WorkingModel(model)
    do { try replay(on: &replaying, ids: &ids, reading: WorkingModel.neverStored) } catch let error as ChangeMismatch {
      throw error
    } catch {
      preconditionFailure("\(error)")
    }
    model = replaying.current
  }

  /// `replay` on a model being replayed record after record, whose stored items `read`
  /// reads (those the change takes out or changes: they are compared with its own).
  @_specialize(exported:true,where Failure == any Error)
  public func replay<Failure>(
    on model: inout WorkingModel, ids: inout ModelIDs, reading read: HandleList<Item>.Reader<Failure>
  ) throws {
    // Everything is checked before anything changes: a record that does not fit leaves the
    // model (and `ids`) as they were.
    try items.check(model.items, list: "items", reading: read)
    try trash.check(model.trash, list: "trash", reading: WorkingModel.neverStored)
    if let head, Head(model.head) != head.before { throw ChangeMismatch("the document's title or settings differ") }
    let leaving = Set(leavingIDs)
    var arriving = Set<String>()
    for key in arrivingIDs {
      guard arriving.insert(key).inserted, !ids.contains(key) || leaving.contains(key) else {
        throw ChangeMismatch("id \(key) would be used twice")
      }
    }
    ids.remove(leaving)
    ids.insert(arriving)
    items.perform(on: &model.items)
    trash.perform(on: &model.trash)
    head?.after.apply(to: &model.head)
  }

  /// Applies the change to the model as it is now: what is already as the change leaves it
  /// is left alone, and what another edit changed since is named and left as it is.
  /// Returns those names (empty when everything applied).
  public func apply(to model: inout GalleryModel) -> [String] {
    var working = WorkingModel(model)
    let skipped = apply(to: &working, reading: WorkingModel.neverStored)
    model = working.current
    return skipped
  }

  /// `apply` to a working model, whose stored items `read` reads (those the change updates:
  /// they are compared with its own).
  public func apply<Failure>(
    to model: inout WorkingModel, reading read: HandleList<Item>.Reader<Failure>
  ) throws(Failure) -> [String] {
    var skipped: [String] = []
    // Removals first in both lists, so that an item moving between them (trash, restore)
    // is never in both at once.
    let itemsCarried = items.takeOut(from: &model.items, skipped: &skipped, list: "the gallery")
    let trashCarried = trash.takeOut(from: &model.trash, skipped: &skipped, list: "the trash")
    // The ids an insertion names that the document holds already, to refuse it: found in
    // one pass comparing the few ids inserted (a set of every id of 100,000 items would
    // cost more than the rest of an undo of a trash).
    var taken = Set<String>()
    let arriving = arrivingIDs
    if !arriving.isEmpty {
      let wanted = IDSet(arriving)
      taken = wanted.found(in: model.items.keys).union(wanted.found(in: model.trash.keys))
    }
    items.putIn(into: &model.items, carried: itemsCarried, taken: &taken, skipped: &skipped)
    trash.putIn(into: &model.trash, carried: trashCarried, taken: &taken, skipped: &skipped)
    try items.update(&model.items, skipped: &skipped, reading: read)
    trash.update(&model.trash, skipped: &skipped, reading: WorkingModel.neverStored)
    if let head {
      var current = Head(model.head)
      if current.title == head.before.title {
        current.title = head.after.title
      } else if current.title != head.after.title {
        skipped.append("the title was changed since")
      }
      if current.settings == head.before.settings { current.settings = head.after.settings }
      if current.moveOffers == head.before.moveOffers { current.moveOffers = head.after.moveOffers }
      current.apply(to: &model.head)
    }
    return skipped
  }

  /// Ids of every item the change names, in either list.
  public var keys: Set<String> {
    var keys = items.keys
    keys.formUnion(trash.keys)
    return keys
  }

  /// Calls `body` with every item the change holds whole (removed, inserted, updated; in
  /// either list), without gathering them: a drop's records hold thousands.
  public func forEachCarriedItem(_ body: (Item) throws -> Void) rethrows {
    try items.forEachElement(body)
    try trash.forEachElement { try body($0.item) }
  }

  /// The archive entries (thumbnails, originals) of the items the change holds: what the
  /// history needs to bring them back.
  package var referencedEntries: Set<String> {
    var names: Set<String> = []
    forEachCarriedItem { item in
      if let thumbnail = item.thumbnail { names.insert(thumbnail) }
      if let original = item.original { names.insert(original) }
    }
    return names
  }
}

/// The document fields that are not lists.
public struct Head: Sendable, Equatable {
  public var title: String
  public var settings: GalleryModel.Settings
  public var moveOffers: [MoveOffer]?

  public init(_ model: GalleryModel) {
    title = model.title
    settings = model.settings
    moveOffers = model.moveOffers
  }

  package init(title: String, settings: GalleryModel.Settings, moveOffers: [MoveOffer]?) {
    self.title = title
    self.settings = settings
    self.moveOffers = moveOffers
  }

  func apply(to model: inout GalleryModel) {
    model.title = title
    model.settings = settings
    model.moveOffers = moveOffers
  }
}

public struct HeadChange: Sendable, Equatable {
  public var before: Head
  public var after: Head
}

/// A list as handles (`Int32` indices into its elements), so that a change that moves one
/// item among 100,000 moves small handles, not the items; an element put in or changed is
/// appended to the elements, and its handle placed.
///
/// The items of a list opened for an edit may be still in the document, not read: the list
/// holds only their ids (the *stored* handles, below `storedKeys.count`). The model never
/// reads one: where an element is needed, the caller's `read` reads it (the document layer,
/// which throws when it does not read).
public struct HandleList<Element: KeyedElement>: Sendable {
  /// Reads the stored element of this handle, or throws `Failure`.
  public typealias Reader<Failure: Error> = (_ handle: Int) throws(Failure) -> Element
  /// A reader of a document's file, whose reads may fail.
  public typealias Read = Reader<any Error>

  /// Copies of one list share it: a handle below `shared` means the same element in each.
  private final class Lineage: Sendable {}
  private let lineage = Lineage()
  private let storedKeys: [String]
  /// The elements the list started from (shared, never copied: 100,000 items would be
  /// copied one by one), and those stored since.
  private let base: [Element]
  private var added: [Element] = []
  var order: [Int32]

  /// A list of `elements`, all read.
  public init(_ elements: [Element]) {
    storedKeys = []
    base = elements
    order = Array(0..<Int32(elements.count))
  }

  /// A list of elements still where they are stored, of which it holds the keys: all of
  /// them in order, or those `order` places (each at most once).
  public init(storedKeys: [String], order: [Int32]? = nil) {
    self.storedKeys = storedKeys
    base = []
    self.order = order ?? Array(0..<Int32(storedKeys.count))
  }

  public var count: Int { order.count }

  /// Handles below this one are the same element in every copy of the list.
  private var shared: Int { storedKeys.count + base.count }

  public func key(at index: Int) -> String { key(ofHandle: Int(order[index])) }

  private func key(ofHandle handle: Int) -> String {
    if handle < storedKeys.count { return storedKeys[handle] }
    // The key alone, not a copy of the element.
    let index = handle - storedKeys.count
    return index < base.count ? base[index].key : added[index - base.count].key
  }

  private func held(_ handle: Int) -> Element {
    let index = handle - storedKeys.count
    return index < base.count ? base[index] : added[index - base.count]
  }

  /// Where the element at `index` is stored, when it is stored and not read.
  public func storedIndex(at index: Int) -> Int? {
    let handle = Int(order[index])
    return handle < storedKeys.count ? handle : nil
  }

  /// The element at `index`: read by `read` when it is stored.
  public func element<Failure>(at index: Int, reading read: Reader<Failure>) throws(Failure) -> Element {
    let handle = Int(order[index])
    return handle < storedKeys.count ? try read(handle) : held(handle)
  }

  /// The element at `index`, which is not stored (it was read, or put in).
  public subscript(index: Int) -> Element {
    let handle = Int(order[index])
    precondition(handle >= storedKeys.count, "an element not read")
    return held(handle)
  }

  /// Whether the element at `index` is the one at `other` of `list`, a copy of this list:
  /// known without comparing them (nor reading them).
  func isSame(at index: Int, as list: HandleList, at other: Int) -> Bool {
    lineage === list.lineage && order[index] == list.order[other] && Int(order[index]) < shared
  }

  mutating func store(_ element: Element) -> Int32 {
    added.append(element)
    return Int32(shared + added.count - 1)
  }

  /// Puts `element` at `index` in place of the one there.
  public mutating func replace(at index: Int, with element: Element) { order[index] = store(element) }

  /// Whether every element is read (none is stored).
  public var isRead: Bool { storedKeys.isEmpty || !order.contains { Int($0) < storedKeys.count } }

  /// The list in order, every element read: the elements themselves (shared, not copied)
  /// when nothing changed them, as after opening at a checkpoint.
  public func elements<Failure>(reading read: Reader<Failure>) throws(Failure) -> [Element] {
    if storedKeys.isEmpty, added.isEmpty, base.count == order.count, order.elementsEqual(0..<Int32(order.count)) {
      return base
    }
    return try order.map { handle throws(Failure) in
      Int(handle) < storedKeys.count ? try read(Int(handle)) : held(Int(handle))
    }
  }

  /// The list in order, of a list that holds no stored element.
  public var elements: [Element] { elements(reading: WorkingModel.neverStored) }

  func addKeys(to keys: inout Set<String>) {
    for handle in order { keys.insert(key(ofHandle: Int(handle))) }
  }

  /// The keys, in order.
  public var keys: LazyMapCollection<[Int32], String> { order.lazy.map { key(ofHandle: Int($0)) } }

  /// The keys of the elements put in or changed since the list was made, in order.
  var keysPutInSinceMade: [String] { order.filter { Int($0) >= shared }.map { key(ofHandle: Int($0)) } }

  /// The list with only the elements at `indices` (ascending) left out.
  mutating func remove(sortedIndices indices: [Int]) { order = order.removing(sortedIndices: indices) }

  /// The elements at `positions`, in that order (the others leave the list).
  mutating func reorder(_ positions: [Int]) { order = positions.map { order[$0] } }
}

/// The model an edit opens and changes, and a replay rebuilds: its lists as `HandleList`s,
/// its items possibly not read yet (the document layer reads those it needs).
public struct WorkingModel: Sendable {
  /// The model's other fields (its lists empty).
  public var head: GalleryModel
  public var items: HandleList<Item>
  public var trash: HandleList<TrashedItem>

  public init(_ model: GalleryModel) {
    items = HandleList(model.items)
    trash = HandleList(model.trash)
    head = model
    head.items = []
    head.trash = []
  }

  /// The model `head` (its trash read) whose items are still stored, of these ids.
  public init(head model: GalleryModel, storedItemIDs: [String], order: [Int32]? = nil) {
    items = HandleList(storedKeys: storedItemIDs, order: order)
    trash = HandleList(model.trash)
    head = model
    head.items = []
    head.trash = []
  }

  /// What reads the stored elements of a model that has none.
  public static func neverStored<Element>(_ handle: Int) -> Element { preconditionFailure("an element not read") }

  /// The model as it stands, every item read by `read`.
  public func model<Failure>(reading read: HandleList<Item>.Reader<Failure>) throws(Failure) -> GalleryModel {
    var model = head
    model.items = try items.elements(reading: read)
    model.trash = trash.elements
    return model
  }

  /// The model as it stands, of a working model whose items are all read.
  public var current: GalleryModel {
    var model = head
    model.items = items.elements
    model.trash = trash.elements
    return model
  }

  /// The ids of the items and the trash, in a set with room for the records replayed after
  /// (growing a set of 100,000 strings hashes every one again).
  public var ids: Set<String> {
    let count = items.count + trash.count
    var ids = Set<String>(minimumCapacity: count + count / 4 + 4096)
    items.addKeys(to: &ids)
    trash.addKeys(to: &ids)
    return ids
  }
}

/// The ids of a model's items and trash as a replay keeps them: those of the model it
/// started from (a set, or a table its reader built already, such as the one that checked a
/// checkpoint's ids), and what the records replayed since brought in and took out. So a
/// record that brings in an id costs what it brings, not a set of every id first.
public struct ModelIDs: Sendable {
  private let startedFrom: @Sendable (String) -> Bool
  private var arrived = Set<String>()
  private var left = Set<String>()

  public init(_ ids: Set<String>) { startedFrom = { ids.contains($0) } }

  /// The ids of a model that `contains` tells.
  package init(containedIn contains: @escaping @Sendable (String) -> Bool) { startedFrom = contains }

  public func contains(_ id: String) -> Bool { arrived.contains(id) || (!left.contains(id) && startedFrom(id)) }

  mutating func remove(_ ids: Set<String>) {
    arrived.subtract(ids)
    left.formUnion(ids)
  }

  mutating func insert(_ ids: Set<String>) { arrived.formUnion(ids) }
}

/// A change does not fit the model it is replayed on.
public struct ChangeMismatch: Error, CustomStringConvertible, Sendable, GalleryError {
  public var description: String
  package init(_ description: String) { self.description = description }
}

/// How one ordered list changed, keyed by its elements' keys.
public struct ListChange<Element: KeyedElement>: Sendable, Equatable {
  public struct Placed: Sendable, Equatable {
    /// The index in the list before (for removals) or after (for insertions).
    public var index: Int
    public var element: Element
  }

  public struct Move: Sendable, Equatable {
    public var key: String
    public var from: Int
    public var to: Int
  }

  public struct Update: Sendable, Equatable {
    public var from: Int
    public var to: Int
    public var before: Element
    public var after: Element
  }

  /// Taken out, by ascending index in the list before.
  public var removed: [Placed] = []
  /// Put in, by ascending index in the list after.
  public var inserted: [Placed] = []
  /// Kept, at another place: by ascending index in the list after.
  public var moved: [Move] = []
  /// Kept, with other fields.
  public var updated: [Update] = []

  public init() {}

  public var isEmpty: Bool { removed.isEmpty && inserted.isEmpty && moved.isEmpty && updated.isEmpty }

  /// The smallest change that turns `before` into `after`: elements kept in their relative
  /// order (a longest increasing subsequence) do not count as moved.
  public init(from before: [Element], to after: [Element]) {
    self.init(from: HandleList(before), to: HandleList(after), reading: WorkingModel.neverStored)
  }

  /// The change from `before` to `after`, a copy of it changed: an element both hold is
  /// known so without a comparison; `read` reads a stored element that must be compared.
  public init<Failure>(
    from before: HandleList<Element>, to after: HandleList<Element>, reading read: HandleList<Element>.Reader<Failure>
  ) throws(Failure) {
    // Most edits touch a few elements: compare the common ends cheaply, diff the middle.
    // An element the same as the one it stands beside is not compared (nor read); keys,
    // which a stored element knows, first where two differ.
    func noteUpdate(_ from: Int, _ to: Int) throws(Failure) {
      if before.isSame(at: from, as: after, at: to) { return }
      let (old, new) = (try before.element(at: from, reading: read), try after.element(at: to, reading: read))
      if old != new { updated.append(Update(from: from, to: to, before: old, after: new)) }
    }
    func sameKey(_ from: Int, _ to: Int) throws(Failure) -> Bool {
      if before.isSame(at: from, as: after, at: to) { return true }
      guard before.key(at: from) == after.key(at: to) else { return false }
      try noteUpdate(from, to)
      return true
    }
    var start = 0
    while start < before.count, start < after.count, try sameKey(start, start) { start += 1 }
    var endBefore = before.count
    var endAfter = after.count
    while endBefore > start, endAfter > start, try sameKey(endBefore - 1, endAfter - 1) {
      endBefore -= 1
      endAfter -= 1
    }

    // Each kept element's index before, in the order after; the rest of after is new. The
    // key the next element after usually has is the one after the last found (a move shifts
    // a run, it does not break it), so most are found by one comparison, not by hashing.
    var finder = OldIndexFinder(before, range: start..<endBefore)
    var kept: [(from: Int, to: Int)] = []
    kept.reserveCapacity(min(endBefore, endAfter) - start)
    var taken = [Bool](repeating: false, count: endBefore - start)
    var expected = start
    for index in start..<endAfter {
      // The very element expected (its handle, in a copy of the list): kept, known without
      // its key; what a move to the end of 100,000 items shifts by one is all found so.
      if expected < endBefore, !taken[expected - start], before.isSame(at: expected, as: after, at: index) {
        taken[expected - start] = true
        kept.append((expected, index))
        expected += 1
        continue
      }
      let key = after.key(at: index)
      guard let from = finder.index(of: key, expectedAt: expected), !taken[from - start] else {
        inserted.append(Placed(index: index, element: try after.element(at: index, reading: read)))
        continue
      }
      taken[from - start] = true
      kept.append((from, index))
      expected = from + 1
    }
    for index in start..<endBefore where !taken[index - start] {
      removed.append(Placed(index: index, element: try before.element(at: index, reading: read)))
    }
    let staying = Self.longestIncreasing(kept.map(\.from))
    for (position, pair) in kept.enumerated() {
      if !staying[position] { moved.append(Move(key: after.key(at: pair.to), from: pair.from, to: pair.to)) }
      try noteUpdate(pair.from, pair.to)
    }
    updated.sort { $0.to < $1.to }
  }

  /// Whether each of `values` is in one longest strictly increasing subsequence of them.
  static func longestIncreasing(_ values: [Int]) -> [Bool] {
    var tails: [Int] = []  // positions: the smallest tail of an increasing run of each length
    var previous = [Int](repeating: -1, count: values.count)
    for (position, value) in values.enumerated() {
      // Mostly ascending (an edit moves a few among many): the longest run grows by one.
      var low = tails.last.map { values[$0] < value } == true ? tails.count : 0
      var high = tails.count
      while low < high {
        let middle = (low + high) / 2
        if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
      }
      if low > 0 { previous[position] = tails[low - 1] }
      if low == tails.count { tails.append(position) } else { tails[low] = position }
    }
    var result = [Bool](repeating: false, count: values.count)
    var position = tails.last ?? -1
    while position >= 0 {
      result[position] = true
      position = previous[position]
    }
    return result
  }

  /// Finds where a key was in the list before: first where it is expected, then by a
  /// search from there that may cost a few passes over the list in all, and past that by a
  /// table of every key (built once: an edit that reorders everything, a sort, needs it).
  private struct OldIndexFinder {
    let list: HandleList<Element>
    let range: Range<Int>
    var budget: Int
    var table: [String: Int]?

    init(_ list: HandleList<Element>, range: Range<Int>) {
      self.list = list
      self.range = range
      budget = 4 * range.count + 64
    }

    mutating func index(of key: String, expectedAt expected: Int) -> Int? {
      if let table { return table[key] }
      if range.contains(expected), list.key(at: expected) == key { return expected }
      // Onwards from where it was expected, then from the start: a run moved back or forth.
      let from = min(max(expected, range.lowerBound), range.upperBound)
      for part in [from..<range.upperBound, range.lowerBound..<from] {
        for index in part {
          budget -= 1
          if budget < 0 { break }
          if list.key(at: index) == key { return index }
        }
      }
      if budget >= 0 { return nil }
      var table: [String: Int] = [:]
      table.reserveCapacity(range.count)
      for index in range { table[list.key(at: index)] = index }
      self.table = table
      return table[key]
    }
  }

  public var reversed: ListChange {
    var change = ListChange()
    change.removed = inserted
    change.inserted = removed
    change.moved = moved.map { Move(key: $0.key, from: $0.to, to: $0.from) }.sorted { $0.to < $1.to }
    change.updated = updated.map { Update(from: $0.to, to: $0.from, before: $0.after, after: $0.before) }
      .sorted { $0.to < $1.to }
    return change
  }

  var keys: Set<String> {
    var keys = Set(removed.map(\.element.key))
    keys.formUnion(inserted.map(\.element.key))
    keys.formUnion(moved.map(\.key))
    keys.formUnion(updated.map(\.after.key))
    return keys
  }

  func forEachElement(_ body: (Element) throws -> Void) rethrows {
    for entry in removed { try body(entry.element) }
    for entry in inserted { try body(entry.element) }
    for update in updated {
      try body(update.before)
      try body(update.after)
    }
  }

  // MARK: Exact replay

  /// Checks, without changing anything, that the change fits `list` exactly: what it takes
  /// out is there, what it puts in lands inside the list, and each update finds the element
  /// it changes where it says.
  func check<Failure>(_ list: HandleList<Element>, list name: String, reading read: HandleList<Element>.Reader<Failure>) throws {
    if isEmpty { return }
    func mismatch(_ what: String) -> ChangeMismatch { ChangeMismatch("\(name): \(what)") }
    var leaving = Set<Int>()
    for removal in removed {
      guard (0..<list.count).contains(removal.index), try list.element(at: removal.index, reading: read) == removal.element,
        leaving.insert(removal.index).inserted
      else { throw mismatch("no \(removal.element.key) at \(removal.index)") }
    }
    for move in moved {
      guard (0..<list.count).contains(move.from), list.key(at: move.from) == move.key, leaving.insert(move.from).inserted else {
        throw mismatch("no \(move.key) at \(move.from)")
      }
    }
    let kept = list.count - leaving.count
    let arriving = arrivals
    for (rank, index) in arriving.enumerated() {
      // Put in one by one, ascending: the list then holds kept + rank elements.
      guard index >= 0, index <= kept + rank, rank == 0 || index > arriving[rank - 1] else {
        throw mismatch("an element put in at \(index), past the end or twice")
      }
    }
    let gone = leaving.sorted()
    // An element both moved and changed (a revert, a merge) lands where its move puts it.
    let movedTo = Dictionary(moved.map { ($0.from, $0.to) }, uniquingKeysWith: { first, _ in first })
    for update in updated {
      guard (0..<list.count).contains(update.from), try list.element(at: update.from, reading: read) == update.before,
        update.after.key == update.before.key
      else { throw mismatch("no \(update.before.key) as it was at \(update.from)") }
      if leaving.contains(update.from) {
        guard movedTo[update.from] == update.to else { throw mismatch("\(update.before.key) would not land at \(update.to)") }
        continue
      }
      // Where it lands: its place among the kept elements, pushed by each arrival before it.
      var position = update.from - Self.count(of: gone, below: update.from)
      for index in arriving {
        guard index <= position else { break }
        position += 1
      }
      guard position == update.to else { throw mismatch("\(update.before.key) would not land at \(update.to)") }
    }
  }

  /// The indices where elements arrive (insertions and moves), ascending.
  private var arrivals: [Int] { (inserted.map(\.index) + moved.map(\.to)).sorted() }

  /// How many of the ascending `values` are below `limit`.
  private static func count(of values: [Int], below limit: Int) -> Int {
    var low = 0
    var high = values.count
    while low < high {
      let middle = (low + high) / 2
      if values[middle] < limit { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// Performs a change that `check` accepted. Only handles move. The order is rewritten in
  /// one pass from the first place the change touches to the last: a replay of a move among
  /// the first of 100,000 items rewrites a few handles, not the whole order twice. Between
  /// two places the change touches, the handles are copied as one slice: a journal of
  /// hundreds of moves to the end, each rewriting the whole order, replays at memory speed.
  func perform(on list: inout HandleList<Element>) {
    if isEmpty { return }
    var carried: [String: Int32] = [:]
    for move in moved { carried[move.key] = list.order[move.from] }
    let leaving = (removed.map(\.index) + moved.map(\.from)).sorted()
    var arriving: [(index: Int, element: Element?, key: String)] =
      inserted.map { ($0.index, $0.element, $0.element.key) } + moved.map { ($0.to, nil, $0.key) }
    arriving.sort { $0.index < $1.index }
    let first = min(leaving.first ?? .max, arriving.first?.index ?? .max)
    if first < .max {
      // The span before: from `first` to past the last element leaving, and far enough that
      // the span after (shorter by `shrink`) reaches past the last arrival. Outside it, both
      // orders hold the same handles.
      let shrink = leaving.count - arriving.count
      let end = max((leaving.last ?? -1) + 1, (arriving.last?.index ?? -1) + 1 + shrink)
      var span: [Int32] = []
      span.reserveCapacity(end - shrink - first)
      var nextLeaving = 0
      var nextArrival = 0
      var index = first  // in the order before; `first + span.count` is the place after
      func arrive() {
        let coming = arriving[nextArrival]
        span.append(coming.element.map { list.store($0) } ?? carried[coming.key]!)
        nextArrival += 1
      }
      while index < end {
        if nextArrival < arriving.count, arriving[nextArrival].index == first + span.count {
          arrive()
        } else if nextLeaving < leaving.count, leaving[nextLeaving] == index {
          nextLeaving += 1
          index += 1
        } else {
          // Kept handles, up to the next one leaving and no further than the next arrival.
          var stop = end
          if nextLeaving < leaving.count { stop = min(stop, leaving[nextLeaving]) }
          if nextArrival < arriving.count { stop = min(stop, index + arriving[nextArrival].index - first - span.count) }
          span.append(contentsOf: list.order[index..<stop])
          index = stop
        }
      }
      while nextArrival < arriving.count { arrive() }
      list.order.replaceSubrange(first..<end, with: span)
    }
    for update in updated { list.order[update.to] = list.store(update.after) }
  }

  // MARK: Applying to the list as it is now (undo, redo)

  /// Takes out of `list` what this change takes out (removed and moved elements), by key.
  /// Returns the handles of the moved elements that were present, to be put back at their
  /// place.
  func takeOut(from list: inout HandleList<Element>, skipped: inout [String], list name: String) -> [String: Int32] {
    let leaving = IDSet(removed.map(\.element.key) + moved.map(\.key))
    guard !leaving.isEmpty else { return [:] }
    var carried: [String: Int32] = [:]
    var indices: [Int] = []
    for index in 0..<list.count where leaving.contains(list.key(at: index)) {
      carried[list.key(at: index)] = list.order[index]
      indices.append(index)
    }
    list.remove(sortedIndices: indices)
    for removal in removed where carried.removeValue(forKey: removal.element.key) == nil {
      skipped.append("\(removal.element.key) is no longer in \(name)")
    }
    return carried
  }

  /// Puts inserted and moved elements in at their indices (clamped to the list), skipping
  /// keys already present anywhere in the document.
  func putIn(
    into list: inout HandleList<Element>, carried: [String: Int32], taken: inout Set<String>, skipped: inout [String]
  ) {
    var arriving: [(index: Int, handle: Int32)] = []
    for insert in inserted {
      guard taken.insert(insert.element.key).inserted else {
        skipped.append("\(insert.element.key) is already in the document")
        continue
      }
      arriving.append((insert.index, list.store(insert.element)))
    }
    for move in moved {
      // A moved element that another edit removed since stays removed.
      guard let handle = carried[move.key] else { continue }
      taken.insert(move.key)
      arriving.append((move.to, handle))
    }
    for (index, handle) in arriving.sorted(by: { $0.index < $1.index }) {
      list.order.insert(handle, at: min(max(0, index), list.count))
    }
  }

  func update<Failure>(
    _ list: inout HandleList<Element>, skipped: inout [String], reading read: HandleList<Element>.Reader<Failure>
  ) throws(Failure) {
    guard !updated.isEmpty else { return }
    let wanted = IDSet(updated.map(\.after.key))
    var positions: [String: Int] = [:]
    for index in 0..<list.count where wanted.contains(list.key(at: index)) { positions[list.key(at: index)] = index }
    for update in updated {
      guard let index = positions[update.after.key] else { continue }
      let current = try list.element(at: index, reading: read)
      if current == update.before {
        list.replace(at: index, with: update.after)
      } else if current != update.after {
        skipped.append("\(update.after.key) was changed since")
      }
    }
  }
}
