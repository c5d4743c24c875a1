import ArgumentParser
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct NewCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "new",
    abstract: "Create an empty gallery document.",
    discussion: """
      Without DOC, makes Untitled.gallery (or Untitled 2.gallery, ...) in the current \
      folder. Refuses to overwrite an existing file (exit status 73). Standard output \
      gives the path made.
      """)

  @Argument(
    help: "The document to create (default: Untitled.gallery).", completion: .file(extensions: ["gallery"]),
    transform: PathArgument.local)
  var document: String?

  @Option(help: "The title (default: the file name without .gallery).")
  var title: String?

  @Option(help: "Longest side of thumbnails, in pixels.")
  var thumbnailSize = 256

  @Option(help: "Refuse images with more pixels than this (decompression bombs).")
  var maxPixels = 100_000_000

  @Flag(help: "Embed the original bytes of every image dropped into this document.")
  var embed = false

  func validate() throws {
    guard (16...2048).contains(thumbnailSize) else { throw ValidationError("--thumbnail-size must be between 16 and 2048") }
    guard ModelValidation.Limits.maxPixels.contains(maxPixels) else {
      throw ValidationError("--max-pixels must be from 1 to 10^12")
    }
  }

  func run() throws {
    var settings = GalleryModel.Settings()
    settings.thumbnailSize = thumbnailSize
    settings.maxPixels = maxPixels
    settings.embedOriginals = embed
    let path = document ?? DocumentFiles.untitled(in: ".")
    let created = try GalleryDocument.create(path, title: title, settings: settings)
    RecentDocuments.note(created.path)
    Terminal.path(created.path)
    Terminal.message("created \(created.path) (\"\(created.model.title)\")")
  }
}
