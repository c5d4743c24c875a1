import Foundation

/// One save in the document's history: stored as `journal/REVISION.json`, it holds what the
/// save changed (enough to replay it and to take it back), when, and what made it.
public struct JournalRecord: Sendable, Equatable {
  public var revision: Int
  /// Unique across machines (32 hex digits), so copies of a document can find the
  /// revisions they share.
  public var id: String
  /// The id of the revision this one was made on.
  public var parent: String?
  public var time: Date
  /// What made it: `drop: 3 images`, `move: 2 items`, `undo of r42`.
  public var summary: String
  /// The revision this one takes back (an undo), or brings back (a redo).
  public var undoing: Int?
  public var redoing: Int?
  /// The first revision of the operation this one finishes (a drop's commit continues its
  /// placeholder save): undo and redo take the operation as one.
  public var continues: Int?
  public var change: ModelChange

  public init(
    revision: Int, id: String, parent: String?, time: Date, summary: String, undoing: Int? = nil,
    redoing: Int? = nil, continues: Int? = nil, change: ModelChange
  ) {
    self.revision = revision
    self.id = id
    self.parent = parent
    self.time = time
    self.summary = summary
    self.undoing = undoing
    self.redoing = redoing
    self.continues = continues
    self.change = change
  }

  public static let summaryBytes = 512

  /// A fresh random revision identity.
  public static func newID() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<2).map { _ in
      let text = String(generator.next() as UInt64, radix: 16)
      return String(repeating: "0", count: 16 - text.count) + text
    }.joined()
  }

  /// The record's own rules (the items it carries are checked like a model's); the model
  /// it leaves is validated as a whole after the journal is replayed.
  public var problems: [ModelValidation.Problem] {
    var problems: [ModelValidation.Problem] = []
    func require(_ condition: Bool, _ message: @autoclosure () -> String) {
      if !condition { problems.append(.init("journal r\(revision): \(message())")) }
    }
    require(ModelValidation.Limits.counter.contains(revision), "the revision is out of range")
    require(ModelValidation.isRevisionID(id), "its id is not 32 hex digits")
    if let parent { require(ModelValidation.isRevisionID(parent), "its parent is not 32 hex digits") }
    require(ModelValidation.Limits.dates.contains(time), "its time is out of range")
    require(ModelValidation.isText(summary, limit: Self.summaryBytes), "its summary is too long or has NUL")
    for revision in [undoing, redoing, continues].compactMap({ $0 }) {
      require(ModelValidation.Limits.counter.contains(revision), "it names revision \(revision)")
    }
    change.forEachCarriedItem { problems += ModelValidation.problems(of: $0) }
    if let head = change.head {
      // The document's own fields, before and after, by the model's rules.
      for fields in [head.before, head.after] {
        var probe = GalleryModel(title: fields.title, now: time)
        probe.settings = fields.settings
        probe.moveOffers = fields.moveOffers
        problems += ModelValidation.headProblems(of: probe).map { .init("journal r\(revision): \($0)") }
      }
    }
    for entry in change.trash.inserted.map(\.element) + change.trash.removed.map(\.element) {
      require(ModelValidation.Limits.position.contains(entry.position), "a trash position is out of range")
      require(ModelValidation.Limits.dates.contains(entry.trashed), "a trash date is out of range")
    }
    return problems
  }
}

extension JournalRecord {
  /// A summary cut to `summaryBytes`, between characters.
  public static func cut(_ summary: String) -> String { ModelValidation.cut(summary, toBytes: summaryBytes) }

  /// "1 item", "3 items".
  public static func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
  }

  /// What a change did, in words, when the edit did not say.
  public static func describe(_ change: ModelChange) -> String {
    let intoTrash = Set(change.trash.inserted.map(\.element.key))
    let outOfTrash = Set(change.trash.removed.map(\.element.key))
    let intoItems = Set(change.items.inserted.map(\.element.key))
    let outOfItems = Set(change.items.removed.map(\.element.key))
    var parts: [String] = []
    func part(_ count: Int, _ what: String) {
      if count > 0 { parts.append("\(what) \(count) item\(count == 1 ? "" : "s")") }
    }
    part(intoItems.subtracting(outOfTrash).count, "added")
    part(change.items.moved.count, "moved")
    part(intoTrash.intersection(outOfItems).count, "trashed")
    part(outOfTrash.intersection(intoItems).count, "restored")
    part(outOfTrash.subtracting(intoItems).count, "emptied from the trash")
    part(outOfItems.subtracting(intoTrash).count, "removed")
    part(change.items.updated.count, "updated")
    if let head = change.head {
      if head.before.title != head.after.title { parts.append("title") }
      if head.before.settings != head.after.settings { parts.append("settings") }
      if head.before.moveOffers != head.after.moveOffers { parts.append("move offers") }
    }
    return parts.isEmpty ? "no change" : parts.joined(separator: ", ")
  }
}

// MARK: - JSON

extension JSONWriter {
  package mutating func journalRecord(_ record: JournalRecord) {
    // Its place first and its change last, not in sorted order: a reader finds what the
    // record is (its place in the history, what made it) without reading its change,
    // which for a drop holds thousands of items.
    object(inWrittenOrder: true) { o in
      o.int("format", GalleryModel.formatVersion)
      o.int("revision", record.revision)
      o.string("id", record.id)
      o.string("parent", record.parent)
      o.date("time", record.time)
      o.string("summary", record.summary)
      o.int("undoing", record.undoing)
      o.int("redoing", record.redoing)
      o.int("continues", record.continues)
      o.value("change") { $0.change(record.change) }
    }
  }

  package mutating func change(_ change: ModelChange) {
    object { o in
      if let head = change.head {
        o.value("head") { w in
          w.object { h in
            h.value("after") { $0.head(head.after) }
            h.value("before") { $0.head(head.before) }
          }
        }
      }
      if !change.items.isEmpty { o.value("items") { $0.listChange(change.items) { $0.item($1) } } }
      if !change.trash.isEmpty { o.value("trash") { $0.listChange(change.trash) { $1.write(into: &$0) } } }
    }
  }

  mutating func head(_ head: Head) {
    object { h in
      if let offers = head.moveOffers, !offers.isEmpty { h.value("moveOffers") { $0.moveOffers(offers) } }
      h.value("settings") { $0.settings(head.settings) }
      h.string("title", head.title)
    }
  }

  mutating func placed<E>(_ list: [ListChange<E>.Placed], _ element: (inout JSONWriter, E) -> Void) {
    array(list) { w, placed in
      w.object { p in
        p.int("at", placed.index)
        p.value("element") { element(&$0, placed.element) }
      }
    }
  }

  mutating func listChange<E>(_ change: ListChange<E>, _ element: (inout JSONWriter, E) -> Void) {
    object { o in
      if !change.inserted.isEmpty { o.value("inserted") { $0.placed(change.inserted, element) } }
      if !change.moved.isEmpty {
        o.value("moved") {
          $0.array(change.moved) { w, move in
            w.object { m in
              m.int("from", move.from)
              m.string("id", move.key)
              m.int("to", move.to)
            }
          }
        }
      }
      if !change.removed.isEmpty { o.value("removed") { $0.placed(change.removed, element) } }
      if !change.updated.isEmpty {
        o.value("updated") {
          $0.array(change.updated) { w, update in
            w.object { u in
              u.value("after") { element(&$0, update.after) }
              u.value("before") { element(&$0, update.before) }
              u.int("from", update.from)
              u.int("to", update.to)
            }
          }
        }
      }
    }
  }
}

extension JSONReader {
  /// How much of a record to read: a record written by this version ends with its change,
  /// so that its place and its other members are read without it.
  package enum JournalRecordPart {
    case place, withoutChange, whole
  }

  /// A record, its change left empty unless `part` is `whole`. A record whose revision and
  /// id come before its change (as this version writes it) must end with its change, and
  /// no member may be given twice: what is read without the change is what the whole
  /// record says.
  package mutating func journalRecord(reading part: JournalRecordPart = .whole) throws -> JournalRecord {
    var revision: Int?
    var id: String?
    var parent: String?
    var time: Date?
    var summary: String?
    var undoing: Int?
    var redoing: Int?
    var continues: Int?
    var change = ModelChange()
    var seen = Set<String>()
    var changeEnds = false
    try expect(UInt8(ascii: "{"))
    var more = try peek() != UInt8(ascii: "}")
    while more {
      let key = try self.key()
      let name: String
      switch key {
      case .raw(let bytes): name = String(decoding: bytes, as: UTF8.self)
      case .decoded(let text): name = text
      }
      guard seen.insert(name).inserted else { throw fail("a journal record gives \(name) twice") }
      guard !changeEnds else { throw fail("a journal record has members after its change") }
      try expect(UInt8(ascii: ":"))
      switch name {
      case "format":
        let format = try int()
        if format > GalleryModel.formatVersion { throw DocumentError.unsupportedFormat(format) }
      case "revision": revision = try int()
      case "id": id = try string()
      case "parent": parent = try string()
      case "time": time = try date()
      case "summary": summary = try string()
      case "undoing": undoing = try int()
      case "redoing": redoing = try int()
      case "continues": continues = try int()
      case "change":
        changeEnds = revision != nil && id != nil
        if changeEnds && part != .whole { break }
        if part == .whole { change = try self.change() } else { try skipValue() }
      default: try skipValue()
      }
      if changeEnds && part != .whole { break }
      switch try peek() {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"): more = false
      default: throw fail("expected ',' or '}'")
      }
    }
    if !changeEnds || part == .whole {
      try expect(UInt8(ascii: "}"))
      skipSpace()
      guard index == bytes.count else { throw fail("trailing data after the journal record") }
    }
    guard let revision, let id else { throw fail("a journal record lacks its revision or id") }
    guard let time, let summary else {
      guard part == .place else { throw fail("a journal record lacks its time or summary") }
      return JournalRecord(
        revision: revision, id: id, parent: parent, time: .distantPast, summary: "", change: change)
    }
    return JournalRecord(
      revision: revision, id: id, parent: parent, time: time, summary: summary, undoing: undoing,
      redoing: redoing, continues: continues, change: change)
  }

  mutating func change() throws -> ModelChange {
    var change = ModelChange()
    try object { r, key in
      switch key {
      case "items": change.items = try r.listChange { try $0.item() }
      case "trash": change.trash = try r.listChange { try $0.trashedItem() }
      case "head":
        var before: Head?
        var after: Head?
        try r.object { r, key in
          switch key {
          case "before": before = try r.head()
          case "after": after = try r.head()
          default: try r.skipValue()
          }
        }
        guard let before, let after else { throw r.fail("a head change lacks before or after") }
        change.head = HeadChange(before: before, after: after)
      default: try r.skipValue()
      }
    }
    return change
  }

  mutating func head() throws -> Head {
    var title: String?
    var settings = GalleryModel.Settings()
    var offers: [MoveOffer] = []
    try object { r, key in
      switch key {
      case "title": title = try r.string()
      case "settings": settings = try r.settings()
      case "moveOffers": offers = try r.moveOffers()
      default: try r.skipValue()
      }
    }
    guard let title else { throw fail("a head lacks its title") }
    return Head(title: title, settings: settings, moveOffers: offers.isEmpty ? nil : offers)
  }

  mutating func listChange<E>(_ element: (inout JSONReader) throws -> E) throws -> ListChange<E> {
    var change = ListChange<E>()
    func placed(_ r: inout JSONReader) throws -> ListChange<E>.Placed {
      var at: Int?
      var value: E?
      try r.object { r, key in
        switch key {
        case "at": at = try r.int()
        case "element": value = try element(&r)
        default: try r.skipValue()
        }
      }
      guard let at, let value else { throw r.fail("a list change lacks at or element") }
      return .init(index: at, element: value)
    }
    try object { r, key in
      switch key {
      case "inserted": try r.array { change.inserted.append(try placed(&$0)) }
      case "removed": try r.array { change.removed.append(try placed(&$0)) }
      case "moved":
        try r.array { r in
          var id: String?
          var from: Int?
          var to: Int?
          try r.object { r, key in
            switch key {
            case "id": id = try r.string()
            case "from": from = try r.int()
            case "to": to = try r.int()
            default: try r.skipValue()
            }
          }
          guard let id, let from, let to else { throw r.fail("a move lacks id, from or to") }
          change.moved.append(.init(key: id, from: from, to: to))
        }
      case "updated":
        try r.array { r in
          var before: E?
          var after: E?
          var from: Int?
          var to: Int?
          try r.object { r, key in
            switch key {
            case "before": before = try element(&r)
            case "after": after = try element(&r)
            case "from": from = try r.int()
            case "to": to = try r.int()
            default: try r.skipValue()
            }
          }
          guard let before, let after, let from, let to, before.key == after.key else {
            throw r.fail("an update lacks before, after, from or to, or changes the id")
          }
          change.updated.append(.init(from: from, to: to, before: before, after: after))
        }
      default: try r.skipValue()
      }
    }
    // Replay walks these in order: out of order is a hostile record, not a reason to trap.
    func ascending(_ values: [Int]) -> Bool { zip(values, values.dropFirst()).allSatisfy { $0 < $1 } }
    guard ascending(change.removed.map(\.index)), ascending(change.inserted.map(\.index)),
      ascending(change.moved.map(\.to)), ascending(change.updated.map(\.to))
    else { throw fail("a list change is not in ascending order") }
    return change
  }
}

/// One encoding of journal records, like `ModelCoding` for the model.
public enum JournalCoding {
  public static func encode(_ record: JournalRecord) -> Data {
    var writer = JSONWriter(capacity: 1024)
    writer.journalRecord(record)
    return Data(writer.bytes)
  }

  public static func decode(_ data: Data) throws -> JournalRecord {
    let record = try data.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      return try reader.journalRecord()
    }
    let problems = record.problems
    guard problems.isEmpty else { throw ModelValidation.Failure(problems: problems) }
    return record
  }

  /// A record without its change (left empty), for listing the history: what made each
  /// revision and when, without decoding the 10,000 items a drop inserted. Its own fields
  /// are checked as `decode` checks them.
  public static func decodeWithoutChange(_ data: Data) throws -> JournalRecord {
    let record = try data.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      return try reader.journalRecord(reading: .withoutChange)
    }
    let problems = record.problems
    guard problems.isEmpty else { throw ModelValidation.Failure(problems: problems) }
    return record
  }

  /// What a record says of its place in the history (its revision and the ids that chain it
  /// to the one before), read without decoding its change: a document opens knowing which
  /// records are its history, and decodes and checks one whole only when it is needed.
  /// Whatever `decode` would refuse is refused then.
  public static func decodePlace(_ data: Data) throws -> JournalRecord.Place {
    try data.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      return try reader.journalRecord(reading: .place).place
    }
  }
}

extension JournalCoding {
  /// Every id a record names, read without decoding it: a superset of its change's `keys`
  /// (its items', moved and updated ids; also its own revision id). A record that does not
  /// decode gives what was read of it before the fault: it can bring nothing back.
  public static func namedIDs(_ data: Data) -> Set<String> {
    var ids = Set<String>()
    data.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      try? reader.collectIDs(into: &ids)
    }
    return ids
  }
}

extension JournalRecord {
  /// A record's revision, its id and its parent's.
  public struct Place: Sendable, Equatable {
    public var revision: Int
    public var id: String
    public var parent: String?

    public init(revision: Int, id: String, parent: String?) {
      self.revision = revision
      self.id = id
      self.parent = parent
    }
  }

  public var place: Place { Place(revision: revision, id: id, parent: parent) }
}
