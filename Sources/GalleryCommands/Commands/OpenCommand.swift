import ArgumentParser
import Foundation
import GalleryDocument
import GalleryKit
import GalleryModel
import GallerySystem
import GalleryView

struct OpenCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "open",
    abstract: "Open a gallery in the web browser.",
    discussion: """
      Shows DOC (without DOC: the document browser) in the default web browser ($BROWSER, \
      else xdg-open) and returns at once. One view server runs for each user: the first \
      `open` starts it in the background (`gallery serve`), later ones reuse it. It stops \
      by itself 5 minutes (--idle-exit) after its last page has closed. The file manager's \
      double-click on a .gallery runs this.
      """)

  @Argument(help: "The document to open.", completion: .file(extensions: ["gallery"]), transform: PathArgument.local)
  var document: String?

  @Flag(help: "Print the page's address (with its access token) instead of opening a browser.")
  var printURL = false

  @Option(help: "Seconds a server started now lives on after its last page closed.")
  var idleExit = 300

  func validate() throws {
    guard (1...86400).contains(idleExit) else { throw ValidationError("--idle-exit must be from 1 to 86400") }
  }

  func run() async throws {
    var absolute: String?
    if let document {
      let opened = try GalleryDocument.open(document)
      RecentDocuments.note(opened.path)
      absolute = ServedDocuments.absolute(opened.path)
    }
    let address = try await ViewInstance.locked { () async throws -> String in
      if let running = ViewInstance.current() {
        if let absolute, let address = await running.open(absolute) { return address }
        if absolute == nil { return running.pageAddress(id: nil) }
      }
      let announced = try ChildProcess.startInBackground(
        ChildProcess.ownExecutable, ["serve", "--instance", "--idle-exit", String(idleExit)] + (absolute.map { [$0] } ?? []),
        input: Data())
      guard announced.hasPrefix("http://") else {
        throw CommandFailure(
          exitStatus: .unavailable, description: "the view server did not start\(announced.isEmpty ? "" : ": " + announced)")
      }
      return announced
    }
    if printURL {
      Terminal.exact(address + "\n")
      return
    }
    try Browser.open(address)
  }
}

/// The user's web browser: the first of `$BROWSER` (colon-separated commands; `%s` stands
/// for the address) that starts, else `xdg-open`.
enum Browser {
  static func open(_ address: String) throws {
    let environment = ProcessInfo.processInfo.environment
    let commands = (environment["BROWSER"] ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty } + ["xdg-open"]
    for command in commands {
      var words = command.split(separator: " ").map(String.init)
      guard !words.isEmpty else { continue }
      if words.contains("%s") { words = words.map { $0 == "%s" ? address : $0 } } else { words.append(address) }
      guard let program = ChildProcess.findInPath(words[0]) else { continue }
      if (try? ChildProcess.startDetached(program, Array(words.dropFirst()))) != nil { return }
    }
    throw CommandFailure(
      exitStatus: .unavailable, description: "no web browser to open \(address) with: set $BROWSER, or install xdg-utils")
  }
}
