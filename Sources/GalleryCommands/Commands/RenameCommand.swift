import ArgumentParser
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct RenameCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rename",
    abstract: "Rename a document: its file and its title.",
    discussion: "NEW without a folder stays beside DOC; .gallery is added when missing. Never overwrites (exit status 73).")

  @OptionGroup var target: DocumentArgument

  @Argument(help: "The new name.")
  var new: String

  func run() throws {
    let path = try DocumentFiles.target(new, beside: target.document)
    try DocumentFiles.rename(target.document, to: path)
    RecentDocuments.forget(target.document)
    RecentDocuments.note(path)
    Terminal.path(path)
  }
}
