import Foundation
import GalleryImaging
import GalleryModel
import GallerySystem

/// An item's original image, read from where it can be without the network: embedded in
/// the document, or its source while that still holds the content the item was made from
/// (a local file, a download cache's copy of a web image). A document cannot make a reader
/// of it read any other file: it would have to know that file's hash already.
public enum ItemOriginal {
  /// The original outside the document: its local source file, or `cached` (a download
  /// cache's copy of its URL), each only when its content hash is the item's.
  public static func outside(
    _ item: Item, limit: Int = ImageOptions.defaultMaxFileBytes, cached: (String) -> Data? = { _ in nil }
  ) -> Data? {
    guard item.state == .ready, let hash = item.hash else { return nil }
    let data: Data?
    if let path = PathBytes.path(fromFileURL: item.source) {
      data = try? FileSystem.read(path, limit: limit, followLinks: false)
    } else {
      data = cached(item.source)
    }
    guard let data, contentHash(of: data) == hash else { return nil }
    return data
  }

  /// The original embedded in `document`, else the one `outside` finds.
  public static func read(
    _ item: Item, in document: GalleryDocument, limit: Int = ImageOptions.defaultMaxFileBytes,
    cached: (String) -> Data? = { _ in nil }
  ) -> Data? {
    if let embedded = try? document.original(of: item) { return embedded }
    return outside(item, limit: limit, cached: cached)
  }
}
