import ArgumentParser
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct URIsCommand: ParsableCommand, TakesManyItems {
  static let configuration = CommandConfiguration(
    commandName: "uris",
    abstract: "Print items' sources as a text/uri-list (drag out).",
    discussion: """
      One URI a line, CRLF line ends (RFC 2483), ready to pipe into another program or \
      into `gallery drop OTHER.gallery -`. Without ITEMs, every ready item in order. \
      --json gives each item's position, id and URI instead.
      """)

  @OptionGroup var target: DocumentArgument

  @Argument(help: "Items, by position or id (default: every ready item).", completion: ItemCompletion.items)
  var items: [ItemReference] = []

  @OptionGroup var output: OutputOptions

  /// One item's URI, as `--json` gives it.
  struct Entry: Encodable {
    var position: Int
    var id: String
    var uri: String
  }

  func run() throws {
    let model = try target.open().model
    let chosen = try model.positions(named: items)
    if output.json {
      return try JSONOutput.write(
        chosen.map { Entry(position: $0 + 1, id: model.items[$0].id, uri: model.items[$0].source) })
    }
    Terminal.exact(DropSourceParser.uriListText(chosen.map { model.items[$0].source }))
  }
}
