import ArgumentParser
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct MergeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge",
    abstract: "Merge galleries.",
    discussion: """
      The items of each document in order, the same content only once; thumbnails (and \
      embedded originals) are carried over, nothing is refetched. -o makes a new document \
      (never over an existing file); --into adds to an existing one.

      --conflict DOC COPY merges a conflict copy that a sync tool made (Syncthing's \
      NAME.sync-conflict-..., Dropbox's and Nextcloud's "NAME (conflicted copy ...)") back \
      into DOC: what COPY changed since the last revision both share is merged into DOC as \
      it is now, as one revision. Both sides' drops are kept; an item changed in different \
      ways (moved on one side, trashed on the other) takes both; an item changed the same \
      way on both sides (moved, trashed or restored, loaded) takes the later edit, by time \
      (the same second: by revision id), and is reported once; but tags are a set, both \
      sides' additions and removals kept, and an item whose sides differ by tags alone is \
      not reported (unless together they pass the 500 an item holds: then the later \
      side's, reported). The title and settings likewise. Then COPY goes to the Trash. \
      `gallery check` and `gallery browse` point out conflict copies.
      """)

  @Argument(help: "The documents to merge.", completion: .file(extensions: ["gallery"]), transform: PathArgument.local)
  var documents: [String]

  @Option(
    name: .customShort("o"), help: "A new document to make.", completion: .file(extensions: ["gallery"]),
    transform: PathArgument.local)
  var output: String?

  @Option(
    help: "An existing document to merge into (it comes first).", completion: .file(extensions: ["gallery"]),
    transform: PathArgument.local)
  var into: String?

  @Flag(help: "Merge a sync tool's conflict copy back: DOC COPY.")
  var conflict = false

  @Flag(help: "With --conflict, write what was done as JSON.")
  var json = false

  func validate() throws {
    if conflict {
      guard documents.count == 2, output == nil, into == nil else {
        throw ValidationError("--conflict takes the document and its conflict copy: DOC COPY")
      }
      return
    }
    if json { throw ValidationError("--json goes with --conflict") }
    guard (output == nil) != (into == nil) else {
      throw ValidationError("give -o NEW.gallery or --into DOC.gallery (one of them)")
    }
    guard !documents.isEmpty else { throw ValidationError("name the documents to merge") }
  }

  func run() throws {
    if conflict { return try mergeConflict() }
    let target = output ?? into!
    let sources = documents.filter { $0 != target }
    let added = try DocumentMerge.merge(sources, into: target, create: output != nil)
    RecentDocuments.note(target)
    Terminal.message("merged \(added.count) item\(added.count == 1 ? "" : "s") into \(target)")
  }
}

extension MergeCommand {
  func mergeConflict() throws {
    let report = try DocumentConflict.merge(documents[1], into: documents[0])
    if json {
      try JSONOutput.write(report)
    } else {
      Terminal.message(
        "merged \(documents[1]) into \(documents[0]) as r\(report.revision ?? 0): "
          + "\(JournalRecord.counted(report.theirs, "operation")) of the copy applied after r\(report.base), "
          + "\(JournalRecord.counted(report.ours, "operation")) of the document kept")
      for conflict in report.conflicts { Terminal.message("  both changed \(TerminalText.escaped(conflict))") }
      if let trashed = report.copyTrashedTo { Terminal.message("the copy is in the Trash: \(trashed)") }
    }
  }
}
