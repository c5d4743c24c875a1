import Foundation
import GalleryKit
import Testing

@Suite("Samples/: the bundled images and the ready example gallery")
struct SamplesTests {
  static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Samples").path

  @Test("Example.gallery opens, checks clean, and exports the sample images from its embedded originals")
  func exampleGallery() throws {
    let work = try TestWorkspace()
    // A copy: the test must not touch the committed file.
    let example = work.path("Example.gallery")
    try FileManager.default.copyItem(atPath: Self.samples + "/Example.gallery", toPath: example)
    let check = try Run.gallery(["check", example])
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    let items = try Listing.of(example).items
    #expect(items.count == 8 && items.allSatisfy { $0.state == "ready" })

    let export = try Run.gallery(["export", example, "--to", work.path("out")])
    #expect(export.status == 0, "\(export.stderr)")
    let exported = export.stdout.split(separator: "\n").map { (String($0) as NSString).lastPathComponent }
    let images = ["jpg", "heic", "tif", "webp", "png", "gif"]
    let samples = try FileManager.default.contentsOfDirectory(atPath: Self.samples).filter {
      images.contains(($0 as NSString).pathExtension)
    }
    #expect(Set(exported) == Set(samples))
    for name in exported {
      #expect(try work.bytes(work.path("out/" + name)) == (try work.bytes(Self.samples + "/" + name)))
    }
  }

  @Test("The samples are what Samples/CREDITS.md says: real photos, one EXIF-rotated, one P3, a HEIC, a TIFF, a panorama")
  func samples() throws {
    let shown = try Listing.of(Self.samples + "/Example.gallery").items
    let byName = Dictionary(uniqueKeysWithValues: shown.map { (($0.source as NSString).lastPathComponent, $0) })
    #expect(byName["portrait-exif-rotated.jpg"].map { ($0.width ?? 0) < ($0.height ?? 0) } == true)
    #expect(byName["photo.heic"]?.format == "heif")
    #expect(byName["scan.tif"]?.format == "tiff")
    #expect(byName["wide.webp"].map { $0.aspectRatio > 4 } == true)
    let p3 = try Data(contentsOf: URL(fileURLWithPath: Self.samples + "/p3.jpg"))
    #expect(p3.range(of: Data("ICC_PROFILE".utf8)) != nil)
    let credits = try String(contentsOfFile: Self.samples + "/CREDITS.md", encoding: .utf8)
    for name in byName.keys { #expect(credits.contains("`\(name)`"), "\(name) has no credit") }
  }
}
