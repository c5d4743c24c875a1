#if canImport(Glibc)
  import Glibc
#endif

/// Buffers of megabytes that a process fills once, whole (an index of 100,000 entries as it
/// is read, or as it is written): the kernel is asked to back them with huge pages, so that
/// filling one faults once every 2 MiB instead of once every 4 KiB. Not for a buffer reserved
/// larger than it will be filled: a huge page is resident whole once touched. Only a hint:
/// where transparent huge pages are off, or the buffer is smaller than two of them, nothing
/// changes. The corresponding C function is `madvise` (`MADV_HUGEPAGE`).
package enum HugePages {
  private static let size = 2 << 20

  /// Advises the whole huge pages inside `count` bytes from `base` not written yet.
  package static func advise(_ base: UnsafeMutableRawPointer, count: Int) {
    guard count >= 2 * size else { return }
    let start = (UInt(bitPattern: base) + UInt(size - 1)) & ~UInt(size - 1)
    let end = (UInt(bitPattern: base) + UInt(count)) & ~UInt(size - 1)
    guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
    _ = madvise(aligned, Int(end - start), MADV_HUGEPAGE)
  }

  /// Advises the capacity `array` reserved and holds no element in yet.
  package static func advise<Element>(_ array: inout [Element]) {
    let stride = MemoryLayout<Element>.stride
    let spare = (array.capacity - array.count) * stride
    guard spare >= 2 * size else { return }
    array.withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      advise(UnsafeMutableRawPointer(base + buffer.count), count: spare)
    }
  }
}
