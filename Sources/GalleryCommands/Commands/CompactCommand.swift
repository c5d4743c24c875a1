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
      reclaim by themselves once they pass half the file. This does it now: the document \
      is written to a temporary file, synced, and renamed over the old one.
      """)

  @OptionGroup var target: DocumentArgument

  func run() throws {
    let sizes = try GalleryDocument.compact(target.document)
    Terminal.message("compacted \(target.document): \(sizes.before) -> \(sizes.after) bytes")
  }
}
