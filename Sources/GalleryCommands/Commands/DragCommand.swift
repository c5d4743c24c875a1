import ArgumentParser
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct DragCommand: ParsableCommand, TakesManyItems {
  static let configuration = CommandConfiguration(
    commandName: "drag",
    abstract: "Write items as a drag payload, for `gallery drop DST -`.",
    discussion: """
      The default payload is a text/uri-list of the items' sources. --type gallery writes \
      application/x-gallery-items: the items with their metadata, thumbnails and embedded \
      originals, so the drop refetches and re-thumbnails nothing. With --move (gallery \
      payloads), SRC records a one-time move offer and the payload carries its token: the \
      drop that presents it, once, moves the items DST saved into SRC's trash. A payload \
      without a valid token (crafted, or dropped a second time) only copies. Dropped back \
      into its own document, a --move payload reorders it (use drop --at) and a copy adds \
      copies.

        gallery drag --type gallery --move A.gallery 2 5 | gallery drop B.gallery -
      """)

  enum PayloadType: String, ExpressibleByArgument, CaseIterable {
    case uriList = "uri-list"
    case gallery
  }

  @OptionGroup var target: DocumentArgument

  @Argument(help: "Items, by position or id.", completion: ItemCompletion.items)
  var items: [ItemReference]

  @Option(name: .customLong("type"), help: "uri-list or gallery.")
  var type: PayloadType = .uriList

  @Flag(help: "Move instead of copy (gallery payloads).")
  var move = false

  func validate() throws {
    guard !items.isEmpty else { throw ValidationError("name the ITEMs to drag") }
    if move && type != .gallery { throw ValidationError("--move needs --type gallery") }
  }

  func run() throws {
    let model = try target.open().model
    let ids = try model.resolve(items)
    switch type {
    case .uriList:
      let positions = model.positions(of: ids)
      Terminal.exact(DropSourceParser.uriListText(ids.compactMap { positions[$0].map { model.items[$0].source } }))
    case .gallery:
      Terminal.out(Array(try DragPayload.make(from: target.document, ids: ids, move: move).encoded()))
    }
  }
}
