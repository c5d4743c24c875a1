import Foundation
import GalleryKit
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

@Suite("Several writers, and kill -9 at any moment")
struct ConcurrencyAndCrashTests {
  @Test("Two processes dropping into one document at once lose no item")
  func concurrentDrops() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let images = try work.images(16, width: 500, height: 400)
    let first = try Run.start(["drop", "--jobs", "1", document] + images[0..<8])
    let second = try Run.start(["drop", "--jobs", "1", document] + images[8..<16])
    first.wait()
    second.wait()
    #expect(first.terminationStatus == 0 && second.terminationStatus == 0)
    let items = try Listing.of(document).items
    #expect(items.count == 16)
    #expect(items.allSatisfy { $0.state == "ready" })
    #expect(Set(items.map { URL(string: $0.source)!.path }) == Set(images))
    // Each drop's items keep their drop order among themselves.
    let order = items.map { URL(string: $0.source)!.path }
    for batch in [images[0..<8], images[8..<16]] {
      #expect(order.filter { batch.contains($0) } == Array(batch))
    }
    #expect(try Run.gallery(["check", document]).status == 0)
  }

  @Test("Edits made while a drop loads are kept: its items commit where their placeholders stand")
  func editsDuringDrop() throws {
    let web = try WebSetup()
    let document = web.document
    let existing = try web.work.images(3, width: 100, height: 80)
    #expect(try Run.gallery(["drop", document] + existing).status == 0)
    let existingIDs = try Listing.of(document).items.map(\.id)
    let large = try (0..<5).map { try web.work.image("large\($0).jpg", width: 3000, height: 2000, seed: 20 + $0) }
    let held = try web.image("held.jpg", seed: 26, query: "hold=edits")
    let drop = try web.start(["drop", "--jobs", "1", "--at", "2", document] + large + [held])

    // The server holds the download, so the drop is surely still loading while another
    // program edits around its placeholders. (Local photos alone load in milliseconds: a test
    // that raced them missed the placeholders on a busy machine.) The local ones commit
    // before or after the edits; either way each lands where its placeholder stands then.
    ImageServer.waitUntil("the held request") { try web.server.count("/files/held.jpg", "held") == 1 }
    let dropped = Array(try Listing.of(document).items.dropFirst().prefix(6))
    let file = { URL(fileURLWithPath: $0).absoluteString }
    #expect(dropped.map(\.source) == large.map(file) + [held])
    let heldItem = try #require(dropped.last)
    #expect(heldItem.state == "placeholder" && heldItem.display == "pending")
    #expect(try Run.gallery(["move", document, existingIDs[2], "--to", "1"]).status == 0)
    #expect(try Run.gallery(["trash", document, heldItem.id]).status == 0)
    try web.server.release("edits")
    drop.wait()
    #expect(drop.terminationStatus == 0)

    let items = try Listing.of(document).items
    #expect(items.map(\.id) == [existingIDs[2], existingIDs[0]] + dropped.prefix(5).map(\.id) + [existingIDs[1]])
    #expect(items.allSatisfy { $0.state == "ready" })
    // The trashed placeholder's image was not added anywhere.
    #expect(try GalleryDocument.open(document).model.trash.isEmpty)
    #expect(try Run.gallery(["check", document]).status == 0)
  }

  @Test("A document renamed while it is compacted is left as it is: no copy appears under its old name")
  func renamedDuringCompaction() throws {
    let work = try TestWorkspace()
    let document = try work.document("before.gallery")
    #expect(try Run.gallery(["drop", document] + (try work.images(3, width: 200, height: 100))).status == 0)
    #expect(try Run.gallery(["move", document, "3", "--to", "1"]).status == 0)
    let ids = try GalleryDocument.open(document).model.items.map(\.id)
    // The compaction has locked and read the document when another program renames it.
    let lock = try DocumentLock(path: document)
    let layout = try DocumentArchive.scan(lock.file)
    let renamed = work.path("after.gallery")
    try FileSystem.rename(document, to: renamed)
    #expect(throws: DocumentError.self) { try DocumentCompaction.compact(lock: lock, layout: layout) }
    withExtendedLifetime(lock) {}
    #expect(!FileManager.default.fileExists(atPath: document), "a copy under the old name")
    #expect(try FileSystem.entries(of: work.path(".")).filter { $0.contains(".tmp-") }.isEmpty, "a temporary left")
    #expect(try GalleryDocument.open(renamed).model.items.map(\.id) == ids)
    #expect(try Run.gallery(["check", renamed]).status == 0)
  }

  @Test("A read that races another process's save is not kept: the next edit sees that save")
  func readRacingASaveIsNotCached() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let images = try work.images(3, width: 200, height: 100)
    #expect(try Run.gallery(["drop", document] + images).status == 0)
    // One save or two: the placeholders', which commits what loaded before the file was open.
    let dropped = try GalleryDocument.open(document).model.revision
    LayoutCache.forget(document)
    // A reader (as the view server's) reads the file while another process saves: the
    // save lands between the read and anything done after it.
    let reader = try GalleryDocument.openRegularFile(document, flags: O_RDONLY)
    let read = try LayoutCache.layout(of: reader) { file, lazily throws(DocumentError) in
      let layout = try DocumentArchive.open(file, lazily: lazily)
      #expect((try? Run.gallery(["move", document, "1", "--to", "end"]))?.status == 0)
      return layout
    }
    #expect(read.model.revision == dropped)
    // This process's next edit must append after the other process's save, not cut it off.
    try GalleryDocument.edit(document) { $0.move([$0.itemID(at: 0)], to: 3) }
    let history = try GalleryDocument.open(document, scanningWhole: true).layout.history.records()
    #expect(history.map(\.revision) == Array(1...dropped + 2))
    #expect(try Run.gallery(["check", document]).status == 0)
  }

  @Test("An edit opens a document another program holds a lease on (the view server's peek)")
  func editBesideALease() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(2, width: 200, height: 100)).status == 0)
    let before = try GalleryDocument.open(document).model.revision
    let holder = try BackgroundProgram([
      "python3", "-c",
      """
      import fcntl, os, signal, sys, time
      signal.signal(signal.SIGIO, signal.SIG_IGN)  # a lease break does not end it: it holds on
      fd = os.open(sys.argv[1], os.O_RDONLY)
      fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
      print(1, flush=True)
      time.sleep(1)
      fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
      time.sleep(60)
      """,
      document,
    ])
    defer { holder.stop() }
    let move = try Run.gallery(["move", document, "1", "--to", "end"])
    #expect(move.status == 0, "\(move.stderr)")
    #expect(try GalleryDocument.open(document).model.revision == before + 1)
  }

  @Test("kill -9 at random moments of drops and compactions: the document always opens, old or new")
  func killAtRandomMoments() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let images = try work.images(6, width: 1200, height: 900)
    var states = Set<Int>()
    for round in 0..<40 {
      let before = try GalleryDocument.open(document).model
      let process =
        round % 5 == 4
        ? try Run.start(["compact", document])
        : try Run.start(["drop", "--jobs", "1", document] + images.shuffled().prefix(3))
      Thread.sleep(forTimeInterval: Double.random(in: 0...0.25))
      kill(process.processIdentifier, SIGKILL)
      process.wait()

      let after: GalleryModel
      do {
        after = try GalleryDocument.open(document).model
      } catch {
        Issue.record("round \(round): the document does not open after kill -9: \(error)")
        return
      }
      // Either the old state or a later whole one: never a mix, and never taken for damage.
      #expect(after.revision >= before.revision)
      #expect(try GalleryDocument.open(document).damage == nil, "round \(round): a kill looks like damage")
      #expect(after.items.filter { $0.state == .ready }.allSatisfy { $0.thumbnail != nil })
      // Nothing wrong but the stale placeholders a killed drop leaves (check --fix's job).
      let check = try Run.gallery(["check", document])
      let problems = check.stdout.split(separator: "\n").filter { !$0.contains("stale placeholder") }
      #expect(problems.isEmpty, "round \(round): \(check.stdout)")
      states.insert(after.revision - before.revision)
    }
    // The kills landed at different points: before, between and after saves.
    #expect(states.count > 1)
    // Stale placeholders are shown as such, and a later drop still works.
    #expect(try Run.gallery(["drop", document, images[0]]).status == 0)
  }
}
