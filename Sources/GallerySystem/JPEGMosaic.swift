import CJPEG
import Foundation

/// Mosaics of JPEG thumbnails made with libjpeg alone (see CJPEG.h).
///
/// A save that changes a document's cover (a move to the front, a drop) would otherwise
/// load libvips, whose hundred libraries take longer to load than the rest of the save of a
/// 100,000-item document. Any input libjpeg does not read cleanly makes it return nil, and
/// the caller makes the mosaic with libvips, as before.
package enum JPEGMosaic {
  /// The mosaic, or nil when an input is not a JPEG this can read.
  package static func make(
    _ tiles: [Data], slots: Int, across: Int, tileSize: Int, quality: Int, maxSide: Int
  ) -> Data? {
    guard tiles.count <= slots,
      tiles.allSatisfy(PlainJPEG.isJPEG)
    else { return nil }
    // Pointers valid for the call: the tiles are kept alive, contiguous, by `buffers`.
    let buffers = tiles.map { [UInt8]($0) }
    var out: UnsafeMutablePointer<UInt8>?
    var size = 0
    let status = withPointers(to: buffers) { pointers in
      let sizes = buffers.map(\.count)
      return CJPEG_mosaic(
        pointers, sizes, CInt(tiles.count), CInt(slots), CInt(across), CInt(tileSize), CInt(quality), CInt(maxSide), &out,
        &size)
    }
    guard status == 0, let out else { return nil }
    defer { CJPEG_free(out) }
    return Data(bytes: out, count: size)
  }

  private static func withPointers<R>(
    to buffers: [[UInt8]], _ body: ([UnsafePointer<UInt8>?]) -> R
  ) -> R {
    var pointers: [UnsafePointer<UInt8>?] = []
    func nest(_ index: Int) -> R {
      guard index < buffers.count else { return body(pointers) }
      return buffers[index].withUnsafeBufferPointer { buffer in
        pointers.append(buffer.baseAddress)
        return nest(index + 1)
      }
    }
    return nest(0)
  }
}
