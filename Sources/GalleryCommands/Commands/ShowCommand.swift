import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

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

  @Option(help: "Show the document as it was at this revision (`42` or `r42`; see `gallery history`).")
  var at: RevisionArgument?

  @Option(help: "Only the items this query matches (see `gallery find`); positions stay those of the gallery.")
  var `where`: String?

  func validate() throws {
    if let query = `where` {
      do { _ = try ItemQuery(query) } catch { throw ValidationError("--where: \(error)") }
    }
  }

  func run() throws {
    let query = try `where`.map { try ItemQuery($0) }
    // A query on the document as it is now reads only the items that may match, as `find`
    // does; damage sends it to the whole read, which says what could be read.
    var searched: (document: GalleryDocument, found: [(position: Int, item: Item)])?
    if let query, at == nil, let lazily = try? GalleryDocument.openLazily(target.document), lazily.damage == nil,
      let found = try? GalleryDocument.find(query, in: lazily)
    {
      searched = (lazily, found)
    }
    let document = try searched?.document ?? target.open()
    RecentDocuments.note(document.path)
    // A search read only the items it found.
    var model =
      try searched.map { $0.document.modelWithoutItems } ?? at.map { try document.model(at: $0.value) }
      ?? document.model
    let count = searched?.document.itemCount ?? model.items.count
    // Only a query picks items; without one every item is shown, and nothing is gathered.
    let picked: [(position: Int, item: Item)]? =
      searched?.found
      ?? query.map { query in
        model.items.enumerated().filter { query.matches($0.element) }.map { ($0.offset + 1, $0.element) }
      }
    if output.json {
      if let picked { model.items = picked.map(\.item) }
      let positions = picked?.map(\.position)
      try JSONOutput.write(pieces: { emit in
        DocumentListingJSON.write(path: document.path, model: model, positions: positions, emit: emit)
      })
      return
    }
    Terminal.out("\(TerminalText.escaped(model.title))\n")
    var lines = ""
    let width = ItemLine.positionWidth(count: count)
    let shown = picked ?? model.items.enumerated().map { ($0.offset + 1, $0.element) }
    for (position, item) in shown { lines += ItemLine.format(position: position, item: item, width: width) + "\n" }
    Terminal.out(lines)
  }
}

/// One text line per item, shared by `show` and `trash --list`.
package enum ItemLine {
  /// The positions' column: as wide as the last position (at least 4), so that the columns
  /// after it stay aligned at 100,000 items.
  package static func positionWidth(count: Int) -> Int { max(4, String(count).count) }

  package static func format(position: Int, item: Item, width: Int = 4) -> String {
    let size = item.width.flatMap { w in item.height.map { "\(w)x\($0)" } } ?? "-"
    let state = item.displayState.rawValue
    return [
      String(position).leftPadded(to: width), item.id, state.padded(to: 7),
      String(format: "%.3f", item.aspectRatio).leftPadded(to: 7), size.padded(to: 11),
      item.isNoteCard ? "\"" + TerminalText.escaped(firstLine(of: item.note ?? "")) + "\"" : TerminalText.escaped(item.source),
    ].joined(separator: "  ") + (item.pages.map { "  (\($0) pages, the first shown)" } ?? "")
      + (item.failure.map { "  (\(TerminalText.escaped($0)))" } ?? "")
  }

  /// A note card's first line, which its line in a listing shows.
  package static func firstLine(of text: String) -> String {
    String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
  }
}

extension String {
  func padded(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
  func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
