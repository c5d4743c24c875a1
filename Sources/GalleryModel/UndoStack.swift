import Foundation

/// Which operations undo and redo take next, read from the history as an editor's undo
/// stack: an operation can be undone; an undo can be redone until a new operation is made;
/// undoing a redo takes the redo back. An operation is named by its first revision; a record
/// that `continues` one (a drop's commit) belongs to it, and so does a record that only
/// settles placeholders an operation still on the stack put in (a drop folder's or a
/// paste's commit): undo takes a drop back whole, never back to its placeholders.
public struct UndoStack: Sendable, Equatable {
  /// Operations undo takes back, the last first.
  public private(set) var undoable: [Int] = []
  /// Operations redo brings back, the last first.
  public private(set) var redoable: [Int] = []
  /// The revisions of each operation, in order.
  public private(set) var operations: [Int: [Int]] = [:]
  /// The operation each revision belongs to, by its first revision.
  public private(set) var operationOf: [Int: Int] = [:]

  public init(_ history: [JournalRecord]) {
    // Which operation put each placeholder in.
    var placedBy: [String: Int] = [:]
    for record in history {
      if record.undoing == nil, record.redoing == nil,
        let first = record.continues ?? Self.settled(record.change).compactMap({ placedBy[$0] }).max(),
        operations[first] != nil, undoable.contains(first)
      {
        operations[first]!.append(record.revision)
        operationOf[record.revision] = first
        continue
      }
      operations[record.revision] = [record.revision]
      operationOf[record.revision] = record.revision
      for placed in record.change.items.inserted where placed.element.state == .placeholder {
        placedBy[placed.element.key] = record.revision
      }
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
  /// first, exactly.
  public static func model(
    at revision: Int, from model: GalleryModel, history: [JournalRecord]
  ) throws -> GalleryModel {
    guard revision < model.revision else {
      if revision == model.revision { return model }
      throw Beyond(revision: revision, oldest: oldest(model, history), latest: model.revision)
    }
    let byRevision = Dictionary(history.map { ($0.revision, $0) }) { _, last in last }
    var result = ReplayingModel(model)
    var ids = model.ids
    while result.head.revision > revision {
      guard let record = byRevision[result.head.revision], revision >= 0 else {
        throw Beyond(revision: revision, oldest: oldest(model, history))
      }
      do { try record.change.reversed.replay(on: &result, ids: &ids) } catch {
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
