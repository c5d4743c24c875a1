import Foundation
import GalleryImaging
import GalleryModel
import GallerySystem

/// An item's image as PNG, for the clipboard (GIMP, LibreOffice and chat programs paste
/// image/png): from the embedded original, or the local original when it still has the
/// hash dropped, or else the thumbnail. Bounded like every decode.
public enum ClipboardImage {
  /// Originals larger than this are offered at thumbnail size.
  public static let maxPixels = 40_000_000

  public static func png(
    of item: Item, in document: GalleryDocument, maxBytes: Int = ImageOptions.defaultMaxFileBytes
  ) throws -> Data {
    var candidates = ItemOriginal.read(item, in: document, limit: maxBytes).map { [$0] } ?? []
    candidates.append(try document.thumbnail(of: item))
    for data in candidates {
      if let png = try? encodePNG(data) { return png }
      _ = VipsError.take("png")
    }
    throw VipsError(operation: "png", message: "the image of item \(item.id) cannot be converted to PNG")
  }

  package static func encodePNG(_ data: Data) throws -> Data {
    try VipsRuntime.start()
    let header = try VipsBuffer.header(of: data)
    let pixels = header.width.multipliedReportingOverflow(by: header.height)
    guard !pixels.overflow, pixels.partialValue <= maxPixels, header.fullDecodeBytes <= DecodeMemory.perDecode else {
      throw VipsError(operation: "png", message: "too large to convert")
    }
    return try data.withUnsafeBytes { raw in
      // The image at its own size (a thumbnail no smaller than it), EXIF orientation applied.
      let image = try VipsImageHandle.thumbnail(of: raw, size: max(header.width, header.height))
      return try image.encoded(as: ".png")
    }
  }
}
