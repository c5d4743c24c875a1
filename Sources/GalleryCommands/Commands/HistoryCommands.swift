import ArgumentParser
import Foundation
import GalleryDocument
import GalleryModel
import GallerySystem

/// A revision on the command line: `42` or `r42`.
struct RevisionArgument: ExpressibleByArgument {
  var value: Int

  init?(argument: String) {
    let digits = argument.hasPrefix("r") ? String(argument.dropFirst()) : argument
    guard let value = Int(digits), ModelValidation.Limits.counter.contains(value) else { return nil }
    self.value = value
  }
}

struct HistoryCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "history",
    abstract: "List a document's history: its revisions, newest first.",
    discussion: """
      Every save is a revision: when, and what made it (`drop: 3 images`, `move: 2 items`, \
      `undo of r42 (...)`). An operation is one line, at the revision where it ended: a \
      drop's placeholder save and its commits show as `drop: 3 images loaded  (r41-r42)`, \
      and `show --at` or `revert --to` a revision inside it give the drop as loaded. The \
      document keeps the last 1,000 operations or those of the \
      last 90 days, whichever is more (settings `historyOperations` and `historyDays`); \
      `gallery compact --forget-history` drops it. `gallery show --at REV` shows a past \
      revision, `gallery undo`, `redo` and `revert` go back and forth as new revisions.
      """)

  @OptionGroup var target: DocumentArgument
  @OptionGroup var output: OutputOptions

  @Option(help: "Show at most N revisions (the newest).")
  var limit: Int?

  func validate() throws {
    if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
  }

  func run() throws {
    // The history, not the items: a gallery of 100,000 is not read for it.
    let document = try target.open(lazily: true)
    let stack = try document.undoStack()
    // One line per operation, at the revision where it ended: a drop's placeholder save
    // and its commits are one drop. Only the records shown are read, without their change.
    var shown = document.historyRevisions.reversed().filter { stack.settled(stack.operationOf[$0] ?? $0) == $0 }
    if let limit { shown = Array(shown.prefix(limit)) }
    let records = try document.historyRecordsWithoutChange(Set(shown))
    let lines = shown.compactMap { revision in
      records[revision].map { HistoryLine(record: $0, first: stack.operationOf[revision] ?? revision, stack: stack) }
    }
    if output.json {
      try JSONOutput.write(lines)
      return
    }
    Terminal.out(
      lines.map { line in
        let mark = line.nextUndo ? "  (next undo)" : line.nextRedo ? "  (next redo)" : ""
        let span = line.first == line.revision ? "" : "  (r\(line.first)-r\(line.revision))"
        return "r\(line.revision)".leftPadded(to: 7) + "  \(timeText(line.time))  "
          + TerminalText.escaped(line.summary) + span + mark + "\n"
      }.joined())
  }
}

/// A time as `history` shows it: ISO 8601, UTC.
private func timeText(_ time: Date) -> String {
  var writer = JSONWriter(capacity: 32)
  writer.date(time)
  return String(decoding: writer.bytes.dropFirst().dropLast(), as: UTF8.self)
}

/// One operation in `history --json`, at the revision where it ended.
struct HistoryLine: Encodable {
  var revision: Int
  var id: String
  var parent: String?
  var time: Date
  var summary: String
  var undoing: Int?
  var redoing: Int?
  var continues: Int?
  /// The operation's first revision (undo and redo name an operation by it).
  var first: Int
  var nextUndo: Bool
  var nextRedo: Bool

  /// `record` is the operation's last record (read without its change).
  init(record: JournalRecord, first: Int, stack: UndoStack) {
    (revision, id, parent, time) = (record.revision, record.id, record.parent, record.time)
    // Text that may name a file (a drop folder's), written before summaries showed its bytes.
    summary = PathBytes.displayed(record.summary)
    (undoing, redoing, continues) = (record.undoing, record.redoing, record.continues)
    self.first = first
    nextUndo = stack.undoable.last == first
    nextRedo = stack.redoable.last == first
  }
}

/// Up to `steps` undos or redos: stops early, without an error, when the history runs out
/// after at least one.
private func repeating(_ steps: Int, _ step: () throws -> DocumentHistory.Outcome) throws -> [DocumentHistory.Outcome] {
  var outcomes: [DocumentHistory.Outcome] = []
  for _ in 0..<steps {
    do { outcomes.append(try step()) } catch let error as DocumentHistory.Failure where !outcomes.isEmpty {
      Terminal.message("\(error) after \(outcomes.count)")
      break
    }
  }
  return outcomes
}

/// Says what an undo, redo or revert did; exits 1 when part of it could not be done.
private func report(_ outcomes: [DocumentHistory.Outcome], json: Bool) throws {
  if json {
    try JSONOutput.write(outcomes)
  } else {
    for outcome in outcomes {
      Terminal.message("r\(outcome.revision): \(TerminalText.escaped(outcome.summary))")
      for skipped in outcome.skipped { Terminal.message("  not done: \(TerminalText.escaped(skipped))") }
    }
  }
  let skipped = outcomes.reduce(0) { $0 + $1.skipped.count }
  if skipped > 0 { throw ExitCode(ExitStatus.partial) }
}

/// What undo and redo share: the document, how many operations, JSON output.
struct HistorySteps: ParsableArguments {
  @OptionGroup var target: DocumentArgument

  @Argument(help: "How many operations.")
  var steps: Int = 1

  @Flag(help: "Write what was done as JSON.")
  var json = false

  func validate() throws {
    guard steps >= 1 else { throw ValidationError("STEPS must be at least 1") }
  }

  func run(_ step: (String) throws -> DocumentHistory.Outcome) throws {
    try report(try repeating(steps) { try step(target.document) }, json: json)
  }
}

struct UndoCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "undo",
    abstract: "Take back the last operations, as new revisions.",
    discussion: """
      Works on the items as they are now: undoing a drop removes those items wherever they \
      moved since, undoing a trash puts them back, undoing `trash --empty` brings the items \
      back into the trash. What another operation changed since is named and left alone \
      (exit status 1); the rest is done. Exit status 66 when there is nothing to undo.
      """)

  @OptionGroup var options: HistorySteps

  func run() throws { try options.run(DocumentHistory.undo) }
}

struct RedoCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "redo",
    abstract: "Bring back operations that undo took back, as new revisions.",
    discussion: "Possible until another operation is made. Exit status 66 when there is nothing to redo.")

  @OptionGroup var options: HistorySteps

  func run() throws { try options.run(DocumentHistory.redo) }
}

struct RevertCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "revert",
    abstract: "Make the document as it was at a past revision, as a new revision.",
    discussion: """
      Items, trash, title and settings become those of REV; the revisions in between stay \
      in the history, so the revert can itself be undone. Exit status 66 when REV is older \
      than the history kept.
      """)

  @OptionGroup var target: DocumentArgument

  @Option(help: "The revision (`42` or `r42`, from `gallery history`).")
  var to: RevisionArgument

  @Flag(help: "Write what was done as JSON.")
  var json = false

  func run() throws {
    try report([try DocumentHistory.revert(target.document, to: to.value)], json: json)
  }
}
