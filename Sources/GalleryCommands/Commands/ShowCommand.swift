import ArgumentParser
import Foundation
import GalleryKit

struct ShowCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show",
    abstract: "List a gallery's items in order.",
    discussion: """
      Prints the title, then one line per item: position, id, state, aspect ratio, pixel \
      size and source. A placeholder whose load is still running shows as pending; one \
      whose loading process is gone shows as stale.
      """)

  @OptionGroup var target: DocumentArgument
  @OptionGroup var output: OutputOptions

  func run() throws {
    try reportingErrors {
      let document = try GalleryDocument.open(target.document)
      let model = document.model
      if output.json {
        try JSONOutput.write(DocumentListing(path: document.path, model: model))
        return
      }
      Terminal.out("\(model.title)\n")
      var lines = ""
      for (index, item) in model.items.enumerated() {
        lines += ItemLine.format(position: index + 1, item: item) + "\n"
      }
      Terminal.out(lines)
    }
  }
}

/// One text line per item, shared by `show` and `trash --list`.
enum ItemLine {
  static func format(position: Int, item: Item) -> String {
    let size = item.width.flatMap { w in item.height.map { "\(w)x\($0)" } } ?? "-"
    let state = item.displayState
    return [
      String(position).leftPadded(to: 4), item.id, state.padded(to: 7),
      String(format: "%.3f", item.aspectRatio).leftPadded(to: 7), size.padded(to: 11), item.source,
    ].joined(separator: "  ")
  }
}

/// `show --json`: the model's items with their positions and display states.
struct DocumentListing: Encodable {
  var path: String
  var title: String
  var format: Int
  var revision: Int
  var created: Date
  var modified: Date
  var items: [ListedItem]
  var trashed: Int

  init(path: String, model: GalleryModel) {
    self.path = path
    title = model.title
    format = model.format
    revision = model.revision
    created = model.created
    modified = model.modified
    items = model.items.enumerated().map { ListedItem(position: $0.offset + 1, item: $0.element) }
    trashed = model.trash.count
  }
}

/// An item as listed: its stored fields plus its position and display state.
struct ListedItem: Encodable {
  var position: Int
  var item: Item

  enum Keys: String, CodingKey { case position, display }

  func encode(to encoder: Encoder) throws {
    try item.encode(to: encoder)
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(position, forKey: .position)
    try container.encode(item.displayState, forKey: .display)
  }
}

extension String {
  func padded(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
  func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
