import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

#if canImport(Glibc)
  import Glibc
#endif

extension GalleryCommand {
  /// The one entry point: parses, runs, and turns every error into one message style
  /// (`gallery: ...` on standard error) and its documented exit status. Help, versions and
  /// completion scripts go to standard output with status 0.
  public static func runFromCommandLine() async {
    // As bytes: a file name need not be UTF-8 (see PathBytes).
    let arguments = (1..<Int(CommandLine.argc)).compactMap { CommandLine.unsafeArgv[$0].map { PathBytes.string(cString: $0) } }
    // The sandboxed decoder is this program started again: it loads every libvips module.
    if arguments.first == SandboxedDecoder.childArgument { SandboxedDecoder.runChild(Array(arguments.dropFirst())) }
    VipsRuntime.prepareProcess()
    SandboxedDecoder.executable = ChildProcess.ownExecutable
    guard !arguments.isEmpty else {
      Terminal.message("no command given (`gallery --help` lists them; `gallery browse` shows the documents here)")
      Glibc.exit(ExitStatus.usage.rawValue)
    }
    if let first = arguments.first, !first.hasPrefix("-"), let suggestion = CommandSuggestion.suggestion(for: first) {
      Terminal.message(suggestion)
      Glibc.exit(ExitStatus.usage.rawValue)
    }
    do {
      let (parsed, appended) = ManyOperands.split(arguments) {
        ManyOperands.command(arguments, among: configuration.subcommands).map(ManyOperands.Shape.init(of:))
      }
      var command = try parseAsRoot(parsed)
      if !appended.isEmpty {
        if var many = command as? any TakesManyOperands {
          try many.append(operands: appended)
          command = many
        } else {
          command = try parseAsRoot(arguments)
        }
      }
      if var command = command as? AsyncParsableCommand {
        try await command.run()
      } else {
        try command.run()
      }
    } catch {
      exit(reporting: error)
    }
    Glibc.exit(0)
  }

  /// Prints what an error says, in our style, and exits with its status: ours say what
  /// went wrong (`GalleryError`) and `ExitStatus(for:)` maps them, the argument parser's
  /// say theirs (64 for usage), and what else reaches here (Foundation's) is described
  /// without its domain, and its status follows its errno (74 when it has none).
  static func exit(reporting error: Error) -> Never {
    // An ExitCode thrown by a command: its message was printed already.
    if let code = error as? ExitCode { Glibc.exit(code.rawValue) }
    if let error = error as? GalleryError {
      printMessage(error.description)
      Glibc.exit(ExitStatus(for: error).rawValue)
    }
    let code = exitCode(for: error)
    if code == .success {
      let text = fullMessage(for: error)
      if !text.isEmpty { Terminal.exact(text.hasSuffix("\n") ? text : text + "\n") }
      Glibc.exit(0)
    }
    // The parser says 64 for what it refuses; Foundation's errors (CustomNSError) would
    // otherwise exit with their domain's code.
    if code == .validationFailure && !(error is CustomNSError) {
      printMessage(fullMessage(for: error))
      Glibc.exit(code.rawValue)
    }
    printMessage(SystemErrorText.describe(error))
    Glibc.exit(ExitStatus(for: error).rawValue)
  }

  /// Errors may quote what a document, a file or another program said: control characters
  /// are escaped, as in every message (lines stay lines).
  private static func printMessage(_ text: String) {
    let text = TerminalText.escaped(text, keepingLayout: true)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    while lines.last?.isEmpty == true { lines.removeLast() }
    if let first = lines.first {
      lines[0] = "gallery: " + (first.hasPrefix("Error: ") ? String(first.dropFirst("Error: ".count)) : first)
    }
    Terminal.err(lines.joined(separator: "\n") + "\n")
  }
}
