import Foundation
import GallerySystem

extension GalleryModel {
  /// Inserts items at a 1-based position, in order; past the end means the end.
  public mutating func insert(_ newItems: [Item], at position: Int?) { working { $0.insert(newItems, at: position) } }

  /// Moves items so the first lands at 1-based `position` of the result, keeping their
  /// relative order as they stand in the gallery. Positions past the end mean the end.
  public mutating func move(_ ids: [String], to position: Int) { working { $0.move(ids, to: position) } }

  /// Moves items to the trash; they keep their data until the trash is emptied.
  public mutating func trash(_ ids: [String], now: Date = .nowInWholeSeconds) {
    working { $0.trash(ids, now: now, reading: WorkingModel.neverStored) }
  }

  /// Puts trashed items back where they were (clamped to the current length), in the order
  /// they were trashed so that neighbours land back next to each other.
  public mutating func restore(_ ids: [String]) { working { $0.restore(ids) } }

  /// Changes the items `ids` names (what a person wrote of them: tags, caption, rating...).
  public mutating func update(_ ids: [String], _ change: (inout Item) -> Void) {
    working { $0.update(ids, reading: WorkingModel.neverStored, change) }
  }

  /// Orders every item by `key`, ascending (descending when `reversed`); the order among
  /// equals is kept, and items without the key come last either way.
  public mutating func sort(by key: SortKey, reversed: Bool = false) {
    working { $0.sort(by: key, reversed: reversed, reading: WorkingModel.neverStored) }
  }

  /// Forgets trashed items (their thumbnails become dead bytes, reclaimed by compaction).
  public mutating func emptyTrash() -> Int { working { $0.emptyTrash() } }

  /// `body` on this model as a working model (one implementation of each edit).
  private mutating func working<T>(_ body: (inout WorkingModel) throws -> T) rethrows -> T {
    var working = WorkingModel(self)
    let result = try body(&working)
    self = working.current
    return result
  }

  /// What `sort` orders items by.
  public enum SortKey: String, Sendable, CaseIterable {
    /// When the photo was taken (EXIF).
    case taken
    /// When the item was dropped.
    case added
    /// Its file name.
    case name
    /// Its stars.
    case rating
    /// Its pixels.
    case size
  }
}

// The edits, on a working model: its lists are handles (a move among 100,000 items moves
// handles), and an item still in the document is read, by `read`, only where the edit needs
// its fields.
extension WorkingModel {
  /// Inserts items at a 1-based position, in order; past the end means the end.
  public mutating func insert(_ newItems: [Item], at position: Int?) {
    let index = min(max(position ?? Int.max, 1), items.count + 1) - 1
    var handles: [Int32] = []
    for item in newItems { handles.append(items.store(item)) }
    items.order.insert(contentsOf: handles, at: index)
  }

  /// Those of `ids` that an item or the trash has, never a set of every id. The items put
  /// in or changed since the model was made are looked at first, and every item only for
  /// the ids not found there: a history names mostly those (a drop's new items), and
  /// hashing 100,000 ids would cost a large gallery's save more than the rest of it.
  public func held(_ ids: [String]) -> Set<String> {
    let wanted = IDSet(ids)
    let recent = wanted.found(in: items.keysPutInSinceMade).union(wanted.found(in: trash.keys))
    let rest = ids.filter { !recent.contains($0) }
    return rest.isEmpty ? recent : recent.union(IDSet(rest).found(in: items.keys))
  }

  /// The indices of the items `ids` names, ascending: one pass over the ids, comparing a
  /// few (hashing many). The items put in or changed since the model was read are looked at
  /// first: when they are all `ids` names (a drop's placeholders), no stored id is compared,
  /// as an id names one item at most. Then the items from both ends inwards, until every id
  /// is found: items dropped or moved together lie at one end more often than not.
  public func indices(of ids: [String]) -> [Int] {
    let wanted = IDSet(ids)
    let count = Set(ids).count
    let held = (0..<items.count).filter { items.storedIndex(at: $0) == nil && wanted.contains(items.key(at: $0)) }
    if held.count == count { return held }
    var found: [Int] = []
    var (low, high) = (0, items.count - 1)
    while low <= high, found.count < count {
      if wanted.contains(items.key(at: high)) { found.append(high) }
      high -= 1
      if low <= high, wanted.contains(items.key(at: low)) { found.append(low) }
      low += 1
    }
    return found.sorted()
  }

  /// The index of each of `ids` among the items.
  public func positions(of ids: [String]) -> [String: Int] {
    var found: [String: Int] = [:]
    for index in indices(of: ids) where found[items.key(at: index)] == nil { found[items.key(at: index)] = index }
    return found
  }

  /// Moves items so the first lands at 1-based `position` of the result, keeping their
  /// relative order as they stand in the gallery. Positions past the end mean the end.
  public mutating func move(_ ids: [String], to position: Int) {
    let indices = indices(of: ids)
    guard !indices.isEmpty else { return }
    let moving = indices.map { items.order[$0] }
    var staying = items.order.removing(sortedIndices: indices)
    staying.insert(contentsOf: moving, at: min(max(position, 1), staying.count + 1) - 1)
    items.order = staying
  }

  /// Moves items to the trash, each read (the trash holds them whole).
  public mutating func trash<Failure>(
    _ ids: [String], now: Date = .nowInWholeSeconds, reading read: HandleList<Item>.Reader<Failure>
  ) throws(Failure) {
    // Positions are taken in the list as it is before any removal, so `restore` can put a
    // group back exactly as it was. Every item is read before anything changes.
    let indices = indices(of: ids)
    let entries = try indices.map { index throws(Failure) in
      TrashedItem(item: try items.element(at: index, reading: read), trashed: now, position: index + 1)
    }
    for entry in entries { trash.order.append(trash.store(entry)) }
    items.remove(sortedIndices: indices)
  }

  /// Puts trashed items back where they were (clamped to the current length), in the order
  /// they were trashed so that neighbours land back next to each other.
  public mutating func restore(_ ids: [String]) {
    let wanted = Set(ids)
    let leaving = (0..<trash.count).filter { wanted.contains(trash.key(at: $0)) }
    let restoring = leaving.map { trash[$0] }
    trash.remove(sortedIndices: leaving)
    // In one pass, where inserting them one after another would put each (at its position
    // in the list the ones before it left), without moving the whole list once per item.
    var merged: [Int32] = []
    merged.reserveCapacity(items.count + restoring.count)
    var kept = items.order[...]
    for trashed in restoring.sorted(by: { $0.position < $1.position }) {
      let handle = items.store(trashed.item)
      let index = min(max(trashed.position, 1), merged.count + kept.count + 1) - 1
      if index >= merged.count {
        let before = index - merged.count
        merged.append(contentsOf: kept.prefix(before))
        kept = kept.dropFirst(before)
        merged.append(handle)
      } else {
        // A position an item put back before this one had too.
        merged.insert(handle, at: index)
      }
    }
    merged.append(contentsOf: kept)
    items.order = merged
  }

  /// Changes the items `ids` names, each read first; one the change leaves as it was stays
  /// as it is stored.
  public mutating func update<Failure>(
    _ ids: [String], reading read: HandleList<Item>.Reader<Failure>, _ change: (inout Item) throws(Failure) -> Void
  ) throws(Failure) {
    for index in indices(of: ids) {
      let before = try items.element(at: index, reading: read)
      var item = before
      try change(&item)
      if item != before { items.replace(at: index, with: item) }
    }
  }

  /// Orders every item by `key` (each read), ascending (descending when `reversed`); the
  /// order among equals is kept, and items without the key come last either way.
  public mutating func sort<Failure>(
    by key: GalleryModel.SortKey, reversed: Bool = false, reading read: HandleList<Item>.Reader<Failure>
  ) throws(Failure) {
    // Text keys compare as text, number keys as numbers; one sort has one kind.
    func value(_ item: Item) -> (number: Double, text: String)? {
      switch key {
      case .taken: return item.taken.map { (0, String($0.prefix(19))) }
      case .added: return (item.added.timeIntervalSince1970, "")
      case .name: return (0, ItemQuery.name(of: item).lowercased())
      case .rating: return item.rating.map { (Double($0), "") }
      case .size: return item.width.flatMap { w in item.height.map { (Double(w) * Double($0), "") } }
      }
    }
    let keyed = try (0..<items.count).map { index throws(Failure) in
      (offset: index, key: value(try items.element(at: index, reading: read)))
    }
    let sorted = keyed.sorted { a, b in
      switch (a.key, b.key) {
      case (nil, nil): return a.offset < b.offset
      case (nil, _): return false
      case (_, nil): return true
      case (let x?, let y?):
        if x == y { return a.offset < b.offset }
        return reversed ? (x.number, x.text) > (y.number, y.text) : (x.number, x.text) < (y.number, y.text)
      }
    }
    items.reorder(sorted.map(\.offset))
  }

  /// Forgets trashed items (their thumbnails become dead bytes, reclaimed by compaction).
  public mutating func emptyTrash() -> Int {
    defer { trash.order = [] }
    return trash.count
  }

  /// Removes the items whose ids `ids` holds, and the trashed ones whose ids `trashed` holds.
  public mutating func remove(items ids: Set<String>, trashed: Set<String> = []) {
    if !ids.isEmpty { items.remove(sortedIndices: (0..<items.count).filter { ids.contains(items.key(at: $0)) }) }
    if !trashed.isEmpty { trash.remove(sortedIndices: (0..<trash.count).filter { trashed.contains(trash.key(at: $0)) }) }
  }
}

extension Array {
  /// The array without the elements at `indices` (ascending): one pass over the ids found
  /// them, and the elements in between are copied in runs, not tested one by one again.
  func removing(sortedIndices indices: [Int]) -> [Element] {
    var kept: [Element] = []
    kept.reserveCapacity(count - indices.count)
    var start = 0
    for index in indices {
      kept.append(contentsOf: self[start..<index])
      start = index + 1
    }
    kept.append(contentsOf: self[start...])
    return kept
  }
}

/// The ids an edit names, matched against every item of a list: a few are compared, not
/// hashed (hashing 100,000 ids costs more than the rest of a move).
struct IDSet {
  private let few: [String]
  private let many: Set<String>?

  init(_ ids: [String]) {
    if ids.count <= 8 {
      few = ids
      many = nil
    } else {
      few = []
      many = Set(ids)
    }
  }

  func contains(_ id: String) -> Bool { many?.contains(id) ?? few.contains(id) }

  /// Those of these ids that `ids` holds: one pass over it, never a set of all of it.
  func found(in ids: some Sequence<String>) -> Set<String> {
    var found = Set<String>()
    for id in ids where contains(id) { found.insert(id) }
    return found
  }

  var isEmpty: Bool { few.isEmpty && (many?.isEmpty ?? true) }
}

/// What a person writes about items, as one edit: each field given is set on every item
/// (an empty caption or note, 0 stars, `clearLabel` clear it), tags added and removed.
/// The commands and the page's info panel make their edits with it.
public struct MetadataEdit: Sendable, Equatable {
  public var caption: String?
  public var note: String?
  public var rating: Int?
  public var label: Item.Label?
  public var clearLabel = false
  public var addTags: [String] = []
  public var removeTags: [String] = []

  public init() {}

  /// An edit of what a person writes that cannot be made: a bad value, or a note card's text
  /// cleared (a card is its text; it goes to the trash instead).
  public struct Refusal: Error, CustomStringConvertible, Sendable, GalleryError {
    public var description: String
    public init(_ description: String) { self.description = description }
  }

  /// Why a note card with this text cannot be made, in words; nil when it can.
  public static func cardProblem(_ text: String) -> String? {
    typealias Limits = ModelValidation.Limits
    if text.isEmpty { return "a note card needs text" }
    return ModelValidation.isText(text, limit: Limits.noteBytes)
      ? nil : "a note is at most \(Limits.noteBytes) bytes, without NUL"
  }

  public var isEmpty: Bool {
    caption == nil && note == nil && rating == nil && label == nil && !clearLabel && addTags.isEmpty
      && removeTags.isEmpty
  }

  /// Why it cannot be made, in words; nil when it can.
  public var problem: String? {
    typealias Limits = ModelValidation.Limits
    if let caption, !ModelValidation.isLine(caption, limit: Limits.captionBytes) {
      return "a caption is one line of at most \(Limits.captionBytes) bytes"
    }
    if let note, !ModelValidation.isText(note, limit: Limits.noteBytes) {
      return "a note is at most \(Limits.noteBytes) bytes, without NUL"
    }
    if let rating, !(0...5).contains(rating) { return "stars are 0 to 5" }
    if label != nil && clearLabel { return "a label cannot be both given and cleared" }
    if addTags.count + removeTags.count > Limits.tags { return "more than \(Limits.tags) tags at once" }
    // A tag to remove may be one an older version let in (`a//b`); none such is added.
    if let tag = addTags.first(where: { !ModelValidation.isNewTag($0) })
      ?? removeTags.first(where: { !ModelValidation.isTag($0) })
    {
      return "\(tag): not a tag (one line; no space at an end of it or of a part between /; no empty part)"
    }
    return nil
  }

  public func apply(to item: inout Item) {
    if let caption { item.caption = caption.isEmpty ? nil : caption }
    if let note { item.note = note.isEmpty ? nil : note }
    if let rating { item.rating = rating == 0 ? nil : rating }
    if let label { item.label = label }
    if clearLabel { item.label = nil }
    if !addTags.isEmpty || !removeTags.isEmpty {
      item.tags = Item.tagSet(Array(Set(item.tags ?? []).union(addTags).subtracting(removeTags)))
    }
  }

  /// What the history says of it: `tag: +beach -sea, 2 items`, `caption: 1 item`.
  public func summary(count: Int) -> String {
    var parts: [String] = []
    if caption != nil { parts.append("caption") }
    if note != nil { parts.append("note") }
    if let rating { parts.append("rate: \(rating) star\(rating == 1 ? "" : "s")") }
    if let label { parts.append("label: \(label.rawValue)") }
    if clearLabel { parts.append("label: none") }
    if !addTags.isEmpty || !removeTags.isEmpty {
      parts.append("tag: " + (addTags.map { "+" + $0 } + removeTags.map { "-" + $0 }).joined(separator: " "))
    }
    let items = JournalRecord.counted(count, "item")
    if parts == ["caption"] || parts == ["note"] { return "\(parts[0]): \(items)" }
    return JournalRecord.cut(parts.joined(separator: "; ") + ", " + items)
  }
}
