import Foundation
import GalleryKit
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

@Suite("Images: probed by content, thumbnailed with shrink-on-load, oriented")
struct ImageTests {
  @Test("EXIF orientations 1 to 8: displayed size, aspect ratio and thumbnail follow the tag", arguments: 1...8)
  func orientation(_ orientation: Int) throws {
    let data = try FixtureImage.make(width: 600, height: 300, orientation: orientation)
    let image = try ImageProcessor.process(data, options: ImageOptions())
    let rotated = orientation >= 5
    #expect(image.orientation == orientation)
    #expect(image.width == (rotated ? 300 : 600))
    #expect(image.height == (rotated ? 600 : 300))
    let thumbnail = try ImageProcessor.process(image.thumbnail.data, options: ImageOptions(thumbnailSize: 1024))
    #expect(thumbnail.width == (rotated ? 128 : 256))
    #expect(thumbnail.height == (rotated ? 256 : 128))
    // The thumbnail has the rotation applied, so it carries no orientation of its own.
    #expect(thumbnail.orientation == 1)
  }

  @Test("Formats are recognised by content, whatever the file is called", arguments: FixtureImage.Format.allCases)
  func formats(_ format: FixtureImage.Format) throws {
    let data = try FixtureImage.make(width: 500, height: 400, format: format)
    let image = try ImageProcessor.process(data, options: ImageOptions())
    #expect(image.width == 500 && image.height == 400)
    #expect(
      image.format
        == [FixtureImage.Format.jpeg: "jpeg", .png: "png", .webp: "webp", .gif: "gif", .tiff: "tiff", .avif: "heif"][
          format])
    #expect(image.thumbnail.fileExtension == "jpg")
    #expect(image.hash == contentHash(of: data))
    #expect(image.hash.count == "sha256:".count + 64)
  }

  @Test("A thumbnail fits in the document's size and an alpha channel is kept (WebP)")
  func thumbnails() throws {
    let png = try FixtureImage.make(width: 1000, height: 250, format: .png, alpha: true)
    let image = try ImageProcessor.process(png, options: ImageOptions(thumbnailSize: 200))
    #expect(image.thumbnail.fileExtension == "webp")
    let thumbnail = try ImageProcessor.process(image.thumbnail.data, options: ImageOptions())
    #expect(thumbnail.width == 200 && thumbnail.height == 50)
    #expect(thumbnail.format == "webp")

    // Small images are not enlarged.
    let small = try ImageProcessor.process(try FixtureImage.make(width: 40, height: 30), options: ImageOptions())
    let smallThumbnail = try ImageProcessor.process(small.thumbnail.data, options: ImageOptions())
    #expect(smallThumbnail.width == 40 && smallThumbnail.height == 30)
  }

  @Test("Refused: empty, not an image, truncated, too many pixels")
  func refusals() throws {
    #expect(throws: ImageRefusal.empty) { try ImageProcessor.process(Data(), options: ImageOptions()) }
    #expect(throws: ImageRefusal.notAnImage) {
      try ImageProcessor.process(Data("<html>not a jpeg</html>".utf8), options: ImageOptions())
    }
    for format in [FixtureImage.Format.jpeg, .png, .webp, .gif] {
      let whole = try FixtureImage.make(width: 800, height: 600, format: format, seed: 7)
      let truncated = whole.prefix(whole.count / 2)
      do {
        _ = try ImageProcessor.process(Data(truncated), options: ImageOptions())
        Issue.record("a truncated \(format) was accepted")
      } catch {
        guard case .undecodable = error else {
          Issue.record("a truncated \(format) was refused as \(error), not undecodable")
          continue
        }
      }
    }
    let big = try FixtureImage.make(width: 2000, height: 1000, format: .png)
    #expect(throws: ImageRefusal.tooManyPixels(width: 2000, height: 1000, limit: 1_000_000)) {
      try ImageProcessor.process(big, options: ImageOptions(maxPixels: 1_000_000))
    }
  }

  @Test("The cover is a 2x2 mosaic, grey where there are fewer than four images")
  func cover() throws {
    let thumbnails = try (1...3).map { seed in
      try ImageProcessor.process(try FixtureImage.make(width: 300, height: 200, seed: seed), options: ImageOptions()).thumbnail
        .data
    }
    let cover = try ImageProcessor.process(try CoverMaker.cover(from: thumbnails), options: ImageOptions())
    #expect(cover.width == 256 && cover.height == 256)
    let empty = try ImageProcessor.process(try CoverMaker.cover(from: []), options: ImageOptions())
    #expect(empty.width == 256 && empty.height == 256)
    #expect(cover.hash != empty.hash)
  }

  @Test("Images thumbnailed at once in one process come out as they do one by one, with no generated code")
  func parallelThumbnails() async throws {
    let images = try (1...8).map { try FixtureImage.make(width: 900 + 37 * $0, height: 700, seed: $0) }
    let serial = try images.map { try ImageProcessor.process($0, options: ImageOptions()).thumbnail.data }
    // Orc's code memory is not thread-safe in Debian 12: libvips must not run generated code.
    #expect(!VipsRuntime.generatesCode)
    for _ in 0..<4 {
      let parallel = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
        for (index, image) in images.enumerated() {
          group.addTask { (index, try ImageProcessor.process(image, options: ImageOptions()).thumbnail.data) }
        }
        var thumbnails = [Data](repeating: Data(), count: images.count)
        for try await (index, data) in group { thumbnails[index] = data }
        return thumbnails
      }
      #expect(parallel == serial)
    }
  }

  @Test("Child processes do not inherit the VIPSHOME gallery sets for its own libvips; one the user set, they do")
  func childEnvironment() {
    let ours = "VIPSHOME=" + VipsRuntime.homeWithoutModules
    #expect(VipsRuntime.environmentForChildren(["PATH=/usr/bin", ours, "HOME=/root"]) == ["PATH=/usr/bin", "HOME=/root"])
    #expect(VipsRuntime.environmentForChildren(["PATH=/usr/bin", "VIPSHOME=/opt/vips"]) == nil)
  }
}

extension ImageTests {
  /// The RGB pixel at (x, y) of an image, read from libvips' PPM encoding of it.
  static func pixel(_ image: Data, x: Int, y: Int) throws -> [Int] {
    let ppm = try image.withUnsafeBytes { raw in
      try VipsImageHandle.thumbnail(of: raw, width: 256, height: 256).encoded(as: ".ppm")
    }
    // P6, width, height, maximum, then the pixels.
    var fields: [Substring] = []
    var start = ppm.startIndex
    while fields.count < 4 {
      let end = ppm[start...].firstIndex { $0 == 0x0A || $0 == 0x20 }!
      fields.append(Substring(String(decoding: ppm[start..<end], as: UTF8.self)))
      start = end + 1
    }
    let at = start + (y * 256 + x) * 3
    return [Int(ppm[at]), Int(ppm[at + 1]), Int(ppm[at + 2])]
  }

  @Test(
    "A cover of JPEG thumbnails is made by libjpeg alone, tile by tile as libvips lays it out; anything else is left to libvips"
  )
  func coverWithoutLibvips() throws {
    try VipsRuntime.start()
    let colours: [[Double]] = [[220, 30, 30], [30, 200, 40], [20, 40, 210]]
    // Three plain tiles of other shapes (one smaller than a tile, one grey), and a photo.
    let tiles = try [(300, 200), (60, 40), (2048, 1500)].enumerated().map { index, size in
      try VipsImageHandle.tile(
        width: size.0, height: size.1, red: colours[index][0], green: colours[index][1], blue: colours[index][2]
      ).jpeg(quality: 90)
    }
    let cover = try #require(
      JPEGMosaic.make(tiles, slots: 4, across: 2, tileSize: 128, quality: 80, maxSide: 2048), "libjpeg reads them")
    let image = try ImageProcessor.process(cover, options: ImageOptions())
    #expect(image.width == 256 && image.height == 256 && image.format == "jpeg")
    for (index, colour) in colours.enumerated() {
      let found = try Self.pixel(cover, x: 64 + (index % 2) * 128, y: 64 + (index / 2) * 128)
      #expect(zip(found, colour).allSatisfy { abs(Double($0) - $1) <= 8 }, "tile \(index): \(found)")
    }
    #expect(try Self.pixel(cover, x: 192, y: 192).allSatisfy { abs($0 - 224) <= 4 }, "the empty slot is grey")
    // `mosaic` takes that path for the cover's suffix, and gives the same bytes.
    #expect(try CoverMaker.mosaic(from: tiles, tileSize: 128, suffix: ".jpg[Q=80,strip]") == cover)

    // What libjpeg alone does not take: WebP, a truncated JPEG, one larger than a thumbnail
    // may be. `mosaic` then makes the cover with libvips (a grey tile for the broken one).
    let webp = try VipsImageHandle.tile(width: 64, height: 64, red: 10, green: 10, blue: 10).webp(quality: 80)
    let truncated = tiles[0].prefix(tiles[0].count / 2)
    let huge = try VipsImageHandle.tile(width: 2100, height: 16, red: 10, green: 10, blue: 10).jpeg(quality: 50)
    for refused in [[webp], [tiles[0], Data(truncated)], [huge], [Data([0xFF, 0xD8, 0xFF, 0xE0])]] {
      #expect(JPEGMosaic.make(refused, slots: 4, across: 2, tileSize: 128, quality: 80, maxSide: 2048) == nil)
      let made = try ImageProcessor.process(
        try CoverMaker.mosaic(from: refused, tileSize: 128, suffix: ".jpg[Q=80,strip]"), options: ImageOptions())
      #expect(made.width == 256 && made.height == 256)
    }
  }
}
