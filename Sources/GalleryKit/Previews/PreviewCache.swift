import Foundation
import GalleryImaging
import GallerySystem

/// Renditions of originals larger than the document's thumbnails, made on demand so that a
/// tile is never drawn from fewer pixels than it covers (a large tile, a HiDPI screen): kept
/// under `$XDG_CACHE_HOME/gallery/previews`, bounded in size (least recently used first), one
/// file per content and size. A preview is named by its short edge, so that a panorama is
/// as sharp as a row is tall.
public struct PreviewCache: Sendable {
  /// The short edges previews are made at: the page's tiles are 60 to 480 CSS pixels tall,
  /// at device pixel ratios 1 and 2.
  public static let shortEdges = [360, 720, 1440]
  /// The longest side of any preview: a panorama's is bounded, as its tile is.
  public static let maxLongEdge = 4096
  public static let defaultLimit = 256 << 20

  public struct Preview: Sendable {
    public var data: Data
    public var mediaType: String
  }

  private let files: CacheFolder

  public init(folder: String = PreviewCache.defaultFolder, limit: Int = PreviewCache.defaultLimit) {
    files = CacheFolder(path: folder, limit: limit)
  }

  public static var defaultFolder: String { XDGDirectory.cache.path + "/gallery/previews" }

  /// The formats drawn at any size (the size they say is only nominal).
  public static let drawingFormats: Set<String> = ["svg", "pdf"]

  /// The longest side a preview of a `width` x `height` image gets at `shortEdge`: the
  /// image's own when smaller (a preview never enlarges a bitmap; a drawing is drawn at
  /// the size asked), `maxLongEdge` at most.
  public static func longEdge(width: Int, height: Int, shortEdge: Int, drawing: Bool = false) -> Int {
    let (short, long) = (max(1, min(width, height)), max(1, width, height))
    let scaled = Int((Double(long) * Double(shortEdge) / Double(short)).rounded())
    return min(drawing ? scaled : min(long, scaled), maxLongEdge)
  }

  /// The preview of the content `hash` at `shortEdge`, when one was made before.
  public func cached(hash: String, shortEdge: Int) -> Preview? {
    for (suffix, type) in [("jpg", "image/jpeg"), ("webp", "image/webp")] {
      let name = Self.name(hash: hash, shortEdge: shortEdge, suffix: suffix)
      guard let data = try? FileSystem.read(files.path + "/" + name, limit: 64 << 20, followLinks: false) else { continue }
      files.touch(name)
      return Preview(data: data, mediaType: type)
    }
    return nil
  }

  /// Makes the preview of `original` (an image of `width` x `height` as displayed, in
  /// `format`, whose content is `hash`) at `shortEdge`, and keeps it. Decoded as any dropped image is:
  /// bounded, formats libvips does not trust in the sandboxed decoder, colours converted.
  public func make(
    from original: Data, width: Int, height: Int, format: String?, hash: String, shortEdge: Int, maxPixels: Int
  ) throws -> Preview {
    let drawing = format.map(Self.drawingFormats.contains) ?? false
    let size = Self.longEdge(width: width, height: height, shortEdge: shortEdge, drawing: drawing)
    let image = try ImageProcessor.process(original, options: ImageOptions(thumbnailSize: size, maxPixels: maxPixels))
    let suffix = image.thumbnail.fileExtension
    files.store(image.thumbnail.data, as: Self.name(hash: hash, shortEdge: shortEdge, suffix: suffix))
    files.evict()
    return Preview(data: image.thumbnail.data, mediaType: suffix == "webp" ? "image/webp" : "image/jpeg")
  }

  private static func name(hash: String, shortEdge: Int, suffix: String) -> String {
    "\(hash.dropFirst("sha256:".count).prefix(64))-\(shortEdge).\(suffix)"
  }
}
