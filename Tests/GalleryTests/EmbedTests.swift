import Foundation
import GalleryKit
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

@Suite("Embedded originals: the document travels with its images")
struct EmbedTests {
  @Test("drop --embed stores each content once; export works after the sources are gone")
  func embedAndExportOffline() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let first = try work.image("first.jpg", seed: 1)
    let copy = work.path("copy.jpg")
    try FileManager.default.copyItem(atPath: first, toPath: copy)
    let second = try work.image("second.png", format: .png, seed: 2)
    let originals = [try work.bytes(first), try work.bytes(second)]
    #expect(try Run.gallery(["drop", "--embed", document, first, copy, second]).status == 0)

    let names = try archiveNames(document).filter { $0.hasPrefix("originals/") }
    #expect(Set(names).count == 2, "the same content is stored once: \(names)")
    for path in [first, copy, second] { try FileManager.default.removeItem(atPath: path) }

    let out = work.path("out")
    let export = try Run.gallery(["export", document, "--to", out])
    #expect(export.status == 0, "\(export.stderr)")
    let files = export.stdout.split(separator: "\n").map(String.init)
    #expect(files.count == 3)
    #expect(try files.map { try work.bytes($0) } == [originals[0], originals[0], originals[1]])
    #expect(try Run.gallery(["check", document]).status == 0)

    // Compaction keeps them; emptying the trash of every item that uses one keeps it while
    // the history can undo that, and drops it with the history.
    try GalleryDocument.compact(document)
    #expect(try archiveNames(document).filter { $0.hasPrefix("originals/") }.count == 2)
    #expect(try Run.gallery(["trash", document, "3"]).status == 0)
    #expect(try Run.gallery(["trash", document, "--empty"]).status == 0)
    try GalleryDocument.compact(document)
    #expect(try archiveNames(document).filter { $0.hasPrefix("originals/") }.count == 2)
    #expect(try Run.gallery(["check", document]).status == 0)
    #expect(try Run.gallery(["compact", "--forget-history", document]).status == 0)
    #expect(try archiveNames(document).filter { $0.hasPrefix("originals/") }.count == 1)
    #expect(try Run.gallery(["check", document]).status == 0)
  }

  @Test("A document made with --embed embeds every drop")
  func documentSetting() throws {
    let work = try TestWorkspace()
    let document = work.path("travels.gallery")
    #expect(try Run.gallery(["new", "--embed", document]).status == 0)
    #expect(try Run.gallery(["drop", document, try work.image("a.jpg", seed: 3)]).status == 0)
    let item = try #require(try GalleryDocument.open(document).model.items.first)
    #expect(item.original?.hasPrefix("originals/") == true)
    #expect(try GalleryDocument.open(document).original(of: item) == (try work.bytes(work.path("a.jpg"))))
  }
}

/// Watcher tests belong to the serialized drop-folder suite (some of them tune inotify limits).
extension DropFolderTests {
  @Test("watch --embed --then delete: the file goes only once its bytes are in the saved document")
  func watchThenDelete() throws {
    let setup = try DropFolderSetup()
    let refused = try Run.gallery(["watch", setup.folder, "--into", setup.document, "--then", "delete", "--once"])
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("embedded"))

    let watcher = try setup.start(["--embed", "--then", "delete"])
    let image = try setup.image("gone.jpg", seed: 4)
    let bytes = try setup.work.bytes(image)
    #expect(try Run.program("cp", [image, setup.folder + "/"]).status == 0)
    watcher.waitFor("the commit") { $0.contains { $0.event == "committed" } }
    #expect(watcher.stop() == 0)
    #expect(!FileManager.default.fileExists(atPath: setup.folder + "/gone.jpg"))
    let document = try GalleryDocument.open(setup.document)
    let item = try #require(document.model.items.first)
    #expect(try document.original(of: item) == bytes)
  }

  @Test("Several DIR:DOC pairs in one watcher")
  func severalPairs() throws {
    let setup = try DropFolderSetup()
    let otherFolder = setup.work.path("scans")
    try FileManager.default.createDirectory(atPath: otherFolder, withIntermediateDirectories: true)
    let otherDocument = try setup.work.document("scans.gallery")
    let watcher = try WatcherProcess(
      ["\(setup.folder):\(setup.document)", "\(otherFolder):\(otherDocument)"], stateHome: setup.state)
    let end = Date() + 10
    while Date() < end && watcher.log.components(separatedBy: "watching").count < 3 { usleep(5_000) }
    #expect(try Run.program("cp", [try setup.image("a.jpg", seed: 5), setup.folder + "/"]).status == 0)
    #expect(try Run.program("cp", [try setup.image("b.jpg", seed: 6), otherFolder + "/"]).status == 0)
    watcher.waitFor("two commits") { $0.filter { $0.event == "committed" }.count == 2 }
    #expect(watcher.stop() == 0)
    #expect(try setup.items().map { URL(string: $0.source)!.lastPathComponent } == ["a.jpg"])
    #expect(try GalleryDocument.open(otherDocument).model.items.map { URL(string: $0.source)!.lastPathComponent } == ["b.jpg"])
  }

  @Test("Image bytes on standard input (cat photo | drop D -, or drop D /dev/stdin) are one embedded image")
  func imageOnStandardInput() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let png = try work.bytes(try work.image("photo.png", width: 300, height: 150, format: .png, seed: 4))
    let piped = try Run.gallery(["drop", document, "-"], stdin: png)
    #expect(piped.status == 0, "\(piped.stderr)")
    #expect(!piped.stderr.contains("not dropped"))
    let jpeg = try work.bytes(try work.image("photo.jpg", width: 200, height: 100, seed: 5))
    let devStdin = try Run.gallery(["drop", document, "/dev/stdin"], stdin: jpeg)
    #expect(devStdin.status == 0, "\(devStdin.stderr)")
    let items = try Listing.of(document).items
    #expect(items.map(\.state) == ["ready", "ready"])
    #expect(items.map(\.aspectRatio) == [2, 2])
    #expect(items.allSatisfy { $0.source.hasPrefix("urn:sha256:") })
    // The bytes are in the document: export needs nothing else.
    #expect(try Run.gallery(["export", document, "--to", work.path("out")]).status == 0)
    let exported = try FileManager.default.contentsOfDirectory(atPath: work.path("out")).sorted()
    #expect(exported.count == 2 && exported.allSatisfy { $0.hasPrefix("image-") })
    #expect(try Run.gallery(["check", document]).status == 0)
    // A text that is neither an image nor a uri-list still reads as a uri-list.
    #expect(try Run.gallery(["drop", document, "-"], stdin: Data("not a thing\n".utf8)).stderr.contains("not dropped"))
  }
}
