import Foundation
import Synchronization
import Testing

/// A real `gallery watch` process, its JSON events collected as they come.
final class WatcherProcess: @unchecked Sendable {
  struct Event: Decodable, Equatable {
    var event: String
    var path: String
    var document: String?
    var id: String?
    var reason: String?
  }

  let process: TestProcess
  private let lines = Mutex<[String]>([])
  private let errors = Mutex<Data>(Data())
  private let output = Pipe()
  private let errorPipe = Pipe()

  /// Starts `gallery watch ARGUMENTS --events json`, its state under `stateHome`.
  init(_ arguments: [String], stateHome: String) throws {
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_STATE_HOME"] = stateHome
    // Configuration files of the test run's own: a watcher rewrites those naming a document
    // renamed while it runs.
    environment["XDG_CONFIG_HOME"] = Run.isolatedHome["XDG_CONFIG_HOME"]
    process = try TestProcess(
      Run.galleryBinary, ["watch"] + arguments + ["--events", "json", "--log-level", "debug"], environment: environment,
      stdout: output.fileHandleForWriting.fileDescriptor, stderr: errorPipe.fileHandleForWriting.fileDescriptor)
    // Only the child writes: its end of each pipe closes when it ends.
    try output.fileHandleForWriting.close()
    try errorPipe.fileHandleForWriting.close()
    output.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      guard !data.isEmpty, let self else { return }
      self.lines.withLock { collected in
        let text = (collected.popLast() ?? "") + String(decoding: data, as: UTF8.self)
        collected += text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      }
    }
    errorPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      self?.errors.withLock { $0.append(data) }
    }
  }

  var events: [Event] {
    lines.withLock { $0 }.compactMap { try? JSONDecoder().decode(Event.self, from: Data($0.utf8)) }
  }

  var log: String { errors.withLock { String(decoding: $0, as: UTF8.self) } }

  /// Waits until `condition` holds for the events so far; records an issue after `timeout`.
  @discardableResult
  func waitFor(
    _ what: String, timeout: TimeInterval = 20, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: ([Event]) -> Bool
  ) -> Bool {
    let end = Date() + timeout
    while Date() < end {
      if condition(events) { return true }
      if !process.isRunning { break }
      usleep(10_000)
    }
    Issue.record(
      "timed out waiting for \(what); events: \(events.map { "\($0.event) \(($0.path as NSString).lastPathComponent)" }); log: \(log)",
      sourceLocation: sourceLocation)
    return false
  }

  func count(_ kind: String) -> Int { events.filter { $0.event == kind }.count }

  /// SIGTERM, then the exit status.
  func stop() -> Int32 {
    if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    process.wait(upTo: 60)
    return process.terminationStatus
  }

  deinit {
    output.fileHandleForReading.readabilityHandler = nil
    errorPipe.fileHandleForReading.readabilityHandler = nil
  }
}
