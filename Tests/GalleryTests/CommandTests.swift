import Foundation
import GalleryKit
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

@Suite("gallery new, show and info")
struct DocumentCommandTests {
  @Test("new creates an empty document and refuses to overwrite one")
  func new() throws {
    let work = try TestWorkspace()
    let path = work.path("Trip.gallery")
    let created = try Run.gallery(["new", path])
    #expect(created.status == 0)
    #expect(created.stdout == path + "\n")
    #expect(try Listing.of(path).title == "Trip")
    #expect(try Listing.of(path).items.isEmpty)

    let before = try work.bytes(path)
    let again = try Run.gallery(["new", path, "--title", "Other"])
    #expect(again.status == 73)
    #expect(again.stderr.contains("already exists"))
    #expect(try work.bytes(path) == before)

    let text = try work.write("keep me", to: "notes.gallery")
    #expect(try Run.gallery(["new", text]).status == 73)
    #expect(try String(contentsOfFile: text, encoding: .utf8) == "keep me")
  }

  @Test("show prints the title then one line per item; --json has the same items")
  func show() throws {
    let work = try TestWorkspace()
    let document = try work.document(title: "Holiday")
    let tall = try work.image("tall.jpg", width: 200, height: 400)
    let wide = try work.image("wide.png", width: 400, height: 100, format: .png)
    #expect(try Run.gallery(["drop", document, tall, wide]).status == 0)

    let text = try Run.gallery(["show", document])
    #expect(text.status == 0)
    let lines = text.stdout.split(separator: "\n")
    #expect(lines.first == "Holiday")
    #expect(lines.count == 3)
    #expect(
      lines[1].contains("ready") && lines[1].contains("0.500") && lines[1].contains("200x400") && lines[1].contains("tall.jpg"))
    #expect(lines[2].contains("4.000") && lines[2].contains("400x100"))

    let listing = try Listing.of(document)
    #expect(listing.items.map(\.position) == [1, 2])
    #expect(listing.items.map(\.aspectRatio) == [0.5, 4])
    #expect(listing.items.allSatisfy { $0.state == "ready" && $0.thumbnail != nil })
    #expect(listing.items[0].source == URL(fileURLWithPath: tall).absoluteString)
  }

  @Test("info reports counts, sizes, revisions and dead bytes")
  func info() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(3)).status == 0)
    #expect(try Run.gallery(["trash", document, "1"]).status == 0)
    let result = try Run.gallery(["info", "--json", document])
    #expect(result.status == 0)
    let info = try JSONSerialization.jsonObject(with: result.stdoutData) as! [String: Any]
    #expect(info["items"] as? Int == 2)
    #expect(info["ready"] as? Int == 2)
    #expect(info["trashed"] as? Int == 1)
    #expect(info["format"] as? Int == 2)
    let storage = info["storage"] as! [String: Any]
    #expect(storage["fileBytes"] as? Int == (try work.bytes(document).count))
    #expect((storage["deadBytes"] as? Int ?? 0) > 0)
    #expect((storage["revisions"] as? Int ?? 0) >= 3)
    let text = try Run.gallery(["info", document])
    #expect(text.stdout.contains("dead bytes:"))
  }
}

@Suite("gallery drop")
struct DropCommandTests {
  @Test("The binary reads HEIF itself (the one libvips module it loads) and PDF, whose loader it blocks, in its decoder")
  func heifThroughTheBinary() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let avif = try work.image("photo.avif", width: 320, height: 240, format: .avif)
    let pdf = try work.write(
      "%PDF-1.1\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 100]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
      to: "page.pdf")
    let result = try Run.gallery(["drop", document, avif, pdf])
    #expect(result.status == 0, "\(result.stderr)")
    let items = try Listing.of(document).items
    #expect(items.map(\.format) == ["heif", "pdf"])
    #expect(items.first?.width == 320 && items.first?.height == 240)
    #expect(items.last?.width == 200 && items.last?.height == 100)
  }

  @Test("A drop of plain JPEGs never loads libvips, nor does a watcher; a PNG among them does")
  func photosWithoutLibvips() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let photos = try work.images(3) + [try work.image("turned.jpg", orientation: 6, seed: 9)]
    // The dynamic loader names every library it opens.
    let result = try Run.gallery(["drop", document] + photos, environment: ["LD_DEBUG": "files"])
    #expect(result.status == 0)
    #expect(result.stderr.contains("libjpeg.so"), "the loader's trace is there")
    #expect(!result.stderr.contains("libvips.so"))
    let items = try Listing.of(document).items
    #expect(items.count == 4 && items.allSatisfy { $0.state == "ready" && $0.format == "jpeg" })
    #expect(items.last?.width == 200 && items.last?.height == 300)

    let png = try work.image("drawing.png", format: .png, seed: 10)
    let mixed = try Run.gallery(["drop", document, png], environment: ["LD_DEBUG": "files"])
    #expect(mixed.status == 0 && mixed.stderr.contains("libvips.so"))

    // A drop folder's watcher alike: libvips is loaded by the first image that needs it.
    let folder = work.path("inbox")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for photo in photos {
      try FileManager.default.copyItem(atPath: photo, toPath: folder + "/" + (photo as NSString).lastPathComponent)
    }
    let watched = try work.document("watched.gallery")
    let watch = try Run.gallery(["watch", "--once", folder, "--into", watched], environment: ["LD_DEBUG": "files"])
    #expect(watch.status == 0 && watch.stderr.contains("libjpeg.so"))
    #expect(!watch.stderr.contains("libvips.so"))
    #expect(try Listing.of(watched).items.count == 4)
    try FileManager.default.copyItem(atPath: png, toPath: folder + "/drawing.png")
    let again = try Run.gallery(["watch", "--once", folder, "--into", watched], environment: ["LD_DEBUG": "files"])
    #expect(again.status == 0 && again.stderr.contains("libvips.so"))
    #expect(try Listing.of(watched).items.count == 5)
  }

  @Test("Drops land at --at in the order given; past the end means the end")
  func positions() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let images = try work.images(5)
    #expect(try Run.gallery(["drop", document, images[0], images[1]]).status == 0)
    #expect(try Run.gallery(["drop", document, "--at", "2", images[2], images[3]]).status == 0)
    #expect(try Run.gallery(["drop", document, "--at", "99", images[4]]).status == 0)
    let sources = try Listing.of(document).items.map { URL(string: $0.source)!.lastPathComponent }
    #expect(sources == ["img0.jpg", "img2.jpg", "img3.jpg", "img1.jpg", "img4.jpg"])
  }

  @Test("A text/uri-list on stdin: comments, CRLF, file:// URIs with escapes")
  func uriList() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let spaced = try work.image("with space.jpg", seed: 3)
    let plain = try work.image("plain.webp", format: .webp, seed: 4)
    let list =
      "# dragged from a file manager\r\n\(URL(fileURLWithPath: spaced).absoluteString)\r\n\r\n\(URL(fileURLWithPath: plain).absoluteString)\r\n"
    #expect(list.contains("%20"))
    let result = try Run.gallery(["drop", document, "-"], stdin: Data(list.utf8))
    #expect(result.status == 0, "\(result.stderr)")
    let items = try Listing.of(document).items
    #expect(items.count == 2)
    #expect(items.map { URL(string: $0.source)!.path } == [spaced, plain])
    // stdout lists what was committed: position, id, source.
    #expect(result.stdout.split(separator: "\n").map { $0.split(separator: "\t")[1] } == items.map { Substring($0.id) })
  }

  @Test("Bytes on stdin that are neither an image nor text are refused whole, even with --keep-failed")
  func binaryInput() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    // A gzip of text, and bytes of no format: before, each of their "lines" was a source
    // that failed, kept as a failed item named by its bytes.
    var generator = SplitMix(state: 7)
    let noise = Data((0..<3000).map { _ in UInt8.random(in: 0...255, using: &generator) })
    let gzip = try Run.program("/bin/gzip", ["-c", "-n"], stdin: Data(String(repeating: "photo.jpg\n", count: 200).utf8))
    for input in [noise, gzip.stdoutData] {
      let result = try Run.gallery(["drop", "--keep-failed", document, "-"], stdin: input)
      #expect(result.status == 1, "\(result.stderr)")
      #expect(result.stderr.contains("not dropped: standard input: neither an image Gallery reads nor a text/uri-list"))
      #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }
    #expect(try Listing.of(document).items.isEmpty)
    #expect(DropSourceParser.binaryByte(in: Data("file:///a.jpg\r\n# tab\there\u{0}\n".utf8)) == nil)
    #expect(DropSourceParser.binaryByte(in: Data([0x63, 0x61, 0x66, 0xE9, 0x0A, 0x1B])) == 0x1B)
  }

  @Test("data: URIs (an image a web page holds inline): base64 or escaped, embedded; bad ones and empty names said")
  func dataURIs() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let png = try work.bytes(try work.image("inline.png", width: 200, height: 100, format: .png, seed: 9))
    let base64 = "data:image/png;base64," + png.base64EncodedString()
    let escaped = "data:image/png," + png.map { String(format: "%%%02X", $0) }.joined()
    let dropped = try Run.gallery(["drop", document, base64])
    #expect(dropped.status == 0, "\(dropped.stderr)")
    let listed = try Run.gallery(["drop", document, "-"], stdin: Data((escaped + "\r\n").utf8))
    #expect(listed.status == 0, "\(listed.stderr)")
    let items = try Listing.of(document).items
    #expect(items.map(\.state) == ["ready", "ready"] && items.map(\.aspectRatio) == [2, 2])
    #expect(items[0].source == items[1].source && items[0].source.hasPrefix("urn:sha256:"))
    // Embedded: export writes the very bytes.
    let export = try Run.gallery(["export", document, "1", "--to", work.path("out")])
    #expect(export.status == 0, "\(export.stderr)")
    #expect(try work.bytes(export.stdout.trimmingCharacters(in: .newlines)) == png)

    let bad = try Run.gallery(["drop", document, "data:image/png;base64,%%%", "data:text/plain,hello", "data:nocomma"])
    #expect(bad.status == 1)
    #expect(bad.stderr.contains("data:image/png;base64,%%%: not a valid data: URI"), "\(bad.stderr)")
    #expect(bad.stderr.contains("data:text/plain,hello: not an image"), "\(bad.stderr)")
    #expect(bad.stderr.contains("data:nocomma: not a valid data: URI"), "\(bad.stderr)")
    // A long one is named by its start in messages.
    let long = "data:image/png;base64," + String(repeating: "A", count: 4000) + "!"
    let named = try Run.gallery(["drop", document, long])
    #expect(named.stderr.contains("data:image/png;base64,\(String(repeating: "A", count: 178))…: "), "\(named.stderr)")
    #expect(named.stderr.count < 300, "\(named.stderr)")
    #expect(try Listing.of(document).items.count == 2)
    // An empty argument (a script's unset variable) is no folder to take, even recursively.
    let empty = try Run.gallery(["drop", "--recursive", document, ""])
    #expect(empty.status == 1 && empty.stderr.contains("'': an empty name names no file"), "\(empty.stderr)")
    #expect(try Listing.of(document).items.count == 2)
  }

  @Test("One bad source is reported; the others land; exit status 1; no placeholder left")
  func partialFailure() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let good = try work.images(2)
    let fake = try work.write("this is text", to: "fake.jpg")
    let whole = try work.bytes(try work.image("whole.jpg", width: 900, height: 700, seed: 5))
    let truncated = work.path("truncated.jpg")
    try whole.prefix(whole.count / 3).write(to: URL(fileURLWithPath: truncated))

    let result = try Run.gallery(["drop", document, good[0], fake, truncated, good[1]])
    #expect(result.status == 1)
    #expect(result.stderr.contains("fake.jpg: not an image"))
    #expect(result.stderr.contains("truncated.jpg: the image cannot be decoded"))
    let items = try Listing.of(document).items
    #expect(items.count == 2)
    #expect(items.allSatisfy { $0.state == "ready" })
    #expect(items.map { URL(string: $0.source)!.lastPathComponent } == ["img0.jpg", "img1.jpg"])
  }

  @Test("--keep-failed keeps a failed item with aspect ratio 1")
  func keepFailed() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let whole = try work.bytes(try work.image("whole.png", width: 900, height: 700, format: .png, seed: 5))
    let truncated = work.path("truncated.png")
    try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: truncated))
    let result = try Run.gallery(["drop", "--keep-failed", document, truncated])
    #expect(result.status == 1)
    let items = try Listing.of(document).items
    #expect(items.count == 1)
    #expect(items[0].state == "failed" && items[0].aspectRatio == 1)
    #expect(try Run.gallery(["show", document]).stdout.contains("failed"))
  }

  @Test("Refusals leave the document byte for byte as it was", arguments: RefusedInput.allCases)
  func refusalKeepsDocumentIdentical(_ input: RefusedInput) throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(2)).status == 0)
    let before = try work.bytes(document)
    let source = try input.make(in: work)
    let result = try Run.gallery(["drop", document, source])
    #expect(result.status == 1)
    #expect(result.stderr.contains(input.expectedMessage), "\(result.stderr)")
    #expect(result.stderr.contains((source as NSString).lastPathComponent))
    #expect(result.stdout.isEmpty)
    #expect(try work.bytes(document) == before)
  }

  enum RefusedInput: String, CaseIterable, Sendable {
    case textNamedJPEG, empty, truncatedJPEG, truncatedPNG, decompressionBomb, directory, missing, notAFolder

    func make(in work: TestWorkspace) throws -> String {
      switch self {
      case .textNamedJPEG: return try work.write("plain text, named like a photo", to: "photo.jpg")
      case .empty: return try work.write("", to: "empty.png")
      case .truncatedJPEG, .truncatedPNG:
        let png = self == .truncatedPNG
        let data = try FixtureImage.make(width: 1200, height: 900, format: png ? .png : .jpeg, seed: 9)
        let path = work.path(png ? "cut.png" : "cut.jpg")
        try data.prefix(data.count * 2 / 3).write(to: URL(fileURLWithPath: path))
        return path
      case .decompressionBomb:
        // 20000 x 10000 pixels of one colour: a few hundred kilobytes of PNG.
        let path = work.path("bomb.png")
        let result = try Run.program("vips", ["black", path, "20000", "10000"])
        #expect(result.status == 0, "\(result.stderr)")
        return path
      case .directory:
        let path = work.path("folder")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FixtureImage.make(width: 50, height: 50).write(to: URL(fileURLWithPath: path + "/inside.jpg"))
        return path
      case .missing: return work.path("missing.jpg")
      case .notAFolder:
        // Unreadable even for root: a path through a regular file.
        return try work.write("x", to: "file") + "/below.jpg"
      }
    }

    var expectedMessage: String {
      switch self {
      case .textNamedJPEG: "not an image"
      case .empty: "empty"
      case .truncatedJPEG, .truncatedPNG: "cannot be decoded"
      case .decompressionBomb: "over the limit"
      case .directory: "is a directory"
      case .missing: "no such file"
      case .notAFolder: "not a directory"
      }
    }
  }

  @Test("--recursive drops the images in a folder tree, in name order, skipping hidden files")
  func recursive() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let folder = work.path("album")
    try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
    try FixtureImage.make(width: 60, height: 40, seed: 1).write(to: URL(fileURLWithPath: folder + "/b.jpg"))
    try FixtureImage.make(width: 60, height: 40, seed: 2).write(to: URL(fileURLWithPath: folder + "/a.jpg"))
    try FixtureImage.make(width: 60, height: 40, seed: 3).write(to: URL(fileURLWithPath: folder + "/sub/c.jpg"))
    try FixtureImage.make(width: 60, height: 40, seed: 4).write(to: URL(fileURLWithPath: folder + "/.hidden.jpg"))
    let result = try Run.gallery(["drop", "--recursive", document, folder])
    #expect(result.status == 0, "\(result.stderr)")
    let names = try Listing.of(document).items.map {
      URL(string: $0.source)!.path.replacingOccurrences(of: folder + "/", with: "")
    }
    #expect(names == ["a.jpg", "b.jpg", "sub/c.jpg"])
  }

  @Test("Many sources use every core; no progress bar when stderr is not a terminal")
  func manySources() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let images = try work.images(24, width: 400, height: 300)
    let result = try Run.gallery(["drop", document] + images)
    #expect(result.status == 0)
    #expect(!result.stderr.contains("\r"))
    #expect(try Listing.of(document).items.count == 24)
    #expect(try Run.gallery(["check", document]).status == 0)
  }

  @Test("Usage errors: no sources, a bad position")
  func usage() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document]).status == 64)
    #expect(try Run.gallery(["drop", document, "--at", "0", "x.jpg"]).status == 64)
    #expect(try Run.gallery(["drop", work.path("missing.gallery"), "x.jpg"]).status == 66)
  }
}

@Suite("gallery move, trash and restore")
struct EditCommandTests {
  func ids(_ document: String) throws -> [String] { try Listing.of(document).items.map(\.id) }

  @Test("move: by position and id, several keep their order, to the end")
  func move() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(5)).status == 0)
    let original = try ids(document)
    #expect(try Run.gallery(["move", document, "4", original[1], "--to", "1"]).status == 0)
    #expect(try ids(document) == [original[1], original[3], original[0], original[2], original[4]])
    #expect(try Run.gallery(["move", document, original[1], "--to", "end"]).status == 0)
    #expect(try ids(document).last == original[1])
    #expect(try Run.gallery(["move", document, original[0], "--to", "99"]).status == 0)
    #expect(try ids(document).last == original[0])
    let bad = try Run.gallery(["move", document, "nosuch", "--to", "1"])
    #expect(bad.status == 66)
    #expect(bad.stderr.contains("nosuch"))
  }

  @Test("trash keeps data; --list shows it; restore puts it back; --empty forgets it")
  func trash() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(4)).status == 0)
    let original = try ids(document)
    #expect(try Run.gallery(["trash", document, "2", "3"]).status == 0)
    #expect(try ids(document) == [original[0], original[3]])
    let list = try Run.gallery(["trash", document, "--list"])
    #expect(list.stdout.split(separator: "\n").count == 2)
    #expect(list.stdout.contains(original[1]) && list.stdout.contains(original[2]))
    let json =
      try JSONSerialization.jsonObject(with: try Run.gallery(["trash", document, "--list", "--json"]).stdoutData)
      as! [[String: Any]]
    #expect(json.count == 2)
    #expect(try Run.gallery(["check", document]).status == 0)

    #expect(try Run.gallery(["restore", document, original[2], original[1]]).status == 0)
    #expect(try ids(document) == original)

    #expect(try Run.gallery(["trash", document, original[0]]).status == 0)
    #expect(try Run.gallery(["trash", document, "--empty"]).status == 0)
    #expect(try Listing.of(document).trashed == 0)
    #expect(try Run.gallery(["restore", document, original[0]]).status == 66)
    // The history can still bring it back, until it is forgotten.
    #expect(try archiveNames(document).contains { $0.contains(original[0]) })
    let sizeBefore = try work.bytes(document).count
    #expect(try Run.gallery(["compact", "--forget-history", document]).status == 0)
    #expect(try work.bytes(document).count < sizeBefore)
    #expect(try !archiveNames(document).contains { $0.contains(original[0]) })
    #expect(try Run.gallery(["check", document]).status == 0)
  }
}

@Suite("Dragging out: export and uris")
struct DragOutTests {
  @Test("Hundreds of items of one name export under the next free names, each tried once, none replaced")
  func exportManyOfOneName() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let image = try work.image("same.jpg", width: 40, height: 30, seed: 3)
    #expect(try Run.gallery(["drop", document] + Array(repeating: image, count: 300)).status == 0)
    let out = work.path("out")
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    for name in ["same.jpg", "same-3.jpg"] { try Data("mine".utf8).write(to: URL(fileURLWithPath: out + "/" + name)) }
    let run = try Run.gallery(["export", document, "--to", out, "--thumbnails"])
    #expect(run.status == 0, "\(run.stderr)")
    let names = run.stdout.split(separator: "\n").map { ($0 as NSString).lastPathComponent }
    #expect(names == ["same-2.jpg"] + (4...302).map { "same-\($0).jpg" })
    for name in ["same.jpg", "same-3.jpg"] { #expect(try work.bytes(out + "/" + name) == Data("mine".utf8)) }
    let numbered = FileSystem.numberedNames(for: "a.b.jpg", separator: "-", from: 2, count: 2).map { "\($0.name) \($0.number)" }
    #expect(numbered == ["a.b-2.jpg 2", "a.b-3.jpg 3"])
    #expect(FileSystem.numberedNames(for: "x", separator: " ", from: 0, count: 2).map(\.name) == ["x", "x 2"])
    // As many as there may be (a new document's name tries them all).
    #expect(Array(FileSystem.candidateNames(for: "x", separator: " ", count: .max).prefix(2)) == ["x", "x 2"])
  }

  @Test("export copies originals under safe, unique names; --thumbnails the thumbnails")
  func export() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let first = try work.image("photo.jpg", seed: 1)
    try FileManager.default.createDirectory(atPath: work.path("other"), withIntermediateDirectories: true)
    let second = work.path("other/photo.jpg")
    try FixtureImage.make(width: 100, height: 100, seed: 2).write(to: URL(fileURLWithPath: second))
    #expect(try Run.gallery(["drop", document, first, second]).status == 0)

    let out = work.path("out")
    let result = try Run.gallery(["export", document, "--to", out])
    #expect(result.status == 0, "\(result.stderr)")
    let written = result.stdout.split(separator: "\n").map(String.init)
    #expect(written.map { ($0 as NSString).lastPathComponent } == ["photo.jpg", "photo-2.jpg"])
    #expect(try work.bytes(written[0]) == work.bytes(first))
    #expect(try work.bytes(written[1]) == work.bytes(second))

    let thumbs = try Run.gallery(["export", document, "2", "--to", out, "--thumbnails"])
    #expect(thumbs.status == 0)
    let thumbnail = try work.bytes(thumbs.stdout.trimmingCharacters(in: .newlines))
    let image = try ImageProcessor.process(thumbnail, options: ImageOptions())
    #expect(image.width == 100 && image.height == 100)

    // --json: which item went to which file, in the order asked, numbered by position.
    let json = try Run.gallery(["export", document, "2", "1", "--to", work.path("json"), "--numbered", "--xmp", "--json"])
    #expect(json.status == 0, "\(json.stderr)")
    let entries = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]])
    let ids = try Listing.of(document).items.map(\.id)
    #expect(entries.map { $0["position"] as? Int } == [2, 1] && entries.map { $0["id"] as? String } == [ids[1], ids[0]])
    let files = entries.compactMap { $0["file"] as? String }
    #expect(files.map { ($0 as NSString).lastPathComponent } == ["002-photo.jpg", "001-photo.jpg"])
    #expect(try work.bytes(files[1]) == work.bytes(first))
    #expect(entries.map { $0["sidecar"] as? String } == files.map { $0 + ".xmp" })

    // A changed original is not passed off as the one dropped.
    try FixtureImage.make(width: 100, height: 100, seed: 3).write(to: URL(fileURLWithPath: second))
    let changed = try Run.gallery(["export", document, "2", "--to", out])
    #expect(changed.status == 1)
    #expect(changed.stderr.contains("changed"))
  }

  @Test("uris prints a text/uri-list with CRLF that drop reads back")
  func uris() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(3)).status == 0)
    let result = try Run.gallery(["uris", document])
    #expect(result.status == 0)
    #expect(result.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 3)
    #expect(result.stdout.hasSuffix("\r\n"))
    let some = try Run.gallery(["uris", document, "3", "1"])
    let listing = try Listing.of(document).items
    let sources = listing.map(\.source)
    #expect(some.stdout == sources[2] + "\r\n" + sources[0] + "\r\n")
    // Named 90 times over (the run past the parser's first few appended after it): each once.
    let many = try Run.gallery(["uris", document] + Array(repeating: ["3", "1", listing[1].id], count: 30).flatMap { $0 })
    #expect(many.status == 0 && many.stdout == [2, 0, 1].map { sources[$0] + "\r\n" }.joined(), "\(many.stderr)")
    // --json: each item's position, id and URI, in the order asked.
    let json = try Run.gallery(["uris", document, "3", "1", "--json"])
    let entries = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]])
    #expect(entries.map { $0["position"] as? Int } == [3, 1])
    #expect(entries.map { $0["id"] as? String } == [listing[2].id, listing[0].id])
    #expect(entries.map { $0["uri"] as? String } == [sources[2], sources[0]])

    let other = try work.document("other.gallery")
    #expect(try Run.gallery(["drop", other, "-"], stdin: result.stdoutData).status == 0)
    #expect(try Listing.of(other).items.map(\.source) == sources)
  }
}

@Suite("gallery check")
struct CheckCommandTests {
  @Test("A healthy document passes; an orphan entry and a missing thumbnail are reported")
  func check() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(2)).status == 0)
    let healthy = try Run.gallery(["check", "--json", document])
    #expect(healthy.status == 0)
    let report = try JSONSerialization.jsonObject(with: healthy.stdoutData) as? [String: Any]
    #expect((report?["problems"] as? [Any])?.isEmpty == true, "\(healthy.stdout)")

    // Append, with bsdtar, a stray entry and then the model again, so the stray entry is
    // part of the last complete revision; and a model whose item names a missing thumbnail.
    // (Compacted first, so that the last gallery.json is the current model.)
    #expect(try Run.gallery(["compact", document]).status == 0)
    let folder = work.path("x")
    try FileManager.default.createDirectory(atPath: folder + "/thumbnails", withIntermediateDirectories: true)
    _ = try work.write("stray", to: "x/thumbnails/stray.jpg")
    let model = try Run.program("bsdtar", ["-xOf", document, "gallery.json"]).stdout
    let last = model.components(separatedBy: "}{").last!
    var json = (model.contains("}{") ? "{" : "") + last
    let id = try Listing.of(document).items[0].id
    json = json.replacingOccurrences(of: "thumbnails/\(id).jpg", with: "thumbnails/\(id)x.jpg")
    try Data(json.utf8).write(to: URL(fileURLWithPath: folder + "/gallery.json"))
    let append = try Run.program("bsdtar", ["-rf", document, "-C", folder, "thumbnails/stray.jpg", "gallery.json"])
    #expect(append.status == 0, "\(append.stderr)")

    let damaged = try Run.gallery(["check", document])
    #expect(damaged.status == 1)
    #expect(damaged.stdout.contains("orphan entry thumbnails/stray.jpg"))
    #expect(damaged.stdout.contains("item \(id): thumbnail thumbnails/\(id)x.jpg is missing"))
  }
}

@Suite("Progress on a terminal")
struct ProgressBarTests {
  @Test("A drop of several sources draws a progress bar when stderr is a terminal")
  func progressBarOnTerminal() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let images = try work.images(4)
    // script(1) runs the command on a pseudo-terminal and copies what it wrote.
    let command = ([Run.galleryBinary, "drop", document] + images).map { "'\($0)'" }.joined(separator: " ")
    let result = try Run.program("script", ["-qec", command, "/dev/null"])
    #expect(result.status == 0, "\(result.stdout)")
    #expect(result.stdout.contains("dropping ["))
    #expect(result.stdout.contains("4/4"))
    #expect(try Listing.of(document).items.count == 4)
  }
}
