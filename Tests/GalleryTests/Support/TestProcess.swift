import Foundation
import GalleryKit
import Synchronization
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

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
    let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
    let pid: pid_t
    do {
      pid = try ChildProcess.start(
        path, argv, environment: variables, directory: directory, stdin: stdin ?? null, stdout: stdout ?? null,
        stderr: stderr ?? null)
    } catch {
      throw SpawnFailed(description: error.description)
    }
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
    switch ChildProcess.reap(processIdentifier, within: Int32(seconds * 1000)) {
    case .ended(let raw):
      reaped.withLock { $0 = raw }
    case .running:
      kill(processIdentifier, SIGKILL)
      Issue.record("still running after \(Int(seconds)) s, killed: \(commandLine)", sourceLocation: sourceLocation)
      if case .ended(let raw) = ChildProcess.reap(processIdentifier, within: -1) { reaped.withLock { $0 = raw } }
    case .unknown:
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
      _ = ChildProcess.reap(processIdentifier, within: -1)
    }
  }
}
