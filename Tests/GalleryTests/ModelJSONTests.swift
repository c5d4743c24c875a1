import Foundation
import Testing

@testable import GalleryCommands
@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryKit
@testable import GalleryModel
@testable import GallerySystem

@Suite("gallery.json: the model's own JSON codec")
struct ModelJSONTests {
  func sample() -> GalleryModel {
    var model = GalleryModel(
      title: "Tricky \"title\" \\ with \u{7} bell, tab\t, é, 日本, 🖼️", now: Date(timeIntervalSince1970: 1_700_000_000))
    var ready = Item.placeholder(id: "abcdef", source: "file:///tmp/a%20b.jpg", now: Date(timeIntervalSince1970: 1_700_000_100))
    ready.state = .ready
    ready.placeholder = nil
    ready.aspectRatio = 4.0 / 3.0
    ready.width = 4000
    ready.height = 3000
    ready.hash = "sha256:" + String(repeating: "ab", count: 32)
    ready.thumbnail = "thumbnails/abcdef.jpg"
    ready.page = "https://example.invalid/page?q=1&r=/x"
    let pending = Item.placeholder(
      id: "ghjkmn", source: "https://example.invalid/i.png", now: Date(timeIntervalSince1970: 1_700_000_200))
    var failed = pending.failed(because: "HTTP 404 \"Not Found\"\n")
    failed.id = "pqrstu"  // ids are unique across items and trash
    model.items = [ready, pending]
    model.trash = [TrashedItem(item: failed, trashed: Date(timeIntervalSince1970: 1_700_000_300), position: 2)]
    model.revision = 7
    model.settings.keepFailed = true
    return model
  }

  @Test("Round trip, and Foundation's Codable reads what it writes and writes what it reads")
  func roundTrip() throws {
    let model = sample()
    let data = ModelCoding.encode(model)
    #expect(try ModelCoding.decode(data) == model)

    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    #expect(try decoder.decode(GalleryModel.self, from: data) == model)
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.prettyPrinted]
    #expect(try ModelCoding.decode(try encoder.encode(model)) == model)
  }

  @Test("Escapes, surrogate pairs, fractional seconds, offsets and unknown members are read")
  func readsWhatOthersWrite() throws {
    let text = #"""
      {"format":1,"title":"caf\u00e9 \ud83d\uddbc \/ ok","created":"2026-01-02T03:04:05.250+01:00",
       "modified":"2026-01-02T03:04:05Z","revision":1,"future":{"a":[1,2,{"b":null}]},
       "settings":{"thumbnailSize":128,"maxPixels":1e6,"keepFailed":false},
       "items":[],"trash":[]}
      """#
    let model = try ModelCoding.decode(Data(text.utf8))
    #expect(model.title == "café 🖼 / ok")
    #expect(model.created.timeIntervalSince1970 == 1_767_319_445.25)
    #expect(model.settings.thumbnailSize == 128)
    #expect(model.settings.maxPixels == 1_000_000)
  }

  @Test(
    "Malformed JSON is an error, never a partial model",
    arguments: [
      "", "{", "[]", #"{"format":1}"#,
      #"{"format":1,"title":"x","created":"yesterday","modified":"2026-01-02T03:04:05Z","revision":0,"settings":{},"items":[],"trash":[]}"#,
      #"{"format":1,"title":"x\u0001","created":"2026-01-02T03:04:05Z","modified":"2026-01-02T03:04:05Z","revision":0,"settings":{},"items":[{"id":"a"}],"trash":[]}"#,
      #"{"format":1,"title":"x","created":"2026-01-02T03:04:05Z","modified":"2026-01-02T03:04:05Z","revision":0,"settings":{},"items":[],"trash":[]} trailing"#,
    ])
  func malformed(_ text: String) {
    #expect(throws: (any Error).self) { try ModelCoding.decode(Data(text.utf8)) }
  }
}

/// Random valid models, for the differential test of the two codecs.
struct RandomModels {
  var generator: any RandomNumberGenerator

  init(seed: UInt64) { generator = SplitMix(state: seed) }

  mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
  mutating func bool() -> Bool { Bool.random(using: &generator) }
  mutating func date() -> Date { Date(timeIntervalSince1970: Double(int(-2_000_000_000...30_000_000_000))) }

  /// Text with quotes, backslashes, controls (where the rules allow them), accents, CJK and
  /// emoji (a surrogate pair once escaped).
  mutating func text(controls: Bool) -> String {
    let pieces =
      ["a", "Z", "0", " ", "\"", "\\", "/", "é", "日本", "🖼️", "&", "?", "%20"] + (controls ? ["\n", "\t", "\u{7}", "\u{1F}"] : [])
    return (0..<int(0...12)).map { _ in pieces[int(0...pieces.count - 1)] }.joined()
  }

  mutating func id(_ index: Int) -> String {
    let letters = Array("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ_")
    return String((0..<int(1...10)).map { _ in letters[int(0...letters.count - 1)] }) + "-\(index)"
  }

  mutating func item(_ index: Int) -> Item {
    var item = Item.placeholder(
      id: id(index),
      source: "file:///tmp/" + text(controls: false).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!,
      page: bool() ? "https://example.invalid/p?q=\(int(0...99))" : nil, now: date())
    switch int(0...2) {
    case 0:
      item.state = .ready
      item.placeholder = nil
      item.width = int(1...100_000)
      item.height = int(1...100_000)
      item.aspectRatio = Double(item.width!) / Double(item.height!)
      item.orientation = int(1...8)
      item.format = ["jpeg", "png", "webp"][int(0...2)]
      item.bytes = int(1...1 << 40)
      item.hash = "sha256:" + String(repeating: "0123456789abcdef", count: 4)
      item.thumbnail = "thumbnails/\(item.id).jpg"
    case 1:
      item = item.failed(because: text(controls: true))
    default:
      break
    }
    return item
  }

  mutating func model() -> GalleryModel {
    var model = GalleryModel(title: text(controls: true), now: date())
    model.modified = date()
    model.revision = int(1...1 << 50)
    model.settings.thumbnailSize = int(16...2048)
    model.settings.keepFailed = bool()
    model.settings.embedOriginals = bool()
    let count = int(0...20)
    model.items = (0..<count).map { item($0) }
    model.trash = (0..<int(0...4)).map { TrashedItem(item: item(count + $0), trashed: date(), position: int(1...1000)) }
    return model
  }
}

@Suite("One schema, two codecs: ours and Foundation's agree")
struct ModelCodecDifferentialTests {
  @Test("For 300 random models, JSONDecoder reads our bytes to an equal model, and we read JSONEncoder's", arguments: 0..<3)
  func differential(batch: Int) throws {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    for seed in UInt64(batch * 100)..<UInt64(batch * 100 + 100) {
      var random = RandomModels(seed: seed)
      let model = random.model()
      let ours = ModelCoding.encode(model)
      #expect(try decoder.decode(GalleryModel.self, from: ours) == model, "seed \(seed)")
      #expect(try ModelCoding.decode(try encoder.encode(model)) == model, "seed \(seed)")
      #expect(try ModelCoding.decode(ours) == model, "seed \(seed)")
    }
  }
}

@Suite("Dates without the C library")
struct CivilTimeTests {
  @Test("Seconds since 1970 become the same UTC fields as gmtime_r, from year 1 to 9999")
  func matchesGmtime() {
    var random = SplitMix(state: 11)
    let edges: [Int64] = [0, -1, 86_399, 86_400, 951_782_400, 951_868_799, -62_135_596_800, 253_402_300_799, 1_700_000_000]
    let samples = edges + (0..<2000).map { _ in Int64.random(in: -62_135_596_800...253_402_300_799, using: &random) }
    for seconds in samples {
      var time = time_t(seconds)
      var parts = tm()
      gmtime_r(&time, &parts)
      let expected = CivilTime(
        year: Int64(parts.tm_year) + 1900, month: Int64(parts.tm_mon) + 1, day: Int64(parts.tm_mday),
        hour: Int64(parts.tm_hour), minute: Int64(parts.tm_min), second: Int64(parts.tm_sec))
      #expect(CivilTime(secondsSince1970: seconds) == expected, "\(seconds)")
    }
  }
}

@Suite("Dates and numbers read from their bytes")
struct ByteReaderTests {
  @Test("Strings are escaped as a byte-by-byte writer escapes them, wherever the escapes fall, and read back whole")
  func escapedStrings() throws {
    func reference(_ bytes: [UInt8]) -> [UInt8] {
      var out: [UInt8] = [UInt8(ascii: "\"")]
      for byte in bytes {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
        case 0x0A: out += Array("\\n".utf8)
        case 0x0D: out += Array("\\r".utf8)
        case 0x09: out += Array("\\t".utf8)
        case 0..<0x20: out += Array("\\u00".utf8) + Array(String(format: "%02x", byte).utf8)
        default: out.append(byte)
        }
      }
      return out + [UInt8(ascii: "\"")]
    }
    var random = SplitMix(state: 77)
    // Escapes at every offset of the eight-byte steps, and bytes either side of the limits.
    let pool: [UInt8] =
      [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA0, 0xC3, 0xFF]
      + Array("abcdefgh".utf8)
    for length in 0..<40 {
      for _ in 0..<50 {
        let bytes = (0..<length).map { _ in pool.randomElement(using: &random)! }
        var writer = JSONWriter()
        bytes.withUnsafeBytes { writer.string(utf8: $0) }
        #expect(writer.bytes == reference(bytes), "\(bytes)")
      }
    }
    // Text with every control character among words and other scripts reads back the same.
    for _ in 0..<300 {
      let scalars = (0..<Int.random(in: 0...30, using: &random)).map { _ -> Unicode.Scalar in
        switch Int.random(in: 0..<4, using: &random) {
        case 0: Unicode.Scalar(UInt8.random(in: 0..<0x20, using: &random))
        case 1: ["\"", "\\", "/", "é", "日", "🖼"].randomElement(using: &random)!.unicodeScalars.first!
        default: Unicode.Scalar(UInt8.random(in: 0x20..<0x7F, using: &random))
        }
      }
      var text = ""
      text.unicodeScalars.append(contentsOf: scalars)
      var writer = JSONWriter()
      writer.string(text)
      let read = try writer.bytes.withUnsafeBytes { raw in
        var reader = JSONReader(raw)
        return try reader.string()
      }
      #expect(read == text)
    }
  }

  @Test("A record's place is read without its change, and refused as the whole record would be when it lacks one")
  func recordPlace() throws {
    let record =
      #"{"change":{"items":{"inserted":[{"at":0,"element":{"id":"]}\"x"}}]}},"format":2,"id":"a1","parent":"b2","revision":7,"summary":"s","time":"2026-01-01T00:00:00Z"}"#
    let place = try JournalCoding.decodePlace(Data(record.utf8))
    #expect(place == JournalRecord.Place(revision: 7, id: "a1", parent: "b2"))
    #expect(throws: (any Error).self) { try JournalCoding.decodePlace(Data(#"{"change":{},"revision":7}"#.utf8)) }
    #expect(throws: DocumentError.self) { try JournalCoding.decodePlace(Data(#"{"format":99,"id":"a","revision":1}"#.utf8)) }
    #expect(throws: (any Error).self) { try JournalCoding.decodePlace(Data(#"{"id":"a","revision":1} x"#.utf8)) }
  }

  @Test("Unknown members are kept as their text, written where they sort, and bounded")
  func unknownMembers() throws {
    var model = LargeModelTests.model(count: 2)
    model.items[0].unknown = [
      UnknownMember(name: "b", json: Array("[1,{\"x\":null}]".utf8)), UnknownMember(name: "zz", json: Array("true".utf8)),
    ]
    model.settings.unknown = [UnknownMember(name: "sharpen", json: Array("2".utf8))]
    model.unknown = [UnknownMember(name: "albums", json: Array("[]".utf8))]
    let text = String(decoding: ModelCoding.encode(model), as: UTF8.self)
    #expect(text.contains(#","b":[1,{"x":null}],"#))
    #expect(text.contains(#""source":"#) && text.contains(#","zz":true}"#))
    #expect(text.hasPrefix(#"{"albums":[],"created""#))
    #expect(text.contains(#""maxPixels":100000000,"sharpen":2,"thumbnailSize""#))
    #expect(try ModelCoding.decode(Data(text.utf8)) == model)
    // Read strictly and bounded: not UTF-8, given twice, or too many are refused.
    func reads(_ members: String) -> Bool {
      (try? ModelCoding.decode(Data(text.replacingOccurrences(of: #"{"albums":[],"#, with: "{" + members + ",").utf8))) != nil
    }
    #expect(reads(#""x":"é""#))
    #expect(!reads(#""x":1,"x":2"#))
    #expect(!reads((0...UnknownMember.limit).map { #""m\#($0)":0"# }.joined(separator: ",")))
    var invalid = Array(text.utf8)
    invalid.replaceSubrange(1..<12, with: Array(#""albums":""#.utf8) + [0xFF, 0x22])
    #expect((try? ModelCoding.decode(Data(invalid))) == nil)
  }

  @Test(
    "A record is written place first and change last; read without its change it stops there, and says what the whole record says"
  )
  func recordWrittenPlaceFirst() throws {
    let time = "2026-01-01T00:00:00Z"
    let before = LargeModelTests.model(count: 3)
    var after = before
    after.items.swapAt(0, 2)
    let record = JournalRecord(
      revision: 7, id: String(repeating: "a", count: 32), parent: String(repeating: "b", count: 32),
      time: try #require(ISO8601.parse(time)), summary: "move: 1 item",
      change: ModelChange(from: before, to: after))
    let text = String(decoding: JournalCoding.encode(record), as: UTF8.self)
    #expect(text.hasPrefix(#"{"format":2,"revision":7,"id":""#))
    #expect(text.range(of: #""change":"#)!.lowerBound > text.range(of: #""time":"#)!.lowerBound)
    #expect(try JournalCoding.decode(Data(text.utf8)) == record)
    // What is read without the change stops before it: a change cut short does not matter.
    let cut = String(text[..<text.range(of: #""change":"#)!.upperBound]) + #"{"items":{"mov"#
    var listed = record
    listed.change = ModelChange()
    #expect(try JournalCoding.decodeWithoutChange(Data(cut.utf8)) == listed)
    #expect(try JournalCoding.decodePlace(Data(cut.utf8)) == record.place)
    #expect(throws: (any Error).self) { try JournalCoding.decode(Data(cut.utf8)) }
    // So no member may follow a change that comes after the place, nor any be given twice.
    let late = #"{"revision":7,"id":"a1","summary":"s","time":"\#(time)","change":{},"parent":"b2"}"#
    #expect(throws: (any Error).self) { try JournalCoding.decode(Data(late.utf8)) }
    let twice = #"{"revision":7,"revision":8,"id":"a1","summary":"s","time":"\#(time)","change":{}}"#
    #expect(throws: (any Error).self) { try JournalCoding.decode(Data(twice.utf8)) }
    #expect(throws: (any Error).self) { try JournalCoding.decodePlace(Data(twice.utf8)) }
  }

  /// The reader this one replaced: a String, then the C library's `timegm`, whose
  /// normalisation tells a day that does not exist.
  static func referenceParse(_ text: String) -> Date? {
    let b = Array(text.utf8)
    func number(_ range: Range<Int>) -> Int? {
      guard range.upperBound <= b.count else { return nil }
      var value = 0
      for i in range {
        guard (0x30...0x39).contains(b[i]) else { return nil }
        value = value * 10 + Int(b[i] - 0x30)
      }
      return value
    }
    guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
      b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"), let year = number(0..<4), let month = number(5..<7),
      let day = number(8..<10), let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
      (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
    else { return nil }
    var i = 19
    var fraction = 0.0
    if i < b.count, b[i] == UInt8(ascii: ".") {
      i += 1
      var scale = 0.1
      while i < b.count, (0x30...0x39).contains(b[i]) {
        fraction += Double(b[i] - 0x30) * scale
        scale /= 10
        i += 1
      }
    }
    var offset = 0
    guard i < b.count else { return nil }
    if b[i] == UInt8(ascii: "Z") {
      i += 1
    } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
      guard let h = number(i + 1..<i + 3), i + 3 < b.count, b[i + 3] == UInt8(ascii: ":"), let m = number(i + 4..<i + 6),
        h < 24, m < 60
      else { return nil }
      offset = (h * 3600 + m * 60) * (b[i] == UInt8(ascii: "-") ? -1 : 1)
      i += 6
    } else {
      return nil
    }
    guard i == b.count else { return nil }
    var parts = tm()
    (parts.tm_year, parts.tm_mon, parts.tm_mday) = (Int32(year - 1900), Int32(month - 1), Int32(day))
    (parts.tm_hour, parts.tm_min, parts.tm_sec) = (Int32(hour), Int32(minute), Int32(second))
    let seconds = timegm(&parts)
    guard parts.tm_mday == Int32(day), parts.tm_mon == Int32(month - 1) else { return nil }
    let date = Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    guard ModelValidation.Limits.dates.contains(date) else { return nil }
    return date
  }

  @Test("Dates read as the timegm-based reader read them: month ends of ten years, random stamps, offsets, garbage")
  func datesAgreeWithTimegm() {
    var random = SplitMix(state: 23)
    var texts: [String] = []
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    func four(_ n: Int) -> String { String(repeating: "0", count: 4 - String(n).count) + String(n) }
    for year in [1, 4, 100, 1900, 1970, 2000, 2023, 2024, 2100, 9999] {
      for month in 0...13 {
        for day in [0, 1, 28, 29, 30, 31, 32] { texts.append("\(four(year))-\(two(month))-\(two(day))T12:00:00Z") }
      }
    }
    for _ in 0..<3000 {
      let year = Int.random(in: 1...9999, using: &random)
      let time =
        "\(two(Int.random(in: 0...24, using: &random))):\(two(Int.random(in: 0...60, using: &random))):\(two(Int.random(in: 0...60, using: &random)))"
      let zone = ["Z", "+01:00", "-11:30", "+23:59", "+24:00", "-00:60", ".5Z", ".125+02:00", ".Z", "", "z", "Z ", "+0100"]
        .randomElement(using: &random)!
      texts.append(
        "\(four(year))-\(two(Int.random(in: 1...12, using: &random)))-\(two(Int.random(in: 1...31, using: &random)))T\(time)\(zone)"
      )
    }
    texts += [
      "0001-01-01T00:00:00Z", "0001-01-01T00:00:00+00:01", "9999-12-31T23:59:59Z", "9999-12-31T23:59:59-00:01",
      "2026-1-02T03:04:05Z", "2026-01-02 03:04:05Z", "２０26-01-02T03:04:05Z", "2026-01-02T03:04:05Zjunk", "",
    ]
    for text in texts {
      #expect(ISO8601.parse(text) == Self.referenceParse(text), "\(text)")
    }
  }

  @Test("A date written with JSON escapes is read; one that is not a date names itself")
  func escapedDates() throws {
    func date(_ json: String) throws -> Date {
      try Data(json.utf8).withUnsafeBytes { raw in
        var reader = JSONReader(raw)
        return try reader.date()
      }
    }
    #expect(try date(#""2026-01-02T03:04:05\u005A""#) == (try date(#""2026-01-02T03:04:05Z""#)))
    #expect(try date(#"  "2024-02-29T00:00:00Z""#).timeIntervalSince1970 == 1_709_164_800)
    for bad in [#""2023-02-29T00:00:00Z""#, #""2026-01-02T03:04:05\u0000""#, #""2026-01-02"#, "17", #""x\q""#] {
      #expect(throws: (any Error).self) { try date(bad) }
    }
  }

  @Test("Integers written and read as bytes agree with String(_:), Int(_:) and Double(_:), at the edges of the quick paths")
  func integers() throws {
    func int(_ text: String) -> Int? {
      Data(text.utf8).withUnsafeBytes { raw in
        var reader = JSONReader(raw)
        guard let value = try? reader.int(), reader.index == raw.count else { return nil }
        return value
      }
    }
    let cases: [(String, Int?)] = [
      ("0", 0), ("-0", 0), ("007", nil), ("42", 42), ("-42", -42), (" 5", 5),
      ("999999999999999999", 999_999_999_999_999_999), ("-999999999999999999", -999_999_999_999_999_999),
      ("9223372036854775807", Int.max), ("9223372036854775808", nil), ("1e3", 1000), ("1.0", 1), ("1.5", nil),
      ("-", nil), ("", nil), ("+5", nil), ("1e400", nil), ("9e15", nil), ("8999999999999999.0", 8_999_999_999_999_999),
    ]
    for (text, expected) in cases { #expect(int(text) == expected, "\(text)") }
    var random = SplitMix(state: 5)
    let edges = [0, 1, -1, 9, 10, -10, 99, 100, Int.max, Int.min, Int.max - 1, Int.min + 1]
    for value in edges
      + (0..<2000).map({ _ in Int.random(in: Int.min...Int.max, using: &random) >> Int.random(in: 0...63, using: &random) })
    {
      // Written by our writer as Swift writes it, and read back.
      var writer = JSONWriter(capacity: 0)
      writer.int(value)
      #expect(writer.bytes == Array(String(value).utf8))
      #expect(int(String(value)) == value)
    }
  }
}

/// The reader against RFC 8259 itself: every form of its number and string grammar, their
/// invalid neighbours (JSONTestSuite's n_number and n_string cases among them), and UTF-8
/// that is not.
@Suite("JSON as RFC 8259 says")
struct RFC8259Tests {
  /// What each reader makes of `text` as a whole value: a number, a string, a skipped member.
  func readDouble(_ bytes: [UInt8]) -> Double? {
    bytes.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      guard let value = try? reader.double() else { return nil }
      reader.skipSpace()
      return reader.index == raw.count ? value : nil
    }
  }

  func readString(_ bytes: [UInt8]) -> String? {
    bytes.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      guard let value = try? reader.string(), reader.index == raw.count else { return nil }
      return value
    }
  }

  /// A model whose title is `value` (raw JSON), and an unknown member holding it: both read?
  func model(title value: [UInt8]) -> (title: Bool, skipped: Bool) {
    let valid = Array(ModelCoding.encode(GalleryModel(title: "t", now: Date(timeIntervalSince1970: 0))))
    let title = Array(#""title":"t""#.utf8)
    let at = valid.firstRange(of: title)!
    func reads(_ bytes: [UInt8]) -> Bool { (try? ModelCoding.decode(Data(bytes))) != nil }
    let before = Array(valid[..<at.lowerBound])
    var withTitle = before + Array(#""title":"#.utf8)
    withTitle += value
    withTitle += valid[at.upperBound...]
    var withUnknown = before + Array(#""unknownMember":"#.utf8)
    withUnknown += value
    withUnknown += [UInt8(ascii: ",")]
    withUnknown += valid[at.lowerBound...]
    return (reads(withTitle), reads(withUnknown))
  }

  @Test("Numbers: the grammar's forms are read, their neighbours refused by every reader")
  func numbers() {
    let valid: [(String, Double)] = [
      ("0", 0), ("-0", 0), ("1", 1), ("-1", -1), ("10", 10), ("1.5", 1.5), ("0.5", 0.5), ("-0.5", -0.5),
      ("1e2", 100), ("1E2", 100), ("1e+2", 100), ("1e-2", 0.01), ("1.5E-2", 0.015), ("0e0", 0), ("-0.0e-0", 0),
      ("123456789", 123_456_789), ("1.0", 1), ("20e1", 200),
    ]
    for (text, value) in valid {
      #expect(readDouble(Array(text.utf8)) == value, "\(text)")
      #expect(model(title: Array(text.utf8)).skipped, "\(text) in an unknown member")
    }
    let invalid = [
      "+1", "-01", "01", "012", "00", "-00", "2.", "-2.", ".2", ".2e-3", "0.e1", "1e", "1e+", "1E-", "-", "--1", "+",
      "1.5.2", "1e2e3", "0x1", "1ee2", "Infinity", "-Infinity", "NaN", "1.e1", "-.1", "- 1", "01.5", "1+2", "1-2",
      "2.e3", "0.3e", "9.e+", "1eE2",
    ]
    for text in invalid {
      #expect(readDouble(Array(text.utf8)) == nil, "\(text)")
      #expect(!model(title: Array(text.utf8)).skipped, "\(text) in an unknown member")
    }
  }

  @Test("Strings: escapes and every length of UTF-8 are read; bytes that are not UTF-8 are refused, not replaced")
  func strings() {
    let valid: [([UInt8], String)] = [
      (Array(#""""#.utf8), ""), (Array(#""a""#.utf8), "a"), (Array(#""\"\\\/\b\f\n\r\t""#.utf8), "\"\\/\u{8}\u{C}\n\r\t"),
      (Array(#""\u00e9\u20AC""#.utf8), "é€"), (Array(#""\ud83d\ude00""#.utf8), "😀"),
      ([0x22, 0xC3, 0xA9, 0x22], "é"), ([0x22, 0xE2, 0x82, 0xAC, 0x22], "€"), ([0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22], "😀"),
      ([0x22, 0xEF, 0xBF, 0xBF, 0x22], "\u{FFFF}"),
    ]
    for (bytes, text) in valid {
      #expect(readString(bytes) == text, "\(bytes)")
      #expect(model(title: bytes) == (true, true), "\(bytes)")
    }
    let invalid: [[UInt8]] = [
      [0x22, 0x80, 0x22],  // a lone continuation byte
      [0x22, 0xC3, 0x22],  // cut after its first byte
      [0x22, 0xE2, 0x82, 0x22],  // cut after two of three
      [0x22, 0xC0, 0xAF, 0x22],  // an overlong "/"
      [0x22, 0xE0, 0x80, 0xAF, 0x22],  // overlong in three
      [0x22, 0xED, 0xA0, 0x80, 0x22],  // a surrogate, encoded
      [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // past U+10FFFF
      [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], [0x22, 0xFE, 0x22], [0x22, 0xFF, 0x22],
      [0x22, 0x61, 0x5C, 0x6E, 0xC3, 0x22],  // after an escape
      Array(#""\ud800""#.utf8), Array(#""\udc00""#.utf8), Array(#""\ud800\u0041""#.utf8),  // lone surrogates
      Array(#""\x41""#.utf8), Array(#""\u12""#.utf8), Array(#""\uZZZZ""#.utf8), [0x22, 0x09, 0x22], Array(#""abc"#.utf8),
    ]
    for bytes in invalid {
      #expect(readString(bytes) == nil, "\(bytes)")
      #expect(!model(title: bytes).title, "\(bytes) as a title")
    }
  }
}

@Suite("One codec for drag payloads and --json outputs")
struct OutputCodecTests {
  @Test("A drag payload round-trips through our codec; Foundation reads the same JSON (base64 bytes, ISO dates)")
  func dragPayloadRoundTrip() throws {
    for seed in UInt64(0)..<50 {
      var random = RandomModels(seed: seed)
      let items = random.model().items
      let payload = DragPayload(
        source: "/a/b.gallery", move: seed % 2 == 0, moveToken: seed % 2 == 0 ? "0123abcd" : nil,
        items: items.enumerated().map { index, item in
          DragPayload.Entry(
            item: item, thumbnailExtension: index % 2 == 0 ? "jpg" : nil,
            thumbnail: index % 2 == 0 ? Data((0..<index).map { UInt8($0) }) : nil,
            original: index % 3 == 0 ? Data("original \(index)".utf8) : nil)
        })
      let bytes = payload.encoded()
      let back = try bytes.withUnsafeBytes { raw in
        var reader = JSONReader(raw)
        return try reader.dragPayload()
      }
      #expect(back.items.map(\.item) == items, "seed \(seed)")
      #expect(back.items.map(\.thumbnail) == payload.items.map(\.thumbnail))
      #expect(back.items.map(\.original) == payload.items.map(\.original))
      #expect(back.items.map(\.thumbnailExtension) == payload.items.map(\.thumbnailExtension))
      #expect(back.move == payload.move && back.moveToken == payload.moveToken && back.source == payload.source)
      let object = try JSONSerialization.jsonObject(with: bytes) as? [String: Any]
      #expect(object?["type"] as? String == DragPayload.mediaType)
      if let first = (object?["items"] as? [[String: Any]])?.first, let original = first["original"] as? String {
        #expect(Data(base64Encoded: original) == payload.items[0].original)
      }
    }
  }

  @Test("What is not a payload is refused with words, not a crash: missing members, trailing bytes, bad base64")
  func hostilePayloads() {
    let cases = [
      #"{"type":"application/x-gallery-items","version":1,"items":[]}"#,
      #"{"type":"application/x-gallery-items","version":1,"source":"/a","move":false,"items":[]} {}"#,
      #"{"type":"application/x-gallery-items","version":1,"source":"/a","move":false,"items":[{"item":{"id":"a1","source":"x","state":"ready","aspectRatio":1,"added":"2026-01-01T00:00:00Z"},"thumbnail":"%%%"}]}"#,
      #"{"type":"application/x-gallery-items","version":"1","source":"/a","move":false,"items":[]}"#,
    ]
    for text in cases {
      #expect(throws: DragPayload.Refusal.self, "\(text)") { try DragPayload.decode(Data(text.utf8)) }
    }
    // Nested 200,000 deep in a member it does not know, and as items: refused, the stack
    // intact (the reader bounds its depth; nothing scans the bytes first).
    let deep = String(repeating: "[", count: 200_000)
    for text in [
      #"{"type":"application/x-gallery-items","version":1,"source":"/a","move":false,"x":"# + deep,
      #"{"type":"application/x-gallery-items","version":1,"source":"/a","move":false,"items":"# + deep,
    ] {
      #expect(throws: DragPayload.Refusal.self) { try DragPayload.decode(Data(text.utf8)) }
    }
  }

  @Test("Watch events, check reports and statistics: sorted keys, absent members left out")
  func outputs() throws {
    let event = WatchEvent(event: .committed, path: "/d/a.jpg", document: "/d.gallery", id: "abc", reason: nil, time: 1.5)
    #expect(
      String(decoding: try JSONOutput.encoded(event), as: UTF8.self)
        == #"{"document":"/d.gallery","event":"committed","id":"abc","path":"/d/a.jpg","time":1.5}"#)
    let report = CheckReport(problems: ["a \"quoted\" problem"], note: nil)
    #expect(String(decoding: try JSONOutput.encoded(report), as: UTF8.self) == #"{"problems":["a \"quoted\" problem"]}"#)
    // Dates as whole-second ISO 8601, as gallery.json keeps them.
    let line = HistoryLine(
      record: JournalRecord(
        revision: 2, id: "b", parent: "a", time: Date(timeIntervalSince1970: 1_700_000_000), summary: "move: 1 item",
        change: ModelChange()),
      first: 2, stack: UndoStack())
    #expect(
      String(decoding: try JSONOutput.encoded(line), as: UTF8.self)
        == #"{"first":2,"id":"b","nextRedo":false,"nextUndo":false,"parent":"a","revision":2,"summary":"move: 1 item","time":"2023-11-14T22:13:20Z"}"#
    )
    let statistics = DocumentStatistics(
      fileBytes: 10, liveBytes: 8, deadBytes: 2, revisions: 3, tornBytes: 0, entryCount: 4, historyRevisions: 2,
      oldestRevision: 1, checkpointRevision: 2)
    let decoded = try JSONSerialization.jsonObject(with: Data(try JSONOutput.encoded(statistics))) as? [String: Int]
    #expect(
      decoded == [
        "deadBytes": 2, "entryCount": 4, "fileBytes": 10, "liveBytes": 8, "revisions": 3, "tornBytes": 0,
        "historyRevisions": 2, "oldestRevision": 1, "checkpointRevision": 2,
      ])
  }
}
