import CJPEG
import Foundation

/// JPEGs read and thumbnailed with libjpeg alone (see CJPEG.h). Most dropped images are
/// plain JPEGs (8-bit YCbCr or grey, no ICC profile but sRGB): for them a drop need not load libvips
/// and its hundred libraries (time every drop process paid before its first thumbnail),
/// and their thumbnails skip libvips' pipeline. Anything else, and any JPEG
/// libjpeg does not read cleanly, is left to libvips as before.
package enum PlainJPEG {
  package struct Header: Sendable, Equatable {
    package var width: Int
    package var height: Int
    /// EXIF orientation, 1 to 8.
    package var orientation: Int
    package var components: Int
    package var progressive: Bool
    /// Whether `thumbnail` makes this image's thumbnail.
    package var plain: Bool

    /// Bytes a decode takes when the image cannot stream (0 when it can), counted as
    /// libvips counts them: a progressive JPEG keeps its coefficients, 2 bytes each.
    package var fullDecodeBytes: Int { progressive ? width * height * components * 2 : 0 }
  }

  /// A thumbnail and its size as displayed.
  package struct Thumbnail: Sendable {
    package var data: Data
    package var width: Int
    package var height: Int
  }

  /// The most scans a JPEG may have (see `checkScans`).
  package static let maxScans = 500

  /// A JPEG with more than `maxScans` scans: refused before any decoder sees it.
  package struct TooManyScans: Error, CustomStringConvertible {
    package var description: String {
      "it has more than \(PlainJPEG.maxScans) scans (a progressive JPEG made to take minutes to decode)"
    }
  }

  /// Whether the bytes start as a JPEG does: libvips' own test for its JPEG loader.
  package static func isJPEG(_ data: Data) -> Bool { data.starts(with: [0xFF, 0xD8, 0xFF]) }

  /// The header, or nil when the bytes are not a JPEG libjpeg reads cleanly up to its image
  /// data (a header past a prefix is nil too).
  package static func header(of data: Data) -> Header? {
    guard isJPEG(data) else { return nil }
    var header = CJPEG_header()
    let status = data.withUnsafeBytes { raw in
      CJPEG_read_header(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &header)
    }
    guard status == 0 else { return nil }
    return Header(
      width: Int(header.width), height: Int(header.height), orientation: Int(header.orientation),
      components: Int(header.components), progressive: header.progressive != 0, plain: header.plain != 0)
  }

  /// Refuses a JPEG whose markers announce more than `maxScans` scans, counted without
  /// decoding (a pass over the markers only). Decoders pass over the whole image once per
  /// scan, libvips' as well as ours.
  package static func checkScans(_ data: Data) throws(TooManyScans) {
    guard isJPEG(data) else { return }
    let scans = data.withUnsafeBytes { raw in
      CJPEG_count_scans(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, CInt(maxScans))
    }
    if scans > maxScans { throw TooManyScans() }
  }

  /// The thumbnail of a plain JPEG that fits `box` x `box`, upright; nil when the image is
  /// not plain or libjpeg warns about it.
  package static func thumbnail(of data: Data, box: Int, quality: Int) throws(TooManyScans) -> Thumbnail? {
    guard isJPEG(data) else { return nil }
    var out: UnsafeMutablePointer<UInt8>?
    var size = 0
    var width: CInt = 0
    var height: CInt = 0
    let status = data.withUnsafeBytes { raw in
      CJPEG_thumbnail(
        raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, CInt(box), CInt(quality), &out, &size, &width,
        &height)
    }
    if status == -2 { throw TooManyScans() }
    guard status == 0, let out else { return nil }
    defer { CJPEG_free(out) }
    return Thumbnail(data: Data(bytes: out, count: size), width: Int(width), height: Int(height))
  }
}
