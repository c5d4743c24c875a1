import Foundation

/// Which operations undo and redo take next, read from the history as an editor's undo
/// stack: an operation can be undone; an undo can be redone until a new operation is made;
/// undoing a redo takes the redo back. An operation is named by its first revision; a record
/// that `continues` one (a drop's commit) belongs to it, and so does a record that only
/// settles placeholders an operation still on the stack put in (a drop folder's or a
/// paste's commit): undo takes a drop back whole, never back to its placeholders.
///
/// It is a fold over the records, oldest first, and depends on nothing else: the index
/// stores it as it stands at its checkpoint, so that undo in a long history reads only the
/// records after it (and those of the operation it takes back).
public struct UndoStack: Sendable, Equatable {
  /// Operations undo takes back, the last first.
  public private(set) var undoable: [Int] = []
  /// Operations redo brings back, the last first.
  public private(set) var redoable: [Int] = []
  /// The revisions of each operation, in order.
  public private(set) var operations: [Int: [Int]] = [:]
  /// The operation each revision belongs to, by its first revision.
  public private(set) var operationOf: [Int: Int] = [:]
  /// The operation that made each item that is still a placeholder one.
  public private(set) var placedBy: [String: Int] = [:]

  public init() {}

  public init(_ history: [JournalRecord]) {
    for record in history { add(record) }
  }

  /// A stack as stored: its operations (each revision in exactly one, listed by its first),
  /// undoable and redoable ones among them, and the placeholders' operations.
  public init(
    undoable: [Int], redoable: [Int], operations: [[Int]], placedBy: [String: Int]
  ) throws(ChangeMismatch) {
    for revisions in operations {
      guard let first = revisions.first, revisions == revisions.sorted(), self.operations[first] == nil else {
        throw ChangeMismatch("an operation of the undo stack is empty, out of order or listed twice")
      }
      self.operations[first] = revisions
      for revision in revisions {
        guard operationOf.updateValue(first, forKey: revision) == nil else {
          throw ChangeMismatch("the undo stack puts r\(revision) in two operations")
        }
      }
    }
    guard (undoable + redoable + placedBy.values).allSatisfy({ self.operations[$0] != nil }) else {
      throw ChangeMismatch("the undo stack names an operation it does not list")
    }
    self.undoable = undoable
    self.redoable = redoable
    self.placedBy = placedBy
  }

  /// The stack with one more record, the history's next.
  public mutating func add(_ record: JournalRecord) {
    let change = record.change
    let settled = Self.settled(change)
    var operation = record.revision
    if record.undoing == nil, record.redoing == nil,
      let first = record.continues ?? settled.compactMap({ placedBy[$0] }).max(),
      operations[first] != nil, undoable.contains(first)
    {
      operations[first]!.append(record.revision)
      operation = first
    } else {
      operations[record.revision] = [record.revision]
      if let undone = record.undoing {
        if let index = undoable.lastIndex(of: undone) { undoable.remove(at: index) }
        redoable.append(undone)
      } else if let redone = record.redoing {
        if let index = redoable.lastIndex(of: redone) { redoable.remove(at: index) }
        undoable.append(record.revision)
      } else {
        undoable.append(record.revision)
        redoable = []
      }
    }
    operationOf[record.revision] = operation
    // Only placeholders are remembered: an item settled or taken out is forgotten, one made
    // a placeholder (put in, or loaded again) is the operation's that did it.
    for key in settled { placedBy[key] = nil }
    for removed in change.items.removed { placedBy[removed.element.key] = nil }
    for placed in change.items.inserted where placed.element.state == .placeholder {
      placedBy[placed.element.key] = operation
    }
    for update in change.items.updated where update.after.state == .placeholder && update.before.state != .placeholder {
      placedBy[update.after.key] = operation
    }
  }
}

extension UndoStack {
  /// The revision where the operation holding `revision` ends: a drop is one operation from
  /// its placeholders to its last commit, and a past state inside it is the drop as loaded.
  public func settled(_ revision: Int) -> Int {
    guard let first = operationOf[revision], let last = operations[first]?.last else { return revision }
    return max(revision, last)
  }

  /// The placeholders a change settles, when that is all it does (loaded, failed or
  /// removed); empty otherwise.
  static func settled(_ change: ModelChange) -> [String] {
    let items = change.items
    guard change.trash.isEmpty, change.head == nil, items.inserted.isEmpty, items.moved.isEmpty,
      items.updated.allSatisfy({ $0.before.state == .placeholder }),
      items.removed.allSatisfy({ $0.element.state == .placeholder })
    else { return [] }
    return items.updated.map(\.before.key) + items.removed.map(\.element.key)
  }
}

/// Past states of a model, rebuilt from the history.
public enum ModelHistory {
  public struct Beyond: Error, CustomStringConvertible, Sendable {
    public var revision: Int
    public var oldest: Int
    /// The document's revision: a revision after it is in the future, not forgotten.
    public var latest: Int?
    public var description: String {
      if let latest, revision > latest {
        return "revision \(revision) is in the future: the document is at r\(latest)"
      }
      return "revision \(revision) is beyond the history this document keeps (the oldest it can show is r\(oldest))"
    }
  }

  /// The model as it was at `revision`: `model` with the records after it taken back, newest
  /// first, exactly. `history` needs to hold only the records from `revision` on; `kept`,
  /// the revisions of the whole history, says how far back it goes when it does not.
  public static func model(
    at revision: Int, from model: GalleryModel, history: [JournalRecord], kept: [Int]? = nil
  ) throws -> GalleryModel {
    func oldest() -> Int { Self.oldest(model, revisions: kept ?? history.map(\.revision)) }
    guard revision < model.revision else {
      if revision == model.revision { return model }
      throw Beyond(revision: revision, oldest: oldest(), latest: model.revision)
    }
    let byRevision = Dictionary(history.map { ($0.revision, $0) }) { _, last in last }
    var result = WorkingModel(model)
    var ids = ModelIDs(model.ids)
    while result.head.revision > revision {
      guard let record = byRevision[result.head.revision], revision >= 0 else {
        throw Beyond(revision: revision, oldest: oldest())
      }
      do { try record.change.reversed.replay(on: &result, ids: &ids, reading: WorkingModel.neverStored) } catch {
        throw ChangeMismatch("the history does not lead back to r\(revision): r\(record.revision) does not take back (\(error))")
      }
      result.head.revision -= 1
      result.head.revisionID = record.parent
      if let before = byRevision[result.head.revision] { result.head.modified = before.time }
    }
    return result.current
  }

  /// The oldest revision the history can rebuild.
  public static func oldest(_ model: GalleryModel, _ history: [JournalRecord]) -> Int {
    oldest(model, revisions: history.map(\.revision))
  }

  /// The oldest revision a history of these revisions can rebuild.
  public static func oldest(_ model: GalleryModel, revisions: [Int]) -> Int {
    var oldest = model.revision
    let revisions = Set(revisions)
    while revisions.contains(oldest) { oldest -= 1 }
    return max(0, oldest)
  }
}
