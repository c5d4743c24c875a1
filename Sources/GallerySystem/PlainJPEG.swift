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
    /// What its EXIF block says of the photo.
    package var facts = PhotoFacts()

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
    var exif = CJPEG_exif()
    let status = data.withUnsafeBytes { raw in
      CJPEG_read_header(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &header, &exif)
    }
    guard status == 0 else { return nil }
    return Header(
      width: Int(header.width), height: Int(header.height), orientation: Int(header.orientation),
      components: Int(header.components), progressive: header.progressive != 0, plain: header.plain != 0,
      facts: PhotoFacts(exif))
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

  /// Whether the bytes are a JPEG that libjpeg decodes whole without a warning, of at most
  /// `maxPixels` pixels and, progressive, `maxDecodeBytes` of coefficients (see
  /// CJPEG_decodes).
  package static func decodesWhole(_ data: Data, maxPixels: Int, maxDecodeBytes: Int) -> Bool {
    guard isJPEG(data) else { return false }
    return data.withUnsafeBytes { raw in
      CJPEG_decodes(
        raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, Int64(maxPixels), Int64(maxDecodeBytes)) == 0
    }
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

/// What a photo says of itself in its EXIF block: the camera and lens, the exposure, when
/// and where it was taken.
public struct PhotoFacts: Sendable, Equatable {
  /// "Canon EOS 5D Mark IV": the model, after the make unless the model names it.
  public var camera: String?
  /// When it was taken, by the camera's clock: "2024-06-01T14:03:22", with the clock's
  /// offset from UTC ("+02:00") when the camera wrote it.
  public var taken: String?
  /// "EF24-70mm f/2.8L II USM", as the camera names it.
  public var lens: String?
  /// "1/250 s, f/8, ISO 100, 35 mm": what of these the camera wrote.
  public var exposure: String?
  /// Where it was taken, in degrees (south and west negative).
  public var latitude: Double?
  public var longitude: Double?

  public init(
    camera: String? = nil, taken: String? = nil, lens: String? = nil, exposure: String? = nil, latitude: Double? = nil,
    longitude: Double? = nil
  ) {
    self.camera = camera
    self.taken = taken
    self.lens = lens
    self.exposure = exposure
    self.latitude = latitude
    self.longitude = longitude
  }

  /// Reads an EXIF block ("Exif\0\0" and a TIFF structure, or the structure alone).
  package init(exif block: UnsafeRawBufferPointer) {
    var exif = CJPEG_exif()
    // A block that is not EXIF leaves `exif` empty: no facts.
    _ = CJPEG_read_exif(block.baseAddress?.assumingMemoryBound(to: UInt8.self), block.count, &exif)
    self.init(exif)
  }

  init(_ exif: CJPEG_exif) {
    func text<T>(_ tuple: T) -> String {
      withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
    let (make, model) = (text(exif.make), text(exif.model))
    let lens = text(exif.lens)
    self.lens = lens.isEmpty ? nil : lens
    exposure = Self.exposure(time: exif.exposure_time, fNumber: exif.f_number, iso: Int(exif.iso), focal: exif.focal_length)
    if exif.has_position != 0 { (latitude, longitude) = (exif.latitude, exif.longitude) }
    if !model.isEmpty {
      camera =
        model.lowercased().hasPrefix(make.lowercased().split(separator: " ").first.map(String.init) ?? "")
        ? model : make + " " + model
    } else if !make.isEmpty {
      camera = make
    }
    // "YYYY:MM:DD HH:MM:SS", digits where digits go; "0000:00:00 00:00:00" is none.
    let taken = Array(text(exif.taken).utf8)
    let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
    guard taken.count == 19, digits.allSatisfy({ (0x30...0x39).contains(taken[$0]) }), taken[4] == 0x3A,
      taken[7] == 0x3A, taken[10] == 0x20, taken[13] == 0x3A, taken[16] == 0x3A, !taken.starts(with: Array("0000".utf8))
    else { return }
    var iso = String(decoding: taken, as: UTF8.self)
    iso = iso.prefix(4) + "-" + iso.dropFirst(5).prefix(2) + "-" + iso.dropFirst(8).prefix(2) + "T" + iso.dropFirst(11)
    let offset = text(exif.offset)
    if offset.wholeMatch(of: /[+-][0-9]{2}:[0-9]{2}/) != nil { iso += offset }
    self.taken = iso
  }

  /// "1/250 s, f/8, ISO 100, 35 mm", of what is known (each number in a sane range).
  static func exposure(time: Double, fNumber: Double, iso: Int, focal: Double) -> String? {
    var parts: [String] = []
    func number(_ value: Double) -> String {
      value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
    if time > 0, time < 100_000 {
      parts.append(time >= 1 ? "\(number(time)) s" : "1/\(Int((1 / time).rounded())) s")
    }
    if fNumber > 0, fNumber < 1000 { parts.append("f/\(number(fNumber))") }
    if iso > 0, iso < 10_000_000 { parts.append("ISO \(iso)") }
    if focal > 0, focal < 100_000 { parts.append("\(number(focal)) mm") }
    return parts.isEmpty ? nil : parts.joined(separator: ", ")
  }
}
