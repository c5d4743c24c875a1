import Foundation
import GallerySystem
import Synchronization

// `gallery.json` and the journal are read and written on every open and save, and hold one
// object per image: the one hot path where this hand-written codec stands in for Codable.
// `bench/json` measures both on real checkpoints; Codable reads and writes them several
// times slower, at every size. The index and the trailer, which every edit reads and
// writes too, use it as well: through Codable the trailer alone cost each edit more
// (bench/RESULTS.md, 2026-11-27). Everything else (the view's requests and answers, records
// of our own) is Codable. Tests check that this codec round-trips and that Codable reads
// what it writes (`bench/json` checks both ways too).

extension JSONEncoder {
  /// The encoder of everything written through Codable (`--json` reports, the view's
  /// answers and events, the view's instance record): keys sorted, so that one value is
  /// always the same bytes; `/` written as it is; dates in ISO 8601, as the model's codec
  /// writes them.
  package static func sorted(pretty: Bool = false) -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    if pretty { encoder.outputFormatting.insert(.prettyPrinted) }
    encoder.dateEncodingStrategy = .iso8601
    return encoder
  }
}

// MARK: - Writing

/// Appends JSON text to a byte buffer: sorted keys, no insignificant spaces. A struct passed
/// `inout` down the nesting, so one buffer is appended to and no access is checked at run
/// time.
package struct JSONWriter {
  package var bytes: [UInt8] = []

  package init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

  package mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  package mutating func string(_ value: String) {
    bytes.append(UInt8(ascii: "\""))
    var utf8 = value.utf8
    let appended: Bool? = utf8.withContiguousStorageIfAvailable { buffer in
      appendEscaped(buffer)
      return true
    }
    if appended == nil {
      utf8 = String(value).utf8
      Array(utf8).withUnsafeBufferPointer { appendEscaped($0) }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// A string given as its UTF-8 bytes.
  package mutating func string(utf8: UnsafeRawBufferPointer) {
    bytes.append(UInt8(ascii: "\""))
    appendEscaped(utf8.assumingMemoryBound(to: UInt8.self))
    bytes.append(UInt8(ascii: "\""))
  }

  /// Appends the bytes with what JSON requires escaped (a quote, a backslash, a control
  /// byte), the runs between escapes appended whole.
  private mutating func appendEscaped(_ buffer: UnsafeBufferPointer<UInt8>) {
    var start = 0
    for i in buffer.indices where Self.needsEscape(buffer[i]) {
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<i]))
      appendEscape(buffer[i])
      start = i + 1
    }
    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
  }

  private static func needsEscape(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
  }

  private mutating func appendEscape(_ byte: UInt8) {
    bytes.append(UInt8(ascii: "\\"))
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
    case 0x0A: bytes.append(UInt8(ascii: "n"))
    case 0x0D: bytes.append(UInt8(ascii: "r"))
    case 0x09: bytes.append(UInt8(ascii: "t"))
    default:
      func hex(_ digit: UInt8) -> UInt8 { digit < 10 ? 0x30 + digit : UInt8(ascii: "a") + digit - 10 }
      bytes.append(UInt8(ascii: "u"))
      bytes.append(0x30)
      bytes.append(0x30)
      bytes.append(hex(byte >> 4))
      bytes.append(hex(byte & 15))
    }
  }

  /// The decimal digits, written straight into the buffer (a model writes several numbers
  /// per item).
  package mutating func int(_ value: Int) {
    var magnitude = value.magnitude
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = 20
      repeat {
        start -= 1
        digits[start] = UInt8(truncatingIfNeeded: 0x30 + magnitude % 10)
        magnitude /= 10
      } while magnitude > 0
      if value < 0 {
        start -= 1
        digits[start] = UInt8(ascii: "-")
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
    }
  }

  package mutating func double(_ value: Double) {
    precondition(value.isFinite, "JSON has no infinities")
    if value == value.rounded(), abs(value) < 1e15 {
      int(Int(value))
    } else {
      bytes.append(contentsOf: value.description.utf8)
    }
  }

  package mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

  /// ISO 8601 in UTC, whole seconds: `2026-11-22T07:37:39Z`.
  package mutating func date(_ value: Date) {
    let time = CivilTime(secondsSince1970: Int64(value.timeIntervalSince1970.rounded(.down)))
    func digits(_ number: Int64, _ count: Int, into bytes: inout [UInt8]) {
      var divisor: Int64 = 1
      for _ in 1..<count { divisor *= 10 }
      while divisor > 0 {
        bytes.append(UInt8(48 + (number / divisor) % 10))
        divisor /= 10
      }
    }
    bytes.append(UInt8(ascii: "\""))
    digits(time.year, 4, into: &bytes)
    bytes.append(UInt8(ascii: "-"))
    digits(time.month, 2, into: &bytes)
    bytes.append(UInt8(ascii: "-"))
    digits(time.day, 2, into: &bytes)
    bytes.append(UInt8(ascii: "T"))
    digits(time.hour, 2, into: &bytes)
    bytes.append(UInt8(ascii: ":"))
    digits(time.minute, 2, into: &bytes)
    bytes.append(UInt8(ascii: ":"))
    digits(time.second, 2, into: &bytes)
    raw("Z\"")
  }

  /// Writes an object whose members `body` adds, separating them with commas. The buffer
  /// moves into the object writer and back (a swap, not a copy).
  /// Keys must come in sorted order (checked in debug builds) unless `inWrittenOrder`;
  /// `unknown` members (sorted by name) are written among them where they sort.
  package mutating func object(
    inWrittenOrder: Bool = false, unknown: [UnknownMember]? = nil, _ body: (inout ObjectWriter) -> Void
  ) {
    bytes.append(UInt8(ascii: "{"))
    var members = ObjectWriter(sorted: !inWrittenOrder, unknown: unknown ?? [])
    swap(&members.writer.bytes, &bytes)
    body(&members)
    members.writeUnknown(before: nil)
    swap(&members.writer.bytes, &bytes)
    bytes.append(UInt8(ascii: "}"))
  }

  package mutating func array<S: Sequence>(_ elements: S, _ body: (inout JSONWriter, S.Element) -> Void) {
    bytes.append(UInt8(ascii: "["))
    var first = true
    for element in elements {
      if !first { bytes.append(UInt8(ascii: ",")) }
      first = false
      body(&self, element)
    }
    bytes.append(UInt8(ascii: "]"))
  }
}

/// The members of one object being written, in sorted order of their keys (by bytes), so
/// that the same value is always the same text.
package struct ObjectWriter {
  fileprivate(set) var writer = JSONWriter(capacity: 0)
  private var first = true
  private let sorted: Bool
  private var previous: StaticString = ""
  private var unknown: ArraySlice<UnknownMember>

  fileprivate init(sorted: Bool, unknown: [UnknownMember]) {
    self.sorted = sorted
    self.unknown = unknown[...]
  }

  package mutating func key(_ name: StaticString) {
    assert(!sorted || first || Self.precedes(previous, name), "the key \(name) is out of sorted order")
    previous = name
    if !unknown.isEmpty { writeUnknown(before: name) }
    separate()
    writer.bytes.append(UInt8(ascii: "\""))
    writer.raw(name)
    // Byte by byte: appending a sequence costs a call, even of two bytes.
    writer.bytes.append(UInt8(ascii: "\""))
    writer.bytes.append(UInt8(ascii: ":"))
  }

  private mutating func separate() {
    if !first { writer.bytes.append(UInt8(ascii: ",")) }
    first = false
  }

  /// The unknown members that sort before `name` (all that are left, for nil).
  fileprivate mutating func writeUnknown(before name: StaticString?) {
    while let member = unknown.first,
      name.map({ name in name.withUTF8Buffer { member.name.utf8.lexicographicallyPrecedes($0) } }) ?? true
    {
      unknown.removeFirst()
      separate()
      writer.string(member.name)
      writer.bytes.append(UInt8(ascii: ":"))
      writer.bytes.append(contentsOf: member.json)
    }
  }

  private static func precedes(_ a: StaticString, _ b: StaticString) -> Bool {
    a.withUTF8Buffer { a in b.withUTF8Buffer { b in a.lexicographicallyPrecedes(b) } }
  }

  package mutating func string(_ name: StaticString, _ value: String?) {
    guard let value else { return }
    key(name)
    writer.string(value)
  }

  package mutating func int(_ name: StaticString, _ value: Int?) {
    guard let value else { return }
    key(name)
    writer.int(value)
  }

  package mutating func double(_ name: StaticString, _ value: Double) {
    key(name)
    writer.double(value)
  }

  package mutating func bool(_ name: StaticString, _ value: Bool) {
    key(name)
    writer.bool(value)
  }

  package mutating func date(_ name: StaticString, _ value: Date?) {
    guard let value else { return }
    key(name)
    writer.date(value)
  }

  package mutating func value(_ name: StaticString, _ body: (inout JSONWriter) -> Void) {
    key(name)
    body(&writer)
  }

  package mutating func int64(_ name: StaticString, _ value: Int64?) {
    guard let value else { return }
    key(name)
    writer.int(Int(value))
  }

  /// Bytes as a base64 string (what Foundation's `JSONEncoder` does with `Data`).
  package mutating func data(_ name: StaticString, _ value: Data?) {
    guard let value else { return }
    key(name)
    writer.string(value.base64EncodedString())
  }

  package mutating func strings(_ name: StaticString, _ values: [String]) {
    key(name)
    writer.array(values) { $0.string($1) }
  }

  package mutating func value<T: JSONWritable>(_ name: StaticString, _ value: T?) {
    guard let value else { return }
    key(name)
    value.write(into: &writer)
  }
}

/// A value written by this codec: `--json` outputs, drag payloads, events. Keys are written
/// in sorted order, dates as whole-second ISO 8601, absent optionals left out, as in
/// `gallery.json`.
package protocol JSONWritable {
  func write(into writer: inout JSONWriter)
}

extension JSONWritable {
  /// The compact JSON text of the value.
  package var jsonBytes: [UInt8] {
    var writer = JSONWriter(capacity: 1024)
    write(into: &writer)
    return writer.bytes
  }
}

extension Array: JSONWritable where Element: JSONWritable {
  package func write(into writer: inout JSONWriter) {
    writer.array(self) { $1.write(into: &$0) }
  }
}

extension Item: JSONWritable {
  package func write(into writer: inout JSONWriter) { writer.item(self) }
}

extension TrashedItem: JSONWritable {
  package func write(into writer: inout JSONWriter) {
    writer.object { t in
      t.value("item") { $0.item(item) }
      t.int("position", position)
      t.date("trashed", trashed)
    }
  }
}

extension JSONWriter {
  /// Writes the model; returns where its items lie, relative to the model's first byte.
  @discardableResult
  package mutating func model(_ model: GalleryModel) -> CheckpointOutline {
    let base = bytes.count
    var outline = CheckpointOutline(array: 0..<0)
    outline.ids.reserveCapacity(model.items.count)
    outline.starts.reserveCapacity(model.items.count)
    outline.lengths.reserveCapacity(model.items.count)
    object(unknown: model.unknown) { o in
      o.date("created", model.created)
      o.int("format", model.format)
      o.value("items") { w in
        let arrayStart = w.bytes.count
        w.array(model.items) { w, item in
          let start = w.bytes.count
          w.item(item)
          outline.ids.append(item.id)
          outline.starts.append(start)
          outline.lengths.append(w.bytes.count - start)
        }
        outline.array = arrayStart..<w.bytes.count
      }
      o.date("modified", model.modified)
      if let offers = model.moveOffers, !offers.isEmpty {
        o.value("moveOffers") { $0.moveOffers(offers) }
      }
      o.int("revision", model.revision)
      o.string("revisionId", model.revisionID)
      o.value("settings") { $0.settings(model.settings) }
      o.string("title", model.title)
      o.value("trash") { $0.array(model.trash) { $1.write(into: &$0) } }
    }
    // The object writer had the buffer meanwhile, so offsets count from the same start.
    outline.array = (outline.array.lowerBound - base)..<(outline.array.upperBound - base)
    for index in outline.starts.indices { outline.starts[index] -= base }
    return outline
  }

  package mutating func moveOffers(_ offers: [MoveOffer]) {
    array(offers) { w, offer in
      w.object { m in
        m.date("created", offer.created)
        m.value("ids") { $0.array(offer.ids) { $0.string($1) } }
        m.string("token", offer.token)
      }
    }
  }

  package mutating func settings(_ settings: GalleryModel.Settings) {
    object(unknown: settings.unknown) { s in
      s.bool("embedOriginals", settings.embedOriginals)
      s.int("historyDays", settings.historyDays)
      s.int("historyOperations", settings.historyOperations)
      s.bool("keepFailed", settings.keepFailed)
      s.int("maxPixels", settings.maxPixels)
      s.int("thumbnailSize", settings.thumbnailSize)
    }
  }

  /// An item's stored members, plus `extra` ones (sorted among them by the caller's keys).
  package mutating func item(_ item: Item, position: Int? = nil, display: String? = nil) {
    object(unknown: item.unknown) { o in
      o.date("added", item.added)
      o.double("aspectRatio", item.aspectRatio)
      o.int("bytes", item.bytes)
      o.string("camera", item.camera)
      o.string("caption", item.caption)
      o.string("display", display)
      o.string("exposure", item.exposure)
      o.string("failure", item.failure)
      o.string("format", item.format)
      o.string("hash", item.hash)
      o.int("height", item.height)
      o.string("id", item.id)
      o.string("label", item.label?.rawValue)
      o.string("lens", item.lens)
      if let location = item.location {
        o.value("location") { w in
          w.object { l in
            l.double("latitude", location.latitude)
            l.double("longitude", location.longitude)
          }
        }
      }
      o.string("note", item.note)
      o.int("orientation", item.orientation)
      o.string("original", item.original)
      o.string("page", item.page)
      o.int("pages", item.pages)
      if let placeholder = item.placeholder {
        o.value("placeholder") { w in
          w.object { p in
            p.string("from", placeholder.from)
            p.value("owner") { w in
              w.object { owner in
                owner.string("host", placeholder.owner.host)
                owner.int("pid", Int(placeholder.owner.pid))
                owner.date("started", placeholder.owner.started)
              }
            }
            p.date("since", placeholder.since)
          }
        }
      }
      o.int("position", position)
      o.int("rating", item.rating)
      o.string("source", item.source)
      o.string("state", item.state.rawValue)
      if let tags = item.tags { o.strings("tags", tags) }
      o.string("taken", item.taken)
      o.string("thumbnail", item.thumbnail)
      o.int("width", item.width)
    }
  }
}

/// A UTC date and time from seconds since 1970, in the proleptic Gregorian calendar, by
/// arithmetic (Howard Hinnant's days-to-civil): the model's codec needs no C library.
package struct CivilTime: Equatable {
  package var year, month, day, hour, minute, second: Int64

  package init(year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64) {
    (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
  }

  package init(secondsSince1970 seconds: Int64) {
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let inDay = seconds - days * 86_400
    (hour, minute, second) = (inDay / 3600, inDay % 3600 / 60, inDay % 60)
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  }

  /// Seconds since 1970 of this time (Howard Hinnant's days-from-civil).
  package var secondsSince1970: Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    return days * 86_400 + hour * 3600 + minute * 60 + second
  }

  /// Days in `month` (1 to 12) of `year`, in the proleptic Gregorian calendar.
  package static func days(inMonth month: Int64, of year: Int64) -> Int64 {
    switch month {
    case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }
}

// MARK: - Reading

/// Why `gallery.json` could not be read, with the byte offset.
package struct JSONReadError: Error, CustomStringConvertible {
  package var message: String
  package var offset: Int
  package var description: String { "\(message) at byte \(offset)" }

  package init(message: String, offset: Int) {
    self.message = message
    self.offset = offset
  }
}

/// A strict JSON reader over bytes, pulling values as the model needs them.
package struct JSONReader {
  package let bytes: UnsafeRawBufferPointer
  package var index = 0
  /// How deep `skipValue` may go into members this version does not know: a hostile
  /// document nested 300,000 arrays deep must not overflow the stack.
  package static let maxDepth = 64
  private var depth = 0

  package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  package func fail(_ message: String) -> JSONReadError { JSONReadError(message: message, offset: index) }

  package mutating func skipSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  package mutating func peek() throws -> UInt8 {
    skipSpace()
    guard index < bytes.count else { throw fail("unexpected end of JSON") }
    return bytes[index]
  }

  package mutating func expect(_ byte: UInt8) throws {
    guard try peek() == byte else { throw fail("expected '\(Character(UnicodeScalar(byte)))'") }
    index += 1
  }

  package mutating func literal(_ text: StaticString) throws {
    let count = text.utf8CodeUnitCount
    guard index + count <= bytes.count,
      memcmp(bytes.baseAddress! + index, text.utf8Start, count) == 0
    else { throw fail("expected \(text)") }
    index += count
  }

  package mutating func isNull() throws -> Bool {
    guard try peek() == UInt8(ascii: "n") else { return false }
    try literal("null")
    return true
  }

  /// Calls `member` with each key of an object; `member` must read the value.
  package mutating func object(_ member: (inout JSONReader, JSONKey) throws -> Void) throws {
    try expect(UInt8(ascii: "{"))
    if try peek() == UInt8(ascii: "}") {
      index += 1
      return
    }
    try nextMember(member)
    try remainingMembers(member)
  }

  /// The members of an object after one already read, to its `}`.
  package mutating func remainingMembers(_ member: (inout JSONReader, JSONKey) throws -> Void) throws {
    while true {
      switch try peek() {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        return
      default: throw fail("expected ',' or '}'")
      }
      try nextMember(member)
    }
  }

  @inline(__always)
  private mutating func nextMember(_ member: (inout JSONReader, JSONKey) throws -> Void) throws {
    let key = try self.key()
    try expect(UInt8(ascii: ":"))
    try member(&self, key)
  }

  package mutating func array(_ element: (inout JSONReader) throws -> Void) throws {
    try expect(UInt8(ascii: "["))
    if try peek() == UInt8(ascii: "]") {
      index += 1
      return
    }
    while true {
      try element(&self)
      switch try peek() {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        return
      default: throw fail("expected ',' or ']'")
      }
    }
  }

  /// An object key (or a date): the bytes themselves when it has no escapes (the usual
  /// case), so that matching keys and reading dates allocate nothing.
  package mutating func key() throws -> JSONKey {
    try expect(UInt8(ascii: "\""))
    let start = index
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        index += 1
        return .raw(UnsafeRawBufferPointer(rebasing: bytes[start..<index - 1]))
      }
      if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
      index += 1
    }
    index = start - 1
    return .decoded(try string())
  }

  package mutating func string() throws -> String {
    try expect(UInt8(ascii: "\""))
    let start = index
    // The common case: no escapes, so the bytes are the string; ASCII (ids, names, most
    // URLs) needs no check of its UTF-8.
    var ascii = true
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        let string = ascii ? String(decoding: text, as: UTF8.self) : try validUTF8(text)
        index += 1
        return string
      }
      if byte == UInt8(ascii: "\\") { break }
      if byte < 0x20 { throw fail("control character in string") }
      if byte >= 0x80 { ascii = false }
      index += 1
    }
    var scalars = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      switch byte {
      case UInt8(ascii: "\""):
        return try scalars.withUnsafeBytes { try validUTF8($0) }
      case UInt8(ascii: "\\"):
        guard index < bytes.count else { throw fail("unfinished escape") }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
        case UInt8(ascii: "b"): scalars.append(0x08)
        case UInt8(ascii: "f"): scalars.append(0x0C)
        case UInt8(ascii: "n"): scalars.append(0x0A)
        case UInt8(ascii: "r"): scalars.append(0x0D)
        case UInt8(ascii: "t"): scalars.append(0x09)
        case UInt8(ascii: "u"):
          var code = try hex4()
          if (0xD800..<0xDC00).contains(code) {
            try literal("\\u")
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
          }
          guard let scalar = Unicode.Scalar(code) else { throw fail("invalid \\u escape") }
          scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
        default: throw fail("invalid escape")
        }
      default:
        if byte < 0x20 { throw fail("control character in string") }
        scalars.append(byte)
      }
    }
    throw fail("unterminated string")
  }

  /// A string's bytes as text: bytes that are not UTF-8 are refused, never replaced by
  /// U+FFFD (a title or source would silently change, and `check` would pass it).
  private func validUTF8(_ text: UnsafeRawBufferPointer) throws -> String {
    guard let string = String(validating: text, as: UTF8.self) else { throw fail("a string that is not UTF-8") }
    return string
  }

  private mutating func hex4() throws -> UInt32 {
    guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      index += 1
      value <<= 4
      switch byte {
      case 0x30...0x39: value |= UInt32(byte - 0x30)
      case 0x41...0x46: value |= UInt32(byte - 0x41 + 10)
      case 0x61...0x66: value |= UInt32(byte - 0x61 + 10)
      default: throw fail("invalid hex digit")
      }
    }
    return value
  }

  private static func isNumberByte(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
      || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
  }

  /// The text of a number, read by RFC 8259's grammar: `-`, then `0` or a digit 1-9 and
  /// more digits, then `.` and at least one digit, then `e` or `E`, a sign and at least one
  /// digit. `+1`, `01`, `-01`, `2.`, `.2` and `1e` are not numbers, nor is a number followed
  /// by another number byte (`012` would be `0`, then `12`).
  private mutating func numberText() throws -> Substring {
    skipSpace()
    let start = index
    func isDigit(_ at: Int) -> Bool { at < bytes.count && (0x30...0x39).contains(bytes[at]) }
    func digits() throws {
      guard isDigit(index) else { throw fail("invalid number") }
      while isDigit(index) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
    guard isDigit(index) else { throw fail(index == start ? "expected a number" : "invalid number") }
    if bytes[index] == UInt8(ascii: "0") { index += 1 } else { try digits() }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      try digits()
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
      try digits()
    }
    guard index == bytes.count || !Self.isNumberByte(bytes[index]) else { throw fail("invalid number") }
    return Substring(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
  }

  package mutating func int() throws -> Int {
    skipSpace()
    // The common case, read from the bytes: an optional minus and at most 18 digits (no
    // overflow) that end the number.
    var end = index
    let negative = end < bytes.count && bytes[end] == UInt8(ascii: "-")
    if negative { end += 1 }
    var value = 0
    let digitsStart = end
    while end < bytes.count, end - digitsStart < 18, case let byte = bytes[end], (0x30...0x39).contains(byte) {
      value = value * 10 + Int(byte - 0x30)
      end += 1
    }
    // (A leading zero is a number only alone: `0`, never `01`.)
    if end > digitsStart, end == digitsStart + 1 || bytes[digitsStart] != UInt8(ascii: "0"),
      end == bytes.count || !Self.isNumberByte(bytes[end])
    {
      index = end
      return negative ? -value : value
    }
    let text = try numberText()
    if let value = Int(text) { return value }
    // 1.0 and 1e3 are integers too, when they are whole.
    guard let value = Double(text), value == value.rounded(), abs(value) < 9e15 else { throw fail("expected an integer") }
    return Int(value)
  }

  package mutating func double() throws -> Double {
    guard let value = Double(try numberText()), value.isFinite else { throw fail("invalid number") }
    return value
  }

  package mutating func bool() throws -> Bool {
    if try peek() == UInt8(ascii: "t") {
      try literal("true")
      return true
    }
    try literal("false")
    return false
  }

  /// `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`.
  package mutating func date() throws -> Date {
    // Read as a key is: its bytes when it has no escapes (a date written by us never has
    // any), so that 100,000 dates cost no allocation.
    switch try key() {
    case .raw(let text):
      guard let date = ISO8601.parse(text) else { throw fail("invalid date \"\(String(decoding: text, as: UTF8.self))\"") }
      return date
    case .decoded(let text):
      guard let date = ISO8601.parse(text) else { throw fail("invalid date \"\(text)\"") }
      return date
    }
  }

  /// Skips a string, accepting exactly what `string()` accepts, without building it when
  /// it has no escapes (skipping a past drop's 10,000 items makes no String).
  /// `index` is at the opening quote.
  private mutating func skipString() throws {
    let start = index
    index += 1
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        index += 1
        return
      }
      if byte == UInt8(ascii: "\\") { break }
      if byte < 0x20 { throw fail("control character in string") }
      index += 1
    }
    index = start
    _ = try string()
  }

  /// Adds the string value of every member named `id`, at any depth of the value: read as
  /// strictly as everything else, without decoding what holds them.
  package mutating func collectIDs(into ids: inout Set<String>) throws {
    depth += 1
    defer { depth -= 1 }
    guard depth <= Self.maxDepth else { throw fail("nested more than \(Self.maxDepth) levels deep") }
    switch try peek() {
    case UInt8(ascii: "{"):
      try object { reader, key in
        if case "id" = key, try reader.peek() == UInt8(ascii: "\"") {
          ids.insert(try reader.string())
        } else {
          try reader.collectIDs(into: &ids)
        }
      }
    case UInt8(ascii: "["): try array { try $0.collectIDs(into: &ids) }
    default: try skipValue()
    }
  }

  /// Skips any value (members this version does not know).
  package mutating func skipValue() throws {
    depth += 1
    defer { depth -= 1 }
    guard depth <= Self.maxDepth else { throw fail("nested more than \(Self.maxDepth) levels deep") }
    switch try peek() {
    case UInt8(ascii: "{"): try object { reader, _ in try reader.skipValue() }
    case UInt8(ascii: "["): try array { try $0.skipValue() }
    case UInt8(ascii: "\""): try skipString()
    case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
    case UInt8(ascii: "n"): try literal("null")
    default: _ = try double()
    }
  }
}

/// An object key being matched against the names the model knows.
package enum JSONKey {
  case raw(UnsafeRawBufferPointer)
  case decoded(String)

  /// Inlined: a `switch` over a dozen keys then compares each length with a constant
  /// before any byte: matching a key is the reader's most frequent step.
  @inline(__always)
  package static func ~= (pattern: StaticString, key: JSONKey) -> Bool {
    switch key {
    case .raw(let bytes):
      guard bytes.count == pattern.utf8CodeUnitCount else { return false }
      return bytes.isEmpty || memcmp(bytes.baseAddress!, pattern.utf8Start, bytes.count) == 0
    case .decoded(let text):
      return text == pattern.description
    }
  }
}

/// `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`, read from its bytes with the calendar
/// arithmetic of `CivilTime`: a model of 100,000 items reads 100,000 dates, so a date costs
/// neither an allocation nor a call into the C library.
package enum ISO8601 {
  package static func parse(_ text: String) -> Date? {
    var text = text
    return text.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
  }

  package static func parse(_ b: UnsafeRawBufferPointer) -> Date? {
    func number(_ range: Range<Int>) -> Int64? {
      guard range.upperBound <= b.count else { return nil }
      var value: Int64 = 0
      for i in range {
        guard (0x30...0x39).contains(b[i]) else { return nil }
        value = value * 10 + Int64(b[i] - 0x30)
      }
      return value
    }
    guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
      b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
      let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
      (1...9999).contains(year), (1...12).contains(month), (1...CivilTime.days(inMonth: month, of: year)).contains(day),
      hour < 24, minute < 60, second < 60
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
    var offset: Int64 = 0
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
    let time = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    // The instant must be one the writer can write back: years 1 to 9999 in UTC.
    let date = Date(timeIntervalSince1970: Double(time.secondsSince1970 - offset) + fraction)
    guard ModelValidation.Limits.dates.contains(date) else { return nil }
    return date
  }
}

extension JSONReader {
  /// A member this version does not know, read as strictly as any and kept as its text.
  package mutating func unknownMember(_ key: JSONKey, into members: inout [UnknownMember]?) throws {
    let name: String
    switch key {
    case .decoded(let text): name = text
    case .raw(let bytes):
      guard let text = String(validating: bytes, as: UTF8.self) else { throw fail("a key that is not UTF-8") }
      name = text
    }
    skipSpace()
    let start = index
    try skipValue()
    // `skipValue` reads a string's bytes without building it: they must be UTF-8 too.
    let json = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
    guard String(validating: json, as: UTF8.self) != nil else { throw fail("a string that is not UTF-8") }
    var list = members ?? []
    guard list.count < UnknownMember.limit else {
      throw fail("more than \(UnknownMember.limit) members this version does not know")
    }
    guard !list.contains(where: { $0.name == name }) else { throw fail("the member \(name) is given twice") }
    list.append(UnknownMember(name: name, json: Array(json)))
    // Sorted as the writer writes members: by their bytes.
    list.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    members = list
  }

  /// The items array, the reader at its `[`.
  package mutating func items() throws -> [Item] {
    var items: [Item] = []
    // Room for about as many items as the bytes left hold (ours take a few hundred bytes
    // each), so that 100,000 items are not moved again at every doubling.
    items.reserveCapacity((bytes.count - index) / 256)
    try array { items.append(try $0.item()) }
    return items
  }

  package mutating func model() throws -> GalleryModel {
    var format: Int?
    var title: String?
    var created: Date?
    var modified: Date?
    var revision: Int?
    var revisionID: String?
    var settings = GalleryModel.Settings()
    var items: [Item] = []
    var trash: [TrashedItem] = []
    var offers: [MoveOffer] = []
    var unknown: [UnknownMember]?
    try object { r, key in
      switch key {
      case "moveOffers": offers = try r.moveOffers()
      case "format":
        format = try r.int()
        // A newer format may have changed anything below: stop before misreading it.
        if let format, format > GalleryModel.formatVersion { throw DocumentError.unsupportedFormat(format) }
      case "title": title = try r.string()
      case "created": created = try r.date()
      case "modified": modified = try r.date()
      case "revision": revision = try r.int()
      case "revisionId": revisionID = try r.string()
      case "settings": settings = try r.settings()
      case "items":
        // A repeated member adds to the first, as it always did.
        if items.isEmpty { items = try r.items() } else { items += try r.items() }
      case "trash":
        try r.array { trash.append(try $0.trashedItem()) }
      default: try r.unknownMember(key, into: &unknown)
      }
    }
    skipSpace()
    guard index == bytes.count else { throw fail("trailing data after the model") }
    guard let format, let title, let created, let modified, let revision else {
      throw fail("the model lacks format, title, created, modified or revision")
    }
    var model = GalleryModel(title: title, now: created)
    model.format = format
    model.modified = modified
    model.revision = revision
    model.revisionID = revisionID
    model.settings = settings
    model.items = items
    model.trash = trash
    model.moveOffers = offers.isEmpty ? nil : offers
    model.unknown = unknown
    return model
  }

  package mutating func moveOffers() throws -> [MoveOffer] {
    var offers: [MoveOffer] = []
    try array { r in
      var token: String?
      var ids: [String] = []
      var created: Date?
      try r.object { r, key in
        switch key {
        case "token": token = try r.string()
        case "ids": try r.array { ids.append(try $0.string()) }
        case "created": created = try r.date()
        default: try r.skipValue()
        }
      }
      guard let token, let created else { throw r.fail("a move offer lacks token or created") }
      offers.append(MoveOffer(token: token, ids: ids, created: created))
    }
    return offers
  }

  package mutating func settings() throws -> GalleryModel.Settings {
    var settings = GalleryModel.Settings()
    try object { r, key in
      switch key {
      case "thumbnailSize": settings.thumbnailSize = try r.int()
      case "maxPixels": settings.maxPixels = try r.int()
      case "keepFailed": settings.keepFailed = try r.bool()
      case "embedOriginals": settings.embedOriginals = try r.bool()
      case "historyOperations": settings.historyOperations = try r.int()
      case "historyDays": settings.historyDays = try r.int()
      default: try r.unknownMember(key, into: &settings.unknown)
      }
    }
    return settings
  }

  package mutating func trashedItem() throws -> TrashedItem {
    var item: Item?
    var trashed: Date?
    var position: Int?
    try object { r, key in
      switch key {
      case "item": item = try r.item()
      case "trashed": trashed = try r.date()
      case "position": position = try r.int()
      default: try r.skipValue()
      }
    }
    guard let item, let trashed, let position else { throw fail("a trash entry lacks item, trashed or position") }
    return TrashedItem(item: item, trashed: trashed, position: position)
  }

  package mutating func item() throws -> Item {
    var id: String?
    var source: String?
    var state: Item.State?
    var aspectRatio: Double?
    var added: Date?
    var page: String?
    var width: Int?
    var height: Int?
    var orientation: Int?
    var format: String?
    var pages: Int?
    var bytes: Int?
    var hash: String?
    var thumbnail: String?
    var original: String?
    var placeholder: Item.Placeholder?
    var failure: String?
    var caption: String?
    var note: String?
    var tags: [String]?
    var rating: Int?
    var label: Item.Label?
    var camera: String?
    var taken: String?
    var lens: String?
    var exposure: String?
    var location: Item.Location?
    var unknown: [UnknownMember]?
    try object { r, key in
      if try r.isNull() { return }
      switch key {
      case "id": id = try r.string()
      case "source": source = try r.string()
      case "state":
        let text = try r.string()
        guard let value = Item.State(rawValue: text) else { throw r.fail("unknown item state \"\(text)\"") }
        state = value
      case "aspectRatio": aspectRatio = try r.double()
      case "added": added = try r.date()
      case "page": page = try r.string()
      case "width": width = try r.int()
      case "height": height = try r.int()
      case "orientation": orientation = try r.int()
      case "format": format = try r.string()
      case "pages": pages = try r.int()
      case "bytes": bytes = try r.int()
      case "hash": hash = try r.string()
      case "thumbnail": thumbnail = try r.string()
      case "original": original = try r.string()
      case "failure": failure = try r.string()
      case "placeholder": placeholder = try r.placeholder()
      case "caption": caption = try r.string()
      case "camera": camera = try r.string()
      case "taken": taken = try r.string()
      case "lens": lens = try r.string()
      case "exposure": exposure = try r.string()
      case "location":
        var latitude: Double?
        var longitude: Double?
        try r.object { r, key in
          switch key {
          case "latitude": latitude = try r.double()
          case "longitude": longitude = try r.double()
          default: try r.skipValue()
          }
        }
        guard let latitude, let longitude else { throw r.fail("a location lacks latitude or longitude") }
        location = Item.Location(latitude: latitude, longitude: longitude)
      case "note": note = try r.string()
      case "rating": rating = try r.int()
      case "label":
        let text = try r.string()
        guard let value = Item.Label(rawValue: text) else { throw r.fail("unknown label \"\(text)\"") }
        label = value
      case "tags":
        var list: [String] = []
        try r.array { r in
          guard list.count < ModelValidation.Limits.tags else { throw r.fail("more than \(ModelValidation.Limits.tags) tags") }
          list.append(try r.string())
        }
        tags = list
      // What `show --json` adds to each item, not stored.
      case "position", "display": try r.skipValue()
      default: try r.unknownMember(key, into: &unknown)
      }
    }
    guard let id, let source, let state, let aspectRatio, let added else {
      throw fail("an item lacks id, source, state, aspectRatio or added")
    }
    var item = Item(
      id: id, source: source, page: page, state: state, aspectRatio: aspectRatio, width: width, height: height,
      orientation: orientation, format: format, bytes: bytes, hash: hash, thumbnail: thumbnail,
      original: original, added: added, placeholder: placeholder, failure: failure, pages: pages)
    (item.caption, item.note, item.tags, item.rating, item.label) = (caption, note, tags, rating, label)
    (item.camera, item.taken, item.unknown) = (camera, taken, unknown)
    (item.lens, item.exposure, item.location) = (lens, exposure, location)
    return item
  }

  package mutating func placeholder() throws -> Item.Placeholder {
    var from: String?
    var since: Date?
    var pid: Int?
    var host: String?
    var started: Date?
    try object { r, key in
      switch key {
      case "from": from = try r.string()
      case "since": since = try r.date()
      case "owner":
        try r.object { r, key in
          switch key {
          case "pid": pid = try r.int()
          case "host": host = try r.string()
          case "started": started = try r.date()
          default: try r.skipValue()
          }
        }
      default: try r.skipValue()
      }
    }
    guard let from, let since, let pid, let host, let started, let pid32 = Int32(exactly: pid) else {
      throw fail("a placeholder lacks from, since or its owner")
    }
    return Item.Placeholder(from: from, owner: Item.Owner(pid: pid32, host: host, started: started), since: since)
  }
}

// MARK: - Listings

/// `gallery show --json`: the document's items in order, each with its stored members plus
/// its `position` and `display` state (`ready`, `pending`, `stale`, `failed`).
public enum DocumentListingJSON {
  /// The listing whole (to re-indent it for a terminal).
  public static func make(path: String, model: GalleryModel) -> [UInt8] {
    let bytes = Mutex<[UInt8]>([])
    write(path: path, model: model) { piece in bytes.withLock { $0 += piece } }
    return bytes.withLock { $0 }
  }

  /// The listing in order, in pieces: the members before the items, the items, the members
  /// after them. A long list's first half is handed over in pieces of about `pieceSize`
  /// bytes as it is written, while its second half is written at once into a buffer of its
  /// own. A listing of 100,000 items is so never whole in memory: on this kind of
  /// machine, fresh memory costs more than writing the bytes into it. `emit` is called from
  /// the thread that writes the first half, which need not be the caller's. `positions`, one
  /// per item, are the gallery's when the model's items are some of it (`show --where`); by
  /// default the items' own, from 1.
  public static func write(
    path: String, model: GalleryModel, positions: [Int]? = nil, pieceSize: Int = 1 << 20,
    emit: @Sendable ([UInt8]) -> Void
  ) {
    precondition(positions.map { $0.count == model.items.count } ?? true)
    var writer = JSONWriter(capacity: 1024)
    var itemsAt = 0
    writer.object { o in
      o.date("created", model.created)
      o.int("format", model.format)
      o.value("items") { w in
        w.bytes.append(UInt8(ascii: "["))
        itemsAt = w.bytes.count
        w.bytes.append(UInt8(ascii: "]"))
      }
      o.date("modified", model.modified)
      let (text, url) = PathBytes.forJSON(path)
      o.string("path", text)
      o.string("pathURL", url)
      o.int("revision", model.revision)
      o.string("title", model.title)
      o.int("trashed", model.trash.count)
    }
    writer.bytes.append(0x0A)
    emit(Array(writer.bytes[..<itemsAt]))
    listItems(model.items, positions: positions, pieceSize: pieceSize, emit: emit)
    emit(Array(writer.bytes[itemsAt...]))
  }

  /// The items with their positions, comma-separated, in pieces (see `write`): the same bytes
  /// however the list is split.
  static func listItems(_ items: [Item], positions: [Int]?, pieceSize: Int, emit: @Sendable ([UInt8]) -> Void) {
    func write(_ range: Range<Int>, into writer: inout JSONWriter, emittingEvery limit: Int?) {
      for index in range {
        if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
        writer.item(items[index], position: positions?[index] ?? index + 1, display: items[index].displayState.rawValue)
        if let limit, writer.bytes.count >= limit {
          emit(writer.bytes)
          writer.bytes.removeAll(keepingCapacity: true)
        }
      }
    }
    guard items.count >= ForkJoin.itemsWorthSplitting else {
      var writer = JSONWriter(capacity: min(pieceSize, items.count * 420) + 4096)
      write(items.indices, into: &writer, emittingEvery: pieceSize)
      if !writer.bytes.isEmpty { emit(writer.bytes) }
      return
    }
    let middle = items.count / 2
    var first = JSONWriter(capacity: pieceSize + 4096)
    var second = JSONWriter(capacity: (items.count - middle) * 420)
    _ = ForkJoin.both(
      { write(0..<middle, into: &first, emittingEvery: pieceSize) },
      { write(middle..<items.count, into: &second, emittingEvery: nil) })
    for piece in [first.bytes, second.bytes] where !piece.isEmpty { emit(piece) }
  }
}
