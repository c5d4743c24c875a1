import Foundation

/// A search over items, as `gallery find`, `show --where` and the page's search field take
/// it. Words match captions, notes, tags and file names (any case, any part); `field:value`
/// and `field>=number` ask one field; terms side by side must all match, `OR` between them
/// is either, `-` before one is not, parentheses group.
///
///     beach -sea                  both words' test: "beach", and not "sea"
///     tag:holiday rating>=4       a tag (or a tag under it: holiday/italy), four stars or five
///     (format:heif OR format:raw) state:ready
///     "old town" label:red
///
/// Fields: `tag`, `caption`, `note`, `name` (the file name), `source`, `format`, `state`
/// (ready, pending, stale, failed, note), `label`, `camera`, `lens`, `taken` (a day, month or
/// year, or `A..B`: `taken:2024-06..2024-08`), `near:LAT,LON,KM` (taken within KM
/// kilometres of a place), and `rating`, `width`, `height`, `pages` with `:`, `=`, `<`,
/// `<=`, `>`, `>=`. A query is untrusted text: its length and nesting are
/// bounded, and whatever does not parse is a `Failure` that says where.
public indirect enum ItemQuery: Equatable, Sendable {
  case word(String)
  case field(Field, String)
  case compare(Numeric, Comparison, Int)
  case near(Item.Location, kilometres: Double)
  case not(ItemQuery)
  case all([ItemQuery])
  case any([ItemQuery])

  public enum Field: String, Sendable, CaseIterable {
    case tag, caption, note, name, source, format, state, label, camera, lens, taken
  }

  public enum Numeric: String, Sendable, CaseIterable {
    case rating, width, height, pages
  }

  public enum Comparison: String, Sendable {
    case less = "<"
    case lessOrEqual = "<="
    case equal = "="
    case greaterOrEqual = ">="
    case greater = ">"
  }

  public static let maxLength = 4096
  public static let maxDepth = 32

  public struct Failure: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
  }

  // MARK: - Parsing

  public init(_ text: String) throws(Failure) {
    guard text.utf8.count <= Self.maxLength else { throw Failure(description: "the query is over \(Self.maxLength) bytes") }
    var parser = Parser(tokens: try Self.tokens(text))
    guard !parser.tokens.isEmpty else { throw Failure(description: "the query is empty") }
    self = try parser.or(depth: 0)
    if parser.position < parser.tokens.count {
      throw Failure(description: "unexpected \(parser.tokens[parser.position]) in the query")
    }
  }

  enum Token: Equatable, CustomStringConvertible {
    case text(String, quoted: Bool)
    case open, close, minus

    var description: String {
      switch self {
      case .text(let text, _): "\"\(text)\""
      case .open: "("
      case .close: ")"
      case .minus: "-"
      }
    }
  }

  static func tokens(_ text: String) throws(Failure) -> [Token] {
    var tokens: [Token] = []
    var rest = Substring(text)
    while let first = rest.first {
      if first.isWhitespace {
        rest.removeFirst()
      } else if first == "(" || first == ")" {
        tokens.append(first == "(" ? .open : .close)
        rest.removeFirst()
      } else if first == "-" {
        tokens.append(.minus)
        rest.removeFirst()
      } else if first == "\"" {
        rest.removeFirst()
        guard let end = rest.firstIndex(of: "\"") else { throw Failure(description: "a quote in the query is not closed") }
        tokens.append(.text(String(rest[..<end]), quoted: true))
        rest = rest[rest.index(after: end)...]
      } else {
        // A word, or field:value whose value may be quoted.
        var word = ""
        while let next = rest.first, !next.isWhitespace, next != "(", next != ")" {
          if next == "\"" {
            rest.removeFirst()
            guard let end = rest.firstIndex(of: "\"") else { throw Failure(description: "a quote in the query is not closed") }
            word += rest[..<end]
            rest = rest[rest.index(after: end)...]
          } else {
            word.append(next)
            rest.removeFirst()
          }
        }
        tokens.append(.text(word, quoted: false))
      }
    }
    return tokens
  }

  struct Parser {
    var tokens: [Token]
    var position = 0

    mutating func or(depth: Int) throws(Failure) -> ItemQuery {
      guard depth < ItemQuery.maxDepth else { throw Failure(description: "the query nests deeper than \(ItemQuery.maxDepth)") }
      var choices = [try and(depth: depth)]
      while position < tokens.count, tokens[position] == .text("OR", quoted: false) {
        position += 1
        choices.append(try and(depth: depth))
      }
      return choices.count == 1 ? choices[0] : .any(choices)
    }

    mutating func and(depth: Int) throws(Failure) -> ItemQuery {
      var terms: [ItemQuery] = []
      while position < tokens.count {
        switch tokens[position] {
        case .close, .text("OR", quoted: false): break
        case .text("AND", quoted: false):
          position += 1
          continue
        default:
          terms.append(try unary(depth: depth))
          continue
        }
        break
      }
      guard !terms.isEmpty else { throw Failure(description: "a term is missing in the query") }
      return terms.count == 1 ? terms[0] : .all(terms)
    }

    mutating func unary(depth: Int) throws(Failure) -> ItemQuery {
      guard depth < ItemQuery.maxDepth else { throw Failure(description: "the query nests deeper than \(ItemQuery.maxDepth)") }
      switch tokens[position] {
      case .minus:
        position += 1
        guard position < tokens.count else { throw Failure(description: "nothing follows a - in the query") }
        return .not(try unary(depth: depth + 1))
      case .open:
        position += 1
        let inner = try or(depth: depth + 1)
        guard position < tokens.count, tokens[position] == .close else {
          throw Failure(description: "a parenthesis in the query is not closed")
        }
        position += 1
        return inner
      case .close:
        throw Failure(description: "a ) in the query closes nothing")
      case .text(let text, let quoted):
        position += 1
        return quoted ? .word(text) : try ItemQuery.term(text)
      }
    }
  }

  static func term(_ text: String) throws(Failure) -> ItemQuery {
    for numeric in Numeric.allCases where text.hasPrefix(numeric.rawValue) {
      let rest = text.dropFirst(numeric.rawValue.count)
      for comparison in [Comparison.lessOrEqual, .greaterOrEqual, .less, .greater, .equal] {
        guard rest.hasPrefix(comparison.rawValue) || (comparison == .equal && rest.hasPrefix(":")) else { continue }
        let number = rest.dropFirst(comparison == .equal && rest.hasPrefix(":") ? 1 : comparison.rawValue.count)
        guard number.count <= 12, let value = Int(number) else {
          throw Failure(description: "\(numeric.rawValue) needs a whole number, not \"\(number)\"")
        }
        return .compare(numeric, comparison, value)
      }
    }
    if text.hasPrefix("near:") { return try near(String(text.dropFirst(5))) }
    if let colon = text.firstIndex(of: ":"), let field = Field(rawValue: String(text[..<colon])) {
      let value = String(text[text.index(after: colon)...])
      guard !value.isEmpty else { throw Failure(description: "\(field.rawValue): needs a value") }
      if field == .state, Item.DisplayState(rawValue: value) == nil {
        let states = Item.DisplayState.allCases.map(\.rawValue)
        throw Failure(
          description: "state: is \(states.dropLast().joined(separator: ", ")) or \(states.last!), not \"\(value)\"")
      }
      if field == .taken {
        guard let (low, high) = Self.dateRange(value) else {
          throw Failure(
            description: "taken: is a date (2024, 2024-06, 2024-06-01) or a range of them (A..B), not \"\(value)\"")
        }
        if let problem = Self.calendarProblem(low, high) { throw Failure(description: "taken:\(value): \(problem)") }
      }
      if field == .label, Item.Label(rawValue: value) == nil {
        throw Failure(
          description: "label: is \(Item.Label.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(value)\"")
      }
      return .field(field, value)
    }
    return .word(text)
  }

  // MARK: - Matching

  /// Whether `item` matches. `display` is the item's display state (it depends on whether
  /// its loader runs, which the caller knows).
  public func matches(_ item: Item, display: Item.DisplayState? = nil) -> Bool {
    switch self {
    case .word(let word):
      // The file name last: it is made from the source for each item asked.
      let written = [item.caption, item.note].compactMap { $0 } + (item.tags ?? [])
      return written.contains { Self.contains($0, word) } || Self.contains(Self.name(of: item), word)
    case .field(let field, let value):
      switch field {
      case .tag: return (item.tags ?? []).contains { Self.same($0, value) || Self.starts($0, with: value + "/") }
      case .caption: return item.caption.map { Self.contains($0, value) } ?? false
      case .note: return item.note.map { Self.contains($0, value) } ?? false
      case .name: return Self.contains(Self.name(of: item), value)
      case .source: return Self.contains(item.source, value)
      case .format: return item.format.map { Self.same($0, value) } ?? false
      case .state: return (display ?? item.displayState).rawValue == value
      case .label: return item.label?.rawValue == value
      case .camera: return item.camera.map { Self.contains($0, value) } ?? false
      case .lens: return item.lens.map { Self.contains($0, value) } ?? false
      case .taken:
        guard let taken = item.taken, let (low, high) = Self.dateRange(value) else { return false }
        let day = taken.prefix(10)
        return day >= low && day.prefix(high.count) <= high
      }
    case .compare(let numeric, let comparison, let value):
      let field: Int?
      switch numeric {
      case .rating: field = item.rating ?? 0
      case .width: field = item.width
      case .height: field = item.height
      case .pages: field = item.pages ?? 1
      }
      guard let field else { return false }
      switch comparison {
      case .less: return field < value
      case .lessOrEqual: return field <= value
      case .equal: return field == value
      case .greaterOrEqual: return field >= value
      case .greater: return field > value
      }
    case .near(let place, let kilometres):
      return item.location.map { $0.kilometres(to: place) <= kilometres } ?? false
    case .not(let query): return !query.matches(item, display: display)
    case .all(let queries): return queries.allSatisfy { $0.matches(item, display: display) }
    case .any(let queries): return queries.contains { $0.matches(item, display: display) }
    }
  }

  /// Whether an item whose stored JSON is `json` may match: false only when it surely does
  /// not, so that a search of a large gallery decodes only the items that may. It is sure
  /// only of JSON that is ASCII without an escape or a percent sign, where each string is
  /// its bytes and the file name is its source's: every text a term asks for then lies in
  /// those bytes, in some case. Anything else may match.
  package func mayMatch(json: UnsafeRawBufferPointer) -> Bool {
    // One pass without an early exit, so that the compiler can vectorize it.
    var unusual: UInt8 = 0
    for byte in json { unusual |= (byte & 0x80) | (byte == UInt8(ascii: "\\") ? 1 : 0) | (byte == UInt8(ascii: "%") ? 1 : 0) }
    return unusual != 0 || mayMatchPlain(json)
  }

  private func mayMatchPlain(_ json: UnsafeRawBufferPointer) -> Bool {
    switch self {
    case .word(let word): return ASCIIText.occurs(word, in: json)
    case .field(let field, let value):
      switch field {
      case .tag, .caption, .note, .name, .source, .format, .label, .camera, .lens: return ASCIIText.occurs(value, in: json)
      case .taken: return ASCIIText.occurs("\"taken\"", in: json)
      case .state: return true
      }
    case .near: return ASCIIText.occurs("\"location\"", in: json)
    case .compare, .not: return true
    case .all(let queries): return queries.allSatisfy { $0.mayMatchPlain(json) }
    case .any(let queries): return queries.contains { $0.mayMatchPlain(json) }
    }
  }

  /// `near:LAT,LON,KM`: degrees (south and west negative) and a radius in kilometres.
  static func near(_ value: String) throws(Failure) -> ItemQuery {
    let numbers = value.split(separator: ",", omittingEmptySubsequences: false).map { part -> Double? in
      part.count <= 24 ? Double(part.trimmingCharacters(in: .whitespaces)) : nil
    }
    guard numbers.count == 3, let latitude = numbers[0], let longitude = numbers[1], let kilometres = numbers[2],
      (-90...90).contains(latitude), (-180...180).contains(longitude), kilometres > 0, kilometres <= 20_040
    else {
      throw Failure(
        description: "near: is LATITUDE,LONGITUDE,KILOMETRES (-90 to 90, -180 to 180, over 0), not \"\(value)\"")
    }
    return .near(Item.Location(latitude: latitude, longitude: longitude), kilometres: kilometres)
  }

  /// `2024`, `2024-06`, `2024-06-01`, or `A..B` of them: the first and last day, as far as
  /// each says (a month is all its days).
  static func dateRange(_ value: String) -> (Substring, Substring)? {
    let parts = value.split(separator: "..", maxSplits: 1, omittingEmptySubsequences: false)
    // YYYY, YYYY-MM or YYYY-MM-DD, by bytes: a query may ask this of every item.
    func isDate(_ part: Substring) -> Bool {
      let bytes = Array(part.utf8)
      guard [4, 7, 10].contains(bytes.count) else { return false }
      return bytes.indices.allSatisfy { index in
        index == 4 || index == 7 ? bytes[index] == UInt8(ascii: "-") : (0x30...0x39).contains(bytes[index])
      }
    }
    guard parts.allSatisfy(isDate) else { return nil }
    return (parts[0], parts.count == 2 ? parts[1] : parts[0])
  }

  /// Why dates that have the form `dateRange` wants are still not a range of days: a month
  /// or a day the calendar does not have (2024-13, 2023-02-29), or a range that ends before
  /// it starts. Nil when they are.
  static func calendarProblem(_ low: Substring, _ high: Substring) -> String? {
    for date in [low, high] {
      let parts = date.split(separator: "-").compactMap { Int($0) }
      guard parts.count > 1 else { continue }
      guard (1...12).contains(parts[1]) else { return "there is no month \(parts[1])" }
      guard parts.count > 2 else { continue }
      let days = CivilTime.days(inMonth: Int64(parts[1]), of: Int64(parts[0]))
      guard (1...days).contains(Int64(parts[2])) else { return "\(date) is not a day of the calendar" }
    }
    // Compared as far as both go: 2024-06..2024-06-30 is a range, 2024-07..2024-06-30 not.
    let length = min(low.count, high.count)
    return low.prefix(length) > high.prefix(length) ? "the range ends before it starts" : nil
  }

  /// The file name of an item's source (its URL's last segment, decoded).
  static func name(of item: Item) -> String {
    let path = item.source.utf8.firstIndex(of: UInt8(ascii: "?")).map { item.source[..<$0] } ?? item.source[...]
    let last = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path[path.index(after: $0)...] } ?? path
    let name = last.isEmpty ? path.split(separator: "/").last ?? path : last
    // Decoded only when it has an escape: a search asks this of every item.
    guard name.utf8.contains(UInt8(ascii: "%")) else { return String(name) }
    return name.removingPercentEncoding ?? String(name)
  }

  // Any case, any accent. A search runs these over every item of a gallery: ASCII text (tags,
  // file names, most captions) is compared byte by byte, and only text beyond ASCII goes
  // to Foundation's comparison, which costs some microseconds a call.

  static func contains(_ text: String, _ part: String) -> Bool {
    if let found = ASCIIText.contains(text, part) { return found }
    return text.range(of: part, options: [.caseInsensitive, .diacriticInsensitive]) != nil
  }

  static func same(_ a: String, _ b: String) -> Bool {
    if let same = ASCIIText.equal(a, b) { return same }
    return a.compare(b, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame
  }

  static func starts(_ text: String, with prefix: String) -> Bool {
    if let starts = ASCIIText.starts(text, with: prefix) { return starts }
    return text.range(of: prefix, options: [.caseInsensitive, .diacriticInsensitive, .anchored]) != nil
  }
}

/// Comparisons of ASCII strings in any case, or nil when either string is not ASCII.
enum ASCIIText {
  static func contains(_ text: String, _ part: String) -> Bool? {
    bytes(text, part) { text, part in
      guard part.count <= text.count else { return false }
      // As Foundation's `range(of:)`, an empty part is never found.
      guard let first = part.first.map(lower) else { return false }
      var start = 0
      while start + part.count <= text.count {
        if lower(text[start]) == first, matches(text, part, at: start) { return true }
        start += 1
      }
      return false
    }
  }

  static func equal(_ a: String, _ b: String) -> Bool? {
    bytes(a, b) { a, b in a.count == b.count && matches(a, b, at: 0) }
  }

  static func starts(_ text: String, with prefix: String) -> Bool? {
    bytes(text, prefix) { text, prefix in !prefix.isEmpty && prefix.count <= text.count && matches(text, prefix, at: 0) }
  }

  /// Whether `part` occurs in `bytes` in any case; true when `part` is empty or not ASCII
  /// (bytes cannot tell then).
  static func occurs(_ part: String, in bytes: UnsafeRawBufferPointer) -> Bool {
    var part = part
    return part.withUTF8 { part in
      guard let first = part.first.map(lower), part.allSatisfy({ $0 < 0x80 }) else { return true }
      guard part.count <= bytes.count else { return false }
      let text = bytes.assumingMemoryBound(to: UInt8.self)
      let last = text.count - part.count
      // Candidates are where the first byte is, in any case (a letter's lower case is its
      // byte with 0x20 set), found 16 bytes at a time; a full comparison confirms each.
      let caseBit: UInt8 = first &- 0x61 < 26 ? 0x20 : 0
      let wanted = SIMD16<UInt8>(repeating: first)
      var start = 0
      while start + 16 <= last + 1 {
        let chunk = UnsafeRawPointer(text.baseAddress! + start).loadUnaligned(as: SIMD16<UInt8>.self)
        let hits = (chunk | SIMD16(repeating: caseBit)) .== wanted
        if any(hits) {
          for lane in 0..<16 where hits[lane] && matches(text, part, at: start + lane) { return true }
        }
        start += 16
      }
      while start <= last {
        if text[start] | caseBit == first && matches(text, part, at: start) { return true }
        start += 1
      }
      return false
    }
  }

  private static func matches(_ text: UnsafeBufferPointer<UInt8>, _ part: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
    for index in part.indices where lower(text[start + index]) != lower(part[index]) { return false }
    return true
  }

  private static func lower(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }

  /// `body` on both strings' bytes when both are ASCII; nil otherwise.
  private static func bytes(
    _ a: String, _ b: String, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool
  ) -> Bool? {
    var (a, b) = (a, b)
    return a.withUTF8 { a in
      b.withUTF8 { b in
        guard a.allSatisfy({ $0 < 0x80 }), b.allSatisfy({ $0 < 0x80 }) else { return nil }
        return body(a, b)
      }
    }
  }
}
