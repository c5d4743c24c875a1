import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct CopyCommand: ParsableCommand, TakesManyItems {
  static let configuration = CommandConfiguration(
    commandName: "copy",
    abstract: "Copy items to the desktop clipboard.",
    discussion: """
      The items are offered in every type at once: text/uri-list (browsers, editors), \
      x-special/gnome-copied-files (paste into GNOME Files, Nemo, Thunar; local files \
      only), application/x-gallery-items (`gallery paste` into another gallery, with \
      nothing refetched), image/png (one item: the image itself, for GIMP, LibreOffice or \
      a chat program; from the original when the document or the disk has it, else the \
      thumbnail) and plain text (the sources, one a line). On X11 a background \
      `gallery` process owns the clipboard and serves them until something else is \
      copied; on Wayland wl-copy serves one type: text/uri-list, or the one --as chooses \
      (uri-list, files, gallery, image, text), which also limits X11 to that type.

      Exit status 69 when there is no clipboard (no graphical session, or on Wayland no \
      wl-clipboard).
      """)

  enum Flavour: String, ExpressibleByArgument, CaseIterable {
    case uriList = "uri-list"
    case files
    case gallery
    case image
    case text
  }

  @OptionGroup var target: DocumentArgument

  @Argument(help: "Items, by position or id.", completion: ItemCompletion.items)
  var items: [ItemReference]

  @Option(name: .customLong("as"), help: "Offer only this type: uri-list, files, gallery, image or text.")
  var flavour: Flavour?

  func validate() throws {
    guard !items.isEmpty else { throw ValidationError("name the ITEMs to copy") }
  }

  func run() throws {
    let document = try target.open()
    let model = document.model
    let ids = try model.resolve(items)
    let positions = model.positions(of: ids)
    let chosenItems = ids.compactMap { positions[$0].map { model.items[$0] } }
    // A note card has no source: as text it is its text, and it is in no uri-list.
    let sources = chosenItems.filter { !$0.isNoteCard }.map(\.source)
    let clipboard = try Clipboard.current()
    let files = sources.filter { $0.hasPrefix("file:") }
    let wanted = { (kind: Flavour) in flavour == nil || flavour == kind }
    let text = Data(chosenItems.map { $0.isNoteCard ? $0.note ?? "" : $0.source }.joined(separator: "\n").utf8)
    var chosen: [X11Selection.Offer] = []
    if wanted(.uriList), !sources.isEmpty {
      chosen.append(.init(type: "text/uri-list", data: Data(DropSourceParser.uriListText(sources).utf8)))
    }
    if wanted(.files), !files.isEmpty {
      chosen.append(.init(type: "x-special/gnome-copied-files", data: Data((["copy"] + files).joined(separator: "\n").utf8)))
      if flavour == .files && files.count < sources.count {
        Terminal.message("not copied as files: \(sources.count - files.count) item(s) that are not local files")
      }
    }
    // The payload reads every thumbnail: only when it is offered.
    if wanted(.gallery) {
      chosen.append(
        .init(type: DragPayload.mediaType, data: try DragPayload.make(from: target.document, ids: ids, move: false).encoded()))
    }
    if wanted(.image), ids.count == 1, let item = model.items.first(where: { $0.id == ids[0] }), item.state == .ready {
      chosen.append(.init(type: "image/png", data: try ClipboardImage.png(of: item, in: document)))
    }
    if wanted(.text) {
      chosen += [.init(type: "text/plain;charset=utf-8", data: text), .init(type: "UTF8_STRING", data: text)]
    }
    guard !chosen.isEmpty else { throw ValidationError("none of these items is a local file (try --as uri-list)") }
    let offered = try clipboard.copy(chosen)
    Terminal.message(
      "copied \(ids.count) item(s) to the clipboard (\(clipboard.tool.rawValue): \(offered.joined(separator: ", ")))")
  }
}
