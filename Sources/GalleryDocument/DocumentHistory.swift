import Foundation
import GalleryModel
import GallerySystem

/// The document's history: its journal records, and undo, redo and revert as new revisions
/// (so that other processes see them, under the same lock as every edit).
public enum DocumentHistory {
  /// What an undo, redo or revert did.
  public struct Outcome: Sendable, Encodable {
    /// The revision it made.
    public var revision: Int
    /// The revision it took back or brought back (the target of a revert).
    public var target: Int
    public var summary: String
    /// What could not be done, because other edits changed those items since.
    public var skipped: [String]
  }

  public enum Failure: Error, CustomStringConvertible, GalleryError {
    case nothingToUndo(String)
    case nothingToRedo(String)

    public var description: String {
      switch self {
      case .nothingToUndo(let path): "\(path): nothing to undo (the history kept has no operation left to take back)"
      case .nothingToRedo(let path): "\(path): nothing to redo"
      }
    }
  }

  /// Takes back the last operation that can be.
  public static func undo(_ path: String) throws -> Outcome { try step(path, back: true) }

  /// Brings back the last operation undone, if no other operation was made since.
  public static func redo(_ path: String) throws -> Outcome { try step(path, back: false) }

  /// An undo (`back`, the operation's changes reversed, last first) or a redo.
  private static func step(_ path: String, back: Bool) throws -> Outcome {
    try GalleryDocument.edit(path) { edit in
      let stack = try edit.history.undoStack()
      guard let target = (back ? stack.undoable : stack.redoable).last,
        let records = try operation(target, in: edit.history, stack: stack)
      else { throw back ? Failure.nothingToUndo(path) : Failure.nothingToRedo(path) }
      var skipped: [String] = []
      let read = edit.read
      do {
        for record in back ? records.reversed() : records {
          skipped += try (back ? record.change.reversed : record.change).apply(to: &edit.working, reading: read)
        }
      } catch { throw edit.damage(error) }
      if back { edit.undoing = target } else { edit.redoing = target }
      edit.summary = "\(back ? "undo" : "redo") of r\(target) (\(records[0].summary))"
      return Outcome(revision: edit.revision + 1, target: target, summary: edit.summary!, skipped: skipped)
    }
  }

  /// The records of the operation that starts at `first` (read alone from a long history),
  /// when the history holds them all.
  private static func operation(_ first: Int, in history: History, stack: UndoStack) throws -> [JournalRecord]? {
    let records = try history.records(Set(stack.operations[first] ?? []))
    return records.isEmpty ? nil : records
  }

  /// Makes the document as it was at `revision`, as a new revision. A revision inside an
  /// operation (a drop's placeholders) is taken as the end of that operation.
  public static func revert(_ path: String, to asked: Int) throws -> Outcome {
    try GalleryDocument.edit(path) { edit in
      let revision = try edit.history.undoStack().settled(asked)
      var model = try edit.wholeModel()
      let past = try ModelHistory.model(
        at: revision, from: model, history: try edit.history.records(from: revision), kept: edit.history.revisions)
      model.items = past.items
      model.trash = past.trash
      model.title = past.title
      model.settings = past.settings
      edit.replaceModel(model)
      edit.summary = "revert to r\(revision)"
      edit.recordEvenIfUnchanged = true
      return Outcome(revision: edit.revision + 1, target: revision, summary: edit.summary!, skipped: [])
    }
  }
}

extension GalleryDocument {
  /// The history this document keeps, oldest first (decoded now: opening read only where
  /// each record stands).
  public func history() throws -> [JournalRecord] { try layout.history.records() }

  /// The revisions of the history this document keeps, oldest first.
  public var historyRevisions: [Int] { layout.history.revisions }

  /// The undo stack of its history (read from the index, with the records after it).
  public func undoStack() throws -> UndoStack { try layout.history.undoStack() }

  /// These revisions' records without their change (left empty): what made each and when.
  public func historyRecordsWithoutChange(_ revisions: Set<Int>) throws -> [Int: JournalRecord] {
    try layout.history.headers(revisions)
  }

  /// The model as it was at `revision`; inside an operation (a drop's placeholders), as
  /// that operation ended.
  public func model(at revision: Int) throws -> GalleryModel {
    guard revision != model.revision else { return model }
    let settled = try layout.history.undoStack().settled(revision)
    return try ModelHistory.model(
      at: settled, from: model, history: try layout.history.records(from: settled), kept: layout.history.revisions)
  }
}

extension ModelHistory.Beyond: GalleryError {}
