import Foundation
import GalleryKit

#if canImport(Glibc)
  import Glibc
#endif

/// The desktop clipboard. On X11, `gallery` owns the selection itself (a background
/// `gallery clipboard-owner` process) and serves every type at once; it reads it with `xclip`.
/// On Wayland, `wl-copy`/`wl-paste`, which serve one type per copy.
struct Clipboard {
  enum Tool: String {
    case wayland = "wl-clipboard"
    case x11 = "X11"
  }

  struct Unavailable: Error, CustomStringConvertible {
    var description: String
  }

  let tool: Tool
  /// wl-copy, or xclip (nil when not installed: copying works without it, pasting does not).
  let executable: String?

  /// The clipboard of this session, or why there is none.
  static func current(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Clipboard {
    let wayland = !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
    let x11 = !(environment["DISPLAY"] ?? "").isEmpty
    if wayland, let copy = which("wl-copy", in: environment) {
      return Clipboard(tool: .wayland, executable: copy)
    }
    if x11 {
      return Clipboard(tool: .x11, executable: which("xclip", in: environment))
    }
    if !wayland {
      throw Unavailable(description: "no graphical session: neither WAYLAND_DISPLAY nor DISPLAY is set")
    }
    throw Unavailable(description: "no clipboard tool: install wl-clipboard (Wayland) or xclip (X11)")
  }

  /// Offers the data in each of its types (on Wayland, the first only). Returns once the
  /// selection is taken; its server stays in the background with none of our descriptors
  /// (so a caller reading our output sees its end). Returns the types offered.
  @discardableResult
  func copy(_ offers: [X11Selection.Offer]) throws -> [String] {
    guard let first = offers.first else { return [] }
    switch tool {
    case .wayland:
      let result = try run(try installedTool(), ["--type", first.type], input: first.data)
      guard result.status == 0 else { throw Unavailable(description: "wl-copy failed: \(result.errors)") }
      return [first.type]
    case .x11:
      let owner = try spawnOwner(input: X11Selection.encode(offers))
      guard owner == "ok" else {
        throw Unavailable(description: owner.hasPrefix("error: ") ? String(owner.dropFirst(7)) : "the clipboard owner did not start")
      }
      return offers.map(\.type)
    }
  }

  /// The types the clipboard offers now.
  func types() throws -> [String] {
    let result =
      switch tool {
      case .wayland: try run(sibling("wl-paste"), ["--list-types"])
      case .x11: try run(try installedTool(), ["-selection", "clipboard", "-t", "TARGETS", "-o"])
      }
    guard result.status == 0 else { return [] }  // an empty clipboard
    return String(decoding: result.output, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
  }

  /// The clipboard's content as `type`.
  func paste(type: String) throws -> Data {
    let result =
      switch tool {
      case .wayland: try run(sibling("wl-paste"), ["--no-newline", "--type", type])
      case .x11: try run(try installedTool(), ["-selection", "clipboard", "-t", type, "-o"])
      }
    guard result.status == 0 else { throw Unavailable(description: "the clipboard has no \(type): \(result.errors)") }
    return result.output
  }

  private func installedTool() throws -> String {
    guard let executable else { throw Unavailable(description: "no clipboard tool: install xclip to paste on X11") }
    return executable
  }

  private func sibling(_ name: String) -> String {
    ((executable ?? "/usr/bin/wl-copy") as NSString).deletingLastPathComponent + "/" + name
  }

  private static func which(_ name: String, in environment: [String: String]) -> String? {
    for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
      let path = "\(folder)/\(name)"
      if access(path, X_OK) == 0 { return path }
    }
    return nil
  }

  /// Runs a tool with its output and errors in unlinked temporary files rather than pipes,
  /// and waits for it with waitpid: xclip and wl-copy fork a server that keeps every
  /// descriptor they were given, which would hold a pipe (and Foundation's `Process`, which
  /// watches one) open for as long as the clipboard is theirs.
  private func run(_ path: String, _ arguments: [String], input: Data = Data()) throws -> (status: Int32, output: Data, errors: String) {
    let output = try temporaryFile()
    let errors = try temporaryFile()
    let pid = try spawn(path, arguments, input: input, output: output.fileDescriptor, errors: errors.fileDescriptor)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    // What another program put on the clipboard is bounded like standard input.
    guard try output.seekToEnd() <= UInt64(DragPayload.sizeLimit) else { throw StandardInput.TooLarge(limit: DragPayload.sizeLimit, what: "what the clipboard holds") }
    try output.seek(toOffset: 0)
    try errors.seek(toOffset: 0)
    let text = String(decoding: try errors.read(upToCount: 64 * 1024) ?? Data(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return (exitStatus, try output.readToEnd() ?? Data(), text)
  }

  /// Starts `gallery clipboard-owner` in a session of its own and returns the line it
  /// writes once it owns the selection ("ok") or cannot ("error: ...").
  private func spawnOwner(input: Data) throws -> String {
    var ready: [Int32] = [-1, -1]
    guard pipe(&ready) == 0 else { throw Unavailable(description: "pipe: \(String(cString: strerror(errno)))") }
    for end in ready { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    defer { close(ready[0]) }
    let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
    defer { close(null) }
    let pid: pid_t
    do {
      pid = try spawn("/proc/self/exe", ["clipboard-owner"], input: input, output: ready[1], errors: null, newSession: true)
    } catch {
      close(ready[1])
      throw error
    }
    close(ready[1])
    var line = Data()
    var byte: UInt8 = 0
    while read(ready[0], &byte, 1) == 1 { line.append(byte) }
    // The owner lives on when it took the selection; reap it now if it did not.
    var status: Int32 = 0
    _ = waitpid(pid, &status, WNOHANG)
    return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// posix_spawn with standard input fed from `input`, output and errors on the given
  /// descriptors, and every other descriptor closed.
  private func spawn(
    _ path: String, _ arguments: [String], input: Data, output: Int32, errors: Int32, newSession: Bool = false
  ) throws -> pid_t {
    var stdin: [Int32] = [-1, -1]
    guard pipe(&stdin) == 0 else { throw Unavailable(description: "pipe: \(String(cString: strerror(errno)))") }
    // Only the dup2'ed copies reach the tool.
    for end in stdin { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, stdin[0], 0)
    posix_spawn_file_actions_adddup2(&actions, output, 1)
    posix_spawn_file_actions_adddup2(&actions, errors, 2)
    // Nothing else we hold, inherited or not, may stay open in the tool's server.
    for descriptor in Self.openDescriptors() where descriptor > 2 {
      posix_spawn_file_actions_addclose(&actions, descriptor)
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    if newSession {
      // POSIX_SPAWN_SETSID (glibc): the owner outlives our terminal and its hang-up.
      posix_spawnattr_setflags(&attributes, 0x80)
    }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
    close(stdin[0])
    guard spawned == 0 else {
      close(stdin[1])
      throw Unavailable(description: "cannot run \(path): \(String(cString: strerror(spawned)))")
    }
    // A tool that exits without reading must not kill us with SIGPIPE.
    signal(SIGPIPE, SIG_IGN)
    input.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let written = write(stdin[1], raw.baseAddress! + offset, raw.count - offset)
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { break }
        offset += written
      }
    }
    close(stdin[1])
    return pid
  }

  private static func openDescriptors() -> [Int32] {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
  }

  /// An open, already unlinked temporary file.
  private func temporaryFile() throws -> FileHandle {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-clipboard-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
      throw Unavailable(description: "cannot create a temporary file in \(url.deletingLastPathComponent().path)")
    }
    defer { unlink(url.path) }
    return try FileHandle(forUpdating: url)
  }
}
