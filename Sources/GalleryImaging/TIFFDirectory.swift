import Foundation

/// The first directory of a TIFF (and of a camera RAW file built as one): its entries, and
/// the bytes of a value wherever it lies. Untrusted bytes: every offset and length is checked
/// against what is there, and a directory claiming more entries than any camera writes is
/// not read.
struct TIFFDirectory {
  struct Entry {
    var tag: Int
    var type: Int
    var count: Int
    /// Where the entry lies: its value is in its last four bytes when it fits, else at the
    /// offset they give.
    var offset: Int
  }

  static let entryLimit = 1000

  private let data: Data
  private let littleEndian: Bool
  /// In the file's order, up to the first that lies past its end.
  private(set) var entries: [Entry] = []

  init?(_ data: Data) {
    let signature = [UInt8](data.prefix(4))
    guard signature == [0x49, 0x49, 0x2A, 0x00] || signature == [0x4D, 0x4D, 0x00, 0x2A] else { return nil }
    self.data = data
    littleEndian = signature[0] == 0x49
    guard let directory = integer(at: 4, size: 4), let count = integer(at: directory, size: 2), count < Self.entryLimit
    else { return nil }
    for index in 0..<count {
      let at = directory + 2 + 12 * index
      guard let tag = integer(at: at, size: 2), let type = integer(at: at + 2, size: 2),
        let valueCount = integer(at: at + 4, size: 4), at + 12 <= data.count
      else { break }
      entries.append(Entry(tag: tag, type: type, count: valueCount, offset: at))
    }
  }

  /// The unsigned integer of `size` bytes (at most 4) at `at`, in the file's byte order.
  func integer(at: Int, size: Int) -> Int? {
    guard at >= 0, size <= 4, at <= data.count - size else { return nil }
    let start = data.startIndex + at
    var value = 0
    for index in 0..<size {
      value |= Int(data[start + (littleEndian ? index : size - 1 - index)]) << (8 * index)
    }
    return value
  }

  /// The value of `entry`, `unit` bytes per counted element, as bytes: nil when it is empty,
  /// over `limit` bytes or not all in the file.
  func bytes(of entry: Entry, unit: Int, limit: Int) -> [UInt8]? {
    let size = unit * entry.count
    guard unit > 0, size > 0, size <= limit else { return nil }
    guard let start = size <= 4 ? entry.offset + 8 : integer(at: entry.offset + 8, size: 4), start <= data.count - size
    else { return nil }
    return [UInt8](data[(data.startIndex + start)..<(data.startIndex + start + size)])
  }
}
