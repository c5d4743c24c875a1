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
    let work = try TestWorkspace()
    let document = try work.document()
    let existing = try work.images(3, width: 100, height: 80)
    #expect(try Run.gallery(["drop", document] + existing).status == 0)
    let existingIDs = try Listing.of(document).items.map(\.id)
    let large = try (0..<6).map { try work.image("large\($0).jpg", width: 3000, height: 2000, seed: 20 + $0) }
    let drop = try Run.start(["drop", "--jobs", "1", "--at", "2", document] + large)

    // As soon as the placeholders are saved, pause the loader (SIGSTOP) and edit around them,
    // as another program would while downloads run; then let it go on.
    var pending: [Item] = []
    for _ in 0..<2000 {
      if let model = try? GalleryDocument.open(document).model {
        pending = model.items.filter { $0.state == .placeholder }
        if !pending.isEmpty { break }
      }
      usleep(500)
    }
    // Stopped where it holds no lock, or the edits below would wait for it forever.
    while true {
      kill(drop.processIdentifier, SIGSTOP)
      if isUnlocked(document) { break }
      kill(drop.processIdentifier, SIGCONT)
      usleep(1000)
    }
    #expect(pending.count == 6, "the placeholders were not saved before loading")
    let shown = try Listing.of(document).items.filter { $0.state == "placeholder" }
    #expect(shown.count == 6 && shown.allSatisfy { $0.display == "pending" })
    #expect(try Run.gallery(["move", document, existingIDs[2], "--to", "1"]).status == 0)
    // The last of the six (an expectation above says when there are not six: no trap here,
    // which would end every other test with this process, the loader still stopped).
    #expect(try Run.gallery(["trash", document, pending.last?.id ?? "missing"]).status == 0)
    kill(drop.processIdentifier, SIGCONT)
    drop.wait()
    #expect(drop.terminationStatus == 0)

    let items = try Listing.of(document).items
    #expect(items.map(\.id) == [existingIDs[2], existingIDs[0]] + pending.prefix(5).map(\.id) + [existingIDs[1]])
    #expect(items.allSatisfy { $0.state == "ready" })
    // The trashed placeholder's image was not added anywhere.
    #expect(try GalleryDocument.open(document).model.trash.isEmpty)
    #expect(try Run.gallery(["check", document]).status == 0)
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

/// Whether no writer holds the document's lock right now.
func isUnlocked(_ path: String) -> Bool {
  let fd = open(path, O_RDONLY)
  guard fd >= 0 else { return false }
  defer { close(fd) }
  guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
  flock(fd, LOCK_UN)
  return true
}
