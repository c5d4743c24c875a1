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
  /// A document with `count` placeholders whose drop was killed with SIGKILL.
  func killedDrop(_ work: TestWorkspace, count: Int) throws -> (document: String, images: [String]) {
    let document = try work.document()
    let images = try (0..<count).map { try work.image("k\($0).jpg", width: 2000, height: 1500, seed: 40 + $0) }
    let drop = try Run.start(["drop", "--jobs", "1", document] + images)
    for _ in 0..<4000 {
      if let model = try? GalleryDocument.open(document).model, model.items.contains(where: { $0.state == .placeholder }) {
        break
      }
      usleep(500)
    }
    kill(drop.processIdentifier, SIGKILL)
    drop.wait()
    return (document, images)
  }

  @Test("Placeholders of a killed drop show as stale; retry loads them where they stand")
  func retryStale() throws {
    let work = try TestWorkspace()
    let (document, images) = try killedDrop(work, count: 3)
    let before = try Listing.of(document).items
    #expect(before.count == 3)
    // Whatever the kill interrupted, what was not committed is stale, never pending.
    #expect(before.allSatisfy { $0.display == "stale" || $0.display == "ready" })
    #expect(before.contains { $0.display == "stale" })
    // A stale placeholder is a problem to fix (exit status 1), naming both ways out.
    let check = try Run.gallery(["check", document])
    #expect(check.status == 1)
    #expect(check.stdout.contains("stale placeholder") && check.stdout.contains("check --fix"))

    let retry = try Run.gallery(["retry", document])
    #expect(retry.status == 0, "\(retry.stderr)")
    let after = try Listing.of(document).items
    #expect(after.map(\.id) == before.map(\.id))
    #expect(after.allSatisfy { $0.state == "ready" })
    #expect(after.map { URL(string: $0.source)!.path } == images)
    #expect(try Run.gallery(["retry", document, "1"]).stderr.contains("is ready"))
  }

  @Test("check --fix removes stale placeholders and leaves a clean document")
  func fixRemovesStale() throws {
    let work = try TestWorkspace()
    let (document, _) = try killedDrop(work, count: 3)
    let stale = try Listing.of(document).items.filter { $0.display == "stale" }.count
    #expect(stale > 0)
    let fix = try Run.gallery(["check", "--fix", document])
    #expect(fix.status == 0, "\(fix.stdout)")
    #expect(fix.stderr.contains("removed \(stale) stale placeholder"))
    #expect(try Listing.of(document).items.allSatisfy { $0.state == "ready" })
    #expect(!(try Run.gallery(["check", document]).stderr.contains("stale")))
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
    #expect(try Run.gallery(["retry", document]).status == 1)
    #expect(try Listing.of(document).items.map(\.state) == ["failed"])
    try whole.write(to: URL(fileURLWithPath: path))
    #expect(try Run.gallery(["retry", document]).status == 0)
    let item = try #require(try Listing.of(document).items.first)
    #expect(item.state == "ready" && item.width == 900)
  }
}
