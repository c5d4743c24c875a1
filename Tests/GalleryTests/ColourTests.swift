import Foundation
import GalleryTestSupport
import Testing

@testable import GalleryImaging
@testable import GallerySystem

/// Real photographs carrying the profiles cameras, phones and editors embed: each thumbnail
/// must look as a colour-managed viewer shows the original (converted to sRGB with its
/// profile), measured as the mean CIEDE2000 difference from that reference.
@Suite("Colour: embedded ICC profiles are honoured in thumbnails")
struct ColourTests {
  struct Variant: Sendable, CustomStringConvertible {
    var name: String
    var profile: String
    var depth = 8
    var suffix: String
    /// The largest mean ΔE00 allowed.
    var limit = ColourTests.closeMatch
    var description: String { name }
  }

  static let adobeRGB = "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"
  static let grey = "/usr/share/color/icc/Gray.icc"

  static let variants = [
    Variant(name: "Display P3 JPEG (a phone's photo)", profile: "p3", suffix: ".jpg[Q=95]"),
    Variant(name: "Display P3 AVIF (a HEIF phone photo)", profile: "p3", suffix: ".avif[Q=90]"),
    Variant(name: "Adobe RGB JPEG", profile: adobeRGB, suffix: ".jpg[Q=95]"),
    // libvips' thumbnail converts CMYK through the profile connection space in two steps
    // (import, then export to sRGB), where the reference takes one lcms transform: the
    // two disagree a little on this profile's tables, the thumbnail's coding aside.
    Variant(name: "CMYK JPEG with its profile", profile: "cmyk", suffix: ".jpg[Q=95]", limit: 2.0),
    Variant(name: "16-bit PNG with a P3 iCCP chunk", profile: "p3", depth: 16, suffix: ".png"),
    Variant(name: "grey JPEG with a grey profile", profile: grey, suffix: ".jpg[Q=95]"),
  ]

  /// A mean ΔE00 of 1 is about the smallest difference a person sees side by side; the
  /// thumbnail's own JPEG coding and resampling account for most of what remains.
  static let closeMatch = 1.0

  @Test("A thumbnail's colours match the original's as a colour-managed viewer shows it", arguments: variants)
  func thumbnailColours(_ variant: Variant) throws {
    let photo = try FixtureImage.photo(size: 640)
    let original = try FixtureImage.withProfile(photo, profile: variant.profile, depth: variant.depth, suffix: variant.suffix)
    let image = try ImageProcessor.process(original, options: ImageOptions())
    let difference = try FixtureImage.meanDE00(image.thumbnail.data, against: original)
    #expect(difference < variant.limit, "mean ΔE00 \(difference)")
  }

  @Test("Ignoring the profile would be seen: the same pixels taken as sRGB differ from the reference")
  func ignoringTheProfileShows() throws {
    let photo = try FixtureImage.photo(size: 640)
    let p3 = try FixtureImage.withProfile(photo, profile: "p3", suffix: ".jpg[Q=95,strip]")
    let tagged = try FixtureImage.withProfile(photo, profile: "p3", suffix: ".jpg[Q=95]")
    let untagged = try ImageProcessor.process(p3, options: ImageOptions())
    #expect(try FixtureImage.meanDE00(untagged.thumbnail.data, against: tagged) > 2 * Self.closeMatch)
  }

  @Test("An sRGB profile keeps a JPEG on the libjpeg path; any other sends it to libvips")
  func srgbKeepsTheFastPath() throws {
    let photo = try FixtureImage.photo(size: 320)
    let srgb = try FixtureImage.withProfile(photo, profile: "srgb", suffix: ".jpg[Q=90]")
    let p3 = try FixtureImage.withProfile(photo, profile: "p3", suffix: ".jpg[Q=90]")
    #expect(PlainJPEG.header(of: srgb)?.plain == true)
    #expect(PlainJPEG.header(of: p3)?.plain == false)
    #expect(
      try FixtureImage.meanDE00(try ImageProcessor.process(srgb, options: ImageOptions()).thumbnail.data, against: srgb)
        < Self.closeMatch)
  }
}
