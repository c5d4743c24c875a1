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
    discussion: """
      NEW without a folder stays beside DOC; .gallery is added when missing. Never overwrites \
      (exit status 73). Drop folders' configuration files that name DOC (each *.conf in \
      $XDG_CONFIG_HOME/gallery, see gallery watch) are rewritten to name NEW.
      """)

  @OptionGroup var target: DocumentArgument

  @Argument(help: "The new name.")
  var new: String

  func run() throws {
    let path = try DocumentFiles.target(new, beside: target.document)
    let followed = try DocumentFiles.renameFollowed(target.document, to: path)
    for file in followed.rewritten { Terminal.message("\(PathBytes.displayed(file)) now names \(PathBytes.displayed(path))") }
    for file in followed.unwritable {
      Terminal.message("warning: \(PathBytes.displayed(file)) names the old name and could not be rewritten")
    }
    Terminal.path(path)
  }
}
