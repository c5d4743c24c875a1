import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

extension ContactSheet.Caption: ExpressibleByArgument {}

struct SheetCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sheet",
    abstract: "Draw a contact sheet of a gallery.",
    discussion: """
      Rows of thumbnails at their aspect ratios, each row filling the width, like the \
      classic app's collection view; --row-height and --columns are its pinch to zoom. \
      Placeholders are drawn grey, failed items pale red. The format follows OUT's \
      extension (.png, .jpg, .webp).

      --json writes where each item's tile goes instead (or as well, with -o): the sheet's \
      width and height, and for each item its id, position, x, y, width and height in \
      pixels. The browser view (`gallery open`) lays out its tiles the same way.
      """)

  @OptionGroup var target: DocumentArgument

  @Option(name: .customShort("o"), help: "The image to write.", completion: .file())
  var output: String?

  @Option(help: "Items per row.")
  var columns: Int?

  @Option(help: "Target row height in pixels (default 160).")
  var rowHeight: Int?

  @Option(help: "Sheet width in pixels.")
  var width = 1200

  @Option(help: "A caption under each image: position, id or name (its file name).")
  var captions: ContactSheet.Caption?

  @Flag(help: "Write the layout (each tile's place and size) as JSON.")
  var json = false

  func validate() throws {
    if columns != nil && rowHeight != nil { throw ValidationError("give --columns or --row-height, not both") }
    if let columns, !(1...1000).contains(columns) { throw ValidationError("--columns must be between 1 and 1000") }
    if let rowHeight, !(8...2048).contains(rowHeight) { throw ValidationError("--row-height must be between 8 and 2048") }
    guard (64...16384).contains(width) else { throw ValidationError("--width must be between 64 and 16384") }
    guard output != nil || json else { throw ValidationError("give -o OUT for the sheet, or --json for its layout") }
    let ext = ((output ?? "") as NSString).pathExtension.lowercased()
    guard ext.isEmpty || ["png", "jpg", "jpeg", "webp", "tif", "tiff"].contains(ext) else {
      throw ValidationError("a sheet is written as .png, .jpg, .webp or .tif, not .\(ext)")
    }
  }

  func run() throws {
    let document = try target.open()
    let layout: ContactSheet.Layout = columns.map { .columns($0) } ?? .rowHeight(rowHeight ?? 160)
    if json {
      let items = document.model.items
      let placed = ContactSheet.frames(
        aspectRatios: items.map(\.aspectRatio), width: width, layout: layout, captioned: captions != nil)
      try JSONOutput.write(SheetLayout(width: width, height: placed.height, items: items, frames: placed.frames))
    }
    guard let output else { return }
    let ext = (output as NSString).pathExtension.lowercased()
    let suffix = ext.isEmpty ? ".png" : "." + ext
    var enlarged = 0
    let data = try ContactSheet.render(document, width: width, layout: layout, suffix: suffix, caption: captions) { _ in
      enlarged += 1
    }
    if enlarged > 0 {
      Terminal.message(
        "note: \(enlarged) tile\(enlarged == 1 ? " is" : "s are") larger than the thumbnail the document holds, and "
          + "the original cannot be read (not embedded, and its file changed or is elsewhere): enlarged")
    }
    try OutputFile.replace(output, with: data)
  }
}

/// `gallery sheet --json`: where each tile goes.
struct SheetLayout: Encodable {
  struct Tile: Encodable {
    var position: Int
    var id: String
    var x: Int
    var y: Int
    var width: Int
    var height: Int
  }

  var width: Int
  var height: Int
  var tiles: [Tile]

  init(width: Int, height: Int, items: [Item], frames: [ContactSheet.Frame]) {
    self.width = width
    self.height = height
    tiles = frames.map { frame in
      Tile(
        position: frame.index + 1, id: items[frame.index].id, x: frame.x, y: frame.y, width: frame.width,
        height: frame.height)
    }
  }
}
