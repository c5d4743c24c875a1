import ArgumentParser
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct CheckCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Verify a document.",
    discussion: """
      Checks that the document opens, that every item has its thumbnail and that it \
      decodes, that ids are unique and states consistent, and that there are no orphan \
      entries. Prints the problems found (exit status 1), or nothing (exit status 0).

      Every rule of the model is checked (ids, entry names, numbers, dates, strings); a \
      document whose only model breaks rules cannot be opened: check lists every problem and \
      exits 65. Damage in the archive (a header that is not one, a link or sparse entry, a \
      revision that does not decode) makes a document read-only: it is reported here.

      With --fix, first rescues a damaged document (what could be read becomes a new, clean \
      document at the same path; items whose thumbnail was lost become failed items that \
      `gallery retry` loads again; the damaged file is kept as NAME.gallery.damaged), removes \
      stale placeholders (left by a drop whose process was killed; one whose image the \
      document holds, given on standard input, a clipboard or a page, becomes a failed item \
      that `gallery retry` loads) and rewrites the document \
      without orphan entries or an interrupted save's tail; then checks.
      """)

  @OptionGroup var target: DocumentArgument
  @OptionGroup var output: OutputOptions

  @Flag(help: "Remove stale placeholders and orphan entries before checking.")
  var fix = false

  func run() throws {
    if fix {
      if let backup = try DocumentCheck.rescue(target.document) {
        Terminal.message("rescued what could be read into a new revision; the damaged file is kept as \(backup)")
      }
      let (removed, kept) = try DocumentCheck.fix(target.document)
      if removed > 0 { Terminal.message("removed \(removed) stale placeholder\(removed == 1 ? "" : "s")") }
      if kept > 0 {
        Terminal.message(
          "kept \(kept) stale placeholder\(kept == 1 ? "" : "s") as failed: the document holds the image, "
            + "`gallery retry` loads it")
      }
    }
    let document = try openListingProblems()
    let report = DocumentCheck.run(document)
    if output.json {
      try JSONOutput.write(report)
    } else {
      Terminal.out(report.problems.map { "problem: \(TerminalText.escaped($0))\n" }.joined())
      if let note = report.note { Terminal.message(note) }
    }
    // Not problems of this file: loads another machine runs, and edits made elsewhere that
    // it does not show yet.
    RetryCommand.noteElsewhere(try GalleryDocument.summary(target.document).summary.placeholders)
    for copy in DocumentConflict.copies(of: target.document) {
      Terminal.message(
        "note: \(TerminalText.escaped(copy)) is a conflict copy of this document: "
          + "`gallery merge --conflict \(TerminalText.escaped(target.document)) COPY` merges its edits")
    }
    if !report.problems.isEmpty { throw ExitCode(ExitStatus.partial) }
  }

  /// Opens the document; when nothing readable opens, lists every rule the model breaks.
  private func openListingProblems() throws -> GalleryDocument {
    // A Result, not do/catch: the typed throw of `open` in a do/catch whose handler throws
    // something else crashes Swift 6.3's ownership verifier.
    let opened = Result { () throws(DocumentError) in try GalleryDocument.open(target.document, scanningWhole: true) }
    guard case .failure(.invalid(let path, let problems)) = opened else { return try opened.get() }
    if output.json {
      try JSONOutput.write(CheckReport(problems: problems, note: PathBytes.displayed(path) + " cannot be opened"))
    } else {
      Terminal.out(problems.map { "problem: \(TerminalText.escaped($0))\n" }.joined())
    }
    throw ExitCode(ExitStatus.dataError)
  }
}
