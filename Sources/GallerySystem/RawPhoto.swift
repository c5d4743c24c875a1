import CRaw
import Foundation

/// A camera RAW file read by libraw (see CRaw.h): only the sandboxed decoder reads one.
package enum RawPhoto {
  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  /// What a raw file holds, as libraw reads it.
  package struct Decoded {
    /// The size the sensor stored, before the orientation.
    package var width: Int
    package var height: Int
    /// The EXIF orientation (1 to 8) of libraw's flip.
    package var orientation: Int
    /// The camera's embedded JPEG preview, or nil.
    package var preview: Data?
    /// Else the raw developed at half size: 8-bit pixels.
    package var pixels: (data: Data, width: Int, height: Int, bands: Int)?
  }

  /// Loads libraw (before a sandbox closes the doors: it is a library file to read).
  package static func load() throws(Failure) {
    var error = [CChar](repeating: 0, count: 256)
    guard CRaw_load(&error, UInt(error.count)) == 0 else {
      throw Failure(description: String(decoding: error.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self))
    }
  }

  package static func decode(_ data: Data) throws(Failure) -> Decoded {
    var image = CRaw_image()
    var error = [CChar](repeating: 0, count: 256)
    let status = data.withUnsafeBytes { raw in CRaw_decode(raw.baseAddress, UInt(raw.count), &image, &error, UInt(error.count)) }
    guard status == 0 else {
      throw Failure(description: String(decoding: error.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self))
    }
    defer { CRaw_release(&image) }
    let bytes = Data(bytes: image.data, count: Int(image.length))
    // libraw's flip: 3 half a turn, 5 a quarter turn anticlockwise, 6 clockwise.
    let orientation = [3: 3, 5: 8, 6: 6][Int(image.flip)] ?? 1
    return Decoded(
      width: Int(image.raw_width), height: Int(image.raw_height), orientation: orientation,
      preview: image.jpeg != 0 ? bytes : nil,
      pixels: image.jpeg != 0 ? nil : (bytes, Int(image.width), Int(image.height), Int(image.colors)))
  }
}
