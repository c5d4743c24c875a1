import CZlib

/// CRC-32 (zlib's, as gzip and zip use it) of bytes given in pieces.
/// The corresponding C function is `crc32`.
package struct CRC32: Sendable {
  package private(set) var value: UInt32 = 0

  package init() {}

  package init(_ bytes: UnsafeRawBufferPointer) { update(bytes) }

  package mutating func update(_ bytes: UnsafeRawBufferPointer) {
    var rest = bytes
    // zlib takes a 32-bit length.
    while !rest.isEmpty {
      let count = min(rest.count, 1 << 30)
      value = UInt32(crc32(uLong(value), rest.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(count)))
      rest = UnsafeRawBufferPointer(rebasing: rest[count...])
    }
  }
}
