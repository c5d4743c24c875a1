import CJPEG
import Foundation
import GalleryTestSupport
import Testing

@testable import GalleryImaging
@testable import GallerySystem

@Suite("Plain JPEGs: read and thumbnailed by libjpeg alone, as libvips would")
struct PlainJPEGTests {
  /// An image's pixels, decoded and resized to 16 x 16 by libvips (RGB).
  static func coarsePixels(_ image: Data) throws -> [UInt8] {
    let ppm = try image.withUnsafeBytes { raw in
      try VipsImageHandle.thumbnail(of: raw, width: 16, height: 16).encoded(as: ".ppm")
    }
    // P6, width, height, maximum, one whitespace each, then the pixels.
    var start = ppm.startIndex
    for _ in 0..<4 { start = ppm[start...].firstIndex { $0 == 0x0A || $0 == 0x20 }! + 1 }
    return [UInt8](ppm[start...])
  }

  /// The mean absolute difference of two thumbnails, in levels of 255, compared at 16 x 16:
  /// fine detail near the thumbnail's resolution aliases differently in any two resamplers
  /// (libvips' own reduce and its thumbnail differ by 4 levels at full size on this noise),
  /// while an orientation or a crop gone wrong moves the coarse picture by tens of levels.
  static func difference(_ a: Data, _ b: Data) throws -> Double {
    let (first, second) = (try coarsePixels(a), try coarsePixels(b))
    guard first.count == second.count, !first.isEmpty else { return .infinity }
    let total = zip(first, second).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
    return Double(total) / Double(first.count)
  }

  /// Processes `data` both ways and expects the same facts and nearly the same thumbnail.
  static func expectLikeLibvips(_ data: Data, options: ImageOptions = ImageOptions(), _ label: String) throws {
    let plain = try #require(try ImageProcessor.plainJPEG(data, options: options), "\(label): libjpeg takes it")
    let reference = try ImageProcessor.processWithLibvips(data, options: options)
    #expect(plain.width == reference.width && plain.height == reference.height, "\(label)")
    #expect(plain.orientation == reference.orientation, "\(label)")
    #expect(plain.format == reference.format && plain.hash == reference.hash && plain.byteCount == reference.byteCount)
    #expect(plain.thumbnail.fileExtension == "jpg")
    let made = try #require(PlainJPEG.header(of: plain.thumbnail.data))
    let expected = try #require(PlainJPEG.header(of: reference.thumbnail.data))
    #expect(made.width == expected.width && made.height == expected.height, "\(label): \(made) against \(expected)")
    #expect(made.components == expected.components && made.orientation == 1, "\(label)")
    let difference = try difference(plain.thumbnail.data, reference.thumbnail.data)
    #expect(difference < 3, "\(label): the thumbnails differ by \(difference) levels on average")
  }

  @Test("Each EXIF orientation is applied as libvips applies it", arguments: 1...8)
  func orientations(_ orientation: Int) throws {
    try Self.expectLikeLibvips(
      try FixtureImage.make(width: 900, height: 500, orientation: orientation, seed: 3), "orientation \(orientation)")
  }

  @Test("Shapes, grey, progressive and other thumbnail sizes come out as libvips makes them")
  func shapes() throws {
    for (width, height) in [(40, 30), (256, 100), (300, 256), (2400, 40), (40, 2400), (1000, 1000), (4000, 3000)] {
      try Self.expectLikeLibvips(try FixtureImage.make(width: width, height: height, seed: 5), "\(width)x\(height)")
    }
    try Self.expectLikeLibvips(try FixtureImage.make(width: 640, height: 400, seed: 6, grey: true), "grey")
    let progressive = try FixtureImage.make(width: 1200, height: 800, seed: 7, suffix: ".jpg[interlace]")
    #expect(PlainJPEG.header(of: progressive)?.progressive == true)
    try Self.expectLikeLibvips(progressive, "progressive")
    try Self.expectLikeLibvips(
      try FixtureImage.make(width: 500, height: 350, seed: 8), options: ImageOptions(thumbnailSize: 100), "size 100")
  }

  @Test("What libjpeg alone does not take is left to libvips: a colour profile, a broken body")
  func leftToLibvips() throws {
    let photo = try FixtureImage.make(width: 800, height: 600, seed: 9)
    #expect(PlainJPEG.header(of: photo)?.plain == true)
    // A profile libvips would honour: the header says so, and the drop goes to libvips.
    let profiled = Self.inserting(segment: 0xE2, Data("ICC_PROFILE\0".utf8) + Data([1, 1]) + Data(count: 128), into: photo)
    #expect(PlainJPEG.header(of: profiled)?.plain == false)
    #expect(try ImageProcessor.plainJPEG(profiled, options: ImageOptions()) == nil)
    #expect(try PlainJPEG.thumbnail(of: profiled, box: 256, quality: 80) == nil)
    // A truncated body makes libjpeg warn: libvips decides, and refuses it.
    let truncated = Data(photo.prefix(photo.count / 2))
    #expect(PlainJPEG.header(of: truncated)?.plain == true)
    #expect(try ImageProcessor.plainJPEG(truncated, options: ImageOptions()) == nil)
    #expect {
      try ImageProcessor.process(truncated, options: ImageOptions())
    } throws: { error in
      guard case .undecodable = error as? ImageRefusal else { return false }
      return true
    }
    // Too many pixels is refused from the header, as libvips' path refuses it.
    #expect(throws: ImageRefusal.tooManyPixels(width: 800, height: 600, limit: 1000)) {
      try ImageProcessor.plainJPEG(photo, options: ImageOptions(maxPixels: 1000))
    }
    // Not a JPEG at all.
    #expect(PlainJPEG.header(of: Data("GIF89a".utf8)) == nil)
    #expect(PlainJPEG.header(of: Data([0xFF, 0xD8, 0xFF])) == nil)
  }

  @Test("The EXIF orientation is read from a hostile block without reading past it")
  func hostileExif() throws {
    let photo = try FixtureImage.make(width: 300, height: 200, seed: 10)
    func exif(littleEndian: Bool, directory: UInt32 = 8, count: UInt16 = 1, type: UInt16 = 3, value: UInt16 = 6) -> Data {
      func bytes16(_ v: UInt16) -> [UInt8] {
        littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)]
      }
      func bytes32(_ v: UInt32) -> [UInt8] {
        let b = [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        return littleEndian ? b.reversed() : b
      }
      var tiff: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
      tiff += bytes16(42) + bytes32(directory) + bytes16(count)
      tiff += bytes16(0x0112) + bytes16(type) + bytes32(1) + bytes16(value) + [0, 0]
      return Data("Exif\0\0".utf8) + Data(tiff)
    }
    let cases: [(Data, Int)] = [
      (exif(littleEndian: true), 6),
      (exif(littleEndian: false), 6),
      (exif(littleEndian: false, value: 8), 8),
      (exif(littleEndian: true, value: 9), 1),
      (exif(littleEndian: true, value: 0), 1),
      (exif(littleEndian: true, type: 4), 1),
      (exif(littleEndian: true, directory: 0xFFFF_FFF0), 1),
      (exif(littleEndian: true, directory: 24), 1),
      (exif(littleEndian: true, count: 0xFFFF), 6),
      (exif(littleEndian: false, count: 0xFFFF, value: 3), 3),
      (Data("Exif\0\0II*\0".utf8), 1),
      (Data("Exif\0\0".utf8), 1),
      (Data("Exif".utf8), 1),
      (Data("http://ns.adobe.com/xap/1.0/\0".utf8), 1),
    ]
    for (index, (block, expected)) in cases.enumerated() {
      let image = Self.inserting(segment: 0xE1, block, into: photo)
      let header = try #require(PlainJPEG.header(of: image), "case \(index)")
      #expect(header.orientation == expected, "case \(index)")
      // Where the block is well formed, libvips (libexif) reads the same.
      if index < 3 { #expect(try VipsBuffer.header(of: image).orientation == expected, "case \(index)") }
      let thumbnail = try #require(try PlainJPEG.thumbnail(of: image, box: 64, quality: 80), "case \(index)")
      #expect(expected >= 5 ? thumbnail.width < thumbnail.height : thumbnail.width > thumbnail.height, "case \(index)")
    }
    // An entry cut short by the end of the block is not read.
    let cut = Self.inserting(segment: 0xE1, exif(littleEndian: true).dropLast(2), into: photo)
    #expect(PlainJPEG.header(of: cut)?.orientation == 1)
  }

  @Test("A JPEG of more than 500 scans is refused before any decoder sees it; a real progressive one passes")
  func tooManyScans() throws {
    // Scans as the markers announce them: a header, then entropy-coded bytes holding a
    // stuffed 0xFF and a restart marker, which do not end a scan.
    func scans(_ count: Int) -> Data {
      var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46]
      for _ in 0..<count {
        bytes += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]
        bytes += [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0xFF, 0xFF]
      }
      return Data(bytes + [0xFF, 0xD9])
    }
    #expect(throws: Never.self) { try PlainJPEG.checkScans(scans(500)) }
    #expect(throws: PlainJPEG.TooManyScans.self) { try PlainJPEG.checkScans(scans(501)) }
    #expect {
      try ImageProcessor.process(scans(2000), options: ImageOptions())
    } throws: { error in
      guard case .undecodable(let reason) = error as? ImageRefusal else { return false }
      return reason.contains("more than 500 scans")
    }
    let progressive = try FixtureImage.make(width: 600, height: 400, seed: 11, suffix: ".jpg[interlace]")
    let count = progressive.withUnsafeBytes { raw in
      CJPEG_count_scans(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, 500)
    }
    #expect(count > 1 && count < 20, "libjpeg's progression has about ten scans: \(count)")
    #expect(try ImageProcessor.process(progressive, options: ImageOptions()).width == 600)
    #expect(StoredImage.problem(progressive) == nil)
    // A real header followed by 600 scans: a thumbnail in a document from elsewhere is
    // refused before libvips or libjpeg decodes it.
    let many = progressive.dropLast(2) + scans(600).dropFirst(8)
    #expect(StoredImage.problem(Data(many))?.contains("more than 500 scans") == true)
  }

  @Test("A stored image that libjpeg decodes whole is one libvips takes too; what it does not, libvips judges")
  func storedImageVerdict() throws {
    // Thumbnails as a drop makes them, of real photos; a progressive and a grey image.
    var images: [Data] = []
    for name in ["Garden.jpg", "LadyBird.jpg", "Storm.jpg"] {
      let photo = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/backgrounds/mate/nature/" + name))
      images.append(try ImageProcessor.process(photo, options: ImageOptions()).thumbnail.data)
    }
    images.append(try FixtureImage.make(width: 300, height: 200, seed: 12, suffix: ".jpg[interlace]"))
    images.append(try FixtureImage.make(width: 256, height: 160, seed: 13, grey: true))
    var random = SplitMix(state: 17)
    var refused = 0
    for (number, image) in images.enumerated() {
      let limits = (pixels: StoredImage.maxPixels, bytes: VipsRuntime.decodeMemoryLimit)
      #expect(PlainJPEG.decodesWhole(image, maxPixels: limits.pixels, maxDecodeBytes: limits.bytes), "image \(number)")
      #expect(!PlainJPEG.decodesWhole(image, maxPixels: 1000, maxDecodeBytes: limits.bytes), "image \(number)")
      // Cut short anywhere, or a byte changed anywhere (header, tables, entropy-coded data).
      var variants = stride(from: 0.05, to: 1, by: 0.1).map { Data(image.prefix(Int(Double(image.count) * $0))) }
      for _ in 0..<60 {
        var changed = image
        let at = changed.startIndex + Int.random(in: 0..<changed.count, using: &random)
        changed[at] ^= UInt8.random(in: 1...255, using: &random)
        variants.append(changed)
      }
      for (index, variant) in variants.enumerated() {
        let byLibvips = StoredImage.problem(variant) ?? StoredImage.decodeProblem(variant)
        let verdict = StoredImage.verdict(variant)
        #expect((verdict == nil) == (byLibvips == nil), "image \(number), variant \(index): \(String(describing: verdict))")
        if verdict != nil { refused += 1 }
      }
    }
    // Both kinds are there: variants libvips refuses, and others it takes.
    #expect(refused >= 5 * 10 && refused < 5 * 70, "\(refused) refused")
  }

  /// `data` with a marker segment inserted after its start-of-image marker.
  static func inserting(segment marker: UInt8, _ payload: Data, into data: Data) -> Data {
    let length = payload.count + 2
    var result = Data(data.prefix(2))
    result += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)]
    result += payload
    result += data.dropFirst(2)
    return result
  }
}
