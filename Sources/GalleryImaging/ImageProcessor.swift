import Dispatch
import Foundation
import GalleryModel
import GallerySystem
import Synchronization

/// What Gallery learns about an image when it is dropped: its displayed size, its content hash
/// and its thumbnail.
public struct ProcessedImage: Sendable {
  /// Width and height as displayed, after the EXIF orientation is applied.
  public var width: Int
  public var height: Int
  public var orientation: Int
  public var format: String
  /// Pages in the file (a multi-page TIFF or PDF, which shows its first); 1 for most.
  public var pages = 1
  /// What the photo says of itself: its camera, when it was taken.
  public var facts = PhotoFacts()
  /// What photo managers wrote of it in XMP (embedded, or a sidecar beside a local file).
  public var xmp: PhotoXMP?
  public var hash: String
  public var byteCount: Int
  public var thumbnail: Thumbnail
  /// The original bytes, kept only when they are to be embedded in the document.
  public var original: Data?
}

/// Encoded thumbnail bytes and the entry extension they go under.
public struct Thumbnail: Sendable {
  public var data: Data
  public var fileExtension: String

  package init(data: Data, fileExtension: String) {
    self.data = data
    self.fileExtension = fileExtension
  }
}

/// Limits and output settings for thumbnailing.
public struct ImageOptions: Sendable {
  /// The default largest file read, local or downloaded (`--max-download-size`).
  public static let defaultMaxFileBytes = 50 * 1024 * 1024

  public var thumbnailSize: Int
  public var maxPixels: Int
  public var quality: Int
  /// Keep the original bytes in the result (for embedding).
  public var keepOriginal: Bool
  /// Largest local file read (the download limit applies to local sources too).
  public var maxFileBytes: Int
  /// Whether a local path that is a symbolic link is followed (not in drop folders).
  public var followLinks: Bool

  public init(
    thumbnailSize: Int = 256, maxPixels: Int = 100_000_000, quality: Int = 80, keepOriginal: Bool = false,
    maxFileBytes: Int = ImageOptions.defaultMaxFileBytes, followLinks: Bool = true
  ) {
    self.thumbnailSize = thumbnailSize
    self.maxPixels = maxPixels
    self.quality = quality
    self.keepOriginal = keepOriginal
    self.maxFileBytes = maxFileBytes
    self.followLinks = followLinks
  }
}

/// Probes, hashes and thumbnails images with libvips. Every decision is made from the bytes.
public enum ImageProcessor {
  /// Loads and starts libvips (tens of milliseconds: it loads its format modules), for a
  /// command to run as a child task while it reads its inputs and its document.
  public static func startLibrary() async {
    _ = try? VipsRuntime.start()
  }

  /// Whether the bytes (a prefix is enough) are an image Gallery reads, by content: a JPEG's
  /// first bytes (which need no libvips), or a format libvips recognises.
  public static func recognises(_ prefix: Data) -> Bool {
    PlainJPEG.isJPEG(prefix) || isTIFF(prefix) || VipsBuffer.loaderName(for: prefix) != nil
      || SandboxedDecoder.Format(prefix: prefix) != nil
  }

  /// The format a decode would name (`jpeg`, `png`, `bmp`...), as the image's first bytes
  /// say it; nil when they say none.
  public static func formatName(sniffing prefix: Data) -> String? {
    if PlainJPEG.isJPEG(prefix) { return "jpeg" }
    if let format = SandboxedDecoder.Format(prefix: prefix) { return format.rawValue }
    if let loader = VipsBuffer.loaderName(for: prefix) { return formatName(loader: loader) }
    return isTIFF(prefix) ? "tiff" : nil
  }

  /// A TIFF's first bytes (BigTIFF's too): libvips recognises a TIFF by reading its first
  /// directory, which is often at the end of the file, past any prefix.
  static func isTIFF(_ prefix: Data) -> Bool {
    [[0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B]].contains {
      prefix.starts(with: $0)
    }
  }

  /// The formats whose libvips loaders run in this process (libvips trusts them, and they
  /// are today's common ones); every other format goes to the `SandboxedDecoder`.
  package static let formatsDecodedHere: Set<String> = ["jpeg", "png", "webp", "gif", "tiff", "heif"]

  /// Probes the header (no full decode), refuses what is not an image or too large, then makes
  /// the thumbnail with shrink-on-load: a plain JPEG with libjpeg alone, anything else (or a
  /// JPEG libjpeg stumbles on) with libvips.
  public static func process(_ data: Data, options: ImageOptions) throws(ImageRefusal) -> ProcessedImage {
    do { try PlainJPEG.checkScans(data) } catch { throw .undecodable(error.description) }
    var image: ProcessedImage
    if let plain = try plainJPEG(data, options: options) {
      image = plain
    } else {
      image = try processWithLibvips(data, options: options)
    }
    image.xmp = PhotoXMP.embedded(in: data)
    return image
  }

  /// What an image says of itself (EXIF) and what photo managers wrote in it (XMP), read
  /// from its header without decoding its pixels; of a format the sandboxed decoder reads,
  /// only a camera RAW file's directories.
  public static func facts(of data: Data) -> (facts: PhotoFacts, xmp: PhotoXMP?) {
    let xmp = PhotoXMP.embedded(in: data)
    if let header = PlainJPEG.header(of: data) { return (header.facts, xmp) }
    if SandboxedDecoder.Format(prefix: data) == .raw { return (tiffFacts(of: data), xmp) }
    guard (try? VipsRuntime.start()) != nil,
      let format = VipsBuffer.loaderName(for: data).map(formatName(loader:)), formatsDecodedHere.contains(format)
    else { return (PhotoFacts(), xmp) }
    // The header may point into `data`: it is released within this scope.
    let facts = data.withUnsafeBytes { _ in (try? VipsBuffer.header(of: data))?.photoFacts }
    return (facts ?? PhotoFacts(), xmp)
  }

  /// A plain JPEG, or nil to leave the image to libvips. Refuses as libvips would: too many
  /// pixels, or too much memory for a progressive decode.
  static func plainJPEG(_ data: Data, options: ImageOptions) throws(ImageRefusal) -> ProcessedImage? {
    guard let header = PlainJPEG.header(of: data), header.plain else { return nil }
    try ImageRefusal.checkPixels(width: header.width, height: header.height, limit: options.maxPixels)
    let made: PlainJPEG.Thumbnail?
    do {
      made = try DecodeMemory.reserving(header.fullDecodeBytes) {
        try PlainJPEG.thumbnail(of: data, box: options.thumbnailSize, quality: options.quality)
      }
    } catch let refusal as ImageRefusal {
      throw refusal
    } catch {
      throw .undecodable("\(error)")
    }
    guard let made else { return nil }
    let rotated = header.orientation >= 5
    return ProcessedImage(
      width: rotated ? header.height : header.width,
      height: rotated ? header.width : header.height,
      orientation: header.orientation,
      format: "jpeg",
      facts: header.facts,
      hash: contentHash(of: data),
      byteCount: data.count,
      thumbnail: Thumbnail(data: made.data, fileExtension: "jpg"),
      original: options.keepOriginal ? data : nil)
  }

  /// Any image libvips reads, JPEGs included.
  static func processWithLibvips(_ data: Data, options: ImageOptions) throws(ImageRefusal) -> ProcessedImage {
    // Before libvips is loaded: an empty file needs no decoder to be refused.
    guard !data.isEmpty else { throw .empty }
    do { try VipsRuntime.start() } catch { throw .undecodable("\(error)") }
    // A camera's raw file is a TIFF to libvips (its small first picture): libraw reads it.
    if SandboxedDecoder.Format(prefix: data) == .raw { return try processSandboxed(data, options: options) }
    let loader = VipsBuffer.loaderName(for: data)
    guard let format = loader.map(formatName(loader:)), formatsDecodedHere.contains(format) else {
      guard loader != nil || SandboxedDecoder.Format(prefix: data) != nil else { throw .notAnImage }
      return try processSandboxed(data, options: options)
    }
    do {
      return try data.withUnsafeBytes { raw in
        // The image objects below point into `raw`: they must all be released in this scope.
        let header: VipsImageHandle
        do { header = try VipsBuffer.header(of: data) } catch { throw ImageRefusal.undecodable("\(error)") }
        let stored = (width: header.width, height: header.height)
        guard stored.width > 0, stored.height > 0 else { throw ImageRefusal.undecodable("zero-sized image") }
        try ImageRefusal.checkPixels(width: stored.width, height: stored.height, limit: options.maxPixels)
        let orientation = header.orientation
        let pages = header.pages
        let facts = header.photoFacts
        let rotated = orientation >= 5
        let thumbnail: Thumbnail
        do {
          thumbnail = try DecodeMemory.reserving(header.fullDecodeBytes) {
            try encodeThumbnail(try VipsImageHandle.thumbnail(of: raw, size: options.thumbnailSize), quality: options.quality)
          }
        } catch let refusal as ImageRefusal {
          throw refusal
        } catch {
          throw ImageRefusal.undecodable("\(error)")
        }
        return ProcessedImage(
          width: rotated ? stored.height : stored.width,
          height: rotated ? stored.width : stored.height,
          orientation: orientation,
          format: format,
          pages: pages,
          facts: facts,
          hash: contentHash(of: data),
          byteCount: data.count,
          thumbnail: thumbnail,
          original: options.keepOriginal ? data : nil)
      }
    } catch let refusal as ImageRefusal {
      throw refusal
    } catch {
      throw .undecodable("\(error)")
    }
  }

  /// A format decoded in the sandboxed process: its rendition at the thumbnail's size
  /// (a PNG, sRGB, upright) becomes the thumbnail here.
  static func processSandboxed(_ data: Data, options: ImageOptions) throws(ImageRefusal) -> ProcessedImage {
    let decoded = try SandboxedDecoder.decode(data, size: options.thumbnailSize, maxPixels: options.maxPixels)
    guard VipsBuffer.loaderName(for: decoded.rendition).map(formatName(loader:)) == "png" else {
      throw .undecodable("the decoder's rendition is not a PNG")
    }
    let thumbnail: Thumbnail
    do {
      thumbnail = try decoded.rendition.withUnsafeBytes { raw in
        try encodeThumbnail(try VipsImageHandle.thumbnail(of: raw, size: options.thumbnailSize), quality: options.quality)
      }
    } catch {
      throw .undecodable("\(error)")
    }
    let facts = decoded.facts
    let rotated = facts.orientation >= 5
    return ProcessedImage(
      width: rotated ? facts.height : facts.width,
      height: rotated ? facts.width : facts.height,
      orientation: facts.orientation,
      format: format(of: data, decoded: facts.format),
      pages: facts.pages,
      facts: tiffFacts(of: data),
      hash: contentHash(of: data),
      byteCount: data.count,
      thumbnail: thumbnail,
      original: options.keepOriginal ? data : nil)
  }

  /// What a TIFF-structured file (most camera RAW files: CR2, NEF, ARW, DNG, ORF, PEF) says
  /// of itself in its directories, read by the same bounded reader as a JPEG's EXIF block:
  /// the camera, when and where it was taken, the lens and the exposure. Nothing for
  /// another structure.
  static func tiffFacts(of data: Data) -> PhotoFacts {
    let signature = [UInt8](data.prefix(4))
    guard signature == [0x49, 0x49, 0x2A, 0x00] || signature == [0x4D, 0x4D, 0x00, 0x2A] else { return PhotoFacts() }
    return data.withUnsafeBytes { PhotoFacts(exif: $0) }
  }

  /// A sandboxed format's name: the one its first bytes say (not "magick" for a BMP), but
  /// for a camera maker's TIFF that libraw did not read.
  private static func format(of data: Data, decoded: String) -> String {
    let detected = SandboxedDecoder.Format(prefix: data)
    return detected == .raw || detected == nil ? decoded : detected!.rawValue
  }

  /// JPEG for opaque images; WebP keeps the alpha channel of those that have one.
  package static func encodeThumbnail(_ image: VipsImageHandle, quality: Int) throws -> Thumbnail {
    if image.hasAlpha {
      return Thumbnail(data: try image.webp(quality: quality), fileExtension: "webp")
    }
    return Thumbnail(data: try image.jpeg(quality: quality), fileExtension: "jpg")
  }

  /// "VipsForeignLoadJpegBuffer" (or the nickname "jpegload_buffer") -> "jpeg".
  package static func formatName(loader: String) -> String {
    var name = loader
    if name.hasPrefix("VipsForeignLoad") { name.removeFirst("VipsForeignLoad".count) }
    for suffix in ["Buffer", "Source", "File", "_buffer", "_source"] where name.hasSuffix(suffix) {
      name.removeLast(suffix.count)
    }
    if name.hasSuffix("load") { name.removeLast(4) }
    name = name.lowercased()
    return ["nsgif": "gif", "jpg": "jpeg", "tif": "tiff"][name] ?? name
  }
}

/// The memory that decoding may take. Most images stream through shrink-on-load in a few
/// megabytes; an interlaced PNG or GIF, or a progressive JPEG, is decoded whole first (a
/// 778 KB 16-bit interlaced PNG can need a gigabyte). Such a decode is refused over
/// `perDecode`, and the large ones run one at a time, so that parallel jobs add up to at
/// most one large decode plus the small ones.
package enum DecodeMemory {
  package static let perDecode = VipsRuntime.decodeMemoryLimit
  package static let large = 48 << 20
  private static let largeDecode = Mutex<Void>(())

  package static func reserving<T>(_ bytes: Int, _ body: () throws -> T) throws -> T {
    guard bytes <= perDecode else { throw ImageRefusal.tooMuchMemory(bytes: bytes, limit: perDecode) }
    guard bytes > large else { return try body() }
    return try largeDecode.withLock { _ in try body() }
  }
}

/// Why an input was not accepted as an image.
public enum ImageRefusal: Error, Sendable, Equatable, CustomStringConvertible {
  case empty
  case notAnImage
  case tooManyPixels(width: Int, height: Int, limit: Int)
  case tooMuchMemory(bytes: Int, limit: Int)
  case undecodable(String)

  /// Refuses `width` x `height` over `limit` pixels (a decompression bomb), as the header
  /// says it, before anything is decoded.
  package static func checkPixels(width: Int, height: Int, limit: Int) throws(ImageRefusal) {
    let pixels = width.multipliedReportingOverflow(by: height)
    guard !pixels.overflow, pixels.partialValue <= limit else {
      throw .tooManyPixels(width: width, height: height, limit: limit)
    }
  }

  public var description: String {
    switch self {
    case .empty: "the file is empty"
    case .notAnImage: "not an image (no image format recognises its content)"
    case .tooManyPixels(let width, let height, let limit):
      "\(width)x\(height) is \(width * height) pixels, over the limit of \(limit) (see --max-pixels)"
    case .tooMuchMemory(let bytes, let limit):
      "decoding it would take \(bytes >> 20) MiB (an interlaced or progressive image is decoded whole), over the limit of \(limit >> 20) MiB"
    case .undecodable(let reason): "the image cannot be decoded: \(reason)"
    }
  }
}

extension ImageRefusal: GalleryError {}
