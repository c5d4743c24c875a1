import Foundation
import GallerySystem

/// The one check of a model read from outside (a document, a drag payload): every rule that
/// the rest of the program relies on, so that no command ever sees an id that is a path, a
/// number that overflows, or a date that cannot be written back.
///
/// `ModelCoding.decode` refuses a model that breaks any rule (exit status 65, naming the
/// first problem); `gallery check` lists them all.
public enum ModelValidation {
  /// Bounds on numbers and strings. Generous for real documents, small enough that no
  /// arithmetic on them overflows and no allocation from them is large.
  public enum Limits {
    /// libvips refuses images wider or taller than this (VIPS_MAX_COORD).
    public static let maxDimension = 10_000_000
    /// An aspect ratio is width / height of real dimensions, so it lies in this range.
    public static let aspectRatio: ClosedRange<Double> = (1.0 / Double(maxDimension))...Double(maxDimension)
    public static let thumbnailSize: ClosedRange<Int> = 16...2048
    public static let maxPixels: ClosedRange<Int> = 1...1_000_000_000_000
    /// Revisions and byte counts stay far from Int.max so that `+ 1` never traps.
    public static let counter: ClosedRange<Int> = 0...(1 << 53)
    /// A trash entry remembers its position among at most this many items.
    public static let position: ClosedRange<Int> = 1...Int(Int32.max)
    public static let titleBytes = 4096
    public static let urlBytes = 16 * 1024
    public static let textBytes = 4096
    public static let idBytes = 32
    public static let captionBytes = 1024
    public static let noteBytes = 64 * 1024
    public static let tags = 500
    /// An animation or a multi-page document says how many pages it has, up to this.
    public static let pages: ClosedRange<Int> = 2...1_000_000
    public static let tagBytes = 256
    /// Years that ISO 8601 with four digits can write.
    public static let dates: ClosedRange<Date> =
      Date(timeIntervalSince1970: -62_135_596_800)...Date(timeIntervalSince1970: 253_402_300_799)
  }

  /// A rule that a model breaks, naming the item (or the field) at fault.
  public struct Problem: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    package init(_ description: String) { self.description = description }
  }

  /// A model that breaks rules: all of them, the first one named in the description.
  public struct Failure: Error, CustomStringConvertible, Sendable {
    public var problems: [Problem]

    package init(problems: [Problem]) { self.problems = problems }
    public var description: String {
      (problems.first?.description ?? "invalid") + (problems.count > 1 ? " (and \(problems.count - 1) more)" : "")
    }
  }

  /// Every problem of the model, in document order; empty when it is valid.
  public static func problems(of model: GalleryModel) -> [Problem] {
    var problems: [Problem] = []
    func require(_ condition: Bool, _ message: @autoclosure () -> String) {
      if !condition { problems.append(Problem(message())) }
    }
    require(model.format >= 1 && model.format <= GalleryModel.formatVersion, "format \(model.format) is not a known version")
    require(model.title.utf8.count <= Limits.titleBytes, "the title is longer than \(Limits.titleBytes) bytes")
    require(!model.title.unicodeScalars.contains { $0.value == 0 }, "the title contains a NUL character")
    require(Limits.counter.contains(model.revision), "revision \(model.revision) is out of range")
    require(Limits.dates.contains(model.created), "the creation date is out of range")
    require(Limits.dates.contains(model.modified), "the modification date is out of range")
    let settings = model.settings
    require(
      Limits.thumbnailSize.contains(settings.thumbnailSize),
      "thumbnail size \(settings.thumbnailSize) is outside \(Limits.thumbnailSize.lowerBound)...\(Limits.thumbnailSize.upperBound)"
    )
    require(Limits.maxPixels.contains(settings.maxPixels), "the pixel limit \(settings.maxPixels) is out of range")
    require(Limits.counter.contains(settings.historyOperations), "the history's operation count is out of range")
    require((0...36500).contains(settings.historyDays), "the history's day count is out of range")
    if let revisionID = model.revisionID { require(isRevisionID(revisionID), "the revision id is not 32 hex digits") }

    var ids = Set<String>(minimumCapacity: model.items.count + model.trash.count)
    // A large list is checked on both cores first; only one that is not clean needs the
    // pass that lists its problems in document order.
    let itemsClean = model.items.count >= ForkJoin.itemsWorthSplitting && eachIsValid(model.items)
    for item in model.items {
      if !itemsClean { problems += self.problems(of: item) }
      require(ids.insert(item.id).inserted, "item id \(quoted(item.id)) is used more than once")
    }
    for trashed in model.trash {
      problems += self.problems(of: trashed.item).map { Problem("in the trash: \($0)") }
      require(ids.insert(trashed.item.id).inserted, "item id \(quoted(trashed.item.id)) is used more than once")
      require(
        Limits.position.contains(trashed.position), "trashed item \(quoted(trashed.item.id)) has position \(trashed.position)")
      require(Limits.dates.contains(trashed.trashed), "trashed item \(quoted(trashed.item.id)) has a date out of range")
    }
    let offers = model.moveOffers ?? []
    require(offers.count <= MoveOffer.maxOffers, "more than \(MoveOffer.maxOffers) move offers")
    for offer in offers {
      require(utf8(offer.token) { isHex($0, count: 32) }, "a move offer's token is not 32 hex digits")
      require(offer.ids.count <= 100_000 && offer.ids.allSatisfy(isValidID), "a move offer names an invalid id")
      require(Limits.dates.contains(offer.created), "a move offer's date is out of range")
    }
    return problems
  }

  /// Whether every item keeps every rule of `problems(of: Item)`: two halves checked at once.
  package static func eachIsValid(_ items: [Item]) -> Bool {
    let middle = items.count / 2
    let clean = ForkJoin.both(
      { items[..<middle].allSatisfy { problems(of: $0).isEmpty } },
      { items[middle...].allSatisfy { problems(of: $0).isEmpty } })
    return clean.0 && clean.1
  }

  /// The problems of the model's own fields (title, settings, dates, move offers), without
  /// its items: what a replayed journal record may have changed besides the items it
  /// carries, which it checks itself.
  public static func headProblems(of model: GalleryModel) -> [Problem] {
    var head = model
    head.items = []
    head.trash = []
    return problems(of: head)
  }

  /// The problems of one item: its id, names, numbers, strings and dates.
  public static func problems(of item: Item) -> [Problem] {
    var problems: [Problem] = []
    // Quoted only for a message: a model of 100,000 valid items makes none.
    func require(_ condition: Bool, _ message: @autoclosure () -> String) {
      if !condition { problems.append(Problem("item \(quoted(item.id)): \(message())")) }
    }
    guard isValidID(item.id) else {
      return [
        Problem("item id \(quoted(item.id)) is not a valid id (1 to \(Limits.idBytes) letters, digits, - or _, not all digits)")
      ]
    }
    if item.state == .note {
      require(item.source.isEmpty, "it is a note card with a source")
    } else {
      require(isURLText(item.source), "its source is not a URL of at most \(Limits.urlBytes) bytes without control characters")
    }
    if let page = item.page { require(isURLText(page), "its page is not a URL without control characters") }
    require(Limits.aspectRatio.contains(item.aspectRatio), "aspect ratio \(item.aspectRatio) is out of range")
    func requireDimension(_ value: Int?, _ label: String) {
      if let value { require((1...Limits.maxDimension).contains(value), "\(label) \(value) is out of range") }
    }
    requireDimension(item.width, "width")
    requireDimension(item.height, "height")
    if let orientation = item.orientation { require((1...8).contains(orientation), "orientation \(orientation) is not 1 to 8") }
    if let pages = item.pages {
      require(Limits.pages.contains(pages), "pages \(pages) is not \(Limits.pages.lowerBound) to \(Limits.pages.upperBound)")
    }
    if let bytes = item.bytes { require(Limits.counter.contains(bytes), "byte count \(bytes) is out of range") }
    if let format = item.format { require(isFormatName(format), "format \(quoted(format)) is not a format name") }
    if let hash = item.hash { require(isContentHash(hash), "hash \(quoted(hash)) is not sha256:<64 hex digits>") }
    if let thumbnail = item.thumbnail {
      require(isThumbnailEntry(thumbnail), "thumbnail entry \(quoted(thumbnail)) is not thumbnails/ID.jpg, .webp or .png")
    }
    if let original = item.original {
      require(isOriginalEntry(original), "original entry \(quoted(original)) is not originals/SHA256.EXT")
    }
    if let failure = item.failure {
      require(isText(failure, limit: Limits.textBytes), "its failure reason is too long or has NUL")
    }
    require(Limits.dates.contains(item.added), "its date added is out of range")
    if let caption = item.caption {
      require(isLine(caption, limit: Limits.captionBytes), "its caption is not one line of at most \(Limits.captionBytes) bytes")
    }
    if let note = item.note {
      require(isText(note, limit: Limits.noteBytes), "its note is over \(Limits.noteBytes) bytes or has NUL")
    }
    if let tags = item.tags {
      require(!tags.isEmpty && tags.count <= Limits.tags, "it has \(tags.count) tags (1 to \(Limits.tags) when present)")
      require(
        tags.allSatisfy(isTag), "a tag is not 1 to \(Limits.tagBytes) bytes of one line, without leading or trailing space or /")
      require(
        zip(tags, tags.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) },
        "its tags are not sorted by their UTF-8 bytes, each once")
    }
    if let rating = item.rating { require((1...5).contains(rating), "rating \(rating) is not 1 to 5") }
    if let camera = item.camera {
      require(!camera.isEmpty && isLine(camera, limit: 128), "its camera is not one line of 1 to 128 bytes")
    }
    if let taken = item.taken {
      require(isTakenTime(taken), "its time taken \(quoted(taken)) is not YYYY-MM-DDTHH:MM:SS[+HH:MM]")
    }
    func requireShortLine(_ value: String?, _ name: String) {
      if let value { require(!value.isEmpty && isLine(value, limit: 128), "its \(name) is not one line of 1 to 128 bytes") }
    }
    requireShortLine(item.lens, "lens")
    requireShortLine(item.exposure, "exposure")
    if let location = item.location {
      require(
        (-90...90).contains(location.latitude) && (-180...180).contains(location.longitude),
        "its location is not a latitude of -90 to 90 and a longitude of -180 to 180")
    }
    if let placeholder = item.placeholder {
      require(isURLText(placeholder.from), "its placeholder's origin is not a URL")
      require(isText(placeholder.owner.host, limit: 255), "its placeholder's host name is too long")
      require(Limits.dates.contains(placeholder.since), "its placeholder's date is out of range")
      require(Limits.dates.contains(placeholder.owner.started), "its placeholder's owner date is out of range")
    }
    switch item.state {
    case .ready:
      require(item.width != nil && item.height != nil, "it is ready but has no pixel size")
      require(item.hash != nil, "it is ready but has no content hash")
      require(item.thumbnail != nil, "it is ready but has no thumbnail")
    case .placeholder:
      require(item.placeholder != nil, "it is a placeholder that does not say where it loads from")
    case .failed:
      break
    case .note:
      require(!(item.note ?? "").isEmpty, "it is a note card without text")
      require(
        [item.width, item.height, item.orientation, item.pages, item.bytes].allSatisfy { $0 == nil }
          && [item.page, item.format, item.hash, item.thumbnail, item.original, item.failure].allSatisfy { $0 == nil }
          && item.placeholder == nil,
        "it is a note card with an image's members")
    }
    return problems
  }

  // MARK: - Grammars

  /// 1 to 32 of `[A-Za-z0-9_-]`, not all digits (a number is a position), not starting with
  /// `-` (an option). Ids become file names: they can hold no separator and no dot.
  public static func isValidID(_ id: String) -> Bool { utf8(id, isValidID) }

  private static func isValidID(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard (1...Limits.idBytes).contains(bytes.count), bytes.first != UInt8(ascii: "-") else { return false }
    var letter = false
    for byte in bytes {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): continue
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"), UInt8(ascii: "-"):
        letter = true
      default: return false
      }
    }
    return letter
  }

  /// 32 lower-case hex digits: a random 128-bit revision identity.
  public static func isRevisionID(_ text: String) -> Bool { utf8(text) { isHex($0, count: 32) } }

  /// `sha256:` and 64 lower-case hex digits.
  public static func isContentHash(_ text: String) -> Bool {
    utf8(text) { bytes in
      bytes.count == 71 && hasPrefix(bytes, "sha256:") && isHex(UnsafeBufferPointer(rebasing: bytes[7...]), count: 64)
    }
  }

  /// `thumbnails/ID.jpg|webp|png` with a valid id.
  public static func isThumbnailEntry(_ name: String) -> Bool {
    utf8(name) { bytes in
      guard hasPrefix(bytes, "thumbnails/"), let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot >= 11 else {
        return false
      }
      let suffix = UnsafeBufferPointer(rebasing: bytes[(dot + 1)...])
      guard equals(suffix, "jpg") || equals(suffix, "webp") || equals(suffix, "png") else { return false }
      return isValidID(UnsafeBufferPointer(rebasing: bytes[11..<dot]))
    }
  }

  /// `originals/SHA256HEX.EXT`, EXT a format name.
  public static func isOriginalEntry(_ name: String) -> Bool {
    utf8(name) { bytes in
      guard hasPrefix(bytes, "originals/"), let dot = bytes[10...].firstIndex(of: UInt8(ascii: ".")) else { return false }
      return isHex(UnsafeBufferPointer(rebasing: bytes[10..<dot]), count: 64)
        && isFormatName(UnsafeBufferPointer(rebasing: bytes[(dot + 1)...]))
    }
  }

  /// 1 to 16 lower-case letters and digits ("jpeg", "webp", "bin").
  public static func isFormatName(_ text: String) -> Bool { utf8(text, isFormatName) }

  private static func isFormatName(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    (1...16).contains(bytes.count) && bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
  }

  /// A URL as stored: bounded, and no control characters (they would forge lines in a
  /// uri-list or escape sequences on a terminal).
  package static func isURLText(_ text: String) -> Bool {
    utf8(text) { bytes in !bytes.isEmpty && bytes.count <= Limits.urlBytes && hasNoControls(bytes) }
  }

  /// One line of at most `limit` bytes, no control character (a caption).
  package static func isLine(_ text: String, limit: Int) -> Bool {
    utf8(text) { bytes in bytes.count <= limit && hasNoControls(bytes) }
  }

  /// A photo's time taken by its camera's clock, with the clock's offset when known.
  private static let takenShape = Array("0000-00-00T00:00:00".utf8)
  private static let offsetShape = Array("+00:00".utf8)

  /// `YYYY-MM-DDTHH:MM:SS`, then `+HH:MM` or `-HH:MM` or nothing. Checked by bytes, not by
  /// a regular expression: every item of a gallery of photos has one, and a `Regex` match
  /// costs tens of microseconds.
  package static func isTakenTime(_ text: String) -> Bool {
    utf8(text) { bytes in
      let shape = takenShape
      guard bytes.count == shape.count || bytes.count == shape.count + 6 else { return false }
      func fits(_ byte: UInt8, _ pattern: UInt8) -> Bool {
        pattern == UInt8(ascii: "0") ? (0x30...0x39).contains(byte) : byte == pattern
      }
      for index in shape.indices where !fits(bytes[index], shape[index]) { return false }
      guard bytes.count > shape.count else { return true }
      let offset = offsetShape
      let sign = bytes[shape.count]
      guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return false }
      return (1..<offset.count).allSatisfy { fits(bytes[shape.count + $0], offset[$0]) }
    }
  }

  /// A tag: one line, not empty, no space or `/` at either end (`a/b` is a hierarchy).
  package static func isTag(_ tag: String) -> Bool {
    guard let first = tag.first, let last = tag.last, isLine(tag, limit: Limits.tagBytes) else { return false }
    return !first.isWhitespace && !last.isWhitespace && first != "/" && last != "/"
  }

  /// A tag as an edit may add it: a tag whose parts between `/` are each not empty and have
  /// no space at either end (`a/b`, not `a//b` or `a/ b`), as photo managers keep their
  /// hierarchies. A document may hold such a tag from an older version; it stays readable
  /// and can be removed.
  package static func isNewTag(_ tag: String) -> Bool {
    isTag(tag)
      && tag.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { part in
        guard let first = part.first, let last = part.last else { return false }
        return !first.isWhitespace && !last.isWhitespace
      }
  }

  /// A tag from a photo's metadata, made one the model adds: each part trimmed, empty parts
  /// left out (`a / b` and `a//b` are `a/b`); nil when no tag is left.
  package static func newTag(from text: String) -> String? {
    let parts = text.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    let tag = parts.joined(separator: "/")
    return isNewTag(tag) ? tag : nil
  }

  /// C0 and DEL are single bytes; C1 (U+0080 to U+009F) is 0xC2 then 0x80 to 0x9F.
  private static func hasNoControls(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    for (offset, byte) in bytes.enumerated() {
      if byte < 0x20 || byte == 0x7F { return false }
      if byte == 0xC2, offset + 1 < bytes.count, (0x80...0x9F).contains(bytes[offset + 1]) { return false }
    }
    return true
  }

  /// `text` cut to at most `limit` UTF-8 bytes, between characters, an ellipsis saying so;
  /// NULs (which no text of a model holds) taken out.
  public static func cut(_ text: String, toBytes limit: Int) -> String {
    let text = text.contains("\u{0}") ? text.replacingOccurrences(of: "\u{0}", with: "") : text
    guard text.utf8.count > limit else { return text }
    var result = ""
    var bytes = 0
    for character in text {
      guard bytes + character.utf8.count <= limit - 3 else { break }
      result.append(character)
      bytes += character.utf8.count
    }
    return result + "…"
  }

  package static func isText(_ text: String, limit: Int) -> Bool {
    utf8(text) { bytes in bytes.count <= limit && !bytes.contains(0) }
  }

  /// C0, DEL and C1 controls.
  public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  /// `body` over the string's UTF-8 bytes, in place when the string is native (always, for
  /// strings read from a document), copied otherwise.
  private static func utf8(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
    if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
    return Array(text.utf8).withUnsafeBufferPointer(body)
  }

  private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
    bytes.count >= prefix.utf8CodeUnitCount
      && equals(UnsafeBufferPointer(rebasing: bytes[0..<prefix.utf8CodeUnitCount]), prefix)
  }

  private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
    bytes.count == text.utf8CodeUnitCount && bytes.elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: bytes.count))
  }

  private static func isHex(_ bytes: UnsafeBufferPointer<UInt8>, count: Int) -> Bool {
    bytes.count == count && bytes.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }

  /// An untrusted string shown in a message: quoted, cut, control characters escaped.
  package static func quoted(_ text: String) -> String {
    let cut = text.utf8.count > 64 ? String(decoding: Array(text.utf8.prefix(64)), as: UTF8.self) + "…" : text
    return "\"" + TerminalText.escaped(cut) + "\""
  }
}

/// Text from a document or another program, made safe to print on a terminal: control
/// characters (escape sequences, CR, backspace, NUL...) are written as `\xHH` or `\u{HHHH}`
/// so that a title cannot clear the screen or forge lines. JSON output is exact instead.
public enum TerminalText {
  /// With `keepingLayout`, newlines and tabs stay (for text the program itself laid out).
  /// A file name's bytes that are not UTF-8 show as `\xE9` (see `PathBytes`).
  public static func escaped(_ text: String, keepingLayout: Bool = false) -> String {
    func kept(_ scalar: Unicode.Scalar) -> Bool { keepingLayout && (scalar == "\n" || scalar == "\t") }
    let text = PathBytes.displayed(text)
    guard text.unicodeScalars.contains(where: { ModelValidation.isControl($0) && !kept($0) }) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      if kept(scalar) {
        result.unicodeScalars.append(scalar)
      } else if scalar.value < 0x80 && ModelValidation.isControl(scalar) {
        result += scalar == "\t" ? "\\t" : scalar == "\n" ? "\\n" : scalar == "\r" ? "\\r" : "\\x" + hex(scalar.value, digits: 2)
      } else if ModelValidation.isControl(scalar) {
        result += "\\u{" + hex(scalar.value, digits: 4) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  private static func hex(_ value: UInt32, digits: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
  }
}

/// The folders of a document's entries that the model names (`thumbnail`, `original`).
package enum EntryName {
  package static let thumbnailFolder = "thumbnails/"
  package static let originalsFolder = "originals/"
}
