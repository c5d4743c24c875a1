import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct ExportCommand: AsyncParsableCommand, TakesManyItems {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Copy items' images into a folder (drag out).",
    discussion: """
      Copies the originals (embedded in the document when they are, otherwise read from \
      their files, or taken from the download cache and revalidated for web images; or, with --thumbnails, the thumbnails stored in the document) \
      of the given items, or of every ready item, into DIR. Names come from the sources, \
      made safe (no path separators, no leading dot) and unique (an existing file is never \
      overwritten: `name-2.jpg` is used instead). Standard output lists the files written \
      (with --json: each item's position, id, file and sidecar); an item not exported is \
      named on standard error, and the exit status is 1. A file that cannot be written (a \
      full disk) ends the export: what was written stays, and the exit status is 74.
      """)

  @OptionGroup var target: DocumentArgument

  @Argument(help: "Items to export, by position or id (default: every ready item).", completion: ItemCompletion.items)
  var items: [ItemReference] = []

  @Option(
    name: .customLong("to"), help: "The folder to copy into (created if missing).", completion: .directory,
    transform: PathArgument.local)
  var folder: String

  @Flag(help: "Export the thumbnails instead of the originals.")
  var thumbnails = false

  @Flag(help: "Prefix names with the items' positions (001-beach.jpg, ...), so the gallery order survives.")
  var numbered = false

  @Flag(
    help: ArgumentHelp(
      "Write an XMP sidecar beside each file (NAME.jpg.xmp) with its tags, stars, label and caption.",
      discussion: "digiKam, darktable and Lightroom read them."))
  var xmp = false

  @OptionGroup(title: "Web downloads") var web: WebOptions

  @OptionGroup var output: OutputOptions

  /// One item exported, as `--json` gives it (paths as JSON gives them: `PathBytes.forJSON`).
  struct Exported: Encodable {
    var position: Int
    var id: String
    var file: String
    var fileURL: String?
    var sidecar: String?
    var sidecarURL: String?

    init(position: Int, id: String, file: String) {
      (self.position, self.id) = (position, id)
      (self.file, fileURL) = PathBytes.forJSON(file)
    }
  }

  func run() async throws {
    let document = try target.open()
    let model = document.model
    let chosen = try model.positions(named: items)
    try OutputFile.makeFolder(folder)
    var failed = false
    var unwritable: OutputFile.Failure?
    var exported: [Exported] = []
    var names = SafeFileNames(folder: folder)
    let fetcher =
      chosen.contains { !model.items[$0].source.hasPrefix("file:") } && !thumbnails ? web.fetcher() : nil
    for position in chosen {
      let item = model.items[position]
      do {
        guard !item.isNoteCard else { throw ExportFailure("it is a note card, not an image") }
        guard item.state == .ready else { throw ExportFailure("it is \(item.displayState), not ready") }
        let data: Data
        var name = SafeFileNames.baseName(of: item)
        if numbered {
          let digits = max(3, String(model.items.count).count)
          let number = String(position + 1)
          name = String(repeating: "0", count: digits - number.count) + number + "-" + name
        }
        if thumbnails {
          data = try document.thumbnail(of: item)
          let ext = (item.thumbnail.map { ($0 as NSString).pathExtension } ?? "jpg")
          name = (name as NSString).deletingPathExtension + "." + ext
        } else if let embedded = try document.original(of: item) {
          data = embedded
        } else {
          data = try await original(of: item, fetcher: fetcher)
        }
        let path = try names.write(data, preferredName: name)
        if !output.json { Terminal.path(path) }
        var written = Exported(position: position + 1, id: item.id, file: path)
        if xmp {
          let sidecar = PhotoXMP.sidecar(
            tags: item.tags ?? [], rating: item.rating, label: item.label?.rawValue, caption: item.caption)
          // Beside its file, by its exact name; like the file, never over an existing one.
          do { try OutputFile.createNew(path + ".xmp", data: sidecar) } catch {
            guard error.errno == EEXIST else { throw error }
            throw ExportFailure("its sidecar \(path).xmp was not written: \(error)")
          }
          if !output.json { Terminal.path(path + ".xmp") }
          (written.sidecar, written.sidecarURL) = PathBytes.forJSON(path + ".xmp")
        }
        exported.append(written)
      } catch {
        // The folder takes no more (a full disk): every item after would fail the same way.
        if let failure = error as? OutputFile.Failure {
          unwritable = failure
          break
        }
        failed = true
        Terminal.message("not exported: \(item.id)\(item.source.isEmpty ? "" : " (\(item.source))"): \(error)")
      }
    }
    await fetcher?.shutdown()
    if output.json { try JSONOutput.write(exported) }
    if let unwritable { throw unwritable }
    if failed { throw ExitCode(ExitStatus.partial) }
  }

  private func original(of item: Item, fetcher: WebImageFetcher?) async throws -> Data {
    guard let url = URL(string: item.source) else { throw ExportFailure("its source is not a URL") }
    // Without a hash nothing says the file is the image that was dropped: a document from
    // someone else could name any file (file:///etc/shadow) and have it copied out.
    guard let hash = item.hash else { throw ExportFailure("it has no content hash to check its original against") }
    let data: Data
    if let path = PathBytes.path(fromFileURL: item.source) {
      do { data = try LocalImageLoader.readSource(path, limit: web.maxDownloadSize) } catch {
        throw ExportFailure("the original \(path) cannot be read: \(error)")
      }
    } else if let fetcher {
      switch await fetcher.fetch(url) {
      case .success(let download):
        data = download.body
        if let failure = download.standingInFor {
          Terminal.message("the download failed, the cached copy stands in: \(item.id) (\(url.absoluteString)): \(failure)")
        }
      case .failure(let failure): throw ExportFailure("the original cannot be downloaded: \(failure)")
      }
    } else {
      throw ExportFailure("its source is not a file")
    }
    if GallerySystem.contentHash(of: data) != hash {
      throw ExportFailure(
        "the original \(PathBytes.path(fromFileURL: item.source) ?? url.absoluteString) has changed since it was dropped")
    }
    return data
  }
}

/// Why one item was not exported; the others go on.
struct ExportFailure: CommandError {
  var description: String
  var exitStatus: ExitStatus { .partial }
  init(_ description: String) { self.description = description }
}

/// Safe, unique file names in a folder; files are created exclusively, never overwritten.
struct SafeFileNames {
  let folder: String
  /// The number each name tries next: the one after the last it was written under.
  private var next: [String: Int] = [:]

  init(folder: String) { self.folder = folder }

  static func baseName(of item: Item) -> String {
    // An image dropped as data is named by its content.
    let last =
      item.source.hasPrefix("urn:sha256:")
      ? "image-" + item.source.dropFirst("urn:sha256:".count).prefix(12) : PathBytes.lastSegment(ofURL: item.source)
    var name = String(
      last.unicodeScalars.filter { $0.value >= 0x20 && $0 != "/" && $0 != "\\" && $0.value != 0x7f }.map(Character.init))
    while name.hasPrefix(".") { name.removeFirst() }
    if name.isEmpty || name == "." || name == ".." { name = item.id }
    if (name as NSString).pathExtension.isEmpty, let format = item.format { name += "." + format }
    return prefix(name, bytes: 200)
  }

  /// At most `bytes` bytes of UTF-8, cut between characters, the extension kept: file
  /// names are limited in bytes (255), not in characters.
  static func prefix(_ name: String, bytes: Int) -> String {
    guard name.utf8.count > bytes else { return name }
    let ext = (name as NSString).pathExtension
    let suffix = ext.isEmpty || ext.utf8.count > 16 ? "" : "." + ext
    var stem = ""
    for character in suffix.isEmpty ? name : (name as NSString).deletingPathExtension {
      guard stem.utf8.count + character.utf8.count + suffix.utf8.count <= bytes else { break }
      stem.append(character)
    }
    return stem + suffix
  }

  mutating func write(_ data: Data, preferredName: String) throws(OutputFile.Failure) -> String {
    let (path, number) = try OutputFile.createNew(
      in: folder, preferredName: preferredName, data: data, from: next[preferredName] ?? 1)
    next[preferredName] = number + 1
    return path
  }
}
