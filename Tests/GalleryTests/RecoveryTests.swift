import Foundation
import GalleryKit
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

@Suite("After a killed drop: stale placeholders, retry and check --fix")
struct RecoveryTests {
  @Test("A full disk during a drop's commit: exit 74 naming the document and the full disk, the document unchanged")
  func fullDiskDuringCommit() throws {
    let work = try TestWorkspace()
    let images = try (0..<3).map { try work.image("big\($0).jpg", width: 1600, height: 1200, seed: 40 + $0) }
    let disk = try SmallDisk(in: work, size: "512k")
    defer { disk.unmount() }
    let document = try disk.newDocument("full.gallery")
    // Room for the placeholders' save, not for the thumbnails' commit.
    try disk.fill(leaving: 24 * 1024)
    let before = try work.bytes(document)

    let drop = try Run.gallery(["drop", document] + images)
    #expect(drop.status == 74, "\(drop.stderr)")
    #expect(drop.stderr.contains(document) && drop.stderr.contains("No space left on device"), "\(drop.stderr)")
    #expect(try work.bytes(document) == before, "the drop left its placeholders behind")
    #expect(try Run.gallery(["check", document]).status == 0)

    try FileManager.default.removeItem(atPath: disk.filler)
    #expect(try Run.gallery(["drop", document] + images).status == 0)
    #expect(try Listing.of(document).items.map(\.state) == ["ready", "ready", "ready"])
  }

  @Test("A full disk at a drop's later commit takes back its earlier saves too: exit 74, the document as it was")
  func fullDiskAtALaterCommit() throws {
    let web = try WebSetup()
    let disk = try SmallDisk(in: web.work, size: "1m")
    defer { disk.unmount() }
    let document = try disk.newDocument("later.gallery")
    let before = try web.work.bytes(document)
    let local = try web.work.image("small.jpg", width: 60, height: 40, seed: 3)
    let held = try web.image("big.jpg", width: 1600, height: 1200, seed: 41, query: "hold=later")
    let errors = web.work.path("drop.err")
    let drop = try Run.start(["drop", document, local, held], environment: web.environment, errors: errors)
    // The file is saved (with the placeholders or right after them) while the download waits;
    // then the disk fills, and the download's commit finds no room.
    ImageServer.waitUntil("the held request") { try web.server.count("/files/big.jpg", "held") == 1 }
    ImageServer.waitUntil("the file committed") {
      try Listing.of(document).items.map(\.state) == ["ready", "placeholder"]
    }
    try disk.fill(leaving: 2 * 1024)
    try web.server.release("later")
    drop.wait()
    let stderr = try String(contentsOfFile: errors, encoding: .utf8)
    #expect(drop.terminationStatus == 74, "\(stderr)")
    #expect(stderr.contains(document) && stderr.contains("No space left on device"), "\(stderr)")
    #expect(try web.work.bytes(document) == before, "the drop left its earlier saves behind")
    #expect(try Run.gallery(["check", document]).status == 0)

    try FileManager.default.removeItem(atPath: disk.filler)
    #expect(try web.gallery(["drop", document, local, held]).status == 0)
    #expect(try Listing.of(document).items.map(\.state) == ["ready", "ready"])
  }

  @Test("A save cut at any byte (inside a header too) opens as before or after it, and the next edit mends it")
  func saveCutAnywhere() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(3, width: 60, height: 40)).status == 0)
    let before = try GalleryDocument.open(document).model
    let saveStart = try work.bytes(document).count - 1024
    #expect(try Run.gallery(["move", document, "1", "--to", "3"]).status == 0)
    let after = try GalleryDocument.open(document).model
    let whole = try Data(contentsOf: URL(fileURLWithPath: document))
    // What the move's save wrote (its cover, record, trailer and end marker), every 100
    // bytes and at every block's last byte (inside an entry's padding, or a header's end).
    let cuts = Set(stride(from: saveStart, to: whole.count, by: 100)).union(
      stride(from: saveStart + 511, to: whole.count, by: 512))
    for cut in cuts.sorted() {
      try IndexTests().expectCutMended(
        whole, at: cut, in: work, before: before, after: after, moving: 3, "at \(cut) of \(whole.count)")
    }
  }

  @Test("A save on a disk with no room for a compaction: the edit stands, exit 0, none tried, compacted later")
  func fullDiskDuringCompaction() throws {
    let work = try TestWorkspace()
    let images = try (0..<4).map { try work.image("c\($0).jpg", width: 1600, height: 1200, seed: 60 + $0) }
    let disk = try SmallDisk(in: work, size: "4m")
    defer { disk.unmount() }
    let document = try disk.newDocument("compact.gallery")
    #expect(try Run.gallery(["drop", document] + images).status == 0)
    // Moves that change the first four items leave each old cover dead, until one save
    // finds dead bytes past half the file and compacts. The copy before that save is the
    // document whose next edit compacts.
    let due = work.path("due.gallery")
    var compacted = false
    for _ in 0..<200 where !compacted {
      let before = try work.bytes(document)
      try before.write(to: URL(fileURLWithPath: due))
      #expect(try Run.gallery(["move", document, "4", "--to", "1"]).status == 0)
      compacted = try work.bytes(document).count < before.count
    }
    try #require(compacted, "no move compacted the document")
    try FileManager.default.removeItem(atPath: document)
    try FileManager.default.copyItem(atPath: due, toPath: document)
    let order = try Listing.of(document).items.map(\.id)

    // Room for the save, not for the compacted copy beside it: the save does not start a
    // compaction that cannot finish (it would fill the disk for a moment): no temporary
    // file appears on the disk while it runs.
    try disk.fill(leaving: 96 * 1024)
    let created = work.path("created.log")
    let watches = work.path("inotifywait.err")
    _ = FileManager.default.createFile(atPath: watches, contents: nil)
    let log = try FileHandle(forWritingTo: URL(fileURLWithPath: watches))
    let watcher = try TestProcess(
      "inotifywait", ["-m", "-e", "create", "--format", "%f", "-o", created, disk.path], stderr: log.fileDescriptor)
    try log.close()
    ImageServer.waitUntil("inotifywait's watch") {
      (try String(contentsOfFile: watches, encoding: .utf8)).contains("Watches established")
    }
    let move = try Run.gallery(["move", document, "4", "--to", "1"])
    #expect(move.status == 0, "\(move.stderr)")
    watcher.terminate()
    watcher.wait()
    #expect(try String(contentsOfFile: created, encoding: .utf8) == "", "a compaction was tried")
    let moved = [order[3]] + order[0..<3]
    #expect(try Listing.of(document).items.map(\.id) == moved)
    #expect(try work.bytes(document).count > (try work.bytes(due)).count, "the save did not stand as appended")
    #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path).sorted() == ["compact.gallery", "filler"])
    #expect(try Run.gallery(["check", document]).status == 0)

    // With room again, the next save compacts.
    try FileManager.default.removeItem(atPath: disk.filler)
    let size = try work.bytes(document).count
    #expect(try Run.gallery(["move", document, "4", "--to", "1"]).status == 0)
    #expect(try work.bytes(document).count < size)
    #expect(try Listing.of(document).items.map(\.id) == [moved[3]] + moved[0..<3])
  }

  @Test(
    "Every command that writes, on a full disk: exit 74 naming what it wrote, nothing half-written left, the document as it was")
  func fullDiskForEveryWriter() throws {
    let work = try TestWorkspace()
    let disk = try SmallDisk(in: work, size: "1m")
    defer { disk.unmount() }
    let document = try disk.newDocument("full.gallery")
    #expect(try Run.gallery(["drop", document] + work.images(3, width: 60, height: 40)).status == 0)
    try disk.fill(leaving: 0)
    let before = try work.bytes(document)
    let writers: [(arguments: [String], names: String)] = [
      (["move", document, "1", "--to", "3"], document),
      (["tag", document, "1", "+sea"], document),
      (["undo", document], document),
      (["compact", document], document),
      // The file keeps its name when its title cannot be saved.
      (["rename", document, "renamed"], document),
      (["new", disk.path + "/new.gallery"], disk.path + "/new.gallery"),
      (["duplicate", document, disk.path + "/copy.gallery"], disk.path + "/copy.gallery"),
      (["thumbnail", document, disk.path + "/cover.png", "128"], disk.path + "/cover.png"),
      (["sheet", document, "-o", disk.path + "/sheet.png"], disk.path + "/sheet.png"),
      // An export stops at the first file the folder cannot take.
      (["export", document, "--to", disk.path + "/out"], disk.path + "/out/img0.jpg"),
    ]
    for (arguments, names) in writers {
      let result = try Run.gallery(arguments)
      #expect(result.status == 74, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains(names) && result.stderr.contains("No space left on device"), "\(result.stderr)")
      #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }
    #expect(try work.bytes(document) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path).sorted() == ["filler", "full.gallery", "out"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path + "/out").isEmpty)
    #expect(try Run.gallery(["check", document]).status == 0)
  }

  /// A drop of `count` local photos and one download, killed with SIGKILL while the server
  /// holds that download: whatever the machine's speed, the kill lands before the drop ends.
  /// (Local photos alone load in milliseconds; a kill that raced them on a busy machine found
  /// nothing left to interrupt.) Returns the document and the drop's sources, as stored.
  func killedDrop(_ web: WebSetup, count: Int) throws -> (document: String, sources: [String]) {
    let images = try (0..<count).map { try web.work.image("k\($0).jpg", width: 2000, height: 1500, seed: 40 + $0) }
    let held = try web.image("held.jpg", width: 400, height: 300, seed: 39, query: "hold=killed")
    let drop = try web.start(["drop", "--jobs", "1", web.document] + images + [held])
    ImageServer.waitUntil("the held request") { try web.server.count("/files/held.jpg", "held") == 1 }
    kill(drop.processIdentifier, SIGKILL)
    drop.wait()
    return (web.document, images.map { URL(fileURLWithPath: $0).absoluteString } + [held])
  }

  @Test("Placeholders of a killed drop show as stale; retry loads them where they stand")
  func retryStale() throws {
    let web = try WebSetup()
    let (document, sources) = try killedDrop(web, count: 3)
    let before = try Listing.of(document).items
    #expect(before.map(\.source) == sources)
    // Whatever the kill interrupted, what was not committed is stale, never pending.
    #expect(before.allSatisfy { $0.display == "stale" || $0.display == "ready" })
    #expect(before.last?.display == "stale")
    // A stale placeholder is a problem to fix (exit status 1), naming both ways out.
    let check = try Run.gallery(["check", document])
    #expect(check.status == 1)
    #expect(check.stdout.contains("stale placeholder") && check.stdout.contains("check --fix"))

    // The stored URL keeps its query; the server now serves it at once.
    try web.server.release("killed")
    let retry = try web.gallery(["retry", document])
    #expect(retry.status == 0, "\(retry.stderr)")
    let after = try Listing.of(document).items
    #expect(after.map(\.id) == before.map(\.id))
    #expect(after.allSatisfy { $0.state == "ready" })
    #expect(after.map(\.source) == sources)
    #expect(after.last?.aspectRatio == 4.0 / 3.0)
    #expect(try Run.gallery(["retry", document, "1"]).stderr.contains("is ready"))
  }

  @Test("check --fix removes stale placeholders and leaves a clean document")
  func fixRemovesStale() throws {
    let web = try WebSetup()
    let (document, _) = try killedDrop(web, count: 3)
    let stale = try Listing.of(document).items.filter { $0.display == "stale" }.count
    #expect(stale > 0)
    let fix = try Run.gallery(["check", "--fix", document])
    #expect(fix.status == 0, "\(fix.stdout)")
    #expect(fix.stderr.contains("removed \(stale) stale placeholder"))
    #expect(try Listing.of(document).items.allSatisfy { $0.state == "ready" })
    #expect(!(try Run.gallery(["check", document]).stderr.contains("stale")))
  }

  @Test("Image bytes given on standard input, the drop killed before its commit: the document keeps them for retry")
  func killedDropOfBytes() throws {
    let work = try TestWorkspace()
    let image = try work.image("given.png", width: 2400, height: 1600, format: .png, seed: 61)
    // Killed between its placeholders' save and its commit: the commit is made to wait for
    // the lock, taken once the placeholder is seen and held until the kill. (Seen too late,
    // the image had been committed already: another drop is tried.)
    var caught: String?
    for attempt in 0..<10 where caught == nil {
      let document = try work.document("given\(attempt).gallery")
      let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: image))
      let drop = try TestProcess(
        Run.galleryBinary, ["drop", document, "-"],
        environment: ProcessInfo.processInfo.environment.merging(Run.isolatedHome) { $1 }, stdin: input.fileDescriptor)
      try input.close()
      func placeholder() -> Bool { (try? GalleryDocument.open(document).model.items.first?.state) == .placeholder }
      let deadline = Date() + Run.deadline
      while drop.isRunning && !placeholder() && Date() < deadline { usleep(1_000) }
      let lock = try DocumentLock(path: document)
      if placeholder() { caught = document }
      kill(drop.processIdentifier, SIGKILL)
      drop.wait()
      withExtendedLifetime(lock) {}
    }
    let document = try #require(caught, "no drop was caught between its placeholder and its commit")
    #expect(try Listing.of(document).items.map(\.display) == ["stale"])
    // The bytes were saved with the placeholder: `check --fix` keeps the item, as failed.
    let fix = try Run.gallery(["check", "--fix", document])
    #expect(fix.status == 0, "\(fix.stdout)")
    #expect(fix.stderr.contains("kept 1 stale placeholder as failed"), "\(fix.stderr)")
    #expect(try Listing.of(document).items.map(\.state) == ["failed"])
    // Dragged into another gallery as it is, with its bytes: that one loads it too.
    let other = try work.document("other.gallery")
    let payload = try Run.gallery(["drag", "--type", "gallery", document, "1"])
    #expect(payload.status == 0, "\(payload.stderr)")
    let carried = try Run.gallery(["drop", other, "-"], stdin: payload.stdoutData)
    #expect(carried.status == 0, "\(carried.stderr)")
    #expect(try Run.gallery(["retry", other]).status == 0)
    #expect(try GalleryDocument.open(other).model.items.map(\.width) == [2400])
    let retry = try Run.gallery(["retry", document])
    #expect(retry.status == 0, "\(retry.stderr)")
    let items = try GalleryDocument.open(document).model.items
    #expect(items.map(\.state) == [.ready] && items.first?.width == 2400)
    // Stored once, by the placeholders' save; exported as it was given.
    #expect(try archiveNames(document).filter { $0.hasPrefix("originals/") }.count == 1)
    let out = work.path("out")
    #expect(try Run.gallery(["export", document, "--to", out]).status == 0)
    let exported = try FileManager.default.contentsOfDirectory(atPath: out)
    let given = try work.bytes(image)
    #expect(exported.count == 1 && (try? work.bytes(out + "/" + exported[0])) == given)
    #expect(try Run.gallery(["check", document]).status == 0)
  }

  @Test("A failed item is retried once its source is fixed")
  func retryFailed() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let path = work.path("later.jpg")
    let whole = try FixtureImage.make(width: 900, height: 600, seed: 50)
    try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
    #expect(try Run.gallery(["drop", "--keep-failed", document, path]).status == 1)
    #expect(try Listing.of(document).items.map(\.state) == ["failed"])
    // --json lists the item as it is now: failed again, with the new reason.
    let again = try Run.gallery(["retry", "--json", document])
    #expect(again.status == 1)
    let listed = try JSONSerialization.jsonObject(with: again.stdoutData) as? [[String: Any]]
    #expect(listed?.map { $0["state"] as? String } == ["failed"] && listed?.first?["failure"] is String)
    #expect(try Listing.of(document).items.map(\.state) == ["failed"])
    try whole.write(to: URL(fileURLWithPath: path))
    let retried = try Run.gallery(["retry", "--json", document])
    #expect(retried.status == 0)
    let loaded = try JSONSerialization.jsonObject(with: retried.stdoutData) as? [[String: Any]]
    #expect(loaded?.map { $0["state"] as? String } == ["ready"] && loaded?.first?["width"] as? Int == 900)
    let item = try #require(try Listing.of(document).items.first)
    #expect(item.state == "ready" && item.width == 900)
  }
}
