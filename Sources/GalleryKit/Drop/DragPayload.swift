import Foundation
import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem

/// What `gallery drag --type gallery` writes and `gallery drop DST -` reads: items with their
/// metadata, thumbnails and embedded originals, so a drop needs no refetch and no new
/// thumbnail. Media type `application/x-gallery-items`.
public struct DragPayload: Sendable {
  public static let mediaType = "application/x-gallery-items"

  public struct Entry: Sendable {
    public var item: Item
    public var thumbnailExtension: String?
    public var thumbnail: Data?
    public var original: Data?
  }

  public var type: String = DragPayload.mediaType
  public var version: Int = 1
  /// The document the items come from (absolute).
  public var source: String
  /// Whether the drag asked for a move. It authorises nothing by itself: see `moveToken`.
  public var move: Bool
  /// The one-time token `drag --move` recorded in the source document. Only a payload that
  /// presents it, once, takes the items out of the source, and then into its trash.
  public var moveToken: String?
  public var items: [Entry]

  /// The largest payload read from standard input or a clipboard.
  public static let sizeLimit = 256 << 20

  public static func make(from path: String, ids: [String], move: Bool) throws -> DragPayload {
    let carried = try DocumentMerge.carried(from: path, ids: ids)
    var token: String?
    if move {
      let offer = MoveOffer(token: randomToken(), ids: carried.map(\.item.id), created: .nowInWholeSeconds)
      try GalleryDocument.edit(path) { edit in
        var offers = (edit.moveOffers ?? []).filter { offer.created.timeIntervalSince($0.created) < MoveOffer.lifetime }
        offers = Array(offers.suffix(MoveOffer.maxOffers - 1)) + [offer]
        edit.moveOffers = offers
      }
      token = offer.token
    }
    return DragPayload(
      source: XDGDirectory.standardized(path), move: move,
      moveToken: token,
      items: carried.map {
        Entry(
          item: $0.item, thumbnailExtension: $0.thumbnail?.fileExtension, thumbnail: $0.thumbnail?.data, original: $0.original)
      })
  }

  static func randomToken() -> String {
    (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
  }

  public func encoded() -> Data { Data(jsonBytes + [0x0A]) }

  /// A payload that is not one: bad JSON, a wrong type, or an item that breaks the
  /// document rules.
  public struct Refusal: Error, CustomStringConvertible {
    public var description: String
  }

  /// The payload in `data`, or nil when `data` is something else (a uri-list). Every item
  /// is checked as a document's would be, its thumbnail must be a thumbnail-sized image and
  /// its original must have the hash it claims.
  public static func decode(_ data: Data) throws(Refusal) -> DragPayload? {
    guard data.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") else { return nil }
    guard data.count <= sizeLimit else { throw Refusal(description: "a gallery payload larger than \(sizeLimit >> 20) MiB") }
    let payload: DragPayload
    do {
      payload = try data.withUnsafeBytes { bytes in
        var reader = JSONReader(bytes)
        return try reader.dragPayload()
      }
    } catch {
      throw Refusal(description: "not a valid \(mediaType) payload: \(error)")
    }
    guard payload.type == mediaType, payload.version == 1 else {
      throw Refusal(description: "not a \(mediaType) payload of version 1")
    }
    var ids = Set<String>()
    for entry in payload.items {
      if let problem = ModelValidation.problems(of: entry.item).first {
        throw Refusal(description: "the payload's \(problem)")
      }
      guard ids.insert(entry.item.id).inserted else {
        throw Refusal(description: "the payload names item \(entry.item.id) twice")
      }
      if let thumbnail = entry.thumbnail {
        guard ["jpg", "webp", "png"].contains(entry.thumbnailExtension ?? "jpg") else {
          throw Refusal(description: "the payload's thumbnail of item \(entry.item.id) has an unknown extension")
        }
        if let problem = StoredImage.problem(thumbnail) {
          throw Refusal(description: "the payload's thumbnail of item \(entry.item.id): \(problem)")
        }
      } else if entry.item.state == .ready {
        throw Refusal(description: "the payload's item \(entry.item.id) is ready but carries no thumbnail")
      }
      if let original = entry.original, entry.item.originalHash != contentHash(of: original) {
        throw Refusal(description: "the payload's original of item \(entry.item.id) does not have the hash it claims")
      }
    }
    return payload
  }

  /// What dropping a payload did.
  public struct Outcome: Sendable {
    /// The items added (with their ids in the destination) or moved within it.
    public var items: [Item]
    /// For a move: how many items left the source (into its trash).
    public var movedOut = 0
    /// Why the items stayed in the source, when a move was asked for and not done.
    public var notMoved: String?
  }

  /// Drops the payload into `path`: a move into its own document reorders (moves the items
  /// to `position`); otherwise it adds them all (a copy into its own document gets new ids)
  /// and, for a move the source authorised, moves
  /// them to the source's trash only after the destination is saved, and only those the
  /// destination kept.
  public func drop(into path: String, at position: Int?) throws -> Outcome {
    let ids = items.map(\.item.id)
    // Back into its own document, a move reorders; a copy adds copies (new ids).
    if move, Self.sameFile(path, source) {
      let moved = try GalleryDocument.edit(path) { edit in
        let present = ids.filter(Set(edit.positions(of: ids).keys).contains)
        edit.move(present, to: position ?? Int.max)
        return try edit.items(present)
      }
      return Outcome(items: moved)
    }
    let carried = items.map { entry in
      DocumentMerge.Carried(
        item: entry.item,
        thumbnail: entry.thumbnail.map { Thumbnail(data: $0, fileExtension: entry.thumbnailExtension ?? "jpg") },
        original: entry.original)
    }
    let added = try GalleryDocument.edit(path) { edit in
      try DocumentMerge.addKeepingTrack(carried, to: &edit, at: position, skippingDuplicates: false)
    }
    var outcome = Outcome(items: added.map(\.item))
    guard move else { return outcome }
    guard let token = moveToken else {
      outcome.notMoved = "the payload carries no move token from its source: the items were copied"
      return outcome
    }
    let kept = Set(added.map(\.sourceID))
    do {
      outcome.movedOut = try GalleryDocument.edit(source) { edit in
        guard var offers = edit.moveOffers, let index = offers.firstIndex(where: { $0.token == token }) else { return -1 }
        let offer = offers.remove(at: index)
        edit.moveOffers = offers.isEmpty ? nil : offers
        let present = edit.positions(of: offer.ids)
        let leaving = offer.ids.filter { kept.contains($0) && present[$0] != nil }
        try edit.trash(leaving)
        return leaving.count
      }
    } catch {
      outcome.notMoved = "the items were copied but could not be taken out of \(source): \(error)"
      return outcome
    }
    if outcome.movedOut < 0 {
      outcome.movedOut = 0
      outcome.notMoved =
        "\(source) did not offer this move (already dropped, or never dragged with --move): the items were copied"
    }
    return outcome
  }

  static func sameFile(_ a: String, _ b: String) -> Bool { FileSystem.isSameFile(a, b) }
}

// MARK: - JSON

extension DragPayload: JSONWritable {
  package func write(into writer: inout JSONWriter) {
    writer.object { o in
      o.value("items") { w in
        w.array(items) { w, entry in
          w.object { e in
            e.value("item") { $0.item(entry.item) }
            e.data("original", entry.original)
            e.data("thumbnail", entry.thumbnail)
            e.string("thumbnailExtension", entry.thumbnailExtension)
          }
        }
      }
      o.bool("move", move)
      o.string("moveToken", moveToken)
      o.string("source", source)
      o.string("type", type)
      o.int("version", version)
    }
  }
}

extension JSONReader {
  mutating func dragPayload() throws -> DragPayload {
    var type: String?
    var version: Int?
    var source: String?
    var move: Bool?
    var moveToken: String?
    var items: [DragPayload.Entry] = []
    try object { r, key in
      if try r.isNull() { return }
      switch key {
      case "type": type = try r.string()
      case "version": version = try r.int()
      case "source": source = try r.string()
      case "move": move = try r.bool()
      case "moveToken": moveToken = try r.string()
      case "items": try r.array { items.append(try $0.dragEntry()) }
      default: try r.skipValue()
      }
    }
    skipSpace()
    guard index == bytes.count else { throw fail("trailing data after the payload") }
    guard let type, let version, let source, let move else { throw fail("the payload lacks type, version, source or move") }
    var payload = DragPayload(source: source, move: move, moveToken: moveToken, items: items)
    payload.type = type
    payload.version = version
    return payload
  }

  private mutating func dragEntry() throws -> DragPayload.Entry {
    var item: Item?
    var thumbnailExtension: String?
    var thumbnail: Data?
    var original: Data?
    try object { r, key in
      if try r.isNull() { return }
      switch key {
      case "item": item = try r.item()
      case "thumbnailExtension": thumbnailExtension = try r.string()
      case "thumbnail": thumbnail = try r.base64("thumbnail")
      case "original": original = try r.base64("original")
      default: try r.skipValue()
      }
    }
    guard let item else { throw fail("a payload entry lacks its item") }
    return DragPayload.Entry(item: item, thumbnailExtension: thumbnailExtension, thumbnail: thumbnail, original: original)
  }

  private mutating func base64(_ name: String) throws -> Data {
    guard let data = Data(base64Encoded: try string()) else { throw fail("\(name) is not base64") }
    return data
  }
}
