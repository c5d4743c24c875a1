import CVips
import Foundation

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
        tiles.append(try VipsImageHandle.make("vips_black") { CVips_grey_tile(CInt(tileSize), $0) })
        continue
      }
      let decoded = try? data.withUnsafeBytes { raw in
        let square = try VipsImageHandle.make("vips_thumbnail_buffer") {
          CVips_square_thumbnail_buffer(raw.baseAddress, raw.count, CInt(tileSize), $0)
        }
        // Decoded now, while `raw` is still valid.
        let srgb = try VipsImageHandle.make("vips_colourspace") { CVips_srgb(square.pointer, $0) }
        return try VipsImageHandle.make("vips_image_copy_memory") { CVips_copy_memory(srgb.pointer, $0) }
      }
      if let decoded {
        tiles.append(decoded)
      } else {
        _ = VipsError.take("cover tile")
        tiles.append(try VipsImageHandle.make("vips_black") { CVips_grey_tile(CInt(tileSize), $0) })
      }
    }
    while tiles.count < count {
      tiles.append(try VipsImageHandle.make("vips_black") { CVips_grey_tile(CInt(tileSize), $0) })
    }
    var pointers: [UnsafeMutablePointer<VipsImage>?] = tiles.map { $0.pointer }
    let joined = try VipsImageHandle.make("vips_arrayjoin") {
      CVips_arrayjoin(&pointers, CInt(pointers.count), CInt(tilesAcross), $0)
    }
    let data = try joined.encode("vips_image_write_to_buffer") {
      CVips_write_to_buffer(joined.pointer, suffix, $0, $1)
    }
    withExtendedLifetime(tiles) {}
    return data
  }
}
