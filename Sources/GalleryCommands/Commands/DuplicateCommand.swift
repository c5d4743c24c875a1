import ArgumentParser
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct DuplicateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "duplicate",
    abstract: "Copy a document.",
    discussion: """
      Without NEW, the copy is "NAME copy.gallery" (then "NAME copy 2.gallery", ...) beside \
      DOC. The copy holds the live entries only (no dead bytes), with its own title. Never \
      overwrites (exit status 73). Standard output gives the path made.
      """)

  @OptionGroup var target: DocumentArgument

  @Argument(help: "The name of the copy.")
  var new: String?

  func run() throws {
    let path =
      try new.map { try DocumentFiles.target($0, beside: target.document) } ?? DocumentFiles.copyName(of: target.document)
    try DocumentFiles.duplicate(target.document, to: path)
    RecentDocuments.note(path)
    Terminal.path(path)
  }
}
