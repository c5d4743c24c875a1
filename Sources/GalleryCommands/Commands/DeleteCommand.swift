import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct DeleteCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete",
    abstract: "Move a document to the Trash.",
    discussion: """
      Moves DOC to the freedesktop.org Trash ($XDG_DATA_HOME/Trash, with a .trashinfo), \
      where a file manager can restore it. --permanently deletes it instead.
      """)

  @OptionGroup var target: DocumentArgument

  @Flag(help: "Delete the file for good instead of moving it to the Trash.")
  var permanently = false

  func run() throws {
    if permanently {
      _ = try GalleryDocument.openLazily(target.document)  // a document, not any file
      do { try FileSystem.removeFile(target.document) } catch { throw DocumentError.io(error) }
      Terminal.message("deleted \(target.document)")
    } else {
      let trashed = try DocumentFiles.moveToTrash(target.document)
      Terminal.message("moved \(target.document) to the Trash (\(trashed))")
    }
    RecentDocuments.forget(target.document)
  }
}
