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

  @Test("A panorama is capped at the row's width and never squashes its row; a tall strip keeps a third")
  func extremeAspectRatios() {
    let rows = ContactSheet.rows(aspectRatios: [1.5, 1.5, 15, 0.01, 1.5], width: 1200, spacing: 8, layout: .rowHeight(160))
    let tiles = rows.flatMap { $0 }
    #expect(tiles.map(\.index) == [0, 1, 2, 3, 4])
    // 1.5 + 1.5 + 7.5 (the panorama capped at 1200 / 160) at most: no row under half of 160.
    #expect(rows.allSatisfy { $0[0].height >= 80 })
    let panorama = tiles[2]
    #expect(Double(panorama.width) / Double(panorama.height) <= 7.5 + 0.05)
    let strip = tiles[3]
    #expect(abs(Double(strip.width) / Double(strip.height) - 1.0 / 3.0) < 0.05)

    // Any mix of shapes: every full row about half the nominal height at least, every tile at
    // most the width; with --columns the nominal tile is square.
    var random = SplitMix(state: 42)
    for _ in 0..<200 {
      let ratios = (0..<40).map { _ in pow(10, Double(random.next() % 4000) / 1000 - 2) }
      for layout in [ContactSheet.Layout.rowHeight(120), .rowHeight(300), .columns(4)] {
        let laidOut = ContactSheet.rows(aspectRatios: ratios, width: 1000, spacing: 8, layout: layout)
        let nominal = if case .rowHeight(let target) = layout { target } else { (1000 - 3 * 8) / 4 }
        // Half the nominal height, less the row's share of the gaps between its tiles.
        for row in laidOut.dropLast() {
          let floor = Double(nominal) / 2 * Double(1000 - 8 * row.count) / 1000 - 1
          #expect(Double(row[0].height) >= floor, "\(layout) \(ratios)")
        }
        #expect(laidOut.allSatisfy { $0.allSatisfy { $0.width <= 1000 } })
      }
    }
  }

  @Test("A cover asked at 1024 and a sheet of tall rows draw from the originals; without them, the sheet says so")
  func largeTilesFromOriginals() throws {
    let work = try TestWorkspace()
    let photos = try ["Garden.jpg", "Storm.jpg", "LadyBird.jpg", "Dune.jpg"].map { name in
      let path = work.path(name)
      try FileManager.default.copyItem(atPath: "/usr/share/backgrounds/mate/nature/" + name, toPath: path)
      return path
    }
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + photos).status == 0)
    // The reference: the mosaic made straight from the originals.
    let sharp = try CoverMaker.mosaic(from: try photos.map { try work.bytes($0) }, tileSize: 512, suffix: ".png")
    func cover() throws -> Data {
      #expect(try Run.gallery(["thumbnail", document, work.path("cover.png"), "1024"]).status == 0)
      return try work.bytes(work.path("cover.png"))
    }
    let fromOriginals = try Self.meanDifference(try cover(), sharp, size: 1024)
    let sheet = try Run.gallery(["sheet", document, "-o", work.path("sheet.png"), "--row-height", "400"])
    #expect(sheet.status == 0 && !sheet.stderr.contains("note:"), "\(sheet.stderr)")

    for photo in photos { try FileManager.default.removeItem(atPath: photo) }
    let fromThumbnails = try Self.meanDifference(try cover(), sharp, size: 1024)
    #expect(fromOriginals < 4, "\(fromOriginals)")
    #expect(fromThumbnails > 2 * fromOriginals, "\(fromThumbnails) against \(fromOriginals)")
    let enlarged = try Run.gallery(["sheet", document, "-o", work.path("sheet.png"), "--row-height", "400"])
    #expect(enlarged.status == 0)
    #expect(enlarged.stderr.contains("note: 4 tiles are larger than the thumbnail"), "\(enlarged.stderr)")
  }

  /// The mean absolute difference of two images of `size` x `size`, in levels of 255.
  static func meanDifference(_ a: Data, _ b: Data, size: Int) throws -> Double {
    func pixels(_ image: Data) throws -> [UInt8] {
      let ppm = try image.withUnsafeBytes { raw in
        try VipsImageHandle.thumbnail(of: raw, width: size, height: size).encoded(as: ".ppm")
      }
      var start = ppm.startIndex
      for _ in 0..<4 { start = ppm[start...].firstIndex { $0 == 0x0A || $0 == 0x20 }! + 1 }
      return [UInt8](ppm[start...])
    }
    let (first, second) = (try pixels(a), try pixels(b))
    guard first.count == second.count, !first.isEmpty else { return .infinity }
    return Double(zip(first, second).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(first.count)
  }
}
