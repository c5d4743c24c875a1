import CGallerySystem
import Foundation
import Synchronization
import Testing

/// A program the tests start, spawned with posix_spawn and waited for with waitpid.
///
/// Not Foundation's `Process`: it learns that a child ended from SIGCHLD, and the test
/// runner's threads all block signals, so a child could stay a zombie that `Process` never
/// reaps, and the test wait for it forever (this hung a CI run). Here nothing depends on a
/// signal being delivered, every child starts with no signal blocked or ignored, and it
/// inherits no descriptor but the three it is given.
final class TestProcess: Sendable {
  enum TerminationReason { case exit, uncaughtSignal }

  struct SpawnFailed: Error, CustomStringConvertible { var description: String }

  let processIdentifier: pid_t
  let commandLine: String
  /// The wait status once reaped.
  private let reaped = Mutex<Int32?>(nil)

  /// Starts `executable` (a path, or a name looked up in PATH through /usr/bin/env) with
  /// the given descriptors as its standard input, output and error (/dev/null when nil).
  init(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
    stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil
  ) throws {
    let path = executable.hasPrefix("/") ? executable : "/usr/bin/env"
    let argv = (executable.hasPrefix("/") ? [executable] : ["env", executable]) + arguments
    commandLine = ([executable] + arguments).joined(separator: " ")
    let null = open("/dev/null", O_RDWR | O_CLOEXEC)
    defer { close(null) }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (target, source) in [(0, stdin), (1, stdout), (2, stderr)] {
      posix_spawn_file_actions_adddup2(&actions, source ?? null, Int32(target))
    }
    CGallerySystem_spawn_closefrom(&actions, 3)
    if let directory { CGallerySystem_spawn_chdir(&actions, directory) }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    CGallerySystem_spawnattr_clean(&attributes, 0)

    let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
    let cArguments = argv.map { strdup($0) } + [nil]
    let cEnvironment = variables.map { strdup($0) } + [nil]
    defer { for pointer in cArguments + cEnvironment { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, path, &actions, &attributes, cArguments, cEnvironment)
    guard result == 0 else { throw SpawnFailed(description: "cannot run \(executable): \(String(cString: strerror(result)))") }
    processIdentifier = pid
  }

  /// Whether it still runs (reaps it when it ended).
  var isRunning: Bool {
    reaped.withLock { status in
      guard status == nil else { return false }
      var raw: Int32 = 0
      if waitpid(processIdentifier, &raw, WNOHANG) == processIdentifier { status = raw }
      return status == nil
    }
  }

  /// Waits for it to end, at most `seconds`: past that it is killed (SIGKILL) and the test
  /// records a failure naming it, so that a hang fails one test instead of the run.
  func wait(upTo seconds: TimeInterval = Run.deadline, sourceLocation: SourceLocation = #_sourceLocation) {
    guard isRunning else { return }
    var raw: Int32 = 0
    switch CGallerySystem_wait_child(processIdentifier, Int32(seconds * 1000), &raw) {
    case 1:
      reaped.withLock { $0 = raw }
    case 0:
      kill(processIdentifier, SIGKILL)
      Issue.record("still running after \(Int(seconds)) s, killed: \(commandLine)", sourceLocation: sourceLocation)
      if CGallerySystem_wait_child(processIdentifier, -1, &raw) == 1 { reaped.withLock { $0 = raw } }
    default:
      // Reaped meanwhile by `isRunning` on another thread.
      while isRunning { usleep(10_000) }
    }
  }

  func waitUntilExit() { wait() }

  /// Like Foundation's: the exit status, or the number of the signal that ended it.
  var terminationStatus: Int32 {
    let status = reaped.withLock { $0 } ?? 0
    return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
  }

  var terminationReason: TerminationReason {
    (reaped.withLock { $0 } ?? 0) & 0x7f == 0 ? .exit : .uncaughtSignal
  }

  /// Sends SIGTERM.
  func terminate() { kill(processIdentifier, SIGTERM) }

  deinit {
    // Never leave a zombie, nor a child running past its test.
    if isRunning {
      kill(processIdentifier, SIGKILL)
      var raw: Int32 = 0
      _ = CGallerySystem_wait_child(processIdentifier, -1, &raw)
    }
  }
}
