import ArgumentParser
import Foundation
import GalleryDocument
import GalleryKit
import GalleryModel
import GallerySystem

struct FindCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "find",
    abstract: "Find items in galleries by what was written of them and what they are.",
    discussion: """
      Searches the galleries named, and those in the folders named (the current folder when \
      none is), for the items QUERY matches, and lists them as `show` does under each \
      gallery's path. Words match captions, notes, tags and file names; tag:T (or a tag \
      under T), caption:, note:, name:, source:, format:, state:, label:, camera:, lens: \
      ask one field; taken:2024-06 a month (a year, a day, or A..B) of the photo's own \
      date; near:LAT,LON,KM the photos taken within KM kilometres of a place; \
      rating, width, height and pages compare (rating>=4); terms side by side must all \
      match, OR between them is either, -TERM is not, parentheses group, quotes keep \
      spaces. Example: gallery find ~/Pictures 'tag:holiday rating>=4 -label:red'
      """)

  @Argument(help: "Galleries or folders of galleries, then the query.", completion: ItemCompletion.query)
  var arguments: [String]

  @OptionGroup var output: OutputOptions

  @Flag(help: "Print the matches' URLs, one a line, as a text/uri-list to drag or pipe on.")
  var uris = false

  func validate() throws {
    guard let query = arguments.last else { throw ValidationError("give a QUERY") }
    do { _ = try ItemQuery(query) } catch { throw ValidationError("\(error)") }
  }

  func run() throws {
    let query = try ItemQuery(arguments.last ?? "")
    let places = arguments.count > 1 ? arguments.dropLast().map(PathArgument.local) : ["."]
    var paths: [String] = []
    for place in places {
      if FileSystem.isDirectory(place) {
        paths += try DocumentFiles.documents(in: place)
      } else {
        paths.append(place)
      }
    }
    var found: [(path: String, items: [(position: Int, item: Item)])] = []
    var failed = false
    for path in paths {
      do {
        let matches = try GalleryDocument.find(query, in: path)
        if !matches.isEmpty { found.append((path, matches)) }
      } catch {
        failed = true
        Terminal.message("not searched: \(TerminalText.escaped(path)): \(error)")
      }
    }
    if output.json {
      try JSONOutput.write(items: FindResults(found: found))
    } else if uris {
      Terminal.exact(DropSourceParser.uriListText(found.flatMap { $0.items.map(\.item.source) }))
    } else {
      for (path, items) in found {
        let width = ItemLine.positionWidth(count: items.last?.position ?? 0)
        Terminal.out(
          TerminalText.escaped(path) + "\n"
            + items.map { ItemLine.format(position: $0.position, item: $0.item, width: width) + "\n" }.joined())
      }
    }
    if failed { throw ExitCode(ExitStatus.partial) }
  }
}

/// `gallery find --json`: the galleries with matches, each with its matching items and their
/// positions.
struct FindResults: JSONWritable {
  var found: [(path: String, items: [(position: Int, item: Item)])]

  func write(into writer: inout JSONWriter) {
    writer.object { o in
      o.value("documents") { w in
        w.array(found) { w, document in
          w.object { d in
            d.value("items") { w in w.array(document.items) { w, match in w.item(match.item, position: match.position) } }
            let (text, url) = PathBytes.forJSON(document.path)
            d.string("path", text)
            d.string("pathURL", url)
          }
        }
      }
    }
  }
}
