import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Loads dropped local files: a cheap check from the header before any placeholder is saved,
/// and the full load (read, hash, thumbnail) afterwards.
public enum LocalImageLoader {
  /// Refuses, without decoding pixels, what cannot become an item: missing, unreadable,
  /// special or empty files, content no image loader recognises, and too many pixels.
  public static func precheck(path: String, maxPixels: Int) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return String(cString: strerror(errno)).lowercased() }
    guard (info.st_mode & S_IFMT) == S_IFREG else { return "not a regular file" }
    guard info.st_size > 0 else { return ImageRefusal.empty.description }
    guard access(path, R_OK) == 0 else { return String(cString: strerror(errno)).lowercased() }
    do { try VipsRuntime.start() } catch { return "\(error)" }
    guard VipsFile.loaderName(path: path) != nil else { return ImageRefusal.notAnImage.description }
    guard let header = try? VipsFile.header(path: path) else {
      return ImageRefusal.undecodable(VipsError.take("header").description).description
    }
    let pixels = header.width.multipliedReportingOverflow(by: header.height)
    if pixels.overflow || pixels.partialValue > maxPixels {
      return ImageRefusal.tooManyPixels(width: header.width, height: header.height, limit: maxPixels).description
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
