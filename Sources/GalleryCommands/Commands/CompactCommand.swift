import ArgumentParser
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct CompactCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "compact",
    abstract: "Rewrite a document without its dead bytes.",
    discussion: """
      Saves append to the document; superseded revisions become dead bytes, which saves \
      reclaim by themselves once they pass half the file (when the disk has room for a \
      copy of what is live). This does it now: the document \
      is written to a temporary file, synced, and renamed over the old one. `gallery.json` \
      is then the current model. The history is kept as its settings say (the last 1,000 \
      operations or 90 days), with the thumbnails that undo may need.
      """)

  @OptionGroup var target: DocumentArgument

  @Flag(help: "Drop the history: nothing before now can be undone or shown with `show --at`.")
  var forgetHistory = false

  func run() throws {
    let sizes = try GalleryDocument.compact(target.document, forgettingHistory: forgetHistory)
    Terminal.message("compacted \(target.document): \(sizes.before) -> \(sizes.after) bytes")
  }
}
