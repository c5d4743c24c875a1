import Foundation
import GalleryKit
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

@Suite("Between documents: merge, drag and drop")
struct DragAndMergeTests {
  /// Two documents sharing one image: A = [a0, a1, shared], B = [shared, b1].
  func twoDocuments(_ work: TestWorkspace) throws -> (a: String, b: String) {
    let a = try work.document("A.gallery")
    let b = try work.document("B.gallery")
    let shared = try work.image("shared.jpg", seed: 9)
    #expect(
      try Run.gallery(["drop", a, try work.image("a0.jpg", seed: 1), try work.image("a1.jpg", seed: 2), shared]).status == 0)
    #expect(try Run.gallery(["drop", b, shared, try work.image("b1.jpg", seed: 3)]).status == 0)
    return (a, b)
  }

  func names(_ document: String) throws -> [String] {
    try GalleryDocument.open(document).model.items.map { URL(string: $0.source)!.lastPathComponent }
  }

  @Test("merge -o: items in order, the same content once, thumbnails carried, nothing refetched")
  func mergeNew() throws {
    let work = try TestWorkspace()
    let (a, b) = try twoDocuments(work)
    // The sources are gone: a merge must not need them.
    for name in ["a0.jpg", "a1.jpg", "shared.jpg", "b1.jpg"] { try FileManager.default.removeItem(atPath: work.path(name)) }
    let merged = work.path("C.gallery")
    let result = try Run.gallery(["merge", a, b, "-o", merged])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try names(merged) == ["a0.jpg", "a1.jpg", "shared.jpg", "b1.jpg"])
    let document = try GalleryDocument.open(merged)
    let source = try GalleryDocument.open(b)
    #expect(try document.thumbnail(of: document.model.items[3]) == source.thumbnail(of: source.model.items[1]))
    #expect(try Run.gallery(["check", merged]).status == 0)
    #expect(try Run.gallery(["merge", a, b, "-o", merged]).status == 73)

    #expect(try Run.gallery(["merge", b, "--into", a]).status == 0)
    #expect(try names(a) == ["a0.jpg", "a1.jpg", "shared.jpg", "b1.jpg"])
  }

  @Test("drag writes a uri-list by default; a gallery payload drops without refetching")
  func dragCopy() throws {
    let work = try TestWorkspace()
    let (a, b) = try twoDocuments(work)
    let list = try Run.gallery(["drag", a, "2", "1"])
    #expect(
      list.stdout == (try GalleryDocument.open(a).model.items[1].source) + "\r\n"
        + (try GalleryDocument.open(a).model.items[0].source) + "\r\n")

    try FileManager.default.removeItem(atPath: work.path("a1.jpg"))
    let payload = try Run.gallery(["drag", "--type", "gallery", a, "2"])
    #expect(payload.status == 0)
    #expect(payload.stdout.contains(DragPayload.mediaType))
    let drop = try Run.gallery(["drop", b, "--at", "1", "-"], stdin: payload.stdoutData)
    #expect(drop.status == 0, "\(drop.stderr)")
    #expect(try names(b) == ["a1.jpg", "shared.jpg", "b1.jpg"])
    #expect(try names(a).count == 3)
    #expect(try Run.gallery(["check", b]).status == 0)
  }

  @Test(
    "drag --move removes from the source only after the destination saved; into its own document a move reorders, a copy copies")
  func dragMove() throws {
    let work = try TestWorkspace()
    let (a, b) = try twoDocuments(work)
    let payload = try Run.gallery(["drag", "--type", "gallery", "--move", a, "1", "2"])
    #expect(try Run.gallery(["drop", b, "-"], stdin: payload.stdoutData).status == 0)
    #expect(try names(a) == ["shared.jpg"])
    #expect(try names(b) == ["shared.jpg", "b1.jpg", "a0.jpg", "a1.jpg"])

    // A failed destination keeps the source intact.
    let again = try Run.gallery(["drag", "--type", "gallery", "--move", b, "4"])
    #expect(try Run.gallery(["drop", work.path("missing.gallery"), "-"], stdin: again.stdoutData).status == 66)
    #expect(try names(b).count == 4)

    // Dropped back into its own document, a move reorders instead of duplicating...
    let own = try Run.gallery(["drag", "--type", "gallery", "--move", b, "4"])
    #expect(try Run.gallery(["drop", b, "--at", "1", "-"], stdin: own.stdoutData).status == 0)
    #expect(try names(b) == ["a1.jpg", "shared.jpg", "b1.jpg", "a0.jpg"])
    // ...and a copy adds a copy, with an id of its own.
    let copy = try Run.gallery(["drag", "--type", "gallery", b, "1"])
    #expect(try Run.gallery(["drop", b, "-"], stdin: copy.stdoutData).status == 0)
    #expect(try names(b) == ["a1.jpg", "shared.jpg", "b1.jpg", "a0.jpg", "a1.jpg"])
    #expect(Set(try Listing.of(b).items.map(\.id)).count == 5)
  }

  @Test("A move of items two of which are byte-identical moves all three: what the user dragged is kept, and only that leaves")
  func moveDuplicates() throws {
    let work = try TestWorkspace()
    let source = try work.document("source.gallery")
    let image = try work.image("same.jpg", seed: 5)
    #expect(try Run.gallery(["drop", source, image, image, try work.image("other.jpg", seed: 6)]).status == 0)
    let ids = try Listing.of(source).items.map(\.id)
    #expect(ids.count == 3)
    let destination = try work.document("destination.gallery")
    let payload = try Run.gallery(["drag", "--type", "gallery", "--move", source, "1", "2", "3"])
    let drop = try Run.gallery(["drop", destination, "-"], stdin: payload.stdoutData)
    #expect(drop.status == 0, "\(drop.stderr)")
    #expect(drop.stderr.contains("moved 3 items"))
    #expect(try Listing.of(destination).items.count == 3)
    #expect(try Listing.of(source).items.isEmpty)
    #expect(try Listing.of(source).trashed == 3)
  }
}
