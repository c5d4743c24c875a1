import Foundation

/// What `gallery drag --type gallery` writes and `gallery drop DST -` reads: items with their
/// metadata, thumbnails and embedded originals, so a drop needs no refetch and no new
/// thumbnail. Media type `application/x-gallery-items`.
public struct DragPayload: Codable, Sendable {
  public static let mediaType = "application/x-gallery-items"

  public struct Entry: Codable, Sendable {
    public var item: Item
    public var thumbnailExtension: String?
    public var thumbnail: Data?
    public var original: Data?
  }

  public var type: String = DragPayload.mediaType
  public var version: Int = 1
  /// The document the items come from (absolute).
  public var source: String
  /// Remove the items from `source` once the destination has saved them.
  public var move: Bool
  public var items: [Entry]

  public static func make(from path: String, ids: [String], move: Bool) throws -> DragPayload {
    let carried = try DocumentMerge.carried(from: path, ids: ids)
    return DragPayload(
      source: URL(fileURLWithPath: DropSourceParser.absolute(path)).standardizedFileURL.path, move: move,
      items: carried.map {
        Entry(item: $0.item, thumbnailExtension: $0.thumbnail?.fileExtension, thumbnail: $0.thumbnail?.data, original: $0.original)
      })
  }

  public func encoded() throws -> Data {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(self) + Data("\n".utf8)
  }

  /// The payload in `data`, or nil when `data` is something else (a uri-list).
  public static func decode(_ data: Data) throws -> DragPayload? {
    guard data.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") else { return nil }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let payload = try decoder.decode(DragPayload.self, from: data)
    guard payload.type == mediaType, payload.version == 1 else {
      throw DocumentError.corrupt("standard input", "not a \(mediaType) payload of version 1")
    }
    return payload
  }

  /// Drops the payload into `path`: into its own document it reorders (moves the items to
  /// `position`); elsewhere it adds them (the same content only once) and, for a move,
  /// removes them from the source only after the destination is saved.
  public func drop(into path: String, at position: Int?) throws -> [Item] {
    let ids = items.map(\.item.id)
    if Self.sameFile(path, source) {
      return try GalleryDocument.edit(path) { edit in
        let present = ids.filter { id in edit.model.items.contains { $0.id == id } }
        edit.model.move(present, to: position ?? Int.max)
        return edit.model.items.filter { present.contains($0.id) }
      }
    }
    let carried = items.map { entry in
      DocumentMerge.Carried(
        item: entry.item,
        thumbnail: entry.thumbnail.map { Thumbnail(data: $0, fileExtension: entry.thumbnailExtension ?? "jpg") },
        original: entry.original)
    }
    let added = try GalleryDocument.edit(path) { edit in DocumentMerge.add(carried, to: &edit, at: position) }
    if move {
      try GalleryDocument.edit(source) { edit in
        edit.model.items.removeAll { ids.contains($0.id) }
      }
    }
    return added
  }

  static func sameFile(_ a: String, _ b: String) -> Bool {
    var first = stat()
    var second = stat()
    return stat(a, &first) == 0 && stat(b, &second) == 0 && first.st_dev == second.st_dev && first.st_ino == second.st_ino
  }
}
