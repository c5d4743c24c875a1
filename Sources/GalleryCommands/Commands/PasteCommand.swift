import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct PasteCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "paste",
    abstract: "Drop what the desktop clipboard holds.",
    discussion: """
      Reads the clipboard through wl-paste (Wayland) or xclip (X11) and drops it like \
      `gallery drop DOC -`: the first type offered of application/x-gallery-items (items \
      copied from another gallery, nothing refetched), text/uri-list, \
      x-special/gnome-copied-files (files copied in a file manager), and plain text (one \
      URL or absolute path a line). Standard output and the exit status are those of drop; \
      69 when there is no clipboard, 66 when it holds nothing to drop.
      """)

  @OptionGroup var target: DocumentArgument

  @Option(name: .customLong("at"), help: "1-based position of the first pasted item (default: the end).")
  var position: TargetPosition?

  @Flag(help: "Keep a failed item (aspect ratio 1) for a source that cannot be loaded.")
  var keepFailed = false

  @OptionGroup(title: "Web downloads") var web: WebOptions

  @Flag(help: "Write the committed items as JSON.")
  var json = false

  /// Clipboard types understood, best first.
  static let preferred = [
    DragPayload.mediaType, "text/uri-list", "x-special/gnome-copied-files",
    // A screenshot or a browser's "Copy Image": the image itself, embedded.
    "image/png", "image/jpeg", "image/webp", "image/gif", "image/tiff",
    "text/plain;charset=utf-8", "UTF8_STRING", "text/plain", "STRING",
  ]

  func run() async throws {
    async let _ = ImageProcessor.startLibrary()
    _ = try GalleryDocument.openLazily(target.document)
    let clipboard = try Clipboard.current()
    let offered = try clipboard.types()
    let usable = Self.preferred.filter(offered.contains)
    guard !usable.isEmpty else {
      Terminal.message(
        offered.isEmpty
          ? "the clipboard is empty" : "the clipboard holds nothing to drop (it offers \(offered.joined(separator: ", ")))")
      throw ExitCode(ExitStatus.notFound)
    }
    // The best type that can actually be read (an owner may refuse one too large to send).
    var pasted: (type: String, data: Data)?
    var lastError: (any Error)?
    for type in usable where pasted == nil {
      do { pasted = (type, try clipboard.paste(type: type)) } catch { lastError = error }
    }
    guard let (type, content) = pasted else {
      throw lastError ?? Clipboard.Unavailable(description: "the clipboard cannot be read")
    }
    var data = content
    if type == "x-special/gnome-copied-files" {
      // "copy" or "cut", then one URI a line.
      data = Data(
        String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).dropFirst().joined(separator: "\n").utf8)
    }
    var options = DropOptions()
    options.position = position?.value
    options.keepFailed = keepFailed ? true : nil
    web.configure(&options)
    try await DropCommand.drop(["-"], input: data, into: target.document, options: options, json: json)
  }
}
