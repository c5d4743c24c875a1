import CGallerySystem
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Programs the commands start themselves (xclip, wl-copy, wl-paste, our own clipboard
/// owner): spawned clean (no descriptor of ours but the three given, no signal blocked or
/// ignored) and waited for with a deadline, since what answers on the other side (a
/// clipboard's owner) is another program.
package enum ChildProcess {
  /// How a waited-for child ended.
  package enum Ending: Equatable {
    /// Its exit status, or 128 + the signal that ended it, as a shell reports it.
    case exited(Int32)
    /// Still running at the deadline: it was killed and reaped.
    case killedAtDeadline
  }

  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  /// What a program that ran to its end left.
  package struct Outcome {
    package var ending: Ending
    package var output: Data
    /// The start of its standard error, trimmed.
    package var errors: String
  }

  /// Runs a program to its end or `seconds`, feeding it `input`. Its output and errors go to
  /// unlinked temporary files, not pipes: xclip and wl-copy fork a server that keeps every
  /// descriptor they were given, and a pipe would stay open as long as that server lives.
  /// Output past `outputLimit` bytes is an error.
  package static func run(
    _ path: String, _ arguments: [String], input: Data = Data(), upTo seconds: Double, outputLimit: Int
  ) throws -> Outcome {
    let output = try FileSystem.unlinkedTemporaryFile()
    let errors = try FileSystem.unlinkedTemporaryFile()
    let pid = try spawn(path, arguments, input: input, output: output.rawValue, errors: errors.rawValue)
    let ending = wait(for: pid, upTo: seconds)
    guard try output.size() <= outputLimit else {
      throw StandardInput.TooLarge(limit: outputLimit, what: "the output of \((path as NSString).lastPathComponent)")
    }
    try output.seek(to: 0)
    try errors.seek(to: 0)
    let errorText = String(decoding: try errors.read(upTo: 64 * 1024), as: UTF8.self)
    return Outcome(
      ending: ending, output: try output.read(upTo: outputLimit),
      errors: errorText.trimmingCharacters(in: .whitespacesAndNewlines))
  }

  /// Starts a program that stays in the background in a session of its own, and returns the
  /// first line it writes on its standard output: it closes that once it is ready.
  /// It runs in `/`, so that it keeps no folder of the caller's busy (an unmount).
  package static func startInBackground(_ path: String, _ arguments: [String], input: Data) throws -> String {
    var (readEnd, writeEnd) = try FileSystem.pipe()
    let null = try FileHandleFD(path: "/dev/null", flags: O_WRONLY)
    let pid = try spawn(
      path, arguments, input: input, output: writeEnd!.rawValue, errors: null.rawValue, newSession: true, directory: "/")
    // Ours closes here, so the read ends when the program closes its copy (or ends).
    writeEnd = nil
    let announced = try readEnd!.read(upTo: 4096)
    readEnd = nil
    // It lives on when it is ready; reap it now if it is not.
    var status: Int32 = 0
    _ = waitpid(pid, &status, WNOHANG)
    return String(decoding: announced, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The executable `name` names: itself when it has a slash, else the first in `$PATH`.
  package static func findInPath(_ name: String) -> String? {
    if name.contains("/") { return access(name, X_OK) == 0 && !FileSystem.isDirectory(name) ? name : nil }
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
    for folder in folders where !folder.isEmpty {
      let path = "\(folder)/\(name)"
      if access(path, X_OK) == 0 && !FileSystem.isDirectory(path) { return path }
    }
    return nil
  }

  /// Starts a program that lives on by itself (a web browser): in a session of its own,
  /// with /dev/null for its standard streams; not waited for.
  package static func startDetached(_ path: String, _ arguments: [String]) throws {
    let null = try FileHandleFD(path: "/dev/null", flags: O_RDWR)
    _ = try start(
      path, [path] + arguments, stdin: null.rawValue, stdout: null.rawValue, stderr: null.rawValue, newSession: true)
  }

  /// posix_spawn with standard input fed from `input`, output and errors on the given
  /// descriptors, every other descriptor closed and every signal at its default.
  package static func spawn(
    _ path: String, _ arguments: [String], input: Data, output: Int32, errors: Int32, newSession: Bool = false,
    directory: String? = nil
  ) throws -> pid_t {
    var (inputRead, inputWrite) = try FileSystem.pipe()
    let pid = try start(
      path, [path] + arguments, directory: directory, stdin: inputRead!.rawValue, stdout: output, stderr: errors,
      newSession: newSession)
    // Our read end closes now: a program that exits without reading makes the write fail
    // (EPIPE, with SIGPIPE ignored) rather than block.
    inputRead = nil
    signal(SIGPIPE, SIG_IGN)
    try? inputWrite?.writeAll(input)
    inputWrite = nil
    return pid
  }

  /// This program's own file, by its real name: started again through it (not through
  /// `/proc/self/exe`), a server shows as `gallery` in `ps`, `pgrep` and `systemd-cgls`.
  package static var ownExecutable: String { FileSystem.resolvingLinks("/proc/self/exe") }

  /// Starts `path` with `argv` (its name first) and `environment` (`KEY=VALUE`; nil: ours),
  /// standard input, output and error from the given descriptors, every other descriptor
  /// closed, no signal blocked or ignored, in `directory` when given.
  package static func start(
    _ path: String, _ argv: [String], environment: [String]? = nil, directory: String? = nil,
    stdin: Int32, stdout: Int32, stderr: Int32, newSession: Bool = false
  ) throws(Failure) -> pid_t {
    // Arguments may be paths: their bytes go as they are (see PathBytes).
    let cArguments = argv.map { PathBytes.withCString($0) { strdup($0) } } + [nil]
    let given = environment ?? VipsRuntime.environmentForChildren(Self.currentEnvironment)
    let cEnvironment = given.map { $0.map { strdup($0) } + [nil] }
    defer { for pointer in cArguments + (cEnvironment ?? []) { free(pointer) } }
    var pid: Int32 = 0
    let session: Int32 = newSession ? 1 : 0
    let cDirectory = directory.flatMap { PathBytes.withCString($0) { strdup($0) } }
    defer { free(cDirectory) }
    let result = PathBytes.withCString(path) { path in
      if let cEnvironment {
        CGallerySystem_spawn(path, cArguments, cEnvironment, stdin, stdout, stderr, cDirectory, session, &pid)
      } else {
        CGallerySystem_spawn(path, cArguments, Glibc.environ, stdin, stdout, stderr, cDirectory, session, &pid)
      }
    }
    guard result == 0 else { throw Failure(description: "cannot run \(path): \(String(cString: strerror(result)))") }
    return pid
  }

  /// This process's environment, `KEY=VALUE` a string.
  private static var currentEnvironment: [String] {
    var entries: [String] = []
    var pointer = Glibc.environ
    while let entry = pointer.pointee {
      entries.append(String(cString: entry))
      pointer += 1
    }
    return entries
  }

  /// How a bounded wait for a child ended.
  package enum Reaped {
    /// It ended; its raw wait status.
    case ended(Int32)
    /// Still running at the deadline.
    case running
    /// Not our child any more (reaped elsewhere), or no pidfd.
    case unknown
  }

  /// Waits for `pid` at most `milliseconds` (-1: no limit) and reaps it if it ended.
  package static func reap(_ pid: pid_t, within milliseconds: Int32) -> Reaped {
    var status: Int32 = 0
    switch CGallerySystem_wait_child(pid, milliseconds, &status) {
    case 1: return .ended(status)
    case 0: return .running
    default: return .unknown
    }
  }

  /// Waits for `pid` to end, at most `seconds`; past that kills it (SIGKILL) and reaps it.
  package static func wait(for pid: pid_t, upTo seconds: Double) -> Ending {
    var status: Int32 = 0
    switch reap(pid, within: Int32(min(max(seconds, 0), 86_400) * 1000)) {
    case .ended(let ended):
      status = ended
    case .running:
      kill(pid, SIGKILL)
      _ = reap(pid, within: -1)
      return .killedAtDeadline
    case .unknown:
      // No pidfd (a kernel before 5.3): a plain blocking wait.
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
    let signal = status & 0x7f
    return .exited(signal == 0 ? (status >> 8) & 0xff : 128 + signal)
  }
}
