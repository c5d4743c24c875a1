import ArgumentParser
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct URIsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "uris",
    abstract: "Print items' sources as a text/uri-list (drag out).",
    discussion: """
      One URI a line, CRLF line ends (RFC 2483), ready to pipe into another program or \
      into `gallery drop OTHER.gallery -`. Without ITEMs, every ready item in order.
      """)

  @OptionGroup var target: DocumentArgument

  @Argument(help: "Items, by position or id (default: every ready item).", completion: ItemCompletion.items)
  var items: [ItemReference] = []

  func run() throws {
    let model = try target.open().model
    let chosen: [Item]
    if items.isEmpty {
      chosen = model.items.filter { $0.state == .ready }
    } else {
      let ids = try model.resolve(items)
      chosen = ids.compactMap { id in model.items.first { $0.id == id } }
    }
    Terminal.exact(DropSourceParser.uriListText(chosen.map(\.source)))
  }
}
