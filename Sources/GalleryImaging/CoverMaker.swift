import Foundation
import GalleryModel
import GallerySystem
import Synchronization

/// Makes a document's cover: a 2x2 mosaic of its first thumbnails, grey where there are
/// fewer than four.
public enum CoverMaker {
  public static let tilesAcross = 2

  public static func cover(from thumbnails: [Data], tileSize: Int = 128, quality: Int = 80) throws -> Data {
    let suffix = ".jpg[Q=\(quality),strip]"
    let inputs = Array(thumbnails.prefix(tilesAcross * tilesAcross))
    if let prepared = prepared.withLock({
      $0?.inputs == inputs && $0?.tileSize == tileSize && $0?.suffix == suffix ? $0?.cover : nil
    }) {
      return prepared
    }
    return try mosaic(from: inputs, tileSize: tileSize, suffix: suffix)
  }

  /// Makes the cover of these thumbnails ahead of the save that will need it (a drop does,
  /// while its last images load, so that its commit does not): `cover(from:)` returns it when
  /// asked for exactly these bytes. One is kept, the last prepared.
  public static func prepare(from thumbnails: [Data], tileSize: Int = 128, quality: Int = 80) {
    let suffix = ".jpg[Q=\(quality),strip]"
    let inputs = Array(thumbnails.prefix(tilesAcross * tilesAcross))
    guard let cover = try? mosaic(from: inputs, tileSize: tileSize, suffix: suffix) else { return }
    prepared.withLock { $0 = Prepared(inputs: inputs, tileSize: tileSize, suffix: suffix, cover: cover) }
  }

  private struct Prepared {
    var inputs: [Data]
    var tileSize: Int
    var suffix: String
    var cover: Data
  }
  private static let prepared = Mutex<Prepared?>(nil)

  /// The mosaic at another size, encoded as the suffix says (".png", ".jpg", ...): for
  /// file-manager thumbnailers, which ask for a size and want PNG.
  public static func mosaic(from thumbnails: [Data], tileSize: Int, suffix: String) throws -> Data {
    let count = tilesAcross * tilesAcross
    if let quality = jpegQuality(suffix),
      let mosaic = JPEGMosaic.make(
        Array(thumbnails.prefix(count)), slots: count, across: tilesAcross, tileSize: tileSize, quality: quality,
        maxSide: ModelValidation.Limits.thumbnailSize.upperBound)
    {
      return mosaic
    }
    try VipsRuntime.start()
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

  /// The quality of a plain JPEG suffix, `.jpg[Q=80,strip]`: the mosaics libjpeg can make
  /// alone.
  private static func jpegQuality(_ suffix: String) -> Int? {
    guard suffix.hasPrefix(".jpg[Q="), suffix.hasSuffix(",strip]") else { return nil }
    let quality = Int(suffix.dropFirst(7).dropLast(7))
    return quality.flatMap { (1...100).contains($0) ? $0 : nil }
  }
}
