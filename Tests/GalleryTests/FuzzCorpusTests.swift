import Foundation
import Testing

/// The fuzz targets' committed inputs, replayed through the same code libFuzzer drives
/// (`make fuzz`): the seed corpus, and every input that once crashed (Tests/Fuzz/crashes),
/// which must never crash again.
@Suite("Fuzz corpus: seeds and past findings replayed")
struct FuzzCorpusTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fuzz")

  static let replayer = URL(fileURLWithPath: Run.galleryBinary).deletingLastPathComponent()
    .appendingPathComponent("gallery-fuzz").path

  @Test(
    "Every committed input of every target runs through without a crash",
    arguments: ["document", "model", "drop-input", "jpeg", "view-request"])
  func replay(_ target: String) throws {
    var inputs: [String] = []
    for folder in ["corpus", "crashes"] {
      let directory = Self.root.appendingPathComponent(folder).appendingPathComponent(target).path
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
      inputs += names.filter { !$0.hasPrefix(".") }.sorted().map { directory + "/" + $0 }
    }
    #expect(inputs.count >= 3, "the seed corpus of \(target) is missing")
    let result = try Run.program(Self.replayer, [target] + inputs)
    #expect(!result.signaled && result.status == 0, "\(target): \(result.stderr)")
    #expect(result.stdout.contains("replayed \(inputs.count) input(s)"))
  }
}
