import ArgumentParser
import Foundation
import GalleryDocument
import GalleryKit
import GalleryModel
import GallerySystem
import GalleryView
import Logging
import Synchronization

struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Serve galleries to a web browser, in the foreground.",
    discussion: """
      Runs the browser view: a document browser of the given folders' galleries (and the \
      recent ones), and a page for each gallery where images are dragged in from a file \
      manager or another browser tab, reordered, dragged to the trash or to another \
      gallery's page, and dragged out. Edits made anywhere (a `gallery drop`, a drop \
      folder, another page) show on every open page at once.

      The first line on standard output is the address to open, with its access token: \
      every request needs that token (then kept in a cookie), a Host header naming this \
      server and, for changes, the page's own Origin. It binds 127.0.0.1 and a free port \
      unless told otherwise; to use it from another machine, prefer `ssh -L` to binding \
      another address. SIGINT or SIGTERM stops it: drops under way commit what has \
      loaded. `gallery open` starts one of these for you.
      """)

  @Argument(
    help: "Documents and folders of documents to serve.", completion: .file(extensions: ["gallery"]),
    transform: PathArgument.local)
  var paths: [String] = []

  @Option(help: "The port to listen on (default: a free one).")
  var port = 0

  @Option(help: "The address to listen on.")
  var bind = "127.0.0.1"

  @Option(help: "Stop after this many seconds without an open page (default: never).")
  var idleExit: Int?

  @Flag(help: .private)
  var instance = false

  @Option(help: "Log level on standard error.")
  var logLevel = LogLevel.warning

  func validate() throws {
    guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
    if let idleExit, !(1...86400).contains(idleExit) { throw ValidationError("--idle-exit must be from 1 to 86400") }
    guard !bind.isEmpty, !bind.unicodeScalars.contains(where: { $0.value < 0x21 || "/[]".unicodeScalars.contains($0) })
    else { throw ValidationError("--bind must be an address, such as 127.0.0.1 or ::1") }
  }

  func run() async throws {
    let level = logLevel.level
    LoggingSystem.bootstrap { _ in MessageLogHandler(level: level) }
    let logger = Logger(label: "gallery.serve")
    let documents = ServedDocuments()
    var first: String?
    for path in paths {
      if FileSystem.isDirectory(path) {
        documents.serveFolder(path)
      } else {
        // A document that does not open is the error, before anything listens.
        let opened = try GalleryDocument.open(path)
        RecentDocuments.note(opened.path)
        let id = documents.serveDocument(path)
        first = first ?? id
      }
    }
    var configuration = ViewConfiguration()
    configuration.bind = bind
    configuration.port = port
    configuration.idleExit = idleExit.map { .seconds($0) }
    let token = configuration.token
    let registers = instance
    let pageID = paths.count == 1 ? first : nil
    let recorded = RecordedInstance()
    let server = ViewServer(configuration: configuration, documents: documents)
    try await server.run(logger: logger) { base, _ in
      let instance = ViewInstance(pid: ProcessInfo.processInfo.processIdentifier, base: base, token: token)
      if registers {
        do {
          try instance.record()
          recorded.set(instance)
        } catch { Terminal.message("warning: \(error): `gallery open` will not find this server") }
      }
      Terminal.exact(instance.pageAddress(id: pageID) + "\n")
      // Started by `gallery open`, which reads up to the end of our output.
      if registers { FileSystem.detachStandardOutput() }
    }
    recorded.forget()
  }
}

/// The record of this server for `gallery open`, removed when it stops.
private final class RecordedInstance: Sendable {
  private let instance = Mutex<ViewInstance?>(nil)
  func set(_ value: ViewInstance) { instance.withLock { $0 = value } }
  func forget() { instance.withLock { $0 }?.forget() }
}
