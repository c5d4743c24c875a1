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
}
