import CVips
import Foundation

/// An error reported by libvips, with its message copied out of the global error buffer.
package struct VipsError: Error, CustomStringConvertible {
  package let operation: String
  package let message: String
  package var description: String { message.isEmpty ? "\(operation) failed" : message }

  package init(operation: String, message: String) {
    self.operation = operation
    self.message = message
  }

  /// Copies and clears libvips' process-global error buffer at once, before another call
  /// can overwrite it.
  package static func take(_ operation: String) -> VipsError {
    let message = String(cString: CVips_error_buffer())
      .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }.joined(separator: "; ")
    CVips_error_clear()
    return VipsError(operation: operation, message: message)
  }
}

/// The one owner of libvips' process-global state: loaded and started once, on first use.
package enum VipsRuntime {
  /// The most memory one decode may take (an interlaced or progressive image is decoded
  /// whole): `DecodeMemory` refuses more.
  package static let decodeMemoryLimit = 384 << 20

  private static let started: Bool = CVips_load() == 0

  /// The VIPSHOME `prepareProcess` sets: a prefix with no modules folder.
  package static let homeWithoutModules = CVIPS_HOME_WITHOUT_MODULES

  /// Run by the `gallery` executable before anything else, while it has one thread (setenv
  /// races with every getenv): decode problems reach the user as errors naming the file, so
  /// libvips' own warnings on stderr, which would only repeat them without the name, are
  /// hidden (GALLERY_VIPS_WARNINGS=1 keeps them); and libvips loads only its HEIF module,
  /// not those whose loaders Gallery blocks (a shorter start-up). A VIPSHOME set
  /// before (by the user, or inherited from a process that runs libvips, which sets it) is
  /// kept, and libvips then loads all its modules as usual.
  package static func prepareProcess() {
    CVips_prepare_environment(getenv("GALLERY_VIPS_WARNINGS") != nil ? 1 : 0)
  }

  /// The environment a child process gets (`KEY=VALUE`): ours without the VIPSHOME that
  /// `prepareProcess` set, which would keep a program the child starts (an image viewer that
  /// runs libvips) from finding libvips' modules. Nil when there is nothing to take out.
  package static func environmentForChildren(_ environment: [String]) -> [String]? {
    let ours = "VIPSHOME=" + homeWithoutModules
    guard environment.contains(ours) else { return nil }
    return environment.filter { $0 != ours }
  }

  package static func start() throws {
    guard started else { throw VipsError(operation: "loading libvips", message: String(cString: CVips_load_error())) }
  }

  /// Whether libvips runs code generated at run time (Orc): never once started, because the
  /// Orc of Debian 12 is not thread-safe where Gallery needs it to be.
  package static var generatesCode: Bool { CVips_vector_enabled() != 0 }
}

/// Owns one `VipsImage` reference and drops it on deinit.
package final class VipsImageHandle {
  package let pointer: UnsafeMutablePointer<VipsImage>

  package init(_ pointer: UnsafeMutablePointer<VipsImage>) { self.pointer = pointer }
  deinit { CVips_unref(pointer) }

  /// Runs a libvips call that makes a new image through an out-parameter.
  package static func make(
    _ operation: String, _ body: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> CInt
  ) throws -> VipsImageHandle {
    var out: UnsafeMutablePointer<VipsImage>?
    guard body(&out) == 0, let image = out else {
      CVips_unref(out)
      throw VipsError.take(operation)
    }
    return VipsImageHandle(image)
  }

  package var width: Int { Int(CVips_width(pointer)) }
  package var height: Int { Int(CVips_height(pointer)) }
  package var hasAlpha: Bool { CVips_has_alpha(pointer) != 0 }
  package var orientation: Int { Int(CVips_orientation(pointer)) }
  /// Bytes a decode takes when the image cannot stream (0 when it can).
  package var fullDecodeBytes: Int { Int(CVips_full_decode_bytes(pointer)) }

  /// Encodes through a libvips saver that returns a g_malloc'ed buffer.
  package func encode(
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

// MARK: - Operations

/// The libvips operations the imaging code uses, one method each: the C names stay here.
/// Images made from bytes point into those bytes: the caller keeps them alive (inside its
/// `withUnsafeBytes`) until the image is encoded or copied to memory.
extension VipsImageHandle {
  /// A thumbnail at most `size` pixels on its longer side, shrunk on load, EXIF orientation
  /// applied.
  package static func thumbnail(of bytes: UnsafeRawBufferPointer, size: Int) throws -> VipsImageHandle {
    try make("vips_thumbnail_buffer") { CVips_thumbnail_buffer(bytes.baseAddress, bytes.count, CInt(size), $0) }
  }

  /// A drawing (SVG, PDF) rendered to fit `size` x `size`, enlarged if it says it is smaller.
  package static func drawing(of bytes: UnsafeRawBufferPointer, size: Int) throws -> VipsImageHandle {
    try make("vips_thumbnail_buffer") { CVips_drawing_buffer(bytes.baseAddress, bytes.count, CInt(size), $0) }
  }

  /// A thumbnail cropped to a `size` square around its centre.
  package static func squareThumbnail(of bytes: UnsafeRawBufferPointer, size: Int) throws -> VipsImageHandle {
    try make("vips_thumbnail_buffer") { CVips_square_thumbnail_buffer(bytes.baseAddress, bytes.count, CInt(size), $0) }
  }

  /// A thumbnail of exactly `width` x `height` (the image cropped to fill it).
  package static func thumbnail(of bytes: UnsafeRawBufferPointer, width: Int, height: Int) throws -> VipsImageHandle {
    try make("vips_thumbnail_buffer") { CVips_thumbnail_exact(bytes.baseAddress, bytes.count, CInt(width), CInt(height), $0) }
  }

  /// A mid-grey square, for a missing or unusable tile.
  package static func greyTile(size: Int) throws -> VipsImageHandle {
    try make("vips_black") { CVips_grey_tile(CInt(size), $0) }
  }

  /// A rectangle of one sRGB colour.
  package static func tile(width: Int, height: Int, red: Double, green: Double, blue: Double) throws -> VipsImageHandle {
    try make("vips_black") { CVips_color_tile(CInt(width), CInt(height), red, green, blue, $0) }
  }

  /// Text set by Pango (markup escaped by the caller), centred in `width` x `height`.
  package static func caption(_ markup: String, width: Int, height: Int) throws -> VipsImageHandle {
    try make("vips_text") { CVips_caption(markup, CInt(width), CInt(height), $0) }
  }

  /// A note card: text (Pango markup, escaped by the caller) wrapped on a pale yellow card.
  package static func noteCard(_ markup: String, width: Int, height: Int) throws -> VipsImageHandle {
    try make("vips_text") { CVips_note_card(markup, CInt(width), CInt(height), $0) }
  }

  /// Images laid out in rows of `across`.
  package static func grid(_ images: [VipsImageHandle], across: Int) throws -> VipsImageHandle {
    var pointers: [UnsafeMutablePointer<VipsImage>?] = images.map(\.pointer)
    let joined = try make("vips_arrayjoin") { CVips_arrayjoin(&pointers, CInt(pointers.count), CInt(across), $0) }
    withExtendedLifetime(images) {}
    return joined
  }

  /// Two images side by side (or one below the other), `spacing` pixels apart.
  package func joined(with other: VipsImageHandle, horizontal: Bool, spacing: Int) throws -> VipsImageHandle {
    try Self.make("vips_join") { CVips_join(pointer, other.pointer, horizontal ? 1 : 0, CInt(spacing), $0) }
  }

  /// Framed by `width` pixels of grey `grey` (0 to 255).
  package func framed(width: Int, grey: Double) throws -> VipsImageHandle {
    try Self.make("vips_embed") { CVips_frame(pointer, CInt(width), grey, $0) }
  }

  /// Surrounded by `margin` pixels of white.
  package func withMargin(_ margin: Int) throws -> VipsImageHandle {
    try Self.make("vips_embed") { CVips_margin(pointer, CInt(margin), $0) }
  }

  /// In sRGB.
  package func inSRGB() throws -> VipsImageHandle {
    try Self.make("vips_colourspace") { CVips_srgb(pointer, $0) }
  }

  /// Decoded into memory now: it no longer points into the bytes it was made from.
  package func copiedToMemory() throws -> VipsImageHandle {
    try Self.make("vips_image_copy_memory") { CVips_copy_memory(pointer, $0) }
  }

  /// Encoded by the saver that `suffix` names (".png", ".jpg[Q=80,strip]", ...).
  package func encoded(as suffix: String) throws -> Data {
    try encode("vips_image_write_to_buffer") { CVips_write_to_buffer(pointer, suffix, $0, $1) }
  }

  package func jpeg(quality: Int) throws -> Data {
    try encode("vips_jpegsave_buffer") { CVips_jpegsave_buffer(pointer, CInt(quality), $0, $1) }
  }

  package func webp(quality: Int) throws -> Data {
    try encode("vips_webpsave_buffer") { CVips_webpsave_buffer(pointer, CInt(quality), $0, $1) }
  }
}

// MARK: - Calls on raw bytes

/// Images stored in a document (thumbnails, the cover) are untrusted too: they are decoded
/// only when libvips recognises them and their size is that of a thumbnail.
package enum StoredImage {
  package static let maxPixels = 4096 * 4096

  /// Why stored image bytes may not be decoded, or nil when they may.
  package static func problem(_ data: Data) -> String? {
    guard VipsBuffer.loaderName(for: data) != nil else { return "not an image" }
    guard let header = try? VipsBuffer.header(of: data) else {
      _ = VipsError.take("header")
      return "its header cannot be read"
    }
    let pixels = header.width.multipliedReportingOverflow(by: header.height)
    guard header.width > 0, header.height > 0, !pixels.overflow, pixels.partialValue <= maxPixels else {
      return "\(header.width)x\(header.height) is larger than a thumbnail may be"
    }
    guard header.fullDecodeBytes <= VipsRuntime.decodeMemoryLimit else { return "it would take too much memory to decode" }
    do { try PlainJPEG.checkScans(data) } catch { return error.description }
    return nil
  }

  /// Why stored image bytes are not an image whose pixels decode, or nil: `problem`, then
  /// `decodeProblem`. A JPEG that libjpeg decodes whole without a warning (as thumbnails
  /// are) passes both, and is taken without libvips, whose operations cost many times the
  /// decode of so small an image.
  package static func verdict(_ data: Data) -> String? {
    if (try? PlainJPEG.checkScans(data)) != nil,
      PlainJPEG.decodesWhole(data, maxPixels: maxPixels, maxDecodeBytes: VipsRuntime.decodeMemoryLimit)
    {
      return nil
    }
    return problem(data) ?? decodeProblem(data)
  }

  /// Why the pixels do not decode (a truncated or corrupt body), or nil: decodes them, at a
  /// small size. Call after `problem` said nil.
  package static func decodeProblem(_ data: Data) -> String? {
    let failed: VipsError? = data.withUnsafeBytes { raw in
      do {
        let image = try VipsImageHandle.make("vips_thumbnail_buffer") {
          CVips_thumbnail_buffer(raw.baseAddress, raw.count, 16, $0)
        }
        _ = try VipsImageHandle.make("vips_image_copy_memory") { CVips_copy_memory(image.pointer, $0) }
        return nil
      } catch {
        return error as? VipsError ?? VipsError(operation: "decode", message: "\(error)")
      }
    }
    return failed.map { "its pixels do not decode (\($0))" }
  }
}

package enum VipsBuffer {
  /// The name of the libvips loader that recognises these bytes, or nil when none does.
  /// Decides by content only. The corresponding C function is `vips_foreign_find_load_buffer`.
  package static func loaderName(for data: Data) -> String? {
    guard (try? VipsRuntime.start()) != nil else { return nil }
    let name: UnsafePointer<CChar>? = data.withUnsafeBytes { raw in
      CVips_find_load_buffer(raw.baseAddress, raw.count)
    }
    // A miss leaves a message in the error buffer: it is not an error for us.
    CVips_error_clear()
    return name.map { String(cString: $0) }
  }

  /// Opens the header only. The corresponding C function is `vips_image_new_from_buffer`.
  package static func header(of data: Data) throws -> VipsImageHandle {
    try VipsRuntime.start()
    // libvips may keep a pointer into the buffer for lazy decoding, so the image must not
    // outlive `data`: callers use it within the same scope.
    return try data.withUnsafeBytes { raw in
      guard let image = CVips_header_from_buffer(raw.baseAddress, raw.count) else {
        throw VipsError.take("vips_image_new_from_buffer")
      }
      return VipsImageHandle(image)
    }
  }
}

extension VipsRuntime {
  /// Lets libvips use the loaders it marks untrusted. Only the sandboxed decoder does, once
  /// confined: never a process that holds documents.
  package static func allowUntrustedLoaders() { CVips_allow_untrusted() }
}

extension VipsImageHandle {
  /// Pages in the file (a multi-page TIFF or PDF); 1 when the loader does not say.
  package var pages: Int { Int(CVips_pages(pointer)) }
}

extension VipsImageHandle {
  /// `width` x `height` 8-bit pixels of `bands` samples each.
  package static func pixels(_ data: UnsafeRawBufferPointer, width: Int, height: Int, bands: Int) throws -> VipsImageHandle {
    try make("vips_image_new_from_memory_copy") {
      CVips_from_pixels(data.baseAddress, data.count, CInt(width), CInt(height), CInt(bands), $0)
    }
  }

  /// This image made to fit `size` x `size`, never enlarged.
  package func shrunk(toFit size: Int) throws -> VipsImageHandle {
    try Self.make("vips_thumbnail_image") { CVips_shrunk(pointer, CInt(size), $0) }
  }

  /// This image turned clockwise by `quarterTurns` quarter turns.
  package func rotated(quarterTurns: Int) throws -> VipsImageHandle {
    try Self.make("vips_rot") { CVips_rotate(pointer, CInt(quarterTurns), $0) }
  }
}

extension VipsImageHandle {
  /// What the image's EXIF block says of the photo (nothing when it has none).
  package var photoFacts: PhotoFacts {
    var data: UnsafeRawPointer?
    var length = 0
    guard CVips_exif(pointer, &data, &length) == 0, let data else { return PhotoFacts() }
    return PhotoFacts(exif: UnsafeRawBufferPointer(start: data, count: length))
  }
}
