import Foundation
import GalleryKit
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

@Suite("The .gallery document: a pax tar others can read")
struct DocumentFormatTests {
  @Test("No entry is written past the size its reader takes: the model, a record, the index, an original")
  func entriesStayWithinTheirLimits() throws {
    let work = try TestWorkspace()
    let path = work.path("limits.tar")
    let file = try FileHandleFD(path: path, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
    let writer = try EntryWriter(file: file, entries: EntryTable(), liveBytes: 0)
    for name in [
      "gallery.json", "journal/0000000002.json", ArchiveIndex.name, "originals/\(String(repeating: "a", count: 64)).jpg",
    ] {
      let limit = try #require(DocumentArchive.sizeLimit(of: name))
      #expect(throws: EntryTooLarge.self) {
        try writer.write(name: name, size: Int(limit) + 1, modified: Date()) { _ in Issue.record("\(name) produced") }
      }
    }
    // Nothing was written; an entry within its limit is.
    #expect(try file.status().st_size == 0)
    try writer.write(name: "gallery.json", data: Data("{}".utf8), modified: Date())
    #expect(try file.status().st_size > 0)
  }

  @Test("bsdtar, GNU tar and Python's tarfile list it, mimetype first")
  func interoperates() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let images = try work.images(3)
    #expect(try Run.gallery(["drop", document] + images).status == 0)

    for tool in ["bsdtar", "tar"] {
      let names = try archiveNames(document, tool: tool)
      #expect(names.first == "mimetype")
      #expect(names.contains("gallery.json"))
      #expect(names.contains("cover.jpg"))
      #expect(names.filter { $0.hasPrefix("thumbnails/") }.count == 3)
    }
    let python = try Run.program(
      "python3",
      [
        "-c",
        "import tarfile,sys; t=tarfile.open(sys.argv[1]); print(t.getmembers()[0].name, t.extractfile('mimetype').read().decode())",
        document,
      ])
    #expect(python.status == 0, "\(python.stderr)")
    #expect(python.stdout == "mimetype application/x-gallery\n")
  }

  @Test(
    "tar -x leaves a checkpoint and the journal after it; after compact, the current model; both validate against the JSON Schemas"
  )
  func extractsLastRevisionValidatingSchema() throws {
    let work = try TestWorkspace()
    let document = try work.document(title: "Schema")
    let images = try work.images(2)
    #expect(try Run.gallery(["drop", document] + images).status == 0)
    #expect(try Run.gallery(["move", document, "2", "--to", "1"]).status == 0)
    #expect(try Run.gallery(["trash", document, "2"]).status == 0)
    #expect(try Run.gallery(["add-note", document, "A card\nof two lines", "--at", "1"]).status == 0)
    let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("docs").path
    func validate(_ schema: String, _ files: [String]) throws {
      let result = try Run.program(
        SchemaValidator.python,
        [
          "-c",
          "import json,sys,jsonschema\nv=jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))\nfor f in sys.argv[2:]: v.validate(json.load(open(f)))\nprint('ok')",
          docs + "/" + schema,
        ] + files)
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stdout == "ok\n")
    }

    // Before compaction: the journal records of every save, each valid.
    let journal = work.path("journal-extracted")
    try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: true)
    #expect(try Run.program("tar", ["-xf", document, "-C", journal]).status == 0)
    let records = try FileManager.default.contentsOfDirectory(atPath: journal + "/journal").sorted()
    let revision = try GalleryDocument.open(document).model.revision
    #expect(records.map { "journal/" + $0 } == (1...revision).map(DocumentArchive.journalEntry))
    try validate("journal.schema.json", records.map { journal + "/journal/" + $0 })

    // `gallery compact` makes gallery.json current.
    #expect(try Run.gallery(["compact", document]).status == 0)
    let out = work.path("extracted")
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    let extract = try Run.program("tar", ["-xf", document, "-C", out])
    #expect(extract.status == 0, "\(extract.stderr)")
    let onDisk = try Data(contentsOf: URL(fileURLWithPath: out + "/gallery.json"))
    let model = try GalleryDocument.open(document).model
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    #expect(try decoder.decode(GalleryModel.self, from: onDisk) == model)
    #expect(model.items.count == 2 && model.items[0].isNoteCard && model.trash.count == 1)
    #expect(model.format == 2 && model.revision == revision)
    try validate("gallery.schema.json", [out + "/gallery.json"])
    // The index and the trailer, as tar leaves the last of each.
    try validate("index.schema.json", [out + "/gallery.index", out + "/gallery.end"])
    let schema = docs + "/gallery.schema.json"

    // And the schema is not a rubber stamp: it rejects a broken model.
    let broken = try work.write(#"{"format":1,"title":"x","items":[{"id":"12","state":"ready"}]}"#, to: "broken.json")
    let rejected = try Run.program(
      SchemaValidator.python,
      [
        "-c",
        "import json,sys,jsonschema; jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))",
        schema, broken,
      ])
    #expect(rejected.status != 0)
  }

  @Test("A save appends what changed, not the whole document")
  func saveCostsWhatChanged() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let images = try work.images(40, width: 120, height: 90)
    #expect(try Run.gallery(["drop", document] + images).status == 0)
    try GalleryDocument.compact(document)
    let namesBefore = try archiveNames(document)
    let sizeBefore = try work.bytes(document).count

    let one = try work.image("one.jpg", width: 400, height: 300, seed: 99)
    #expect(try Run.gallery(["drop", document, one]).status == 0)
    let namesAfter = try archiveNames(document)
    // The old entries are untouched, in place; only new ones follow: the placeholder
    // revision's journal record and trailer, the thumbnail, and the commit's record and
    // trailer, or, when the image loaded before the document was open, the thumbnail and
    // one record and trailer (no cover: the first four are the same; no checkpoint: the
    // journal is small beside the model).
    #expect(Array(namesAfter.prefix(namesBefore.count)) == namesBefore)
    let revision = try GalleryDocument.open(document).model.revision
    let added = Array(namesAfter.dropFirst(namesBefore.count))
    let thumbnail = try #require(added.first { $0.hasPrefix("thumbnails/") })
    let commit = [thumbnail, DocumentArchive.journalEntry(revision), ArchiveTrailer.name]
    #expect(added == [DocumentArchive.journalEntry(revision - 1), ArchiveTrailer.name] + commit || added == commit)
    // The file grew by those entries (and their headers), nothing more.
    let sizes = try Run.program(
      "python3",
      [
        "-c", "import tarfile,sys; m=tarfile.open(sys.argv[1]).getmembers(); print(sum(x.size for x in m[int(sys.argv[2]):]))",
        document, String(namesBefore.count),
      ])
    let appended = Int(sizes.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    #expect(appended > 0)
    #expect(try work.bytes(document).count - sizeBefore <= appended + 5 * 2048)
  }

  @Test("An interrupted save's torn tail is ignored on read and cut by the next write")
  func tornTailIsIgnored() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let images = try work.images(2)
    #expect(try Run.gallery(["drop", document, images[0]]).status == 0)
    let intact = try work.bytes(document)
    let before = try GalleryDocument.open(document).model

    // What a killed append leaves: the end marker overwritten by half an entry.
    var torn = intact.prefix(intact.count - 1024)
    let another = try work.bytes(images[1])
    torn.append(contentsOf: tarHeader(name: "thumbnails/zzzzzz.jpg", size: another.count))
    torn.append(another.prefix(700))
    try torn.write(to: URL(fileURLWithPath: document))

    let reopened = try GalleryDocument.open(document)
    #expect(reopened.model == before)
    #expect(reopened.statistics.tornBytes > 0)
    let check = try Run.gallery(["check", document])
    #expect(check.status == 0, "\(check.stdout)")
    #expect(check.stderr.contains("interrupted save"))

    #expect(try Run.gallery(["drop", document, images[1]]).status == 0)
    let after = try GalleryDocument.open(document)
    #expect(after.statistics.tornBytes == 0)
    #expect(after.model.items.count == 2)
    #expect(try !archiveNames(document).contains("thumbnails/zzzzzz.jpg"))
  }

  @Test("Dead bytes are reported and compaction reclaims them, keeping the model")
  func compaction() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(6)).status == 0)
    for _ in 0..<4 { #expect(try Run.gallery(["move", document, "1", "--to", "end"]).status == 0) }
    let before = try GalleryDocument.open(document)
    #expect(before.statistics.deadBytes > 0)
    #expect(before.statistics.revisions >= 6)
    let thumbnails = before.model.items.compactMap(\.thumbnail)
    let pictures = try thumbnails.map { try Run.program("bsdtar", ["-xOf", document, $0]).stdoutData }

    let result = try Run.gallery(["compact", document])
    #expect(result.status == 0)
    let after = try GalleryDocument.open(document)
    #expect(after.model == before.model)
    #expect(after.statistics.deadBytes == 0)
    #expect(after.statistics.revisions == 1)
    #expect(after.statistics.fileBytes < before.statistics.fileBytes)
    #expect(try Run.gallery(["check", document]).status == 0)
    // Each thumbnail moved byte for byte (copied as it lay), listed in the items' order.
    #expect(thumbnails.count == 6 && pictures.allSatisfy { $0.count > 1000 })
    #expect(try thumbnails.map { try Run.program("bsdtar", ["-xOf", document, $0]).stdoutData } == pictures)
    #expect(try archiveNames(document).filter { $0.hasPrefix("thumbnails/") } == thumbnails)
  }

  @Test("Saves compact by themselves once dead bytes pass half the file")
  func automaticCompaction() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(30, width: 100, height: 80)).status == 0)
    var largest = 0
    for _ in 0..<200 {
      #expect(try Run.gallery(["move", document, "1", "--to", "end"]).status == 0)
      let statistics = try GalleryDocument.open(document).statistics
      largest = max(largest, Int(statistics.fileBytes))
      #expect(statistics.deadBytes <= max(statistics.fileBytes / 2, 256 * 1024) + 64 * 1024)
    }
    #expect(try GalleryDocument.open(document).statistics.revisions < 200)
    #expect(try Run.gallery(["check", document]).status == 0)
    let names = try archiveNames(document)
    #expect(Set(names.filter { $0.hasPrefix("thumbnails/") }).count == 30)
    for name in names where name.hasPrefix("thumbnails/") {
      let picture = try Run.program("bsdtar", ["-xOf", document, name]).stdoutData
      #expect(picture.starts(with: [0xFF, 0xD8]) && picture.suffix(2) == Data([0xFF, 0xD9]), "\(name)")
    }
  }
}

@Suite("Damaged and hostile documents are refused with a reason")
struct DamagedDocumentTests {
  func open(_ path: String) -> DocumentError? {
    do {
      _ = try GalleryDocument.open(path)
      return nil
    } catch { return error }
  }

  @Test("Not a gallery: random bytes, an empty file, a tar without mimetype, a folder")
  func notGalleries() throws {
    let work = try TestWorkspace()
    let random = work.path("random.gallery")
    try Data((0..<5000).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: random))
    let empty = try work.write("", to: "empty.gallery")
    let plain = work.path("plain.gallery")
    _ = try work.write("hello", to: "hello.txt")
    #expect(try Run.program("bsdtar", ["-cf", plain, "-C", work.folder.path, "hello.txt"]).status == 0)
    try FileManager.default.createDirectory(atPath: work.path("folder.gallery"), withIntermediateDirectories: true)

    for path in [random, empty, plain, work.path("folder.gallery")] {
      guard case .notAGallery = open(path) else {
        Issue.record("\(path) was not refused as not a gallery")
        continue
      }
      let show = try Run.gallery(["show", path])
      #expect(show.status == 65)
      #expect(show.stderr.contains("not a gallery document"))
      #expect(show.stdout.isEmpty)
    }
    let missing = try Run.gallery(["show", work.path("missing.gallery")])
    #expect(missing.status == 66)
  }

  @Test("A gallery.json that does not decode, or is from a newer format")
  func badModels() throws {
    let work = try TestWorkspace()
    _ = try work.write("application/x-gallery", to: "mimetype")
    _ = try work.write("{not json", to: "gallery.json")
    let garbled = work.path("garbled.gallery")
    #expect(
      try Run.program("bsdtar", ["--format", "pax", "-cf", garbled, "-C", work.folder.path, "mimetype", "gallery.json"]).status
        == 0)
    guard case .corrupt = open(garbled) else {
      Issue.record("garbled model not reported as damaged")
      return
    }

    var future = GalleryModel(title: "future")
    future.format = 99
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    try encoder.encode(future).write(to: URL(fileURLWithPath: work.path("gallery.json")))
    let newer = work.path("newer.gallery")
    #expect(
      try Run.program("bsdtar", ["--format", "pax", "-cf", newer, "-C", work.folder.path, "mimetype", "gallery.json"]).status == 0
    )
    let show = try Run.gallery(["show", newer])
    #expect(show.status == 65)
    #expect(show.stderr.contains("newer"))
  }

  @Test("An entry claiming a huge size, or a path escaping the folder, does no harm")
  func hostileEntries() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let intact = try work.bytes(document)
    // A gallery.json header claiming 8 GB, with nothing behind it.
    var hostile = intact.prefix(intact.count - 1024)
    hostile.append(contentsOf: tarHeader(name: "gallery.json", size: 8 << 30))
    hostile.append(Data(count: 4096))
    try hostile.write(to: URL(fileURLWithPath: document))
    let opened = try GalleryDocument.open(document)
    #expect(opened.model.title == "test")

    // `../` names are never used as paths by gallery: the document opens and checks.
    var escaping = intact.prefix(intact.count - 1024)
    escaping.append(contentsOf: tarHeader(name: "../../escaped.txt", size: 5))
    escaping.append(Data("hello".utf8) + Data(count: 507))
    escaping.append(Data(count: 1024))
    try escaping.write(to: URL(fileURLWithPath: document))
    #expect(try Run.gallery(["show", document]).status == 0)
    #expect(
      !FileManager.default.fileExists(atPath: work.folder.deletingLastPathComponent().appendingPathComponent("escaped.txt").path))
  }
}

enum SchemaValidator {
  /// A python3 that has jsonschema (Debian's python3-jsonschema, or the first on PATH).
  static let python: String = {
    for candidate in ["python3", "/usr/bin/python3"] {
      if let result = try? Run.program(candidate, ["-c", "import jsonschema"]), result.status == 0 { return candidate }
    }
    return "python3"
  }()
}

/// A ustar header block, as an interrupted or hostile writer would leave it.
func tarHeader(name: String, size: Int) -> Data {
  var block = [UInt8](repeating: 0, count: 512)
  func put(_ text: String, at offset: Int) {
    for (index, byte) in text.utf8.enumerated() { block[offset + index] = byte }
  }
  put(name, at: 0)
  put("0000644", at: 100)
  put("0000000", at: 108)
  put("0000000", at: 116)
  put(String(size, radix: 8).leftPad(11), at: 124)
  put("00000000000", at: 136)
  put("        ", at: 148)
  block[156] = UInt8(ascii: "0")
  put("ustar", at: 257)
  put("00", at: 263)
  let sum = block.reduce(0) { $0 + Int($1) }
  put(String(sum, radix: 8).leftPad(6) + "\0 ", at: 148)
  return Data(block)
}

extension String {
  func leftPad(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
