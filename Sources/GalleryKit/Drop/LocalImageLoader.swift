import Foundation
import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem

#if canImport(Glibc)
  import Glibc
#endif

/// Loads dropped local files: a cheap check from the header before any placeholder is saved,
/// and the full load (read, hash, thumbnail) afterwards.
public enum LocalImageLoader {
  /// How much of a file the precheck reads: enough for the headers of common formats
  /// (a JPEG's size follows its EXIF block), little enough to cost nothing.
  static let precheckPrefix = 256 * 1024

  /// Refuses, without decoding pixels, what cannot become an item: missing, unreadable,
  /// special or empty files, content no image loader recognises, and too many pixels.
  /// Reads one prefix of the file once, in memory: libvips' own file sniffing opens the file
  /// once per loader.
  public static func precheck(
    path: String, maxPixels: Int, maxBytes: Int = WebLimits().maxBytes, followLinks: Bool = true
  ) -> String? {
    let prefix: Data
    do {
      let read = try FileSystem.readPrefix(path, count: precheckPrefix, followLinks: followLinks)
      guard read.size > 0 else { return ImageRefusal.empty.description }
      guard read.size <= maxBytes else { return FileSystem.ReadFailure.tooLarge(limit: maxBytes).description }
      prefix = read.prefix
    } catch {
      return error.description
    }
    // The size as the header says it. A JPEG's is read by libjpeg alone: libvips is not
    // loaded for a drop of photos. A header past the prefix is checked by the full load
    // instead, before any decoding.
    let size: (width: Int, height: Int)?
    if let header = PlainJPEG.header(of: prefix) {
      size = (header.width, header.height)
    } else {
      guard ImageProcessor.recognises(prefix) else { return ImageRefusal.notAnImage.description }
      if let header = try? VipsBuffer.header(of: prefix) {
        size = (header.width, header.height)
      } else {
        _ = VipsError.take("header")
        size = nil
      }
    }
    if let size {
      do { try ImageRefusal.checkPixels(width: size.width, height: size.height, limit: maxPixels) } catch {
        return error.description
      }
    }
    return nil
  }

  /// Reads the whole file (bounded by `options.maxFileBytes`) and processes it.
  public static func load(path: String, options: ImageOptions) -> Result<ProcessedImage, DropFailure> {
    let data: Data
    do {
      data = try FileSystem.read(path, limit: options.maxFileBytes, followLinks: options.followLinks)
    } catch {
      return .failure(DropFailure(source: path, reason: "cannot read it: \(error)"))
    }
    do {
      var image = try ImageProcessor.process(data, options: options)
      // A sidecar is the photo manager's latest word: it wins over what the file holds.
      if let sidecar = PhotoXMP.sidecar(of: path) { image.xmp = sidecar }
      return .success(image)
    } catch {
      return .failure(DropFailure(source: path, refusal: error))
    }
  }

  /// The bytes of a document item's local source, for `export`: bounded, a regular file.
  public static func readSource(_ path: String, limit: Int) throws -> Data {
    try FileSystem.read(path, limit: limit)
  }
}
