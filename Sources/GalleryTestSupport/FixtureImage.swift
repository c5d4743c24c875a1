import CVipsFixture
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GallerySystem

/// Real images made by libvips, for the tests: a target of its own, so that nothing of it
/// is linked into `gallery` (the linker drops the C fixture functions nobody calls).
public enum FixtureImage {
  public enum Format: String, CaseIterable, Sendable {
    case jpeg = ".jpg"
    case png = ".png"
    case webp = ".webp"
    case gif = ".gif"
    case tiff = ".tif"
    /// HEIF with AV1 inside: what libvips' HEIF module reads, the one module Gallery loads.
    case avif = ".avif"
  }

  /// A w x h image (as stored, before any orientation) of smooth noise, in colour or grey,
  /// encoded as `format` or as libvips' `suffix` says (".jpg[interlace]").
  public static func make(
    width: Int, height: Int, format: Format = .jpeg, alpha: Bool = false, orientation: Int? = nil,
    seed: Int = 1, grey: Bool = false, suffix: String? = nil
  ) throws -> Data {
    try VipsRuntime.start()
    var image = try VipsImageHandle.make("vips_perlin") { out in
      out.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 1) {
        CVipsFixture_make(CInt(width), CInt(height), CInt(seed), alpha ? 1 : 0, $0)
      }
    }
    if let orientation {
      let source = image
      image = try VipsImageHandle.make("vips_copy") { out in
        out.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 1) {
          CVipsFixture_with_orientation(source.pointer, CInt(orientation), $0)
        }
      }
    }
    if grey {
      let source = image
      image = try VipsImageHandle.make("vips_extract_band") { out in
        out.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 1) { CVipsFixture_grey(source.pointer, $0) }
      }
    }
    return try image.encoded(as: suffix ?? format.rawValue)
  }

  /// A real photograph: one of `mate-backgrounds`' nature photos (`make setup` installs
  /// them), scaled to `size` pixels on its longer side.
  package static func photo(_ name: String = "Garden.jpg", size: Int) throws -> VipsImageHandle {
    try VipsRuntime.start()
    let data = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/backgrounds/mate/nature/" + name))
    return try data.withUnsafeBytes { raw in try VipsImageHandle.thumbnail(of: raw, size: size).copiedToMemory() }
  }

  /// The sRGB image converted to an ICC profile (a file, or libvips' own "p3" or "cmyk") at
  /// `depth` bits per sample, carrying it, encoded as libvips' `suffix` says.
  package static func withProfile(_ image: VipsImageHandle, profile: String, depth: Int = 8, suffix: String) throws -> Data {
    let converted = try VipsImageHandle.make("vips_icc_transform") { out in
      out.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 1) {
        CVipsFixture_to_profile(image.pointer, profile, CInt(depth), $0)
      }
    }
    return try converted.encoded(as: suffix)
  }

  /// The mean CIEDE2000 difference between an sRGB image (a thumbnail) and `reference` as a
  /// colour-managed viewer shows it, scaled to the image's size.
  public static func meanDE00(_ image: Data, against reference: Data) throws -> Double {
    var mean = 0.0
    let status = image.withUnsafeBytes { a in
      reference.withUnsafeBytes { b in CVipsFixture_mean_de00(a.baseAddress, UInt(a.count), b.baseAddress, UInt(b.count), &mean) }
    }
    guard status == 0 else { throw VipsError.take("dE00") }
    return mean
  }
}
