import Foundation
import GalleryDocument
import GalleryModel

/// `json-bench CHECKPOINT [RUNS]`: reads and writes a `gallery.json` with the model's
/// hand-written codec and with Foundation's Codable (`JSONDecoder`/`JSONEncoder`, ISO 8601
/// dates, sorted keys), each the median of RUNS, and says whether each reads what the other
/// writes. `bench/json` runs it on checkpoints of 1,000 to 100,000 items. Neither side
/// validates: that is the same work either way.
@main
enum JSONBench {
  static func main() throws {
    let arguments = CommandLine.arguments
    guard arguments.count >= 2 else {
      FileHandle.standardError.write(Data("usage: json-bench CHECKPOINT [RUNS]\n".utf8))
      exit(64)
    }
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
    let runs = arguments.count > 2 ? max(1, Int(arguments[2]) ?? 5) : 5
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let encoder = JSONEncoder.sorted()

    func median(_ body: () throws -> Void) rethrows -> Double {
      var times: [Double] = []
      for _ in 0..<runs {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
      }
      return times.sorted()[times.count / 2]
    }
    func handRead(_ bytes: Data) throws -> GalleryModel {
      try bytes.withUnsafeBytes { raw in
        var reader = JSONReader(raw)
        return try reader.model()
      }
    }

    let model = try handRead(data)
    let handReading = try median { _ = try handRead(data) }
    let codableReading = try median { _ = try decoder.decode(GalleryModel.self, from: data) }
    let handWriting = median { _ = ModelCoding.encode(model) }
    let codableWriting = try median { _ = try encoder.encode(model) }
    let codableReadsHand = (try? decoder.decode(GalleryModel.self, from: ModelCoding.encode(model))) == model
    let handReadsCodable = (try? handRead(try encoder.encode(model))) == model

    func line(_ what: String, _ hand: Double, _ codable: Double) -> String {
      String(format: "%-6@ %7.1f ms hand, %7.1f ms Codable: Codable %.2fx", what, hand, codable, codable / hand)
    }
    print("\(model.items.count) items, \(data.count) bytes, median of \(runs)")
    print(line("read", handReading, codableReading))
    print(line("write", handWriting, codableWriting))
    print("Codable reads what the hand codec writes: \(codableReadsHand ? "yes" : "NO")")
    print("the hand codec reads what Codable writes: \(handReadsCodable ? "yes" : "NO")")
  }
}
