import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem
import Logging
import ServiceLifecycle

struct WatchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch",
    abstract: "Turn files put into a folder into drops (a drop folder).",
    discussion: """
      Whatever puts a file into DIR - a file manager, cp, mv, rsync, curl -o, a web \
      browser's download - drops it into DOC: a placeholder appears at the end of DOC at \
      once, and when the file is complete (closed after writing, or renamed into DIR) its \
      image is committed where the placeholder stands then: as soon as it is loaded when no \
      process holds it open for writing any more, after the settle time unchanged when that \
      cannot be told (a file of another user, a filesystem without leases). A file still \
      held open for writing elsewhere waits until it is closed.

      Names writers use for unfinished files are ignored until renamed: hidden files \
      (rsync's .name.XXXXXX), *.part, *.crdownload, *.tmp, *.partial, *.download, *~. A file \
      deleted or moved away before it is committed loses its placeholder; a file that is not \
      an image is left alone (or moved to --reject-to), and one that does not decode is tried \
      once more after the settle time. The same content is imported once (--allow-duplicates \
      keeps both).

      At start the watcher imports what arrived while it was not running (a file a killed \
      watcher left as a stale placeholder, into that placeholder, and one it had moved to \
      --then move:DIR but not yet committed, moved back first; a name the document holds \
      already, when the file's content is not the one it holds: a camera's numbering starts \
      again), and never imports a file twice: it remembers path, size, modification time \
      and hash under $XDG_STATE_HOME/gallery/watch/. --once does only that, then exits (for \
      cron).

      Several folders: give DIR:DOC pairs, or list them one a line in \
      $XDG_CONFIG_HOME/gallery/watch.conf (# comments). SIGINT or SIGTERM stops taking \
      files, commits what is loading, removes the other placeholders and exits 0. A save \
      the disk has no room for waits for room and is made again (not with --once); stopped \
      meanwhile, the watcher exits 74, leaving what it could not save with its \
      placeholders for the next start. A DOC \
      renamed or moved (within its filesystem) while the watcher runs is followed under its \
      new name, with a warning, and the configuration files that name it (--config, and each \
      *.conf beside watch.conf) are rewritten to name it so; `gallery rename` does the same. \
      One renamed in its folder while no watcher ran is found again at the next start: the \
      document beside it whose history holds the revision the watcher saw last (the renamed \
      file rather than a copy; none when two copies could be it). A DIR renamed within its \
      parent folder, while the watcher runs or not, is watched under its new name the same \
      way; one deleted or moved elsewhere ends the watcher.

      Run it as a service: install Samples/systemd/gallery-watch@.service into \
      ~/.config/systemd/user/ and `systemctl --user enable --now gallery-watch@<name>`, \
      with <name>.conf beside watch.conf (see the unit file).
      """)

  @Argument(help: "DIR (with --into DOC), or DIR:DOC pairs.", completion: .directory)
  var folders: [String] = []

  @Option(
    name: .customLong("into"), help: "The document to drop into.", completion: .file(extensions: ["gallery"]),
    transform: PathArgument.local)
  var document: String?

  @Option(
    help: "A file of DIR:DOC pairs (default: $XDG_CONFIG_HOME/gallery/watch.conf when no DIR is given).", completion: .file())
  var config: String?

  @Flag(help: "Watch the folders below DIR too, including ones created later.")
  var recursive = false

  @Flag(help: "Import what is in DIR now, then exit.")
  var once = false

  @Option(
    help:
      "Milliseconds a complete file must stay unchanged before it is committed, when whether a writer still holds it cannot be told."
  )
  var settle = 200

  @Option(
    help:
      "What to do with a file once committed: keep (the item refers to it), move:DIR, or delete (with --embed, once the document holding it is saved)."
  )
  var then = AfterCommitArgument(.keep)

  @Flag(help: "Embed the originals in the document (default: the document's setting).")
  var embed = false

  @Option(
    help: "Move files that are not usable images into this folder.", completion: .directory,
    transform: PathArgument.local)
  var rejectTo: String?

  @Flag(help: "Import the same content again when it appears again.")
  var allowDuplicates = false

  @Option(help: "Write events to standard output, one JSON object a line.")
  var events: EventFormat?

  @Option(help: "Log level on standard error.")
  var logLevel = LogLevel.info

  func validate() throws {
    guard (0...3_600_000).contains(settle) else { throw ValidationError("--settle must be from 0 to 3600000 milliseconds") }
    if document != nil && folders.count != 1 { throw ValidationError("--into goes with exactly one DIR") }
  }

  func pairs() throws -> [DropFolder] {
    if let document { return [DropFolder(folder: PathArgument.local(folders[0]), document: document)] }
    if !folders.isEmpty {
      return try folders.map { pair in
        guard let parsed = DropFolder(pair: pair) else {
          throw CommandFailure.usage("\(pair): expected DIR:DOC, or DIR --into DOC")
        }
        return parsed
      }
    }
    let path = config ?? Self.defaultConfig
    // As bytes: a folder's name need not be UTF-8 (see PathBytes).
    guard let text = (try? FileSystem.read(path, limit: 1 << 20)).map(PathBytes.string) else {
      throw CommandFailure.notFound(
        "nothing to watch: give DIR --into DOC, DIR:DOC pairs, or a config file (\(path) cannot be read)")
    }
    let pairs: [DropFolder]
    do { pairs = try DropFolder.parseList(text) } catch { throw CommandFailure.usage("\(path): \(error)") }
    guard !pairs.isEmpty else { throw CommandFailure.usage("\(path) lists no DIR:DOC pair") }
    return pairs
  }

  static var defaultConfig: String {
    let base = XDGDirectory.config.path
    return base + "/gallery/watch.conf"
  }

  func run() async throws {
    let level = logLevel.level
    LoggingSystem.bootstrap { _ in MessageLogHandler(level: level) }
    let logger = Logger(label: "gallery.watch")
    var options = WatchOptions()
    options.recursive = recursive
    options.once = once
    options.settle = Double(settle) / 1000
    options.afterCommit = then.value
    options.rejectTo = rejectTo.map(DropSourceParser.absoluteForCommand)
    options.allowDuplicates = allowDuplicates
    options.embed = embed ? true : nil
    if document == nil && folders.isEmpty {
      options.configFile = DropSourceParser.absoluteForCommand(config ?? Self.defaultConfig)
    }
    let json = events == .json
    let watcher = try DropFolderWatcher(pairs: try pairs(), options: options, logger: logger) { event in
      guard json, let line = try? JSONOutput.encoded(event) else { return }
      Terminal.out(line + [0x0A])
    }
    // SIGINT and SIGTERM stop it the careful way (see the discussion above); the service
    // group owns them while it runs.
    let service = ServiceGroupConfiguration.ServiceConfiguration(
      service: watcher, successTerminationBehavior: .gracefullyShutdownGroup)
    let group = ServiceGroup(
      configuration: ServiceGroupConfiguration(
        services: [service], gracefulShutdownSignals: [.sigint, .sigterm], logger: logger))
    try await group.run()
  }
}

/// `--events`: how events are written to standard output.
enum EventFormat: String, ExpressibleByArgument, CaseIterable {
  case json
}

/// `--log-level`: swift-log's levels, listed in help and completions.
enum LogLevel: String, ExpressibleByArgument, CaseIterable {
  case trace, debug, info, notice, warning, error, critical

  var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}

/// `--then`: keep, delete, or move:DIR (the folder made absolute).
struct AfterCommitArgument: ExpressibleByArgument {
  var value: AfterCommit

  init(_ value: AfterCommit) { self.value = value }

  init?(argument: String) {
    switch argument {
    case "keep": value = .keep
    case "delete": value = .delete
    case _ where argument.hasPrefix("move:") && argument.count > 5:
      value = .move(DropSourceParser.absoluteForCommand(PathArgument.local(String(argument.dropFirst(5)))))
    default: return nil
    }
  }

  static var allValueStrings: [String] { ["keep", "move:DIR", "delete"] }
  static var defaultCompletionKind: CompletionKind { .list(["keep", "delete", "move:"]) }
  var defaultValueDescription: String {
    switch value {
    case .keep: "keep"
    case .delete: "delete"
    case .move(let folder): "move:\(folder)"
    }
  }
}
