import Foundation

/// What a page asks of the server, read from its JSON body by `JSONDecoder`; every member
/// bounded. One shape for every edit: each route reads the members it needs.
package struct EditRequest: Decodable, Equatable {
  package var ids: [String] = []
  /// The item the moved or dropped items go before; nil: the end.
  package var before: String?
  /// Another document (by id): where `transfer` takes items from.
  package var from: String?
  package var move = false
  package var uris: [String] = []
  package var title: String?
  package var name: String?
  /// What the server gave for a later step (a document moved to the Trash, to put back).
  package var token: String?
  /// What a person writes about the items (`describe`): each given is set ("" or 0 clears
  /// it; a label "none"), tags added and removed.
  package var caption: String?
  package var note: String?
  package var rating: Int?
  package var label: String?
  package var addTags: [String] = []
  package var removeTags: [String] = []
  /// What `sort` orders by (`taken`, `added`, `name`, `rating`, `size`), and whether reversed.
  package var by: String?
  package var reverse = false

  package static let maxBytes = 4 << 20
  package static let maxIDs = 100_000
  package static let maxURIs = 1000
  package static let maxTags = 500

  package init() {}

  /// A request too large, or a list longer than its bound.
  package struct Refusal: Error, CustomStringConvertible {
    package var description: String
  }

  private enum CodingKeys: String, CodingKey {
    case ids, before, from, move, uris, title, name, token, caption, note, rating, label, addTags, removeTags, by, reverse
  }

  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    ids = try Self.strings(in: container, forKey: .ids, limit: Self.maxIDs)
    before = try container.decodeIfPresent(String.self, forKey: .before)
    from = try container.decodeIfPresent(String.self, forKey: .from)
    move = try container.decodeIfPresent(Bool.self, forKey: .move) ?? false
    uris = try Self.strings(in: container, forKey: .uris, limit: Self.maxURIs)
    title = try container.decodeIfPresent(String.self, forKey: .title)
    name = try container.decodeIfPresent(String.self, forKey: .name)
    token = try container.decodeIfPresent(String.self, forKey: .token)
    caption = try container.decodeIfPresent(String.self, forKey: .caption)
    note = try container.decodeIfPresent(String.self, forKey: .note)
    rating = try container.decodeIfPresent(Int.self, forKey: .rating)
    label = try container.decodeIfPresent(String.self, forKey: .label)
    addTags = try Self.strings(in: container, forKey: .addTags, limit: Self.maxTags)
    removeTags = try Self.strings(in: container, forKey: .removeTags, limit: Self.maxTags)
    by = try container.decodeIfPresent(String.self, forKey: .by)
    reverse = try container.decodeIfPresent(Bool.self, forKey: .reverse) ?? false
  }

  /// A list of strings, refused as soon as it passes `limit`.
  private static func strings(
    in container: KeyedDecodingContainer<CodingKeys>, forKey key: CodingKeys, limit: Int
  ) throws -> [String] {
    guard container.contains(key), try !container.decodeNil(forKey: key) else { return [] }
    var list = try container.nestedUnkeyedContainer(forKey: key)
    var values: [String] = []
    while !list.isAtEnd {
      guard values.count < limit else { throw Refusal(description: "more than \(limit) \(key.stringValue)") }
      values.append(try list.decode(String.self))
    }
    return values
  }

  package static func parse(_ bytes: [UInt8]) throws -> EditRequest {
    guard bytes.count <= maxBytes else { throw Refusal(description: "the request is too large") }
    return try JSONDecoder().decode(EditRequest.self, from: Data(bytes))
  }
}

extension EditRequest {
  /// The `id` of a server's answer.
  package static func parseID(_ bytes: [UInt8]) throws -> String {
    struct Answer: Decodable { var id: String }
    return try JSONDecoder().decode(Answer.self, from: Data(bytes)).id
  }
}

/// Files a page uploads in one drop, in a frame of our own that the page builds from its
/// `File`s with no library: for each file, its name's length (4 bytes, big-endian), its
/// name (UTF-8), its length (4 bytes), its bytes. Read with every count and size bounded.
package enum UploadFrames {
  package struct File: Equatable {
    package var name: String
    package var data: Data
  }

  package struct Refusal: Error, CustomStringConvertible, Equatable {
    package var description: String
  }

  package static let mediaType = "application/x-gallery-upload"
  package static let maxFiles = 1000
  package static let maxNameBytes = 4096

  /// A whole upload's files (for the tests and the fuzz target: the server streams it).
  package static func parse(_ bytes: Data, maxFileBytes: Int) throws(Refusal) -> [File] {
    var reader = Reader(maxFileBytes: maxFileBytes)
    var files = try reader.feed(bytes)
    files += try reader.finish()
    return files
  }

  /// Reads an upload as it arrives, a piece at a time: a file is handed out once its last
  /// byte came, and a length over the limit is refused as soon as it is read, so that a
  /// body is never held whole and what is too large is never received. A value: the rules
  /// are tested by feeding it pieces.
  package struct Reader {
    let maxFileBytes: Int
    private var pending: [UInt8] = []
    private var name: String?
    private var length: Int?
    private var data = Data()
    private var count = 0

    package init(maxFileBytes: Int) { self.maxFileBytes = maxFileBytes }

    /// The files this piece completes.
    package mutating func feed(_ bytes: some Collection<UInt8>) throws(Refusal) -> [File] {
      var files: [File] = []
      var rest = bytes[...]
      while !rest.isEmpty {
        if let length, let name {
          // The file's bytes, as many as this piece holds.
          let take = rest.prefix(length - data.count)
          data.append(contentsOf: take)
          rest = rest.dropFirst(take.count)
          if data.count == length {
            files.append(File(name: name, data: data))
            (self.name, self.length, data) = (nil, nil, Data())
          }
          continue
        }
        // A header: 4 bytes of length, the name, 4 bytes of length.
        let wanted = name == nil ? 4 + (pending.count >= 4 ? Self.number(pending) : 0) : 4
        let take = rest.prefix(wanted - pending.count)
        pending.append(contentsOf: take)
        rest = rest.dropFirst(take.count)
        if name == nil, pending.count == 4 {
          guard count < maxFiles else { throw Refusal(description: "more than \(maxFiles) files in one drop") }
          guard Self.number(pending) <= maxNameBytes else {
            throw Refusal(description: "a file name in the upload is too long or cut short")
          }
          if Self.number(pending) > 0 { continue }
        }
        if name == nil, pending.count == wanted {
          name = String(decoding: pending.dropFirst(4), as: UTF8.self)
          pending = []
          count += 1
        } else if let name, pending.count == 4 {
          let value = Self.number(pending)
          pending = []
          guard value <= maxFileBytes else { throw Refusal(description: "\(name) is larger than \(maxFileBytes) bytes") }
          data.reserveCapacity(value)
          length = value
          if value == 0 {
            files.append(File(name: name, data: Data()))
            (self.name, self.length) = (nil, nil)
          }
        }
      }
      return files
    }

    /// The end of the upload: nothing may be left half read.
    package func finish() throws(Refusal) -> [File] {
      guard pending.isEmpty, name == nil else {
        if let name, length != nil { throw Refusal(description: "the upload of \(name) is cut short") }
        if name != nil || pending.count < 4 { throw Refusal(description: "the upload ends inside a length") }
        throw Refusal(description: "a file name in the upload is too long or cut short")
      }
      return []
    }

    private static func number(_ bytes: [UInt8]) -> Int { bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) } }
  }
}
