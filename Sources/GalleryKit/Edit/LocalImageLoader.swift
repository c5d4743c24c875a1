import Foundation

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
  public static func precheck(path: String, maxPixels: Int) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return String(cString: strerror(errno)).lowercased() }
    guard (info.st_mode & S_IFMT) == S_IFREG else { return "not a regular file" }
    guard info.st_size > 0 else { return ImageRefusal.empty.description }
    let prefix: Data
    do {
      let file = try FileHandleFD(path: path, flags: O_RDONLY)
      prefix = try file.read(upTo: precheckPrefix)
    } catch {
      return String(cString: strerror(error.errno)).lowercased()
    }
    guard VipsBuffer.loaderName(for: prefix) != nil else { return ImageRefusal.notAnImage.description }
    // A header past the prefix is checked by the full load instead, before any decoding.
    if let header = try? VipsBuffer.header(of: prefix) {
      let pixels = header.width.multipliedReportingOverflow(by: header.height)
      if pixels.overflow || pixels.partialValue > maxPixels {
        return ImageRefusal.tooManyPixels(width: header.width, height: header.height, limit: maxPixels).description
      }
    } else {
      _ = VipsError.take("header")
    }
    return nil
  }

  /// Reads the whole file and processes it.
  public static func load(path: String, options: ImageOptions) -> Result<ProcessedImage, DropFailure> {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      return .failure(DropFailure(source: path, reason: "cannot read it: \((error as NSError).localizedDescription)"))
    }
    do {
      return .success(try ImageProcessor.process(data, options: options))
    } catch {
      return .failure(DropFailure(source: path, reason: error.description))
    }
  }
}
