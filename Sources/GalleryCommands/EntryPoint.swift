import ArgumentParser
import Foundation
import GalleryKit

#if canImport(Glibc)
  import Glibc
#endif

extension Gallery {
  /// The one entry point: parses, runs, and turns every error into one message style
  /// (`gallery: ...` on standard error) and its documented exit status. Help, versions and
  /// completion scripts go to standard output with status 0.
  public static func main() {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard !arguments.isEmpty else {
      Terminal.message("no command given (`gallery --help` lists them; `gallery browse` shows the documents here)")
      Glibc.exit(ExitStatus.usage)
    }
    do {
      var command = try parseAsRoot(arguments)
      try command.run()
    } catch {
      exit(reporting: error)
    }
    Glibc.exit(0)
  }

  /// Prints what an error says, in our style, and exits with its status.
  static func exit(reporting error: Error) -> Never {
    let code = exitCode(for: error)
    // An ExitCode thrown by a command: its message was printed already.
    if error is ExitCode { Glibc.exit(code.rawValue) }
    let text = fullMessage(for: error)
    if code == .success {
      if !text.isEmpty { Terminal.exact(text.hasSuffix("\n") ? text : text + "\n") }
      Glibc.exit(0)
    }
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    while lines.last?.isEmpty == true { lines.removeLast() }
    if let first = lines.first {
      lines[0] = "gallery: " + (first.hasPrefix("Error: ") ? String(first.dropFirst("Error: ".count)) : first)
    }
    Terminal.err(lines.joined(separator: "\n") + "\n")
    Glibc.exit(code.rawValue)
  }
}
