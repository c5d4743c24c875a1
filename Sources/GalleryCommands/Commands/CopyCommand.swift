import ArgumentParser
import Foundation
import GalleryKit

struct CopyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "copy",
    abstract: "Copy items to the desktop clipboard.",
    discussion: """
      Offers the items through wl-copy (Wayland) or xclip (X11), whichever the session \
      has. These tools serve one type per copy, chosen with --as: \
      uri-list (text/uri-list, the default: browsers, editors, `gallery paste`), \
      files (x-special/gnome-copied-files: paste into GNOME Files, Nemo, Thunar; local \
      files only), gallery (application/x-gallery-items: `gallery paste` into another \
      gallery with nothing refetched), or text (the sources as plain text).

      Exit status 69 when there is no clipboard (no graphical session, or neither tool \
      installed).
      """)

  enum Flavour: String, ExpressibleByArgument, CaseIterable {
    case uriList = "uri-list"
    case files
    case gallery
    case text
  }

  @OptionGroup var target: DocumentArgument

  @Argument(help: "Items, by position or id.", completion: ItemCompletion.items)
  var items: [ItemReference]

  @Option(name: .customLong("as"), help: "uri-list, files, gallery or text.")
  var flavour: Flavour = .uriList

  func validate() throws {
    guard !items.isEmpty else { throw ValidationError("name the ITEMs to copy") }
  }

  func run() throws {
    try reportingErrors {
      let model = try GalleryDocument.open(target.document).model
      let ids = try model.resolve(items)
      let sources = ids.compactMap { id in model.items.first { $0.id == id }?.source }
      let clipboard = try Clipboard.current()
      switch flavour {
      case .uriList:
        try clipboard.copy(Data(sources.map { $0 + "\r\n" }.joined().utf8), type: "text/uri-list")
      case .text:
        try clipboard.copy(Data(sources.joined(separator: "\n").utf8), type: "text/plain;charset=utf-8")
      case .files:
        let files = sources.filter { $0.hasPrefix("file:") }
        for source in sources where !source.hasPrefix("file:") {
          Terminal.message("not copied as a file: \(source) is not a local file")
        }
        guard !files.isEmpty else { throw ValidationError("none of these items is a local file (try --as uri-list)") }
        try clipboard.copy(Data((["copy"] + files).joined(separator: "\n").utf8), type: "x-special/gnome-copied-files")
      case .gallery:
        try clipboard.copy(try DragPayload.make(from: target.document, ids: ids, move: false).encoded(), type: DragPayload.mediaType)
      }
      Terminal.message("copied \(ids.count) item(s) to the clipboard (\(clipboard.tool.rawValue))")
    }
  }
}
