import Foundation

/// The three-way merge of two copies of a document edited apart (a sync tool's conflict
/// copy). Each side's records since the revision both share say which items it changed,
/// and in which way: which list an item is in (a drop, trash, restore or emptied trash), its
/// place among the items (a move), or what it holds (a load, a retry). A way of changing an
/// item that one side used is taken from that side, so a move on one side and a trash on
/// the other both apply; one that both sides used is taken from the later edit (by time, a
/// tie by the revisions' ids), and the item is reported once; but its tags are a set, from
/// which both sides' additions and removals are kept (an item whose content differs by its
/// tags alone is not reported: nothing of either side is lost), unless together they pass
/// what an item holds (then the winning side's are kept, reported). The title and the
/// settings likewise.
public enum ModelMerge {
  public struct Outcome: Sendable {
    public var model: GalleryModel
    /// One line per item (or the title, or the settings) changed the same way on both sides.
    public var conflicts: [String]
  }

  /// The ways one item can change.
  enum Aspect: CaseIterable {
    case list, place, content

    var name: String {
      switch self {
      case .list: "trash or restore"
      case .place: "move"
      case .content: "content"
      }
    }
  }

  enum Side { case ours, theirs }

  /// When a side last changed something: later wins, the same second by revision id.
  struct Mark: Comparable {
    var time: Date
    var id: String
    static func < (a: Mark, b: Mark) -> Bool { (a.time, a.id) < (b.time, b.id) }
  }

  /// What one side's records changed, and when last.
  struct Touches {
    var items: [String: [Aspect: Mark]] = [:]
    /// Each item as it was before this side first changed its content: the shared base a
    /// three-way merge of its tags starts from.
    var bases: [String: Item] = [:]
    var title: Mark?
    var settings: Mark?
    var moveOffers: Mark?

    init(_ records: [JournalRecord]) {
      for record in records {
        let mark = Mark(time: record.time, id: record.id)
        let change = record.change
        func note(_ keys: [String], _ aspect: Aspect) { for key in keys { items[key, default: [:]][aspect] = mark } }
        note(change.items.removed.map(\.element.key) + change.items.inserted.map(\.element.key), .list)
        note(change.trash.removed.map(\.element.key) + change.trash.inserted.map(\.element.key), .list)
        note(change.items.moved.map(\.key), .place)
        note(change.items.updated.map(\.after.key) + change.trash.updated.map(\.after.key), .content)
        for update in change.items.updated where bases[update.before.id] == nil { bases[update.before.id] = update.before }
        if let head = change.head {
          if head.before.title != head.after.title { title = mark }
          if head.before.settings != head.after.settings { settings = mark }
          if head.before.moveOffers != head.after.moveOffers { moveOffers = mark }
        }
      }
    }
  }

  /// Which side's state to take: the one that changed it, the later of the two when both
  /// did (and whether both did), nil when neither.
  static func winner(_ ours: Mark?, _ theirs: Mark?) -> (side: Side, both: Bool)? {
    switch (ours, theirs) {
    case (nil, nil): nil
    case (.some, nil): (.ours, false)
    case (nil, .some): (.theirs, false)
    case (.some(let ours), .some(let theirs)): (theirs > ours ? .theirs : .ours, true)
    }
  }

  /// Merges `theirs` into `ours`; `ourRecords` and `theirRecords` are each side's records
  /// since the revision both share, oldest first. The result has `ours`' revision fields.
  public static func merge(
    ours: GalleryModel, theirs: GalleryModel, ourRecords: [JournalRecord], theirRecords: [JournalRecord]
  ) -> Outcome {
    let ourTouches = Touches(ourRecords)
    let theirTouches = Touches(theirRecords)
    var conflicts: [String] = []
    func side(_ key: String, _ aspect: Aspect) -> Side? {
      winner(ourTouches.items[key]?[aspect], theirTouches.items[key]?[aspect])?.side
    }

    let ourItems = Dictionary(ours.items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    let theirItems = Dictionary(theirs.items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    let ourTrash = Dictionary(ours.trash.map { ($0.item.id, $0) }, uniquingKeysWith: { first, _ in first })
    let theirTrash = Dictionary(theirs.trash.map { ($0.item.id, $0) }, uniquingKeysWith: { first, _ in first })
    func item(_ key: String, on side: Side) -> Item? {
      side == .ours ? ourItems[key] ?? ourTrash[key]?.item : theirItems[key] ?? theirTrash[key]?.item
    }

    // Each item's list, content and trash entry, from the side that decides each.
    var inItems = Set<String>()
    var trashed: [String: TrashedItem] = [:]
    var values: [String: Item] = [:]
    var keys = ours.items.map(\.id) + ours.trash.map(\.item.id)
    keys += (theirs.items.map(\.id) + theirs.trash.map(\.item.id)).filter { ourItems[$0] == nil && ourTrash[$0] == nil }
    for key in keys {
      var both = Aspect.allCases.compactMap { aspect -> (aspect: Aspect?, side: Side)? in
        guard let decided = winner(ourTouches.items[key]?[aspect], theirTouches.items[key]?[aspect]), decided.both
        else { return nil }
        return (aspect, decided.side)
      }
      let listSide = side(key, .list) ?? (ourItems[key] != nil || ourTrash[key] != nil ? .ours : .theirs)
      let contentSide = side(key, .content) ?? listSide
      guard var value = item(key, on: contentSide) ?? item(key, on: listSide) else {
        if !both.isEmpty { conflicts.append(key + ": " + describe(both)) }
        continue
      }
      // Tags are a set: what either side added stays, what either removed goes.
      if let base = ourTouches.bases[key] ?? theirTouches.bases[key], let ours = item(key, on: .ours),
        let theirs = item(key, on: .theirs)
      {
        let tags = mergedTags(base: base.tags, ours: ours.tags, theirs: theirs.tags)
        if let tags, tags.count > ModelValidation.Limits.tags {
          // More than an item holds: the side whose content wins keeps its own, reported.
          conflicts.append(
            "\(key): both sides' tags make \(tags.count), over the \(ModelValidation.Limits.tags) an item holds: "
              + (contentSide == .theirs ? "took the copy's" : "kept this document's"))
        } else {
          value.tags = tags
        }
        // Both sides changed its tags and nothing else apart: no later change to report.
        var other = contentSide == .ours ? theirs : ours
        other.tags = value.tags
        if other == value { both.removeAll { $0.aspect == .content } }
      }
      if !both.isEmpty { conflicts.append(key + ": " + describe(both)) }
      if (listSide == .ours ? ourItems : theirItems)[key] != nil {
        inItems.insert(key)
      } else if var entry = (listSide == .ours ? ourTrash : theirTrash)[key] {
        entry.item = value
        trashed[key] = entry
      } else {
        continue
      }
      values[key] = value
    }

    // The items: ours in our order, then each whose place the copy decides put in before
    // the item that follows it in the copy (or at the end).
    func placedByTheirs(_ key: String) -> Bool {
      switch side(key, .place) {
      case .theirs: return true
      case .ours: return ourItems[key] == nil
      case nil: return side(key, .list) == .theirs || ourItems[key] == nil
      }
    }
    var order = ours.items.map(\.id).filter { inItems.contains($0) && !placedByTheirs($0) }
    var placed = Set(order)
    let theirOrder = theirs.items.map(\.id)
    for (index, key) in theirOrder.enumerated().reversed() where inItems.contains(key) && placedByTheirs(key) {
      let next = theirOrder[(index + 1)...].first { placed.contains($0) }
      order.insert(key, at: next.flatMap { order.firstIndex(of: $0) } ?? order.endIndex)
      placed.insert(key)
    }
    order += keys.filter { inItems.contains($0) && !placed.contains($0) }

    // The trash: ours in our order, then what the copy trashed.
    var trashOrder = ours.trash.map(\.item.id).filter { trashed[$0] != nil }
    let inTrash = Set(trashOrder)
    trashOrder += theirs.trash.map(\.item.id).filter { trashed[$0] != nil && !inTrash.contains($0) }

    var model = ours
    model.items = order.map { values[$0]! }
    model.trash = trashOrder.map { trashed[$0]! }
    if let decided = winner(ourTouches.title, theirTouches.title) {
      if decided.side == .theirs { model.title = theirs.title }
      if decided.both { conflicts.append("title: " + describe([(nil, decided.side)])) }
    }
    if let decided = winner(ourTouches.settings, theirTouches.settings) {
      if decided.side == .theirs { model.settings = theirs.settings }
      if decided.both { conflicts.append("settings: " + describe([(nil, decided.side)])) }
    }
    if winner(ourTouches.moveOffers, theirTouches.moveOffers)?.side == .theirs { model.moveOffers = theirs.moveOffers }
    return Outcome(model: model, conflicts: conflicts)
  }

  /// A three-way merge of tag sets: the base, with both sides' additions and without both
  /// sides' removals.
  static func mergedTags(base: [String]?, ours: [String]?, theirs: [String]?) -> [String]? {
    let (base, ours, theirs) = (Set(base ?? []), Set(ours ?? []), Set(theirs ?? []))
    let added = ours.subtracting(base).union(theirs.subtracting(base))
    let removed = base.subtracting(ours).union(base.subtracting(theirs))
    return Item.tagSet(Array(base.union(added).subtracting(removed)))
  }

  /// "took the copy's later change", or, when the sides won different ways, each named.
  private static func describe(_ decisions: [(aspect: Aspect?, side: Side)]) -> String {
    func whose(_ side: Side) -> String { side == .theirs ? "took the copy's later" : "kept this document's later" }
    if let first = decisions.first, decisions.allSatisfy({ $0.side == first.side }) { return whose(first.side) + " change" }
    return decisions.map { whose($0.side) + " " + ($0.aspect?.name ?? "change") }.joined(separator: ", ")
  }
}
