import CArchive
import Foundation

/// An error reported by libarchive, with its message copied at once.
package struct ArchiveError: Error, CustomStringConvertible {
  /// libarchive's status (`ARCHIVE_FATAL`, `ARCHIVE_FAILED`, ...).
  package let status: Int32
  package let message: String
  package let operation: String
  /// A write failed (I/O), rather than a read (damage).
  package let writing: Bool
  /// The system's errno behind a failed write (a full disk), when libarchive kept one.
  package var errorNumber: Int32? = nil

  package var description: String { "\(operation): \(message)" }

  private init(status: Int32, message: String, operation: String, writing: Bool) {
    self.status = status
    self.message = message
    self.operation = operation
    self.writing = writing
  }

  /// An entry written with other than the size its header gave.
  static func sizeMismatch(_ name: String, size: Int, given: Int) -> ArchiveError {
    ArchiveError(
      status: ARCHIVE_FATAL, message: "\(given) bytes for an entry of \(size)", operation: "writing \(name)", writing: true)
  }

  package init(_ handle: OpaquePointer, status: Int32, operation: String, writing: Bool = false) {
    self.status = status
    self.operation = operation
    self.writing = writing
    var text = archive_error_string(handle).map { String(cString: $0) }
    // libarchive's "Write error" says nothing of why: the system's words do (a full disk).
    // (Only for writes: a read's errno is libarchive's format code, not the system's.)
    let code = archive_errno(handle)
    if writing, code > 0 {
      errorNumber = code
      let reason = String(cString: strerror(code))
      if !(text ?? "").localizedCaseInsensitiveContains(reason) { text = text.map { "\($0): \(reason)" } ?? reason }
    }
    message = text ?? (status == ARCHIVE_EOF ? "unexpected end of archive" : "error \(status)")
  }
}

/// Reads a tar archive entry by entry from a file descriptor, from the descriptor's current
/// offset on. Owns the `struct archive *`; never owns the descriptor.
package final class ArchiveReader {
  private let handle: OpaquePointer

  package struct Entry {
    package var name: String
    package var size: Int64
    /// A plain file: not a link, a device, a folder or a sparse file.
    package var isRegularFile: Bool
  }

  package init(fileDescriptor: Int32) throws {
    guard let handle = archive_read_new() else { throw POSIXError(.ENOMEM) }
    self.handle = handle
    do {
      // Only tar, uncompressed: a document is never anything else, and every other
      // format's parser is attack surface.
      try check(archive_read_support_format_tar(handle), "archive_read_support_format_tar")
      try check(archive_read_support_filter_none(handle), "archive_read_support_filter_none")
      try check(archive_read_open_fd(handle, fileDescriptor, 64 * 1024), "archive_read_open_fd")
    }
    // A throw above still runs deinit (every property is set), which frees the handle.
  }

  deinit { archive_read_free(handle) }

  /// What reading the next header found.
  package enum Header {
    case entry(Entry)
    /// A clean end-of-archive marker.
    case end
    /// A block that is not a valid header (libarchive's retry status) or a header libarchive
    /// warned about: damage, after which reading can go on (as bsdtar does).
    case damaged(String)
    /// Reading cannot go on: the file ends inside an entry, or worse.
    case fatal(String)
  }

  /// The next header. The corresponding C function is `archive_read_next_header`.
  package func nextHeader() -> Header {
    var entry: OpaquePointer?
    let status = archive_read_next_header(handle, &entry)
    switch status {
    case ARCHIVE_OK:
      guard let entry else { return .fatal("no entry") }
      let name = archive_entry_pathname(entry).map { String(cString: $0) } ?? ""
      let type = UInt32(archive_entry_filetype(entry))
      let sparse = archive_entry_sparse_count(entry) > 0
      let linked = archive_entry_hardlink(entry) != nil || archive_entry_symlink(entry) != nil
      return .entry(
        Entry(
          name: name, size: archive_entry_size(entry),
          isRegularFile: type == CArchive_AE_IFREG && !sparse && !linked))
    case ARCHIVE_EOF:
      return .end
    case ARCHIVE_RETRY, ARCHIVE_WARN:
      return .damaged(ArchiveError(handle, status: status, operation: "reading an entry header").message)
    default:
      return .fatal(ArchiveError(handle, status: status, operation: "reading an entry header").message)
    }
  }

  /// The next entry, or nil at the end of the archive. Throws on anything but a clean header.
  package func next() throws -> Entry? {
    switch nextHeader() {
    case .entry(let entry): return entry
    case .end: return nil
    case .damaged(let message), .fatal(let message):
      throw ArchiveError(status: ARCHIVE_FATAL, message: message, operation: "reading an entry header")
    }
  }

  /// Offset in the file where the header last asked for starts (or the end-of-archive marker,
  /// or the torn bytes that stopped the read).
  /// The corresponding C function is `archive_read_header_position`.
  package var headerPosition: Int64 { archive_read_header_position(handle) }

  /// Offset in the file, from where the reader started, of the data of the entry whose
  /// header was read last (past any pax header): where its data can be read directly. The
  /// corresponding C function is `archive_filter_bytes` (of the filter the format reads).
  package var dataPosition: Int64 { archive_filter_bytes(handle, 0) }

  /// Reads the current entry's data, refusing sizes above `limit`. Memory grows with the
  /// bytes actually read, never with the size a (hostile) header claims.
  ///
  /// `available`, the bytes the file holds from here, lets a large entry be read into one
  /// buffer of its size: the header's size alone is never trusted for an allocation.
  package func readData(size: Int64, limit: Int64, available: Int64 = 0) throws -> Data {
    guard size >= 0, size <= limit else {
      throw ArchiveError.limit(size: size, limit: limit)
    }
    // What the file can hold is read straight into one buffer; beyond it (when `available`
    // is not given), the data grows with what actually arrives.
    var data = Data(count: Int(max(0, min(size, available))))
    var filled = 0
    while filled < data.count {
      let n = data.withUnsafeMutableBytes { archive_read_data(handle, $0.baseAddress! + filled, $0.count - filled) }
      if n == 0 { break }
      guard n > 0 else { throw ArchiveError(handle, status: Int32(n), operation: "reading entry data") }
      filled += n
    }
    guard filled == data.count else {
      throw ArchiveError(status: ARCHIVE_FATAL, message: "truncated entry data", operation: "reading entry data")
    }
    var chunk = [UInt8](repeating: 0, count: Int(min(size - Int64(filled), 256 * 1024)))
    while data.count < size {
      let wanted = min(chunk.count, Int(size) - data.count)
      let n = chunk.withUnsafeMutableBytes { archive_read_data(handle, $0.baseAddress!, wanted) }
      if n == 0 { break }
      guard n > 0 else { throw ArchiveError(handle, status: Int32(n), operation: "reading entry data") }
      data.append(contentsOf: chunk[0..<n])
    }
    guard data.count == size else {
      throw ArchiveError(status: ARCHIVE_FATAL, message: "truncated entry data", operation: "reading entry data")
    }
    return data
  }

  /// Skips the current entry's data (with seeks when the descriptor allows them).
  package func skipData() throws {
    let status = archive_read_data_skip(handle)
    guard status >= ARCHIVE_WARN else { throw ArchiveError(handle, status: status, operation: "skipping entry data") }
  }

  private func check(_ status: Int32, _ operation: String) throws {
    guard status >= ARCHIVE_WARN else { throw ArchiveError(handle, status: status, operation: operation) }
  }
}

extension ArchiveError {
  package static func limit(size: Int64, limit: Int64) -> ArchiveError {
    ArchiveError(
      status: ARCHIVE_FATAL, message: "entry of \(size) bytes is over the limit of \(limit)", operation: "reading entry data")
  }

  package init(status: Int32, message: String, operation: String) {
    self.status = status
    self.message = message
    self.operation = operation
    writing = false
  }
}

/// Writes pax (restricted) tar entries to a file descriptor at its current offset, with no
/// block padding, so entries can be appended precisely. Owns the `struct archive *`.
package final class ArchiveWriter {
  private let handle: OpaquePointer
  private var closed = false

  package init(fileDescriptor: Int32) throws {
    guard let handle = archive_write_new() else { throw POSIXError(.ENOMEM) }
    self.handle = handle
    do {
      try check(archive_write_set_format_pax_restricted(handle), "archive_write_set_format_pax_restricted")
      try check(archive_write_add_filter_none(handle), "archive_write_add_filter_none")
      // No blocking: bytes go out as entries are written, and nothing pads the end.
      try check(archive_write_set_bytes_per_block(handle, 0), "archive_write_set_bytes_per_block")
      try check(archive_write_set_bytes_in_last_block(handle, 1), "archive_write_set_bytes_in_last_block")
      try check(archive_write_open_fd(handle, fileDescriptor), "archive_write_open_fd")
    }
    // A throw above still runs deinit (every property is set), which frees the handle.
  }

  deinit {
    if !closed { archive_write_fail(handle) }
    archive_write_free(handle)
  }

  /// Writes one regular file entry. The corresponding C functions are
  /// `archive_write_header` and `archive_write_data`.
  package func write(name: String, data: Data, modified: Date) throws {
    try write(name: name, size: data.count, modified: modified) { write in try data.withUnsafeBytes(write) }
  }

  /// Writes one regular file entry of `size` bytes, which `produce` hands to the function it
  /// is given a piece at a time. Throws, the entry unfinished, when they are not `size`
  /// bytes (libarchive would pad a short entry with zeros).
  package func write(
    name: String, size: Int, modified: Date, produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
  ) throws {
    guard let entry = archive_entry_new() else { throw POSIXError(.ENOMEM) }
    defer { archive_entry_free(entry) }
    archive_entry_set_pathname_utf8(entry, name)
    archive_entry_set_filetype(entry, CArchive_AE_IFREG)
    archive_entry_set_perm(entry, 0o644)
    archive_entry_set_size(entry, la_int64_t(size))
    archive_entry_set_mtime(entry, time_t(modified.timeIntervalSince1970), 0)
    try check(archive_write_header(handle, entry), "writing the header of \(name)")
    var written = 0
    try produce { raw in
      guard raw.count <= size - written else { throw ArchiveError.sizeMismatch(name, size: size, given: written + raw.count) }
      var offset = 0
      while offset < raw.count {
        let n = archive_write_data(handle, raw.baseAddress! + offset, raw.count - offset)
        guard n > 0 else { throw ArchiveError(handle, status: Int32(n), operation: "writing \(name)", writing: true) }
        offset += n
      }
      written += raw.count
    }
    guard written == size else { throw ArchiveError.sizeMismatch(name, size: size, given: written) }
    try check(archive_write_finish_entry(handle), "finishing \(name)")
  }

  /// Writes the end-of-archive marker.
  package func close() throws {
    closed = true
    try check(archive_write_close(handle), "closing the archive")
  }

  private func check(_ status: Int32, _ operation: String) throws {
    guard status >= ARCHIVE_WARN else { throw ArchiveError(handle, status: status, operation: operation, writing: true) }
  }
}
