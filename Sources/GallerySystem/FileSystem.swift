import CGallerySystem
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// File operations on paths that may come from someone else (a document's sources, a drop
/// folder's entries): every read is bounded, nothing blocks on a FIFO, and links are
/// followed only when the caller says so.
package enum FileSystem {
  /// Why a local file could not be read.
  package enum ReadFailure: Error, CustomStringConvertible, Equatable {
    case system(String)
    case notRegular
    case symbolicLink
    case tooLarge(limit: Int)

    package var description: String {
      switch self {
      case .system(let text): text
      case .notRegular: "not a regular file"
      case .symbolicLink: "a symbolic link (not followed here)"
      case .tooLarge(let limit):
        "larger than the limit of \(ByteCountFormatter.string(fromByteCount: Int64(limit), countStyle: .binary)) (see --max-download-size)"
      }
    }
  }

  /// Opens a path without blocking (a FIFO would block `open` itself) and says what kind of
  /// file it is (`S_IFREG`, `S_IFDIR`, ...) before a byte is read: every caller refuses what
  /// is not a regular file. Regular files ignore `O_NONBLOCK`.
  package static func openWithoutBlocking(
    _ path: String, flags: Int32
  ) throws(FileSystemError) -> (file: FileHandleFD, type: mode_t) {
    do {
      let file = try FileHandleFD(path: path, flags: flags | O_NONBLOCK)
      return (file, try file.status().st_mode & S_IFMT)
    } catch  where error.errno == EWOULDBLOCK {
      return try openBreakingLease(path, flags: flags)
    }
  }

  /// A regular file under another process's lease refuses a non-blocking open for writing.
  /// The same inode is opened again, blocking, through a descriptor that only names it: the
  /// kernel breaks the lease, and what is opened is surely the regular file refused.
  private static func openBreakingLease(
    _ path: String, flags: Int32
  ) throws(FileSystemError) -> (file: FileHandleFD, type: mode_t) {
    let name = try FileHandleFD(path: path, flags: CGallerySystem_O_PATH | (flags & O_NOFOLLOW))
    let type = try name.status().st_mode & S_IFMT
    guard type == S_IFREG else { return (name, type) }
    return (try FileHandleFD(reopening: name, flags: flags & ~O_NOFOLLOW), type)
  }

  /// Opens a file for reading, refusing anything but a regular file.
  package static func openRegular(_ path: String, followLinks: Bool) throws(ReadFailure) -> FileHandleFD {
    let opened: (file: FileHandleFD, type: mode_t)
    do {
      opened = try openWithoutBlocking(path, flags: O_RDONLY | (followLinks ? 0 : O_NOFOLLOW))
    } catch {
      if error.errno == ELOOP && !followLinks { throw .symbolicLink }
      throw .system(String(cString: strerror(error.errno)).lowercased())
    }
    guard opened.type == S_IFREG else { throw .notRegular }
    _ = CGallerySystem_clear_nonblock(opened.file.rawValue)
    return opened.file
  }

  /// Reads a whole regular file of at most `limit` bytes. Reads at most `limit + 1` bytes
  /// whatever the file says its size is (files in /proc say 0 and never end).
  package static func read(_ path: String, limit: Int, followLinks: Bool = true) throws(ReadFailure) -> Data {
    let file = try openRegular(path, followLinks: followLinks)
    let size = (try? file.status()).map { Int($0.st_size) }
    if let size, size > limit { throw .tooLarge(limit: limit) }
    let data: Data
    do {
      // One byte more than the size: the end is seen without growing the buffer.
      data = try file.read(upTo: limit + 1, expecting: size.map { $0 + 1 })
    } catch { throw .system(String(cString: strerror(error.errno)).lowercased()) }
    guard data.count <= limit else { throw .tooLarge(limit: limit) }
    return data
  }

  /// Reads at most `count` bytes from the start of a regular file (for content sniffing).
  package static func readPrefix(
    _ path: String, count: Int, followLinks: Bool = true
  ) throws(ReadFailure) -> (prefix: Data, size: Int64) {
    let file = try openRegular(path, followLinks: followLinks)
    let size = (try? file.status()).map { Int64($0.st_size) } ?? 0
    do { return (try file.read(upTo: count), size) } catch { throw .system(String(cString: strerror(error.errno)).lowercased()) }
  }

  /// The path with every symbolic link resolved, or the path itself when it cannot be.
  /// The corresponding C function is `realpath`.
  package static func resolvingLinks(_ path: String) -> String {
    guard let resolved = PathBytes.withCString(path, { realpath($0, nil) }) else { return path }
    defer { free(resolved) }
    return PathBytes.string(cString: resolved)
  }

  /// A descriptor that holds on to the file `path` names (`O_PATH`: nothing is read or
  /// locked through it), so that its new name can be found after a rename
  /// (`FileHandleFD.currentPath`). Nil when it cannot be opened.
  package static func holdOn(to path: String) -> FileHandleFD? {
    try? FileHandleFD(path: path, flags: CGallerySystem_O_PATH)
  }

  /// `stat` of a path (following links), or nil.
  package static func status(of path: String) -> stat? { try? statusOrError(of: path) }

  /// The corresponding C function is `stat`.
  package static func statusOrError(of path: String) throws(FileSystemError) -> stat {
    var info = stat()
    guard PathBytes.withCString(path, { stat($0, &info) }) == 0 else {
      throw FileSystemError(errno: errno, operation: "stat", path: path)
    }
    return info
  }

  /// The status of `path` itself, a symbolic link not followed. The corresponding C function
  /// is `lstat`.
  package static func linkStatus(of path: String) -> stat? {
    var info = stat()
    return PathBytes.withCString(path) { lstat($0, &info) } == 0 ? info : nil
  }

  /// Whether two paths name the same file (device and inode).
  package static func isSameFile(_ a: String, _ b: String) -> Bool {
    guard let first = status(of: a), let second = status(of: b) else { return false }
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino
  }

  /// A second name for a file; fails with EEXIST rather than replace. The corresponding C
  /// function is `link`.
  package static func hardLink(_ path: String, as name: String) throws(FileSystemError) {
    guard PathBytes.withCString(path, { from in PathBytes.withCString(name) { link(from, $0) } }) == 0 else {
      throw FileSystemError(errno: errno, operation: "link", path: name)
    }
  }

  /// Removes a file, or says why not. The corresponding C function is `unlink`.
  package static func removeFile(_ path: String) throws(FileSystemError) {
    guard remove(path) else { throw FileSystemError(errno: errno, operation: "unlink", path: path) }
  }

  /// Removes a file; whether it was there. The corresponding C function is `unlink`.
  @discardableResult
  package static func remove(_ path: String) -> Bool { PathBytes.withCString(path) { unlink($0) } == 0 }

  /// Sets a file's access and modification times to now. The corresponding C function is
  /// `utimes`.
  package static func touch(_ path: String) { _ = PathBytes.withCString(path) { utimes($0, nil) } }

  /// A fresh temporary name in the folder of `path`: `.NAME.tmp-PID-RANDOM`. The pid lets
  /// `removeStaleTemporaries` tell a killed writer's leftovers from a running one's.
  package static func temporaryName(beside path: String) -> String {
    let directory = (path as NSString).deletingLastPathComponent
    let base = (path as NSString).lastPathComponent
    return (directory.isEmpty ? "" : directory + "/") + ".\(base).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
  }

  /// Removes the temporaries of `path` whose writing process is gone.
  package static func removeStaleTemporaries(beside path: String) {
    let directory = (path as NSString).deletingLastPathComponent
    let prefix = ".\((path as NSString).lastPathComponent).tmp-"
    let folder = directory.isEmpty ? "." : directory
    guard let names = try? entries(of: folder) else { return }
    for name in names where name.hasPrefix(prefix) {
      let pid = name.dropFirst(prefix.count).split(separator: "-").first.flatMap { Int32($0) }
      if let pid, pid > 0, pid != getpid(), kill(pid, 0) == 0 || errno == EPERM { continue }
      remove(folder + "/" + name)
    }
  }

  /// Replaces `to` by `from` atomically. The corresponding C function is `rename`.
  package static func rename(_ from: String, to: String) throws(FileSystemError) {
    guard PathBytes.withCString(from, { old in PathBytes.withCString(to) { Glibc.rename(old, $0) } }) == 0 else {
      throw FileSystemError(errno: errno, operation: "rename", path: to)
    }
  }

  /// Renames `from` to `to` unless `to` exists (EEXIST then). The corresponding C function
  /// is `renameat2` with `RENAME_NOREPLACE`; where the file system lacks it, link + unlink.
  package static func renameWithoutReplacing(_ from: String, to: String) throws(FileSystemError) {
    if PathBytes.withCString(from, { old in PathBytes.withCString(to) { CGallerySystem_rename_noreplace(old, $0) } }) == 0 {
      return
    }
    let code = errno
    guard code == EINVAL || code == ENOSYS else { throw FileSystemError(errno: code, operation: "rename", path: to) }
    try hardLink(from, as: to)
    remove(from)
  }

  /// The names to try, in order, for a file that must not replace another: `name`, then
  /// `STEM<separator>2.EXT`, `STEM<separator>3.EXT`... (at most `count`). The one rule for
  /// exports, the Trash, new documents and files moved aside.
  package static func candidateNames(for name: String, separator: String, count: Int = 10_000) -> some Sequence<String> {
    numberedNames(for: name, separator: separator, from: 1, count: count).lazy.map(\.name)
  }

  /// `candidateNames` from the `first`th, each with its number (1 for `name` itself).
  package static func numberedNames(
    for name: String, separator: String, from first: Int, count: Int
  ) -> some Sequence<(name: String, number: Int)> {
    let stem = (name as NSString).deletingPathExtension
    let ext = (name as NSString).pathExtension
    let start = max(1, first)
    return (start..<(count > Int.max - start ? Int.max : start + count)).lazy.map { number in
      (number == 1 ? name : "\(stem)\(separator)\(number)" + (ext.isEmpty ? "" : ".\(ext)"), number)
    }
  }

  /// A pipe, both ends closed on exec. Optional so that a caller closes an end by setting
  /// it to nil (a child's copy must be the last one). The corresponding C function is `pipe2(O_CLOEXEC)`.
  package static func pipe() throws(FileSystemError) -> (read: FileHandleFD?, write: FileHandleFD?) {
    var ends: [Int32] = [-1, -1]
    guard CGallerySystem_pipe_cloexec(&ends) == 0 else { throw FileSystemError(errno: errno, operation: "pipe", path: "a pipe") }
    return (FileHandleFD(adopting: ends[0], path: "a pipe"), FileHandleFD(adopting: ends[1], path: "a pipe"))
  }

  /// A new folder only this user can enter, in the runtime folder (or the temporary one).
  /// The corresponding C function is `mkdtemp`.
  package static func makePrivateFolder(prefix: String) throws(FileSystemError) -> String {
    let base = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { isDirectory($0) ? $0 : nil } ?? "/tmp"
    var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
    guard mkdtemp(&template) != nil else { throw FileSystemError(errno: errno, operation: "mkdtemp", path: base) }
    return String(cString: template)
  }

  /// The names in a folder (not `.` and `..`), as the bytes the system gave (see
  /// `PathBytes`), in no particular order. The corresponding C functions are `opendir` and
  /// `readdir`.
  package static func entries(of folder: String) throws(FileSystemError) -> [String] {
    guard let directory = PathBytes.withCString(folder, { opendir($0) }) else {
      throw FileSystemError(errno: errno, operation: "opendir", path: folder)
    }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        PathBytes.string(raw.prefix { $0 != 0 })
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// The current folder, as bytes (see `PathBytes`). The corresponding C function is `getcwd`.
  package static func currentDirectory() -> String {
    guard let path = getcwd(nil, 0) else { return FileManager.default.currentDirectoryPath }
    defer { free(path) }
    return PathBytes.string(cString: path)
  }

  /// Removes a folder and what is in it, as far as it can.
  /// Names are bytes (see PathBytes), which Foundation's removal would not find.
  package static func removeTree(_ path: String) {
    if let info = linkStatus(of: path), (info.st_mode & S_IFMT) == S_IFDIR {
      for name in (try? entries(of: path)) ?? [] { removeTree(path + "/" + name) }
      _ = PathBytes.withCString(path) { rmdir($0) }
    } else {
      remove(path)
    }
  }

  /// The bytes an unprivileged writer may still write on the filesystem that holds
  /// `path`, or nil when it cannot be told.
  package static func availableBytes(at path: String) -> Int64? {
    var info = statvfs()
    guard PathBytes.withCString(path, { statvfs($0, &info) }) == 0 else { return nil }
    return Int64(info.f_bavail) * Int64(info.f_frsize)
  }

  /// Whether `path` is a folder (following links).
  package static func isDirectory(_ path: String) -> Bool {
    guard let info = status(of: path) else { return false }
    return (info.st_mode & S_IFMT) == S_IFDIR
  }

  /// Size and modification time of a regular file, not following a link; nil for anything
  /// else (a link, a FIFO, a device, a folder) and for what is not there. `askingWriters`
  /// also tells whether another process has it open for writing (a drop folder's files).
  /// Documents are never asked: that takes a lease, and a writer that opens the file while
  /// the lease is held is refused (`EWOULDBLOCK`).
  package static func stamp(of path: String, askingWriters: Bool = false) -> FileStamp? {
    guard let info = linkStatus(of: path), (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    return FileStamp(
      size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
      openForWriting: askingWriters ? isOpenForWriting(path) : nil)
  }

  /// Whether some process holds the regular file at `path` open for writing; nil when that
  /// cannot be told. Never follows a link, never blocks on a FIFO.
  package static func isOpenForWriting(_ path: String) -> Bool? {
    let fd = PathBytes.withCString(path) { open($0, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) }
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    switch CGallerySystem_open_for_writing(fd) {
    case 0: return false
    case 1: return true
    default: return nil
    }
  }

  /// The words for an errno. The corresponding C function is `strerror`.
  package static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

  /// A new file in the temporary folder that has no name any more: it goes away with its
  /// last descriptor, whoever holds it.
  package static func unlinkedTemporaryFile() throws(FileSystemError) -> FileHandleFD {
    let path = temporaryName(beside: FileManager.default.temporaryDirectory.appendingPathComponent("gallery").path)
    let file = try FileHandleFD(path: path, flags: O_RDWR | O_CREAT | O_EXCL, mode: 0o600)
    remove(path)
    return file
  }

  /// Points standard output at /dev/null: a program started in the background closes its
  /// announcement this way once it is ready (the starter reads to the end). The
  /// corresponding C function is `dup2`.
  package static func detachStandardOutput() {
    guard let null = try? FileHandleFD(path: "/dev/null", flags: O_WRONLY) else { return }
    _ = dup2(null.rawValue, 1)
  }

  /// A private folder of this user's (0700), made when missing: the runtime folder's
  /// `name`, or the state folder's when there is no runtime folder.
  package static func userRuntimeFolder(_ name: String) throws -> String {
    let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { isDirectory($0) ? $0 : nil }
    let folder = (runtime ?? XDGDirectory.state.path) + "/" + name
    try FileManager.default.createDirectory(
      atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return folder
  }

  /// Writes a small file atomically (temporary, fsync, rename), cleaning up what killed
  /// writers of the same file left. For state files: the recent list, the cache index.
  package static func writeAtomically(_ data: Data, to path: String, mode: mode_t = 0o644) throws {
    removeStaleTemporaries(beside: path)
    let temporary = temporaryName(beside: path)
    do {
      let file = try FileHandleFD(path: temporary, flags: O_WRONLY | O_CREAT | O_EXCL, mode: mode)
      try file.writeAll(data)
      try file.sync()
      try rename(temporary, to: path)
    } catch {
      remove(temporary)
      throw error
    }
  }
}

extension FileHandleFD {
  /// Gives this (new) file the mode and, where permitted, the owner of another, so that a
  /// rewrite of a private 0600 document stays private. The corresponding C functions are
  /// `fchmod` and `fchown`.
  package func takeMetadata(of original: stat) {
    if original.st_uid != getuid() || original.st_gid != getgid() {
      _ = fchown(rawValue, original.st_uid, original.st_gid)
    }
    _ = fchmod(rawValue, original.st_mode & 0o7777)
  }
}

/// Standard input, read whole but bounded: a pipe may carry anything.
package enum StandardInput {
  package struct TooLarge: Error, CustomStringConvertible {
    package var limit: Int
    package var what: String
    package init(limit: Int, what: String = "standard input") {
      self.limit = limit
      self.what = what
    }
    package var description: String { "\(what) is larger than \(limit >> 20) MiB" }
  }

  /// The corresponding C function is `read` on descriptor 0.
  package static func read(limit: Int) throws -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while data.count <= limit {
      let n = buffer.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        throw FileSystemError(errno: errno, operation: "read", path: "standard input")
      }
      if n == 0 { return data }
      data.append(contentsOf: buffer[0..<n])
    }
    throw TooLarge(limit: limit)
  }
}

/// Files a command writes for the user (a sheet, a thumbnail).
package enum OutputFile {
  /// An output named on the command line that could not be written; names that path, never
  /// the temporary beside it.
  package struct Failure: GalleryError {
    package var path: String
    package var errno: Int32
    package var description: String { "cannot write \(path): \(String(cString: strerror(errno)))" }

    package init(path: String, errno: Int32) {
      self.path = path
      self.errno = errno
    }
  }

  /// Replaces `path` atomically; an existing file's mode and owner are kept. What is not a
  /// regular file is written to, never replaced: a device (/dev/stdout, /dev/full) or a FIFO
  /// gets the bytes, a folder is an error.
  package static func replace(_ path: String, with data: Data) throws(Failure) {
    let existing = FileSystem.status(of: path)
    let target = existing == nil ? path : FileSystem.resolvingLinks(path)
    if let existing, existing.st_mode & S_IFMT != S_IFREG {
      try writeToSpecialFile(path, type: existing.st_mode & S_IFMT, data: data)
      return
    }
    let temporary = FileSystem.temporaryName(beside: target)
    do {
      let file = try FileHandleFD(path: temporary, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
      if let existing { file.takeMetadata(of: existing) }
      try file.writeAll(data)
      try file.sync()
      try FileSystem.rename(temporary, to: target)
    } catch {
      remove(temporary)
      throw Failure(path: path, errno: error.errno)
    }
  }

  private static func writeToSpecialFile(_ path: String, type: mode_t, data: Data) throws(Failure) {
    guard type == S_IFCHR || type == S_IFIFO else { throw Failure(path: path, errno: type == S_IFDIR ? EISDIR : EINVAL) }
    do {
      try FileHandleFD(path: path, flags: O_WRONLY).writeAll(data)
    } catch {
      throw Failure(path: path, errno: error.errno)
    }
  }

  /// Writes `data` to a new file in `folder` under `preferredName`, or the first free name
  /// after it (`NAME-2.EXT`...), trying from the `first`th (a caller writing many files of
  /// one name says where its last one went, so that the thousandth does not try a
  /// thousand): an existing file is never replaced. Returns the path, and its number.
  package static func createNew(
    in folder: String, preferredName: String, data: Data, from first: Int = 1
  ) throws(Failure) -> (path: String, number: Int) {
    for (name, number) in FileSystem.numberedNames(for: preferredName, separator: "-", from: first, count: 1_000_000) {
      let path = (folder as NSString).appendingPathComponent(name)
      let file: FileHandleFD
      do {
        file = try FileHandleFD(path: path, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
      } catch  where error.errno == EEXIST {
        continue
      } catch {
        throw Failure(path: path, errno: error.errno)
      }
      do { try file.writeAll(data) } catch {
        FileSystem.remove(path)
        throw Failure(path: path, errno: error.errno)
      }
      return (path, number)
    }
    throw Failure(path: (folder as NSString).appendingPathComponent(preferredName), errno: EEXIST)
  }

  /// Writes `data` to a new file at `path` exactly: an existing one (or a symlink) is never
  /// replaced, it is an error.
  package static func createNew(_ path: String, data: Data) throws(Failure) {
    let file: FileHandleFD
    do { file = try FileHandleFD(path: path, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o644) } catch {
      throw Failure(path: path, errno: error.errno)
    }
    do { try file.writeAll(data) } catch {
      FileSystem.remove(path)
      throw Failure(path: path, errno: error.errno)
    }
  }

  /// Makes a folder and the folders above it that are missing (mkdir -p).
  package static func makeFolder(_ path: String) throws(Failure) {
    if FileSystem.isDirectory(path) { return }
    let parent = (path as NSString).deletingLastPathComponent
    if !parent.isEmpty && parent != path { try makeFolder(parent) }
    guard PathBytes.withCString(path, { mkdir($0, 0o777) }) == 0 || errno == EEXIST else {
      throw Failure(path: path, errno: errno)
    }
  }

  /// Writes into `path` in place when it exists (the same file, which the caller may hold
  /// open: tumbler creates a thumbnailer's output and reads it through its own descriptor),
  /// or creates it. Never follows a symlink and never writes into anything but a regular file.
  /// A file it created is removed again when the write fails (a full disk).
  package static func writeInPlace(_ path: String, data: Data) throws(Failure) {
    var created = false
    do {
      let file = try openForOutput(path, created: &created)
      try file.writeAll(data)
      try file.sync()
    } catch {
      if created { FileSystem.remove(path) }
      throw Failure(path: path, errno: error.errno)
    }
  }

  private static func openForOutput(_ path: String, created: inout Bool) throws(FileSystemError) -> FileHandleFD {
    let existing: (file: FileHandleFD, type: mode_t)
    do {
      existing = try FileSystem.openWithoutBlocking(path, flags: O_WRONLY | O_NOFOLLOW)
    } catch  where error.errno == ENOENT {
      let file = try FileHandleFD(path: path, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
      created = true
      return file
    }
    guard existing.type == S_IFREG else { throw FileSystemError(errno: EINVAL, operation: "open", path: path) }
    try existing.file.truncate(to: 0)
    _ = CGallerySystem_clear_nonblock(existing.file.rawValue)
    return existing.file
  }
}

/// The terminal a command's messages go to.
package enum TerminalSize {
  /// Columns of the terminal on standard error, or nil when it is not a terminal.
  /// The corresponding C function is `ioctl(TIOCGWINSZ)`.
  package static var columns: Int? {
    let columns = Int(CGallerySystem_terminal_columns(2))
    return columns > 0 ? columns : nil
  }
}

/// Standard output and error, written with write(2) (no shared `FILE *` state).
package enum StandardStream {
  case output, error

  package var descriptor: Int32 { self == .output ? 1 : 2 }

  /// Whether it is a terminal. The corresponding C function is `isatty`.
  package var isTerminal: Bool { isatty(descriptor) == 1 }

  /// Whether it is the file `device:inode` names, as systemd's `JOURNAL_STREAM` does for the
  /// journal's stream (systemd.exec: a program compares it with its own standard error,
  /// since the variable is inherited by programs whose output goes elsewhere). The
  /// corresponding C function is `fstat`.
  package func isFile(_ deviceAndInode: String) -> Bool {
    let parts = deviceAndInode.split(separator: ":")
    guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return false }
    return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
  }

  /// Writes all of `bytes`; the errno of a failed write. The corresponding C function is
  /// `write`.
  package func write(_ bytes: [UInt8]) -> Int32? {
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
      if n < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        return errno
      }
      offset += n
    }
    return nil
  }
}

/// Size and modification time (nanoseconds) of a regular file, and whether a writer still
/// holds it: what says that a file in a drop folder changed, or may still change.
package struct FileStamp: Sendable, Equatable {
  package var size: Int64
  package var modified: Int64
  /// Some process holds it open for writing: a file closed by one writer and still held by
  /// another is not complete. Nil when that cannot be told (a file of another user, a
  /// filesystem without leases).
  package var openForWriting: Bool?

  package init(size: Int64, modified: Int64, openForWriting: Bool? = nil) {
    self.size = size
    self.modified = modified
    self.openForWriting = openForWriting
  }
}
