import Foundation

/// A program the tests run in the background (an HTTP server, an X server) that announces it
/// is ready by printing a number (a port, a display) as its first line. Killed with SIGKILL
/// when stopped or when the value goes away: a parent may have left SIGTERM ignored.
final class BackgroundProgram {
  struct NotStarted: Error, CustomStringConvertible { var description: String }

  let process = Process()
  /// The number the program printed first.
  let announced: Int

  init(_ arguments: [String]) throws {
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardOutput = output
    // Not the tests' own standard error: a program that outlived them would hold it open.
    process.standardError = FileHandle.nullDevice
    try process.run()
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
    process.waitUntilExit()
  }
}
