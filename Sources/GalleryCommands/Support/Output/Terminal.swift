import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

/// Standard output and error, written with write(2): no shared `FILE *` state, which Swift 6
/// concurrency checking rightly distrusts.
///
/// Text may hold what a document or another program said (titles, sources, reasons): its
/// control characters are escaped, so nothing printed can move the cursor, clear the screen,
/// retitle the terminal or forge a line. Lines and columns are ours: `\n` and `\t` stay.
/// Data formats (JSON, a uri-list with its CRLF) go out exactly, through `exact`.
enum Terminal {
  static func out(_ text: String) { write(.output, Array(TerminalText.escaped(text, keepingLayout: true).utf8)) }
  static func out(_ bytes: [UInt8]) { write(.output, bytes) }
  /// A path a command made, a line of its own: its bytes as they are for a program reading
  /// them (a name need not be UTF-8, see PathBytes), shown escaped on a terminal.
  static func path(_ path: String) {
    if StandardStream.output.isTerminal { return out(path + "\n") }
    write(.output, PathBytes.bytes(path) + [UInt8(ascii: "\n")])
  }
  /// Bytes of a data format, unchanged (a uri-list's CRLF, JSON).
  static func exact(_ text: String) { write(.output, Array(text.utf8)) }
  static func err(_ text: String) { write(.error, Array(text.utf8)) }

  /// A line on standard error, prefixed with the program name.
  static func message(_ text: String) {
    err("gallery: \(TerminalText.escaped(text, keepingLayout: true))\n")
  }

  static var errorIsTerminal: Bool { StandardStream.error.isTerminal }

  /// Writes everything, or ends the program: output that cannot be written (a full disk,
  /// `> /dev/full`, a closed pipe) must not look like success. Standard error failing is
  /// ignored: there is nowhere left to say so.
  private static func write(_ stream: StandardStream, _ bytes: [UInt8]) {
    guard let code = stream.write(bytes), stream == .output else { return }
    if code != EPIPE {
      err("gallery: cannot write to standard output: \(FileSystem.errorText(code))\n")
    }
    exit(ExitStatus.ioError.rawValue)
  }
}

/// A progress bar on standard error, drawn only when it is a terminal.
package final class ProgressBar: Sendable {
  let label: String
  let enabled: Bool

  init(label: String, total: Int) {
    self.label = label
    enabled = Terminal.errorIsTerminal && total > 1
  }

  func update(done: Int, total: Int) {
    guard enabled else { return }
    Terminal.err("\r" + Self.line(label: label, done: done, total: total, columns: TerminalSize.columns ?? 80))
    if done == total { Terminal.err("\n") }
  }

  /// One redraw, never wider than the terminal (a wider line wraps, and each redraw would
  /// then leave a line behind): the bar shrinks first, then goes, then the label is cut.
  package static func line(label: String, done: Int, total: Int, columns: Int) -> String {
    let count = " \(done)/\(total)"
    let room = columns - 1 - label.count - count.count - 3
    guard room >= 5 else { return String((label + count).suffix(max(0, columns - 1))) }
    let width = min(30, room)
    let filled = total == 0 ? width : width * min(done, total) / total
    return "\(label) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "]" + count
  }
}
