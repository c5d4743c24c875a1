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
/// (ready, pending, stale, failed), `label`, `camera`, `lens`, `taken` (a day, month or
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
        throw Failure(description: "state: is ready, pending, stale or failed, not \"\(value)\"")
      }
      if field == .taken, Self.dateRange(value) == nil {
        throw Failure(description: "taken: is a date (2024, 2024-06, 2024-06-01) or a range of them (A..B), not \"\(value)\"")
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
      let texts = [item.caption, item.note, Self.name(of: item)] + (item.tags ?? []).map { Optional($0) }
      return texts.contains { $0.map { Self.contains($0, word) } ?? false }
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
    let date = /[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?/
    guard parts.allSatisfy({ $0.wholeMatch(of: date) != nil }) else { return nil }
    return (parts[0], parts.count == 2 ? parts[1] : parts[0])
  }

  /// The file name of an item's source (its URL's last segment, decoded).
  static func name(of item: Item) -> String {
    let path = item.source.split(separator: "?").first.map(String.init) ?? item.source
    let last = path.split(separator: "/").last.map(String.init) ?? path
    return last.removingPercentEncoding ?? last
  }

  static func contains(_ text: String, _ part: String) -> Bool {
    text.range(of: part, options: [.caseInsensitive, .diacriticInsensitive]) != nil
  }

  static func same(_ a: String, _ b: String) -> Bool {
    a.compare(b, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame
  }

  static func starts(_ text: String, with prefix: String) -> Bool {
    text.range(of: prefix, options: [.caseInsensitive, .diacriticInsensitive, .anchored]) != nil
  }
}
