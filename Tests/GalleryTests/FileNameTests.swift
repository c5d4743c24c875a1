import Foundation
import Testing

@testable import GalleryDocument
@testable import GalleryKit
@testable import GallerySystem

/// File names are bytes: Latin-1 from old cameras and FAT cards, Shift-JIS from zip files
/// made on Windows, next to UTF-8. Every command, drop folders fed by cp, mv and rsync, and
/// uri-lists take them as they are, record them percent-encoded in `file:` URLs (RFC 8089),
/// write them back byte for byte, and show them escaped.
@Suite("File names are bytes")
struct FileNameTests {
  static let latin1: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)
  /// テスト in Shift-JIS.
  static let shiftJIS: [UInt8] = [0x83, 0x65, 0x83, 0x58, 0x83, 0x67] + Array(".jpg".utf8)
  static let utf8: [UInt8] = Array("été.jpg".utf8)

  @Test("Any bytes go to a path and back unchanged; UTF-8 stays text; the escapes show as \\xNN")
  func roundTrip() {
    var random = SplitMix(state: 3)
    for _ in 0..<3000 {
      let bytes = (0..<Int.random(in: 0...24, using: &random)).map { _ in
        UInt8.random(in: 1...255, using: &random)
      }
      let path = PathBytes.string(bytes)
      #expect(PathBytes.bytes(path) == bytes, "\(bytes)")
      let cBytes = PathBytes.withCString(path) { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
      #expect(cBytes == bytes)
      let url = PathBytes.fileURL(absolutePath: "/" + path)
      #expect(url.unicodeScalars.allSatisfy { $0.isASCII })
      #expect(PathBytes.path(fromFileURL: url).map(PathBytes.bytes) == [UInt8(ascii: "/")] + bytes, "\(url)")
    }
    // Valid UTF-8 is the text itself, including what spells our own scalars as text.
    #expect(PathBytes.string(Self.utf8) == "été.jpg")
    let spelled: [UInt8] = [0xF4, 0x8F, 0xBF, 0xA9]  // U+10FFE9 written as UTF-8
    #expect(PathBytes.bytes(PathBytes.string(spelled)) == spelled)
    #expect(PathBytes.displayed(PathBytes.string(Self.latin1)) == "caf\\xE9.jpg")
    #expect(PathBytes.fileURL(absolutePath: "/p/" + PathBytes.string(Self.latin1)) == "file:///p/caf%E9.jpg")
    #expect(PathBytes.fileURL(absolutePath: "/p/été b.jpg") == "file:///p/%C3%A9t%C3%A9%20b.jpg")
    #expect(PathBytes.path(fromFileURL: "file://localhost/p/a%2Fb") == "/p/a/b")
    #expect(PathBytes.path(fromFileURL: "file://server/p") == nil)
    #expect(PathBytes.path(fromFileURL: "file:///p/a%00b") == nil)
    #expect(PathBytes.path(fromFileURL: "file:///p/a%G1") == nil)
    #expect(PathBytes.lastSegment(ofURL: "file:///p/caf%E9.jpg?x#y") == PathBytes.string(Self.latin1))
  }

  /// Three photos named in Latin-1, Shift-JIS and UTF-8.
  func photos(_ work: TestWorkspace, in folder: String = "") throws -> [String] {
    try [Self.latin1, Self.shiftJIS, Self.utf8].enumerated().map { index, name in
      let made = try work.image("plain\(index).jpg", width: 200 + index, height: 120, seed: 60 + index)
      return try work.rename(made, toBytes: (folder.isEmpty ? [] : Array(folder.utf8) + [UInt8(ascii: "/")]) + name)
    }
  }

  @Test("drop by argument, by uri-list, by NUL-separated list; show, export and retry keep every name's bytes")
  func commands() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let photos = try photos(work)
    let drop = try Run.gallery(["drop", document] + photos)
    #expect(drop.status == 0, "\(drop.stderr)")
    let sources = try Listing.of(document).items.map(\.source)
    let folderURL = "file://" + work.folder.path
    #expect(sources == [folderURL + "/caf%E9.jpg", folderURL + "/%83e%83X%83g.jpg", folderURL + "/%C3%A9t%C3%A9.jpg"])
    // The uri-list of those sources drops the same files; so does a NUL-separated list of paths.
    let uris = try Run.gallery(["drop", document, "-"], stdin: Data(sources.map { $0 + "\r\n" }.joined().utf8))
    #expect(uris.status == 0, "\(uris.stderr)")
    let nulList = photos.map { PathBytes.bytes($0) + [0] }.joined()
    let nul = try Run.gallery(["drop", "--null", document, "-"], stdin: Data(nulList))
    #expect(nul.status == 0, "\(nul.stderr)")
    // Plain paths on lines, their bytes as they are (find's output).
    let lines = photos.map { PathBytes.bytes($0) + [UInt8(ascii: "\n")] }.joined()
    #expect(try Run.gallery(["drop", document, "-"], stdin: Data(lines)).status == 0)
    #expect(try Listing.of(document).items.map(\.source) == sources + sources + sources + sources)
    // A NUL inside a uri-list line is refused, the rest dropped.
    let withNUL = try Run.gallery(["drop", document, "-"], stdin: Data(PathBytes.bytes(photos[0]) + [0, 10]))
    #expect(withNUL.status == 1 && withNUL.stderr.contains("--null"), "\(withNUL.stderr)")
    // Messages show the bytes escaped; show lists the URLs.
    let missing = try Run.gallery(["drop", document, work.path(bytes: Array("no".utf8) + [0xEF] + Array(".jpg".utf8))])
    #expect(missing.stderr.contains("no\\xEF.jpg"), "\(missing.stderr)")
    #expect(try Run.gallery(["show", document]).stdout.contains("caf%E9.jpg"))

    // export writes each file under the name it was read from, byte for byte.
    let out = work.path("out")
    let export = try Run.gallery(["export", document, "1", "2", "3", "--to", out])
    #expect(export.status == 0, "\(export.stderr)")
    let exported = try FileSystem.entries(of: out).map(PathBytes.bytes).sorted { $0.lexicographicallyPrecedes($1) }
    #expect(exported == [Self.latin1, Self.shiftJIS, Self.utf8].sorted { $0.lexicographicallyPrecedes($1) })
    // Its output lists those paths' bytes, one a line.
    #expect(export.stdoutData.split(separator: 10).map { Array($0.suffix(Self.latin1.count)) }.contains(Self.latin1))
    // A failed item loads again from such a name.
    #expect(try Run.gallery(["check", document]).status == 0)
  }

  @Test("A document named in Latin-1: new, drop, rename to Shift-JIS, duplicate, browse, recent, delete to the Trash")
  func documentNames() throws {
    let work = try TestWorkspace()
    let document = work.path(bytes: Array("gal".utf8) + [0xE9] + Array("rie.gallery".utf8))
    let created = try Run.gallery(["new", document])
    #expect(created.status == 0, "\(created.stderr)")
    #expect(created.stderr.contains("gal\\xE9rie.gallery") && created.stderr.contains("\"galérie\""), "\(created.stderr)")
    #expect(try Run.gallery(["drop", document, try work.image("a.jpg")]).status == 0)
    let browse = try Run.gallery(["browse", work.folder.path])
    #expect(browse.stdout.contains("gal\\xE9rie.gallery") && browse.stdout.contains("1 item"), "\(browse.stdout)")

    let renamed = work.path(bytes: [0x83, 0x65, 0x83, 0x58, 0x83, 0x67] + Array(".gallery".utf8))
    // The path made goes to a program as its bytes, as `new` and `export` give theirs.
    let rename = try Run.gallery(["rename", document, (renamed as NSString).lastPathComponent])
    #expect(rename.status == 0 && Array(rename.stdoutData) == PathBytes.bytes(renamed) + [10], "\(rename.stdout)")
    #expect(FileSystem.linkStatus(of: renamed) != nil && FileSystem.linkStatus(of: document) == nil)
    let duplicate = try Run.gallery(["duplicate", renamed])
    #expect(duplicate.status == 0 && duplicate.stdoutData.starts(with: [0x2F]), "\(duplicate.stdout)")
    #expect(Array(duplicate.stdoutData).contains(0x83) && !duplicate.stdout.contains("\\x83"), "\(duplicate.stdout)")
    let names = try FileSystem.entries(of: work.folder.path).filter { $0.hasSuffix(".gallery") }
    #expect(names.count == 2, "\(names.map(PathBytes.displayed))")
    #expect(try Run.gallery(["browse", "--recent"]).stdout.contains("\\x83e\\x83X\\x83g.gallery"))

    let delete = try Run.gallery(["delete", renamed])
    #expect(delete.status == 0, "\(delete.stderr)")
    #expect(FileSystem.linkStatus(of: renamed) == nil)
    let trash = Run.isolatedHome["XDG_DATA_HOME"]! + "/Trash"
    let info = try FileSystem.entries(of: trash + "/info").filter { PathBytes.bytes($0).starts(with: [0x83, 0x65]) }
    let text = String(decoding: try FileSystem.read(trash + "/info/" + (try #require(info.first)), limit: 4096), as: UTF8.self)
    #expect(text.contains("Path=" + work.folder.path + "/%83e%83X%83g.gallery"), "\(text)")
  }

  @Test("JSON gives such a path as text and exactly as a file: URL, which every document and folder argument takes back")
  func jsonPaths() throws {
    let work = try TestWorkspace()
    let folder = work.path(bytes: Array("alb".utf8) + [0xFC] + Array("m".utf8))
    try OutputFile.makeFolder(folder)
    let document = folder + "/" + PathBytes.string(Array("gal".utf8) + [0xE9] + Array("rie.gallery".utf8))
    #expect(try Run.gallery(["new", document]).status == 0)
    let photoFiles = try photos(work)
    let photo = photoFiles[0]
    #expect(try Run.gallery(["drop", document, photo]).status == 0)
    let documentURL = PathBytes.fileURL(absolutePath: document)
    #expect(documentURL.hasSuffix("/alb%FCm/gal%E9rie.gallery"), "\(documentURL)")
    func json(_ arguments: [String], in directory: String? = nil) throws -> Any {
      let run = try Run.gallery(arguments, in: directory)
      #expect(run.status == 0, "\(arguments): \(run.stderr)")
      return try JSONSerialization.jsonObject(with: run.stdoutData)
    }
    // Given by a relative path, as browse lists a folder: the text shows the bytes, the URL is absolute.
    let browse = try #require(try json(["browse", "--json", "."], in: folder) as? [[String: Any]])
    #expect(browse.first?["path"] as? String == "./gal\\xE9rie.gallery", "\(browse)")
    #expect(browse.first?["pathURL"] as? String == documentURL, "\(browse)")
    // The URL names the document to every command that takes one, and a folder to those that take folders.
    let info = try #require(try json(["info", "--json", documentURL]) as? [String: Any])
    #expect(info["path"] as? String == PathBytes.displayed(document) && info["pathURL"] as? String == documentURL)
    let folderURL = PathBytes.fileURL(absolutePath: folder)
    let found = try #require(try json(["find", "--json", folderURL, "state:ready"]) as? [String: Any])
    let documents = try #require(found["documents"] as? [[String: Any]])
    #expect(documents.count == 1 && documents.first?["pathURL"] as? String == documentURL, "\(found)")
    let out = folder + "/out"
    let exported = try #require(
      try json(["export", "--json", "--xmp", documentURL, "1", "--to", PathBytes.fileURL(absolutePath: out)]) as? [[String: Any]])
    let fileURL = try #require(exported.first?["fileURL"] as? String)
    #expect(PathBytes.path(fromFileURL: fileURL) == out + "/" + PathBytes.string(Self.latin1), "\(exported)")
    #expect(exported.first?["file"] as? String == PathBytes.displayed(out) + "/caf\\xE9.jpg", "\(exported)")
    let sidecar = try #require(exported.first?["sidecarURL"] as? String).flatMap(PathBytes.path(fromFileURL:))
    #expect(FileSystem.linkStatus(of: try #require(sidecar)) != nil)
    // A drop folder's events; its configuration file names the folder and the document in Latin-1.
    let inbox = folder + "/in"
    try OutputFile.makeFolder(inbox)
    #expect(try Run.program("cp", [photo, inbox + "/"]).status == 0)
    let config = work.path("watch.conf")
    try Data(PathBytes.bytes(inbox + ":" + document + "\n")).write(to: URL(fileURLWithPath: config))
    let watch = try Run.gallery(["watch", "--once", "--config", config, "--events", "json", "--allow-duplicates"])
    #expect(watch.status == 0, "\(watch.stderr)")
    let events = try watch.stdoutData.split(separator: 10).map {
      try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
    }
    let committed = try #require(events.first { $0["event"] as? String == "committed" }, "\(watch.stdout)")
    #expect(committed["documentURL"] as? String == documentURL, "\(committed)")
    #expect(committed["pathURL"] as? String == PathBytes.fileURL(absolutePath: inbox + "/" + PathBytes.string(Self.latin1)))
    #expect(committed["path"] as? String == PathBytes.displayed(inbox) + "/caf\\xE9.jpg")
    // Its folders as URLs: the one watched, where committed files go, where the others go.
    let (done, rejected) = (folder + "/done", folder + "/rejected")
    try Data("not an image".utf8).write(to: URL(fileURLWithPath: work.path("note.jpg")))
    #expect(try Run.program("cp", [work.path("note.jpg"), photoFiles[1], inbox + "/"]).status == 0)
    let moving = try Run.gallery([
      "watch", "--once", PathBytes.fileURL(absolutePath: inbox), "--into", documentURL, "--allow-duplicates",
      "--then", "move:" + PathBytes.fileURL(absolutePath: done), "--reject-to", PathBytes.fileURL(absolutePath: rejected),
    ])
    #expect(moving.status == 0, "\(moving.stderr)")
    #expect(FileSystem.linkStatus(of: done + "/" + PathBytes.string(Self.shiftJIS)) != nil, "\(moving.stderr)")
    #expect(FileSystem.linkStatus(of: rejected + "/note.jpg") != nil, "\(moving.stderr)")
    // show gives its document's path so; a revision's summary names the drop folder as text.
    let shown = try #require(try json(["show", "--json", documentURL]) as? [String: Any])
    #expect(shown["path"] as? String == PathBytes.displayed(document) && shown["pathURL"] as? String == documentURL)
    let history = try #require(try json(["history", "--json", documentURL]) as? [[String: Any]])
    let summaries = history.compactMap { $0["summary"] as? String }.filter { $0.hasPrefix("watch ") }
    #expect(!summaries.isEmpty && summaries.allSatisfy { $0.contains("alb\\xFCm/in:") }, "\(summaries)")
    // A sync tool's conflict copy beside it, listed with it.
    let copy =
      folder + "/"
      + PathBytes.string(Array("gal".utf8) + [0xE9] + Array("rie.sync-conflict-20261123-031500-ABCDEFG.gallery".utf8))
    #expect(try Run.program("cp", [document, copy]).status == 0)
    let listed = try #require(try json(["browse", "--json", folderURL]) as? [[String: Any]])
    let original = try #require(listed.first { $0["pathURL"] as? String == documentURL }, "\(listed)")
    #expect(
      (original["conflictCopies"] as? [String])?.first?.hasSuffix("gal\\xE9rie.sync-conflict-20261123-031500-ABCDEFG.gallery")
        == true)
    #expect(original["conflictCopyURLs"] as? [String] == [PathBytes.fileURL(absolutePath: copy)], "\(original)")
    // A path that is UTF-8 is its own exact form: no URL beside it.
    let plain = try work.document("plain.gallery")
    let plainInfo = try #require(try json(["info", "--json", plain]) as? [String: Any])
    #expect(plainInfo["path"] as? String == plain && plainInfo["pathURL"] == nil)
    // Nothing but a local file: URL is taken as one.
    #expect(PathBytes.forJSON(plain).url == nil)
    #expect(try Run.gallery(["info", "file://server" + plain]).status == 66)
  }

  @Test("The library's reports encode a path as JSON gives one")
  func reportsEncodePaths() throws {
    let trashed = "/t/" + PathBytes.string(Array("gal".utf8) + [0xE9] + Array("rie.gallery".utf8))
    let report = DocumentConflict.Report(base: 1, theirs: 2, ours: 3, conflicts: [], revision: 4, copyTrashedTo: trashed)
    let merged = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
    #expect(merged["copyTrashedTo"] as? String == "/t/gal\\xE9rie.gallery" && merged["revision"] as? Int == 4)
    #expect(merged["copyTrashedToURL"] as? String == "file:///t/gal%E9rie.gallery", "\(merged)")
    let event = WatchEvent(event: .committed, path: "/in/a.jpg", document: trashed, id: "abc", reason: nil)
    let encoded = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(event)) as? [String: Any])
    #expect(encoded["path"] as? String == "/in/a.jpg" && encoded["pathURL"] == nil && encoded["id"] as? String == "abc")
    #expect(encoded["documentURL"] as? String == "file:///t/gal%E9rie.gallery", "\(encoded)")
  }

  @Test("A drop folder takes such names, fed by cp, mv and rsync, and watch --once at start")
  func dropFolder() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let inbox = work.path("inbox")
    try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
    let photos = try photos(work)
    // Found at start by --once.
    #expect(try Run.program("cp", [photos[0], inbox + "/"]).status == 0)
    let once = try Run.gallery(["watch", inbox, "--into", document, "--once"])
    #expect(once.status == 0, "\(once.stderr)")
    #expect(try Listing.of(document).items.map(\.source).last?.hasSuffix("/inbox/caf%E9.jpg") == true)

    let watcher = try WatcherProcess([inbox, "--into", document], stateHome: work.path("state"))
    let end = Date() + 10
    while Date() < end && !watcher.log.contains("watching") { usleep(5_000) }
    #expect(try Run.program("cp", [photos[1], inbox + "/"]).status == 0)
    let moved = try work.rename(
      try work.image("m.jpg", width: 210, height: 130, seed: 70), toBytes: Array("m".utf8) + [0xFC] + Array(".jpg".utf8))
    #expect(try Run.program("mv", [moved, inbox + "/"]).status == 0)
    #expect(try Run.program("rsync", [photos[2], inbox + "/"]).status == 0)
    watcher.waitFor("three commits") { events in events.filter { $0.event == "committed" }.count >= 3 }
    #expect(watcher.stop() == 0)
    let sources = try Listing.of(document).items.map(\.source)
    for name in ["caf%E9.jpg", "%83e%83X%83g.jpg", "m%FC.jpg", "%C3%A9t%C3%A9.jpg"] {
      #expect(sources.contains { $0.hasSuffix("/inbox/" + name) }, "\(name) in \(sources)")
    }
  }
}
