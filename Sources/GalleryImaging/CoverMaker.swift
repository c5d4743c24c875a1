import Foundation
import GalleryModel
import GallerySystem

/// Makes a document's cover: a 2x2 mosaic of its first thumbnails, grey where there are
/// fewer than four.
public enum CoverMaker {
  public static let tilesAcross = 2

  public static func cover(from thumbnails: [Data], tileSize: Int = 128, quality: Int = 80) throws -> Data {
    try mosaic(from: thumbnails, tileSize: tileSize, suffix: ".jpg[Q=\(quality),strip]")
  }

  /// The mosaic at another size, encoded as the suffix says (".png", ".jpg", ...): for
  /// file-manager thumbnailers, which ask for a size and want PNG.
  public static func mosaic(from thumbnails: [Data], tileSize: Int, suffix: String) throws -> Data {
    try VipsRuntime.start()
    let count = tilesAcross * tilesAcross
    var tiles: [VipsImageHandle] = []
    for data in thumbnails.prefix(count) {
      // A thumbnail that is not one (a damaged or hostile document) gets a grey tile: it
      // must not stop every later edit that changes the cover.
      guard StoredImage.problem(data) == nil else {
        tiles.append(try .greyTile(size: tileSize))
        continue
      }
      let decoded = try? data.withUnsafeBytes { raw in
        // Decoded now, while `raw` is still valid.
        try VipsImageHandle.squareThumbnail(of: raw, size: tileSize).inSRGB().copiedToMemory()
      }
      if let decoded {
        tiles.append(decoded)
      } else {
        _ = VipsError.take("cover tile")
        tiles.append(try .greyTile(size: tileSize))
      }
    }
    while tiles.count < count {
      tiles.append(try .greyTile(size: tileSize))
    }
    return try VipsImageHandle.grid(tiles, across: tilesAcross).encoded(as: suffix)
  }
}
