import Foundation
import Testing

/// A program the tests run in the background (an HTTP server, an X server) that announces it
/// is ready by printing a number (a port, a display) as its first line. Killed with SIGKILL
/// when stopped or when the value goes away: a parent may have left SIGTERM ignored.
final class BackgroundProgram {
  struct NotStarted: Error, CustomStringConvertible { var description: String }

  let process: TestProcess
  /// The number the program printed first.
  let announced: Int

  init(_ arguments: [String]) throws {
    let output = Pipe()
    // Standard error is not the tests' own: a program that outlived them would hold it open.
    process = try TestProcess(arguments[0], Array(arguments.dropFirst()), stdout: output.fileHandleForWriting.fileDescriptor)
    try output.fileHandleForWriting.close()
    // One that never announces is killed, which ends the read below.
    let watchdog = DispatchWorkItem { [process] in if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
    defer { watchdog.cancel() }
    // Byte by byte, so nothing after the first line is swallowed.
    var line = Data()
    while let byte = try output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
      line.append(first)
    }
    guard let number = Int(String(decoding: line, as: UTF8.self)) else {
      kill(process.processIdentifier, SIGKILL)
      throw NotStarted(description: "\(arguments[0]) did not start (printed '\(String(decoding: line, as: UTF8.self))')")
    }
    announced = number
  }

  deinit { stop() }

  func stop() {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.wait()
  }
}
