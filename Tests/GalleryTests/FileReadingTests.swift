import Foundation
import Testing

@testable import GallerySystem

/// Reading a file whose size was told beforehand: the size sizes the buffer, never what is
/// read (a file may grow or shrink between the stat and the read).
@Suite("Reading files")
struct FileReadingTests {
  @Test("Up to the limit, whatever size was expected: what the file holds, in full")
  func readsWhatIsThere() throws {
    let work = try TestWorkspace()
    let path = work.path("bytes")
    for size in [0, 1, 4095, 4096, 70_000] {
      let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
      try bytes.write(to: URL(fileURLWithPath: path))
      for count in [1, 4096, 100_000] {
        for expected in [nil, 1, size / 3 + 1, size + 1, 1 << 20] {
          let file = try FileHandleFD(path: path, flags: O_RDONLY)
          let read = try file.read(upTo: count, expecting: expected)
          #expect(read == bytes.prefix(count), "\(size) bytes, up to \(count), expecting \(String(describing: expected))")
        }
      }
    }
    // Through the limit check: a file one byte over is refused, one at the limit is read.
    try Data(count: 5000).write(to: URL(fileURLWithPath: path))
    #expect(try FileSystem.read(path, limit: 5000).count == 5000)
    #expect(throws: FileSystem.ReadFailure.self) { try FileSystem.read(path, limit: 4999) }
  }
}
