import Foundation
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GallerySystem

/// Formats whose libvips loaders are not trusted in `gallery`'s own process, made at test
/// time (by the `vips` program, which trusts every loader, and by hand) and dropped through
/// the real binary, which decodes them in a confined process of its own.
@Suite("Formats libvips does not trust: decoded in a confined process")
struct SandboxedDecoderTests {
  struct Sample: Sendable, CustomStringConvertible {
    var format: String
    var suffix: String
    var limit = ColourTests.closeMatch
    var description: String { format }
  }

  static let bitmaps = [
    Sample(format: "bmp", suffix: ".bmp"), Sample(format: "jxl", suffix: ".jxl[lossless]"),
    // Shrunk on load through its wavelet levels, not resampled: the same colours (each
    // channel's mean within a unit), with the texture a little apart.
    Sample(format: "jp2", suffix: ".jp2[lossless]", limit: 1.5),
  ]

  @Test("BMP, JPEG XL and JPEG 2000 are dropped like any photo, in their true colours", arguments: bitmaps)
  func bitmapFormats(_ sample: Sample) throws {
    let workspace = try TestWorkspace()
    let png = workspace.path("photo.png")
    try FixtureImage.photo(size: 480).encoded(as: ".png").write(to: URL(fileURLWithPath: png))
    let file = workspace.path("photo." + sample.format)
    let made = try Run.program("/usr/bin/vips", ["copy", png, file + sample.suffix.drop { $0 != "[" }])
    #expect(made.status == 0, "\(made.stderr)")
    let document = try workspace.document()
    let dropped = try Run.gallery(["drop", document, file])
    #expect(dropped.status == 0, "\(dropped.stderr)")
    let item = try Self.onlyItem(document)
    #expect(item["format"] as? String == sample.format)
    #expect(item["width"] as? Int == 480 && item["height"] as? Int == 300)
    let opened = try GalleryDocument.open(document)
    let thumbnail = try opened.thumbnail(of: opened.model.items[0])
    let difference = try FixtureImage.meanDE00(thumbnail, against: try workspace.bytes(png))
    #expect(difference < sample.limit, "mean ΔE00 \(difference)")
  }

  @Test("SVG and PDF (its first page) are drawn at the thumbnail's size")
  func vectorFormats() throws {
    let workspace = try TestWorkspace()
    let svg = try workspace.write(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <!-- a drawing -->
      <svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#3060c0"/></svg>
      """, to: "drawing.svg")
    let pdf = workspace.path("page.pdf")
    try Self.pdf(width: 300, height: 200, pages: 2).write(to: URL(fileURLWithPath: pdf))
    let document = try workspace.document()
    let dropped = try Run.gallery(["drop", document, svg, pdf])
    #expect(dropped.status == 0, "\(dropped.stderr)")
    let items = try Self.items(document)
    #expect(items.map { $0["format"] as? String } == ["svg", "pdf"])
    #expect(items.map { $0["pages"] as? Int } == [nil, 2])
    #expect(items.map { $0["aspectRatio"] as? Double } == [2.0, 1.5])
    let opened = try GalleryDocument.open(document)
    for item in opened.model.items {
      // Drawn at the thumbnail's size, not the 40 pixels the SVG says: a vector is sharp.
      let thumbnail = try ImageProcessor.process(try opened.thumbnail(of: item), options: ImageOptions())
      #expect(thumbnail.width == 256)
    }
  }

  @Test("Hostile files cost only their own decode, with a clear reason")
  func hostileFiles() throws {
    let workspace = try TestWorkspace()
    let entities = (1...8).map { level in
      "<!ENTITY e\(level) \"" + String(repeating: level == 1 ? "aaaaaaaaaa" : "&e\(level - 1);", count: 10) + "\">"
    }
    let bomb = try workspace.write(
      "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [\n\(entities.joined(separator: "\n"))\n]>\n"
        + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><text>&e8;</text></svg>", to: "bomb.svg")
    let huge = try workspace.write(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900000\" height=\"900000\"><rect width=\"9\" height=\"9\"/></svg>",
      to: "huge.svg")
    let garbage = workspace.path("garbage.jp2")
    try Data(
      [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A] + (0..<4000).map { UInt8(truncatingIfNeeded: $0 * 7) }
    )
    .write(to: URL(fileURLWithPath: garbage))
    let document = try workspace.document()
    let dropped = try Run.gallery(["drop", document, bomb, huge, garbage])
    #expect(dropped.status != 0)
    #expect(dropped.stderr.contains("bomb.svg: the image cannot be decoded:"))
    #expect(dropped.stderr.contains("entity"))
    #expect(dropped.stderr.contains("huge.svg: 900000x900000 is 810000000000 pixels, over the limit"))
    #expect(dropped.stderr.contains("garbage.jp2: the image cannot be decoded:"))
    #expect(!dropped.stderr.contains("crash"))
    #expect(try GalleryDocument.open(document).model.items.isEmpty)
  }

  @Test("A TIFF whose first directory follows its pixels (as libvips and scanners write it) is dropped, multi-page too")
  func tiffDirectoryAtTheEnd() throws {
    let workspace = try TestWorkspace()
    let png = workspace.path("photo.png")
    try FixtureImage.photo(size: 1200).encoded(as: ".png").write(to: URL(fileURLWithPath: png))
    let tiff = workspace.path("scan.tif")
    let pages = workspace.path("pages.tif")
    #expect(try Run.program("/usr/bin/vips", ["copy", png, tiff + "[compression=deflate]"]).status == 0)
    #expect(
      try Run.program("/usr/bin/vips", ["arrayjoin", "\(png) \(png)", pages + "[page-height=750]", "--across", "1"]).status == 0)
    // The directory lies past the prefix a drop reads to recognise a file.
    #expect(try workspace.bytes(tiff).count > 256 << 10)
    let document = try workspace.document()
    let dropped = try Run.gallery(["drop", document, tiff, pages])
    #expect(dropped.status == 0, "\(dropped.stderr)")
    let items = try Self.items(document)
    #expect(items.map { $0["format"] as? String } == ["tiff", "tiff"])
    #expect(items.map { $0["height"] as? Int } == [750, 750])
    // The first page shown, the count said.
    #expect(items.map { $0["pages"] as? Int } == [nil, 2])
    #expect(try Run.gallery(["show", document]).stdout.contains("(2 pages, the first shown)"))
  }

  @Test("Camera RAW (a DNG): the camera's preview when it has one, else the raw developed; upright either way")
  func cameraRaw() throws {
    let workspace = try TestWorkspace()
    let photo = try FixtureImage.photo(size: 600)
    let png = workspace.path("photo.png")
    try photo.encoded(as: ".png").write(to: URL(fileURLWithPath: png))
    // The pixels end the PPM, after a header that may hold a comment.
    let rgb = [UInt8](try photo.encoded(as: ".ppm").suffix(600 * 375 * 3))
    #expect(rgb.count == 600 * 375 * 3)
    let previewed = workspace.path("previewed.dng")
    let developed = workspace.path("developed.dng")
    try TestDNG.make(rgb: rgb, width: 600, height: 375, orientation: 1, preview: (try photo.encoded(as: ".jpg[Q=95]"), 600, 375))
      .write(to: URL(fileURLWithPath: previewed))
    try TestDNG.make(rgb: rgb, width: 600, height: 375, orientation: 6).write(to: URL(fileURLWithPath: developed))
    // What the camera says of the photo, written as exiftool writes it into a raw file.
    let tagged = try Run.program(
      "/usr/bin/exiftool",
      [
        "-q", "-overwrite_original", "-DateTimeOriginal=2024:06:01 14:03:22", "-OffsetTimeOriginal=+02:00",
        "-LensModel=EF24-70mm f/2.8L II USM", "-ExposureTime=1/250", "-FNumber=8", "-ISO=100", "-FocalLength=35",
        "-GPSLatitude=46.55", "-GPSLatitudeRef=N", "-GPSLongitude=7.98", "-GPSLongitudeRef=E", previewed,
      ])
    #expect(tagged.status == 0, "\(tagged.stderr)")
    let document = try workspace.document()
    let dropped = try Run.gallery(["drop", document, previewed, developed])
    #expect(dropped.status == 0, "\(dropped.stderr)")
    let items = try Self.items(document)
    #expect(items.map { $0["format"] as? String } == ["raw", "raw"])
    // Its directories read as a JPEG's EXIF block is: the camera, when, where, with what.
    #expect(items.map { $0["camera"] as? String } == ["Gallery Test Camera", "Gallery Test Camera"])
    #expect(items[0]["taken"] as? String == "2024-06-01T14:03:22+02:00" && items[1]["taken"] == nil)
    #expect(items[0]["lens"] as? String == "EF24-70mm f/2.8L II USM")
    #expect(items[0]["exposure"] as? String == "1/250 s, f/8, ISO 100, 35 mm")
    let place = items[0]["location"] as? [String: Double]
    #expect(abs((place?["latitude"] ?? 0) - 46.55) < 1e-6 && abs((place?["longitude"] ?? 0) - 7.98) < 1e-6)
    // Turned upright: the second is a portrait.
    #expect(items.map { $0["width"] as? Int } == [600, 375])
    #expect(items.map { $0["height"] as? Int } == [375, 600])
    let opened = try GalleryDocument.open(document)
    let preview = try opened.thumbnail(of: opened.model.items[0])
    let difference = try FixtureImage.meanDE00(preview, against: try workspace.bytes(png))
    #expect(difference < ColourTests.closeMatch, "mean ΔE00 \(difference)")
    let thumbnail = try ImageProcessor.process(try opened.thumbnail(of: opened.model.items[1]), options: ImageOptions())
    #expect(thumbnail.width == 160 && thumbnail.height == 256)
  }

  @Test("Recognised by their first bytes, not their names; an HTML page holding an SVG is not one")
  func recognition() {
    func format(_ text: String) -> SandboxedDecoder.Format? { SandboxedDecoder.Format(prefix: Data(text.utf8)) }
    #expect(format("\u{FEFF}  <?xml version=\"1.0\"?>\n<!-- c --><!DOCTYPE svg PUBLIC \"x\">\n<svg width=\"1\">") == .svg)
    #expect(format("<svg>") == .svg)
    #expect(format("<svgfoo>") == nil)
    #expect(format("<!DOCTYPE html><html><body><svg></svg></body></html>") == nil)
    #expect(format("%PDF-1.7\n") == .pdf)
    #expect(format("BM") == nil)
    var bmp = Data("BM".utf8) + Data(repeating: 0, count: 16)
    bmp[14] = 40
    #expect(SandboxedDecoder.Format(prefix: bmp) == .bmp)
    #expect(SandboxedDecoder.Format(prefix: Data([0xFF, 0x0A, 1])) == .jxl)
    #expect(SandboxedDecoder.Format(prefix: Data([0xFF, 0x4F, 0xFF, 0x51])) == .jp2)
  }

  @Test("The decoder's process reads files, but writes none, reaches no network, runs and signals nothing")
  func confinement() async {
    await #expect(processExitsWith: .success) {
      try DecoderSandbox.enter(memoryBytes: 1 << 30, cpuSeconds: 10, outputBytes: 1 << 20)
      guard open("/etc/passwd", O_RDONLY) >= 0 else { exit(10) }
      guard open("/tmp/gallery-sandbox-test", O_WRONLY | O_CREAT, 0o644) < 0, errno == EPERM else { exit(11) }
      guard mkdir("/tmp/gallery-sandbox-test-folder", 0o755) < 0, errno == EPERM else { exit(12) }
      guard socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) < 0, errno == EPERM else { exit(13) }
      guard kill(1, 0) < 0, errno == EPERM else { exit(14) }
      let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
      guard execv("/bin/true", arguments) < 0, errno == EPERM else { exit(15) }
      exit(0)
    }
  }

  @Test("The decoder's process has bounded memory and CPU")
  func limits() async {
    await #expect(processExitsWith: .success) {
      try DecoderSandbox.enter(memoryBytes: 256 << 20, cpuSeconds: 10, outputBytes: 1 << 20)
      exit(malloc(512 << 20) == nil ? 0 : 1)
    }
    await #expect(processExitsWith: .signal(SIGXCPU)) {
      try DecoderSandbox.enter(memoryBytes: 1 << 30, cpuSeconds: 1, outputBytes: 1 << 20)
      var spin = 0
      while true { spin &+= 1 }
    }
  }
}

extension SandboxedDecoderTests {
  static func items(_ document: String) throws -> [[String: Any]] {
    let shown = try Run.gallery(["show", document, "--json"])
    let model = try JSONSerialization.jsonObject(with: shown.stdoutData) as? [String: Any]
    return model?["items"] as? [[String: Any]] ?? []
  }

  static func onlyItem(_ document: String) throws -> [String: Any] {
    let items = try items(document)
    try #require(items.count == 1)
    return items[0]
  }

  /// A PDF of `pages` pages of `width` x `height` points, each a filled rectangle.
  static func pdf(width: Int, height: Int, pages: Int) -> Data {
    var objects = ["<< /Type /Catalog /Pages 2 0 R >>"]
    let kids = (0..<pages).map { "\(3 + 2 * $0) 0 R" }.joined(separator: " ")
    objects.append("<< /Type /Pages /Kids [\(kids)] /Count \(pages) >>")
    for page in 0..<pages {
      let content = "0.\(2 + page) 0.5 0.8 rg 20 20 \(width - 40) \(height - 40) re f"
      objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Contents \(4 + 2 * page) 0 R >>")
      objects.append("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
    }
    var text = "%PDF-1.4\n"
    var offsets: [Int] = []
    for (index, object) in objects.enumerated() {
      offsets.append(text.utf8.count)
      text += "\(index + 1) 0 obj\n\(object)\nendobj\n"
    }
    let table = text.utf8.count
    text += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
    text += offsets.map { String(repeating: "0", count: 10 - String($0).count) + "\($0) 00000 n \n" }.joined()
    text += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(table)\n%%EOF\n"
    return Data(text.utf8)
  }
}

/// Camera RAW files made at test time: DNGs (a TIFF with a colour filter array), written
/// here byte by byte, as a camera or Adobe's converter lays them out.
enum TestDNG {
  private struct Entry {
    var tag: UInt16
    var type: UInt16
    var count: Int
    var value: [UInt8]
  }

  private static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
  private static func short(_ tag: UInt16, _ values: [Int]) -> Entry {
    Entry(tag: tag, type: 3, count: values.count, value: values.flatMap { le(UInt16($0)) })
  }
  private static func long(_ tag: UInt16, _ values: [Int]) -> Entry {
    Entry(tag: tag, type: 4, count: values.count, value: values.flatMap { le(UInt32($0)) })
  }
  private static func bytes(_ tag: UInt16, _ values: [UInt8]) -> Entry {
    Entry(tag: tag, type: 1, count: values.count, value: values)
  }
  private static func ascii(_ tag: UInt16, _ text: String) -> Entry {
    Entry(tag: tag, type: 2, count: text.utf8.count + 1, value: Array(text.utf8) + [0])
  }

  /// A DNG of `rgb` (8-bit, `width` x `height`) mosaicked through an RGGB filter, 16 bits a
  /// sample, with EXIF orientation `orientation`; with `preview` (JPEG bytes of
  /// `previewSize`), that preview in the first directory and the raw data in a sub-directory.
  static func make(
    rgb: [UInt8], width: Int, height: Int, orientation: Int, preview: (data: Data, width: Int, height: Int)? = nil
  ) -> Data {
    var mosaic: [UInt8] = []
    mosaic.reserveCapacity(width * height * 2)
    for y in 0..<height {
      for x in 0..<width {
        let channel = y % 2 == 0 ? (x % 2 == 0 ? 0 : 1) : (x % 2 == 0 ? 1 : 2)
        mosaic += le(UInt16(rgb[(y * width + x) * 3 + channel]) * 257)
      }
    }
    var file: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le(UInt32(8))
    // Directories are written at the end, their data first: offsets are known then.
    func append(_ data: [UInt8]) -> Int {
      if file.count % 2 == 1 { file.append(0) }
      defer { file += data }
      return file.count
    }
    let rawAt = append(mosaic)
    let rawEntries = [
      long(254, [0]), long(256, [width]), long(257, [height]), short(258, [16]), short(259, [1]), short(262, [32803]),
      long(273, [rawAt]), short(277, [1]), long(278, [height]), long(279, [mosaic.count]), short(284, [1]),
      short(33421, [2, 2]), bytes(33422, [0, 1, 1, 2]), long(50717, [65535]),
    ]
    let camera = [
      ascii(271, "Gallery"), ascii(272, "Test Camera"), short(274, [orientation]), bytes(50706, [1, 4, 0, 0]),
      ascii(50708, "Gallery Test Camera"),
    ]
    func directory(_ entries: [Entry]) -> Int {
      let sorted = entries.sorted { $0.tag < $1.tag }
      var values: [Int: Int] = [:]
      for (index, entry) in sorted.enumerated() where entry.value.count > 4 { values[index] = append(entry.value) }
      var table = le(UInt16(sorted.count))
      for (index, entry) in sorted.enumerated() {
        table += le(entry.tag) + le(entry.type) + le(UInt32(entry.count))
        table += values[index].map { le(UInt32($0)) } ?? (entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count))
      }
      return append(table + le(UInt32(0)))
    }
    let first: Int
    if let preview {
      let previewAt = append(Array(preview.data))
      let sub = directory(rawEntries)
      first = directory(
        camera + [
          long(254, [1]), long(256, [preview.width]), long(257, [preview.height]), short(258, [8, 8, 8]),
          short(259, [7]), short(262, [6]), long(273, [previewAt]), short(277, [3]), long(278, [preview.height]),
          long(279, [preview.data.count]), long(330, [sub]),
        ])
    } else {
      first = directory(camera + rawEntries)
    }
    file.replaceSubrange(4..<8, with: le(UInt32(first)))
    return Data(file)
  }
}
