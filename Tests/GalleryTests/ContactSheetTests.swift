import Foundation
import GalleryKit
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

@Suite("gallery sheet: the contact sheet")
struct ContactSheetTests {
  @Test("Rows fill the width at the items' aspect ratios; --columns and --row-height zoom")
  func sheet() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let images = try (0..<7).map { try work.image("s\($0).jpg", width: [400, 200, 300][$0 % 3], height: 200, seed: $0 + 1) }
    #expect(try Run.gallery(["drop", document] + images).status == 0)
    let whole = try FixtureImage.make(width: 300, height: 300, seed: 30)
    try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: work.path("bad.jpg")))
    #expect(try Run.gallery(["drop", "--keep-failed", document, work.path("bad.jpg")]).status == 1)

    let out = work.path("sheet.png")
    #expect(try Run.gallery(["sheet", document, "-o", out, "--width", "1000"]).status == 0)
    let sheet = try ImageProcessor.process(try work.bytes(out), options: ImageOptions(thumbnailSize: 4096))
    #expect(sheet.format == "png" && sheet.width == 1000)

    let columns = work.path("columns.png")
    #expect(try Run.gallery(["sheet", document, "-o", columns, "--width", "1000", "--columns", "2"]).status == 0)
    let tall = try ImageProcessor.process(try work.bytes(columns), options: ImageOptions(thumbnailSize: 8192))
    #expect(tall.width == 1000 && tall.height > sheet.height)
    #expect(try Run.gallery(["sheet", document, "-o", columns, "--columns", "2", "--row-height", "90"]).status == 64)
  }
}
