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
    #expect(items.count == 5 && items.allSatisfy { $0.state == "ready" })

    let export = try Run.gallery(["export", example, "--to", work.path("out")])
    #expect(export.status == 0, "\(export.stderr)")
    let exported = export.stdout.split(separator: "\n").map { (String($0) as NSString).lastPathComponent }
    let samples = try FileManager.default.contentsOfDirectory(atPath: Self.samples).filter {
      $0.contains(".") && !$0.hasSuffix(".gallery")
    }
    #expect(Set(exported) == Set(samples))
    for name in exported {
      #expect(try work.bytes(work.path("out/" + name)) == (try work.bytes(Self.samples + "/" + name)))
    }
  }
}
