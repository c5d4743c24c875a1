import Foundation
import GalleryKit
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

/// The rules a model read from outside must keep, as pure functions: no files, no processes.
@Suite("Validation on read: the rules, as unit tests")
struct ValidationTests {
  static let start = Date(timeIntervalSince1970: 1_700_000_000)

  /// A valid model with `count` items (ready, placeholder, failed in turn) and one trashed.
  static func model(_ count: Int, random: inout some RandomNumberGenerator) -> GalleryModel {
    var model = GalleryModel(title: "Model \(count)", now: start)
    var ids: [String] = []
    for index in 0..<(count + 1) {
      var id = ""
      repeat {
        id =
          String(Array("abcdefghjkmnpqrstuvwxyz").randomElement(using: &random)!)
          + String((0..<5).map { _ in Array("abcdefghjkmnpqrstuvwxyz23456789").randomElement(using: &random)! })
      } while ids.contains(id)
      ids.append(id)
      var item = Item.placeholder(id: id, source: "file:///p/\(index).jpg", now: start + Double(index))
      switch index % 3 {
      case 0:
        let width = Int.random(in: 1...10_000, using: &random)
        let height = Int.random(in: 1...10_000, using: &random)
        item.state = .ready
        item.placeholder = nil
        item.width = width
        item.height = height
        item.aspectRatio = Double(width) / Double(height)
        item.hash = "sha256:" + String((0..<64).map { _ in Array("0123456789abcdef").randomElement(using: &random)! })
        item.thumbnail = "thumbnails/\(id).jpg"
        item.format = "jpeg"
        item.bytes = Int.random(in: 1...50_000_000, using: &random)
      case 1: break
      default: item = item.failed(because: "HTTP 404 \"Not Found\"")
      }
      if index == count {
        model.trash.append(TrashedItem(item: item, trashed: start + 60, position: Int.random(in: 1...1000, using: &random)))
      } else {
        model.items.append(item)
      }
    }
    model.revision = Int.random(in: 0...1_000_000, using: &random)
    return model
  }

  @Test("Ids: letters, digits, - and _, 1 to 32, not all digits, not an option, never a path")
  func ids() {
    for valid in ["k3x9qa", "a", "abc-def", "ABC_123", String(repeating: "a", count: 32), "7a"] {
      #expect(ModelValidation.isValidID(valid), "\(valid)")
    }
    for invalid in ["", "123", "-rf", "../x", "a/b", "a.b", "a b", "é", String(repeating: "a", count: 33), "a\n"] {
      #expect(!ModelValidation.isValidID(invalid), "\(invalid)")
    }
  }

  @Test("Random valid models validate, round-trip, and write back byte for byte")
  func randomModels() throws {
    for seed in 1...40 {
      var random = SplitMix(state: UInt64(seed))
      let model = Self.model(Int.random(in: 0...30, using: &random), random: &random)
      #expect(ModelValidation.problems(of: model).isEmpty, "seed \(seed)")
      let bytes = ModelCoding.encode(model)
      let decoded = try ModelCoding.decode(bytes)
      #expect(decoded == model, "seed \(seed)")
      #expect(ModelCoding.encode(decoded) == bytes, "seed \(seed)")
    }
  }

  @Test("Each broken rule is refused on read, naming it")
  func brokenRules() throws {
    var random = SplitMix(state: 7)
    let valid = Self.model(6, random: &random)
    let breakers: [(String, (inout GalleryModel) -> Void)] = [
      ("used more than once", { $0.items[1].id = $0.items[0].id }),
      ("used more than once", { $0.trash[0].item.id = $0.items[0].id }),
      ("not a valid id", { $0.items[0].id = "../../etc" }),
      ("aspect ratio", { $0.items[0].aspectRatio = 1e300 }),
      ("aspect ratio", { $0.items[0].aspectRatio = 0 }),
      ("width", { $0.items[0].width = Int.max }),
      ("orientation", { $0.items[0].orientation = 9 }),
      ("byte count", { $0.items[0].bytes = -1 }),
      ("hash", { $0.items[0].hash = "sha256:../../x" }),
      ("thumbnail entry", { $0.items[0].thumbnail = "thumbnails/../../x.jpg" }),
      ("thumbnail entry", { $0.items[0].thumbnail = "cover.jpg" }),
      ("original entry", { $0.items[0].original = "originals/x.jpg" }),
      ("format", { $0.items[0].format = "JPEG/../x" }),
      ("source", { $0.items[0].source = "file:///a\r\nfile:///b" }),
      ("source", { $0.items[0].source = "" }),
      ("page", { $0.items[0].page = "https://x/\u{1b}[2J" }),
      ("no content hash", { $0.items[0].hash = nil }),
      ("position", { $0.trash[0].position = Int.min }),
      ("position", { $0.trash[0].position = 0 }),
      ("revision", { $0.revision = Int.max }),
      ("thumbnail size", { $0.settings.thumbnailSize = Int.max }),
      ("pixel limit", { $0.settings.maxPixels = 0 }),
      ("title", { $0.title = String(repeating: "x", count: 5000) }),
      ("move offer", { $0.moveOffers = [MoveOffer(token: "zz", ids: [], created: Self.start)] }),
    ]
    for (expected, breaker) in breakers {
      var model = valid
      breaker(&model)
      let problems = ModelValidation.problems(of: model)
      #expect(problems.contains { $0.description.contains(expected) }, "\(expected): \(problems)")
      #expect(throws: ModelValidation.Failure.self) { try ModelCoding.decode(ModelCoding.encode(model)) }
    }
  }

  @Test("A commit keeps what an image says within what an item holds: its pages counted up to the limit")
  func commitFitsPages() {
    let hash = "sha256:" + String(repeating: "ab", count: 32)
    for (pages, kept) in [
      (1, nil), (2, 2), (4097, 4097), (1_000_000, 1_000_000), (1_000_001, 1_000_000), (Int(Int32.max), 1_000_000),
    ] {
      var image = ProcessedImage(
        width: 4, height: 3, orientation: 1, format: "gif", hash: hash, byteCount: 10,
        thumbnail: Thumbnail(data: Data([1, 2, 3]), fileExtension: "jpg"), original: nil)
      image.pages = pages
      let item = Item.placeholder(id: "p1", source: "file:///a.gif").committed(with: image, thumbnailEntry: "thumbnails/p1.jpg")
      #expect(item.pages == kept)
      var model = GalleryModel(title: "t")
      model.items = [item]
      #expect(ModelValidation.problems(of: model).isEmpty, "\(pages) pages")
    }
  }

  @Test(
    "Dates the writer could not write back are refused when read",
    arguments: [
      "0000-01-01T00:00:00+01:00", "0001-01-01T00:30:00+01:00", "9999-12-31T23:59:59-01:00", "2016-12-31T23:59:60Z",
      "2026-02-31T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:00:00+24:00", "2026-01-01T00:00:00",
    ])
  func impossibleDates(_ date: String) {
    let text =
      #"{"format":1,"title":"x","created":"\#(date)","modified":"2026-01-02T03:04:05Z","revision":0,"settings":{},"items":[],"trash":[]}"#
    #expect(throws: (any Error).self) { try ModelCoding.decode(Data(text.utf8)) }
  }

  @Test("The byte-level grammars judge as the String-based ones they replaced: controls, combining marks, dots")
  func grammarsOnBytes() {
    // The rules as they were written on Strings (Characters and scalars).
    func oldID(_ id: String) -> Bool {
      let bytes = id.utf8
      guard (1...32).contains(bytes.count), bytes.first != UInt8(ascii: "-") else { return false }
      return bytes.allSatisfy {
        (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F
      }
        && !bytes.allSatisfy { (0x30...0x39).contains($0) }
    }
    func oldHex(_ bytes: some Collection<UInt8>, _ count: Int) -> Bool {
      bytes.count == count && bytes.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
    func oldFormat(_ text: String) -> Bool {
      (1...16).contains(text.utf8.count) && text.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
    }
    func oldThumbnail(_ name: String) -> Bool {
      guard name.hasPrefix("thumbnails/") else { return false }
      let file = name.dropFirst(11)
      guard let dot = file.lastIndex(of: "."), ["jpg", "webp", "png"].contains(file[file.index(after: dot)...]) else {
        return false
      }
      return oldID(String(file[..<dot]))
    }
    func oldOriginal(_ name: String) -> Bool {
      guard name.hasPrefix("originals/") else { return false }
      let file = name.dropFirst(10)
      guard let dot = file.firstIndex(of: ".") else { return false }
      return oldHex(file[..<dot].utf8, 64) && oldFormat(String(file[file.index(after: dot)...]))
    }
    func oldURL(_ text: String) -> Bool {
      !text.isEmpty && text.utf8.count <= 16 * 1024 && !text.unicodeScalars.contains(where: ModelValidation.isControl)
    }
    let hex = String(repeating: "ab", count: 32)
    let pieces = [
      "", ".", "..", "/", "a", "abc", "ABC_-9", "-a", "123", "é", "e\u{301}", "\u{301}", "\u{85}", "\u{9F}", "\u{A0}", "\u{7F}",
      "\u{1F}", "\t", "\u{0}", "日本", "🖼️", "jpg", "webp", "png", "jpeg", "JPG", ".jpg", ".\u{301}jpg", "thumbnails/", "originals/",
      "sha256:", hex, String(hex.prefix(63)), "\u{C2}", "x\u{80}y", "\u{2028}",
    ]
    var random = SplitMix(state: 99)
    var texts = pieces
    for _ in 0..<4000 {
      texts.append((0..<Int.random(in: 1...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined())
    }
    texts += [
      "thumbnails/abcdef.jpg", "thumbnails/abc.def.jpg", "thumbnails/abcdef.jpg\u{301}", "thumbnails/ab\u{301}.png",
      "thumbnails/.jpg", "originals/\(hex).jpeg", "originals/\(hex).", "originals/\(hex)\u{301}.jpeg", "sha256:\(hex)",
      "sha256:\(hex)\u{301}", "sha256\u{301}:\(hex)", "file:///a\u{85}b", "https://x/\u{9F}", "https://x/\u{A0}",
    ]
    for text in texts {
      #expect(ModelValidation.isValidID(text) == oldID(text), "id \(text.debugDescription)")
      #expect(ModelValidation.isThumbnailEntry(text) == oldThumbnail(text), "thumbnail \(text.debugDescription)")
      #expect(ModelValidation.isOriginalEntry(text) == oldOriginal(text), "original \(text.debugDescription)")
      #expect(ModelValidation.isFormatName(text) == oldFormat(text), "format \(text.debugDescription)")
      #expect(ModelValidation.isURLText(text) == oldURL(text), "url \(text.debugDescription)")
      #expect(
        ModelValidation.isText(text, limit: 12) == (text.utf8.count <= 12 && !text.unicodeScalars.contains { $0.value == 0 }))
      #expect(
        ModelValidation.isContentHash(text) == (text.hasPrefix("sha256:") && oldHex(text.utf8.dropFirst(7), 64)),
        "hash \(text.debugDescription)")
      #expect(ModelValidation.isRevisionID(text) == oldHex(text.utf8, 32))
    }
  }

  @Test("The first and last representable days round-trip")
  func extremeDates() throws {
    for date in ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"] {
      let text =
        #"{"format":1,"title":"x","created":"\#(date)","modified":"\#(date)","revision":0,"settings":{},"items":[],"trash":[]}"#
      let model = try ModelCoding.decode(Data(text.utf8))
      #expect(try ModelCoding.decode(ModelCoding.encode(model)) == model)
      #expect(String(decoding: ModelCoding.encode(model), as: UTF8.self).contains(date))
    }
  }

  @Test("Unknown members may nest 64 deep, not deeper: no stack overflow at any depth")
  func nesting() {
    func document(depth: Int) -> Data {
      Data(
        (#"{"format":1,"title":"x","created":"2026-01-02T03:04:05Z","modified":"2026-01-02T03:04:05Z","revision":0,"#
          + #""settings":{},"items":[],"trash":[],"future":"# + String(repeating: "[", count: depth)
          + String(repeating: "]", count: depth) + "}").utf8)
    }
    #expect((try? ModelCoding.decode(document(depth: 60))) != nil)
    #expect(throws: (any Error).self) { try ModelCoding.decode(document(depth: 65)) }
    #expect(throws: (any Error).self) { try ModelCoding.decode(document(depth: 300_000)) }
    let payload = Data(("{\"a\":" + String(repeating: "[", count: 300_000) + String(repeating: "]", count: 300_000) + "}").utf8)
    #expect(throws: DragPayload.Refusal.self) { try DragPayload.decode(payload) }
  }

  @Test("Sizes: digits, one dot and a unit; nothing infinite, negative or over 1 TiB")
  func sizes() {
    #expect(ByteCount.parse("50M") == 50 << 20)
    #expect(ByteCount.parse("1.5G") == 3 << 29)
    #expect(ByteCount.parse("200 MiB") == 200 << 20)
    #expect(ByteCount.parse("2048") == 2048)
    #expect(ByteCount.parse("1T") == 1 << 40)
    for refused in ["infG", "inf", "nan", "1e300G", "-5M", "1e3", "2T", "", "M", "1..5M", "0x10"] {
      #expect(ByteCount.parse(refused) == nil, "\(refused)")
    }
  }

  @Test("Text for a terminal: control characters escaped, layout kept only when asked")
  func terminalText() {
    #expect(TerminalText.escaped("plain é 日本") == "plain é 日本")
    #expect(TerminalText.escaped("a\u{1b}[2Jb") == "a\\x1B[2Jb")
    #expect(TerminalText.escaped("line\r\nforged") == "line\\r\\nforged")
    #expect(TerminalText.escaped("c1\u{9b}31m") == "c1\\u{009B}31m")
    #expect(TerminalText.escaped("a\tb\nc", keepingLayout: true) == "a\tb\nc")
    #expect(TerminalText.escaped("bell\u{07}", keepingLayout: true) == "bell\\x07")
  }
}
