import CVips
import Foundation

/// An error reported by libvips, with its message copied out of the global error buffer.
struct VipsError: Error, CustomStringConvertible {
  let operation: String
  let message: String
  var description: String { message.isEmpty ? "\(operation) failed" : message }

  /// Copies and clears libvips' process-global error buffer at once, before another call
  /// can overwrite it.
  static func take(_ operation: String) -> VipsError {
    let message = String(cString: CVips_error_buffer())
      .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }.joined(separator: "; ")
    CVips_error_clear()
    return VipsError(operation: operation, message: message)
  }
}

/// The one owner of libvips' process-global state: loaded and started once, on first use.
enum VipsRuntime {
  private static let started: Bool = {
    // Decode problems reach the user as errors naming the file; libvips' own warnings on
    // stderr would only repeat them without the name. GALLERY_VIPS_WARNINGS=1 keeps them.
    if ProcessInfo.processInfo.environment["GALLERY_VIPS_WARNINGS"] == nil {
      setenv("VIPS_WARNING", "0", 0)
    }
    return CVips_load() == 0
  }()

  static func start() throws {
    guard started else { throw VipsError(operation: "loading libvips", message: String(cString: CVips_load_error())) }
  }
}

/// Owns one `VipsImage` reference and drops it on deinit.
final class VipsImageHandle {
  let pointer: UnsafeMutablePointer<VipsImage>

  init(_ pointer: UnsafeMutablePointer<VipsImage>) { self.pointer = pointer }
  deinit { CVips_unref(pointer) }

  /// Runs a libvips call that makes a new image through an out-parameter.
  static func make(
    _ operation: String, _ body: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> CInt
  ) throws -> VipsImageHandle {
    var out: UnsafeMutablePointer<VipsImage>?
    guard body(&out) == 0, let image = out else {
      CVips_unref(out)
      throw VipsError.take(operation)
    }
    return VipsImageHandle(image)
  }

  var width: Int { Int(CVips_width(pointer)) }
  var height: Int { Int(CVips_height(pointer)) }
  var hasAlpha: Bool { CVips_has_alpha(pointer) != 0 }
  var orientation: Int { Int(CVips_orientation(pointer)) }
  /// Bytes a decode takes when the image cannot stream (0 when it can).
  var fullDecodeBytes: Int { Int(CVips_full_decode_bytes(pointer)) }

  /// Encodes through a libvips saver that returns a g_malloc'ed buffer.
  func encode(
    _ operation: String,
    _ body: (UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>) -> CInt
  ) throws -> Data {
    var buffer: UnsafeMutableRawPointer?
    var length = 0
    guard body(&buffer, &length) == 0, let bytes = buffer else {
      CVips_free(buffer)
      throw VipsError.take(operation)
    }
    defer { CVips_free(bytes) }
    return Data(bytes: bytes, count: length)
  }
}

// MARK: - Calls on raw bytes

/// Images stored in a document (thumbnails, the cover) are untrusted too: they are decoded
/// only when libvips recognises them and their size is that of a thumbnail.
enum StoredImage {
  static let maxPixels = 4096 * 4096

  /// Why stored image bytes may not be decoded, or nil when they may.
  static func problem(_ data: Data) -> String? {
    guard VipsBuffer.loaderName(for: data) != nil else { return "not an image" }
    guard let header = try? VipsBuffer.header(of: data) else {
      _ = VipsError.take("header")
      return "its header cannot be read"
    }
    let pixels = header.width.multipliedReportingOverflow(by: header.height)
    guard header.width > 0, header.height > 0, !pixels.overflow, pixels.partialValue <= maxPixels else {
      return "\(header.width)x\(header.height) is larger than a thumbnail may be"
    }
    guard header.fullDecodeBytes <= DecodeMemory.perDecode else { return "it would take too much memory to decode" }
    return nil
  }

  /// Why the pixels do not decode (a truncated or corrupt body), or nil: decodes them, at a
  /// small size. Call after `problem` said nil.
  static func decodeProblem(_ data: Data) -> String? {
    let failed: VipsError? = data.withUnsafeBytes { raw in
      do {
        let image = try VipsImageHandle.make("vips_thumbnail_buffer") { CVips_thumbnail_buffer(raw.baseAddress, raw.count, 16, $0) }
        _ = try VipsImageHandle.make("vips_image_copy_memory") { CVips_copy_memory(image.pointer, $0) }
        return nil
      } catch {
        return error as? VipsError ?? VipsError(operation: "decode", message: "\(error)")
      }
    }
    return failed.map { "its pixels do not decode (\($0))" }
  }
}

enum VipsBuffer {
  /// The name of the libvips loader that recognises these bytes, or nil when none does.
  /// Decides by content only. The corresponding C function is `vips_foreign_find_load_buffer`.
  static func loaderName(for data: Data) -> String? {
    guard (try? VipsRuntime.start()) != nil else { return nil }
    let name: UnsafePointer<CChar>? = data.withUnsafeBytes { raw in
      CVips_find_load_buffer(raw.baseAddress, raw.count)
    }
    // A miss leaves a message in the error buffer: it is not an error for us.
    CVips_error_clear()
    return name.map { String(cString: $0) }
  }

  /// Opens the header only. The corresponding C function is `vips_image_new_from_buffer`.
  static func header(of data: Data) throws -> VipsImageHandle {
    // libvips may keep a pointer into the buffer for lazy decoding, so the image must not
    // outlive `data`: callers use it within the same scope.
    try data.withUnsafeBytes { raw in
      guard let image = CVips_header_from_buffer(raw.baseAddress, raw.count) else {
        throw VipsError.take("vips_image_new_from_buffer")
      }
      return VipsImageHandle(image)
    }
  }
}
