import CGallerySystem
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Owns one open file descriptor; closes it on deinit. Every call retries on EINTR and turns
/// failure into a thrown `POSIXError` carrying the path.
package final class FileHandleFD {
  package let rawValue: Int32
  package let path: String

  package init(path: String, flags: Int32, mode: mode_t = 0o644) throws(FileSystemError) {
    let fd = PathBytes.withCString(path) { name in retryingEINTR { open(name, flags | O_CLOEXEC, mode) } }
    guard fd >= 0 else { throw FileSystemError(errno: errno, operation: "open", path: path) }
    rawValue = fd
    self.path = path
  }

  /// Opens again the file `name` refers to (an `O_PATH` descriptor), keeping its path for
  /// messages. The corresponding C function is `open` of `/proc/self/fd/N`.
  package init(reopening name: FileHandleFD, flags: Int32) throws(FileSystemError) {
    let fd = retryingEINTR { open("/proc/self/fd/\(name.rawValue)", flags | O_CLOEXEC) }
    guard fd >= 0 else { throw FileSystemError(errno: errno, operation: "open", path: name.path) }
    rawValue = fd
    path = name.path
  }

  /// Takes ownership of a descriptor opened elsewhere (a pipe's end).
  package init(adopting descriptor: Int32, path: String) {
    rawValue = descriptor
    self.path = path
  }

  deinit { close(rawValue) }

  /// The file's size. The corresponding C function is `fstat`.
  package func size() throws(FileSystemError) -> Int64 { Int64(try status().st_size) }

  /// The corresponding C function is `fstat`.
  package func status() throws(FileSystemError) -> stat {
    var info = stat()
    guard fstat(rawValue, &info) == 0 else { throw FileSystemError(errno: errno, operation: "fstat", path: path) }
    return info
  }

  /// Whether `path` names this file now (the same device and inode). The corresponding C
  /// functions are `fstat` and `stat`.
  package func isNamed(by path: String) -> Bool {
    guard let held = try? status(), let named = FileSystem.status(of: path) else { return false }
    return held.st_dev == named.st_dev && held.st_ino == named.st_ino
  }

  /// The name the file has now, however it was renamed since it was opened (the kernel
  /// keeps it: `/proc/self/fd/N`), or nil when it has none left (removed, or replaced by
  /// another file renamed over its name). The corresponding C function is `readlink`.
  package func currentPath() -> String? {
    guard let held = try? status(), held.st_nlink > 0 else { return nil }
    var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = buffer.withUnsafeMutableBytes { bytes in
      readlink("/proc/self/fd/\(rawValue)", bytes.baseAddress!.assumingMemoryBound(to: CChar.self), bytes.count - 1)
    }
    guard count > 0, buffer[0] == UInt8(ascii: "/") else { return nil }
    return PathBytes.string(buffer[..<count])
  }

  /// The corresponding C function is `flock`.
  package func lockExclusive() throws(FileSystemError) {
    guard retryingEINTR({ flock(rawValue, LOCK_EX) }) == 0 else {
      throw FileSystemError(errno: errno, operation: "flock", path: path)
    }
  }

  /// The corresponding C function is `lseek`.
  package func seek(to offset: Int64) throws(FileSystemError) {
    guard lseek(rawValue, off_t(offset), SEEK_SET) >= 0 else {
      throw FileSystemError(errno: errno, operation: "lseek", path: path)
    }
  }

  package var offset: Int64 { Int64(lseek(rawValue, 0, SEEK_CUR)) }

  /// The corresponding C function is `ftruncate`.
  package func truncate(to length: Int64) throws(FileSystemError) {
    guard retryingEINTR({ ftruncate(rawValue, off_t(length)) }) == 0 else {
      throw FileSystemError(errno: errno, operation: "ftruncate", path: path)
    }
  }

  /// Starts writing `count` bytes from `offset` to the disk without waiting for them: a
  /// later `sync` then waits for less. Only a hint; the corresponding C function is
  /// `sync_file_range` (`SYNC_FILE_RANGE_WRITE`).
  package func startWriteback(from offset: Int64, count: Int64) {
    _ = CGallerySystem_start_writeback(rawValue, offset, count)
  }

  /// The corresponding C function is `fsync`.
  package func sync() throws(FileSystemError) {
    guard retryingEINTR({ fsync(rawValue) }) == 0 else {
      throw FileSystemError(errno: errno, operation: "fsync", path: path)
    }
  }

  /// Reads up to `count` bytes from the current offset (fewer at the end of the file), into
  /// a buffer of `expected` bytes at first (a file's size, when known), grown while more
  /// arrives. A buffer sized to a limit far above what is read would be memory of its own,
  /// given back to the kernel and faulted in again for every file; one of the file's size
  /// is memory the allocator reuses.
  /// The corresponding C function is `read`.
  package func read(upTo count: Int, expecting expected: Int? = nil) throws(FileSystemError) -> Data {
    var capacity = min(count, max(expected ?? count, 1))
    var data = Data(count: capacity)
    var filled = 0
    while filled < count {
      let n = data.withUnsafeMutableBytes { raw in Glibc.read(rawValue, raw.baseAddress! + filled, capacity - filled) }
      if n < 0 {
        if errno == EINTR { continue }
        throw FileSystemError(errno: errno, operation: "read", path: path)
      }
      if n == 0 { break }
      filled += n
      if filled == capacity, capacity < count {
        capacity = min(count, capacity * 2)
        data.count = capacity
      }
    }
    return data.prefix(filled)
  }

  /// Reads `count` bytes at `offset` (fewer at the end of the file) without moving the
  /// offset, so that several readers may share the descriptor. The corresponding C function
  /// is `pread`.
  package func read(at offset: Int64, count: Int) throws(FileSystemError) -> Data {
    var data = Data(count: count)
    data.withUnsafeMutableBytes { raw in
      if let base = raw.baseAddress { HugePages.advise(base, count: raw.count) }
    }
    var filled = 0
    while filled < count {
      let n = data.withUnsafeMutableBytes { raw in
        pread(rawValue, raw.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled))
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw FileSystemError(errno: errno, operation: "pread", path: path)
      }
      if n == 0 { break }
      filled += n
    }
    return filled == count ? data : data.prefix(filled)
  }

  /// The same file opened again for reading, as a new open file description: it shares
  /// neither the offset nor the `flock` of this one, so holding it never holds a lock.
  /// The corresponding C function is `open` (of `/proc/self/fd/N`).
  package func reopenedForReading() throws(FileSystemError) -> FileHandleFD {
    // The magic link opens the very inode this descriptor has, even if renamed since.
    let fd = retryingEINTR { open("/proc/self/fd/\(rawValue)", O_RDONLY | O_CLOEXEC) }
    guard fd >= 0 else { throw FileSystemError(errno: errno, operation: "open", path: path) }
    return FileHandleFD(adopting: fd, path: path)
  }

  /// Writes all of `data` at the current offset. The corresponding C function is `write`.
  package func writeAll(_ data: Data) throws(FileSystemError) {
    let result: Int32 = data.withUnsafeBytes { raw in
      var done = 0
      while done < raw.count {
        let n = write(rawValue, raw.baseAddress! + done, raw.count - done)
        if n < 0 {
          if errno == EINTR { continue }
          return errno
        }
        done += n
      }
      return 0
    }
    guard result == 0 else { throw FileSystemError(errno: result, operation: "write", path: path) }
  }
}

/// A failed system call on a path, with the errno's text.
package struct FileSystemError: Error, CustomStringConvertible {
  package let errno: Int32
  package let operation: String
  package let path: String

  package var description: String { "\(path): \(String(cString: strerror(errno)))" }
  package var code: POSIXErrorCode? { POSIXErrorCode(rawValue: errno) }
}

package func retryingEINTR<T: BinaryInteger>(_ call: () -> T) -> T {
  while true {
    let result = call()
    if result < 0 && errno == EINTR { continue }
    return result
  }
}

/// Makes a rename durable. The corresponding C function is `fsync` on the directory.
package func syncDirectory(containing path: String) {
  let directory = (path as NSString).deletingLastPathComponent
  if let fd = try? FileHandleFD(path: directory.isEmpty ? "." : directory, flags: O_RDONLY | O_DIRECTORY) {
    try? fd.sync()
  }
}
