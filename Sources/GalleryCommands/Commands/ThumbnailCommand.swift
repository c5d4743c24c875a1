import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct ThumbnailCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "thumbnail",
    abstract: "Write a document's cover at a size (for file-manager thumbnailers).",
    discussion: """
      The format follows OUT's extension (.png, .jpg, .webp); thumbnailers run `gallery \
      thumbnail %i %o %s`. An existing OUT is written in place (the same file: Thunar's \
      tumbler creates it and reads it through the descriptor it holds). OUT - writes a PNG \
      to standard output.
      """)

  @OptionGroup var target: DocumentArgument

  @Argument(help: "The image to write, or - for standard output (PNG).", completion: .file())
  var output: String

  @Argument(help: "Width and height in pixels.")
  var size: Int

  func validate() throws {
    guard (16...2048).contains(size) else { throw ValidationError("SIZE must be between 16 and 2048") }
  }

  func run() throws {
    let document = try target.open()
    if output == "-" { return Terminal.out(Array(try document.cover(size: size, suffix: ".png"))) }
    let ext = (output as NSString).pathExtension.lowercased()
    let suffix = ["jpg", "jpeg", "webp", "png"].contains(ext) ? "." + ext : ".png"
    try OutputFile.writeInPlace(output, data: document.cover(size: size, suffix: suffix))
  }
}
