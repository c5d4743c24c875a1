import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem
import Synchronization

/// JSON for standard output, one rule for every `--json`: sorted keys, ISO 8601 dates,
/// absent members left out, pretty-printed when standard output is a terminal (a person
/// reads it), one line in a pipe or a file (a program reads it). `watch --events json` is a
/// stream: one object a line.
///
/// Reports are `Encodable` and written by Foundation's `JSONEncoder`. Items (`show`,
/// `find`, `trash --list`, `drop`) are written by the model's own codec, as `gallery.json`
/// holds them: a listing of 100,000 items is its one hot path (see `bench/json`).
enum JSONOutput {
  static var pretty: Bool { StandardStream.output.isTerminal }

  /// A report, compact, one line, or indented for a terminal.
  static func write(_ value: some Encodable) throws {
    Terminal.out(try encoded(value, pretty: pretty) + [0x0A])
  }

  /// `value` as `--json` writes it.
  static func encoded(_ value: some Encodable, pretty: Bool = false) throws -> [UInt8] {
    Array(try JSONEncoder.sorted(pretty: pretty).encode(value))
  }

  /// Items, or what holds them, written by the model's codec: compact, one line, or
  /// indented for a terminal.
  static func write<T: JSONWritable>(items value: T) throws {
    try write(compact: value.jsonBytes + [0x0A])
  }

  /// JSON written by our own codec in pieces, each written out as it comes (a listing of
  /// 100,000 items is never whole in memory), or collected and re-indented for a terminal.
  static func write(pieces: (_ emit: @Sendable ([UInt8]) -> Void) -> Void) throws {
    guard pretty else { return pieces { Terminal.out($0) } }
    let bytes = Mutex<[UInt8]>([])
    pieces { piece in bytes.withLock { $0 += piece } }
    try write(compact: bytes.withLock { $0 })
  }

  /// JSON written by our own codec (compact): re-indented for a terminal.
  static func write(compact bytes: [UInt8]) throws {
    guard pretty else { return Terminal.out(bytes) }
    let object = try JSONSerialization.jsonObject(with: Data(bytes))
    let data = try JSONSerialization.data(
      withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    Terminal.out(Array(data) + [0x0A])
  }
}
