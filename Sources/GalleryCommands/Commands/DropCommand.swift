import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem
import UnixSignals

struct DropCommand: AsyncParsableCommand, TakesManyOperands {
  static let configuration = CommandConfiguration(
    commandName: "drop",
    abstract: "Drop images into a gallery.",
    discussion: """
      SOURCE is a file path, a file:// URI, an http:// or https:// URL, a data: URI (an image \
      a web page holds inline, embedded in the document as bytes given on standard input \
      are), or - to read a \
      text/uri-list from standard input (one URI a line, # comments, CRLF allowed) or the \
      payload of `gallery drag --type gallery`; with --null, standard input lists paths \
      or URIs each ended by a NUL (`find -print0`), and a NUL inside a uri-list line is \
      refused without it; standard input that is neither an image, such a payload nor \
      text is refused whole. File names are bytes: a name that is not UTF-8 (Latin-1 from an \
      old camera or a FAT card) is recorded with its bytes percent-encoded in its file:// \
      URL and shown with \\xNN escapes. Whether a file or a download is an image \
      is decided by its content, never its name or Content-Type. An image-search result \
      link (.../imgres?imgurl=IMAGE&imgrefurl=PAGE) drops IMAGE, and keeps PAGE as the \
      item's page.

      Each source is saved first as a placeholder (shown as pending by `gallery show`), \
      all of them before any download starts; no lock is held while images load. When an \
      image has loaded, it is committed where its placeholder stands at that moment, so \
      edits made meanwhile by other commands are kept (a placeholder trashed meanwhile \
      means the image is not added; a document renamed or moved meanwhile, by a file \
      manager or `gallery rename`, is followed under its new name). A source that fails \
      (cannot resolve, connection refused, timeout, HTTP error, not an image, too large, \
      more than 5 redirects, a \
      redirect to anything but http or https) is reported on standard error and its \
      placeholder removed; the others still land, and the exit status is 1. When every \
      source fails, the document is left byte for byte as it was.

      Downloads are cached under $XDG_CACHE_HOME/gallery (default ~/.cache/gallery), \
      revalidated with ETag and Last-Modified (a cached copy stands in for a server that \
      cannot be reached or no longer serves the image, and says so on standard error), and \
      evicted least recently used first \
      beyond $GALLERY_CACHE_SIZE (default 500M); see `gallery cache`. Proxies are taken \
      from http_proxy, https_proxy and no_proxy, as curl does; https trusts the system's \
      certificate authorities and those in $SSL_CERT_FILE.

      Standard output lists the committed items: position, id and source.
      """)

  @OptionGroup var target: DocumentArgument

  @Option(name: .customLong("at"), help: "1-based position of the first dropped item (default: the end).")
  var position: TargetPosition?

  @Flag(help: "Drop the images found in folders, and below them.")
  var recursive = false

  @Flag(name: [.customShort("0"), .customLong("null")], help: "Standard input lists sources ended by NULs (find -print0).")
  var nullSeparated = false

  @Flag(help: "Keep a failed item (aspect ratio 1) for a source that cannot be loaded.")
  var keepFailed = false

  @Option(help: "Refuse images with more pixels than this (default: the document's setting).")
  var maxPixels: Int?

  @Flag(help: "Store the original bytes in the document too, so it travels with its images (default: the document's setting).")
  var embed = false

  @Option(help: "How many images to decode at once (default: one per core).")
  var jobs: Int?

  @OptionGroup(title: "Web downloads") var web: WebOptions

  @Flag(help: "Write the committed items as JSON.")
  var json = false

  @Argument(
    help: "Files, file:// URIs, http(s) URLs, data: URIs, or - for a text/uri-list on standard input.", completion: .file())
  var sources: [String]

  func validate() throws {
    guard !sources.isEmpty else {
      throw ValidationError("give at least one SOURCE (a file, a file:// URI, an http(s) URL, or -)")
    }
    if let maxPixels, !ModelValidation.Limits.maxPixels.contains(maxPixels) {
      throw ValidationError("--max-pixels must be from 1 to 10^12")
    }
    if let jobs, !(1...256).contains(jobs) { throw ValidationError("--jobs must be from 1 to 256") }
  }

  mutating func append(operands: [String]) { sources += operands }

  func run() async throws {
    // libvips is loaded by the first image that needs it: plain JPEGs do not (a drop of
    // photos never loads it), and loading it ahead would take a core from the first decodes.
    let readsInput = sources.contains("-") || sources.contains("/dev/stdin")
    let input = readsInput ? try StandardInput.read(limit: DragPayload.sizeLimit) : Data()
    var options = DropOptions()
    options.position = position?.value
    options.keepFailed = keepFailed ? true : nil
    options.maxPixels = maxPixels
    options.embed = embed ? true : nil
    if let jobs { options.parallelism = jobs }
    web.configure(&options)
    try await Self.drop(
      sources, input: input, into: target.document, options: options, recursive: recursive,
      nullSeparated: nullSeparated, json: json)
  }

  /// Drops `sources` (`-` meaning `input`, a uri-list or a gallery payload) and reports
  /// what happened: the committed items on standard output, failures on standard error,
  /// and the exit status. Shared with `paste`.
  static func drop(
    _ sources: [String], input: Data, into document: String, options: DropOptions, recursive: Bool = false,
    nullSeparated: Bool = false, json: Bool = false
  ) async throws {
    if let payload = try DragPayload.decode(input) {
      guard sources == ["-"] else {
        throw ValidationError("a gallery payload on standard input comes alone: drop files separately")
      }
      let outcome = try payload.drop(into: document, at: options.position)
      try list(outcome.items, in: document, json: json)
      if outcome.movedOut > 0 {
        Terminal.message(
          "moved \(outcome.movedOut) item\(outcome.movedOut == 1 ? "" : "s") out of \(payload.source) (into its trash)")
      }
      if let notMoved = outcome.notMoved {
        Terminal.message("not moved: \(notMoved)")
        throw ExitCode(ExitStatus.partial)
      }
      return
    }
    // Opened on another core while the sources are read.
    let opening = DocumentOpening(document)
    // Standard input (or a pasted clipboard) that holds image bytes is one image, embedded:
    // what the classic app received from Photos. Anything else there is a uri-list.
    let standardInput = ["-", "/dev/stdin"]
    var parsed: [DropSource] = []
    var refused: [DropFailure] = []
    if sources.contains(where: standardInput.contains), DropSource.isImageData(input) {
      guard sources.allSatisfy(standardInput.contains) else {
        throw ValidationError("an image on standard input comes alone: drop files separately")
      }
      parsed = [.data(input, given: "standard input")]
    } else {
      let listed = sources.map { $0 == "/dev/stdin" ? "-" : $0 }
      (parsed, refused) = DropSourceParser.parse(listed, recursive: recursive, nullSeparated: nullSeparated) { input }
    }

    let bar = ProgressBar(label: "dropping", total: parsed.count)
    let sources = parsed
    let (report, interrupted) = try await Interruption.cancelling {
      try await ImageDrop.drop(sources, into: document, options: options, opening: opening) {
        bar.update(done: $0, total: $1)
      }
    }

    RecentDocuments.note(document)
    for failure in refused + report.failures {
      Terminal.message("not dropped: \(failure)")
    }
    for failure in report.keptFailures {
      Terminal.message("failed, kept as a failed item: \(failure)")
    }
    for failure in report.standIns {
      Terminal.message("the download failed, the cached copy stands in: \(failure)")
    }
    try list(report.committed, in: report.document ?? document, json: json)
    if interrupted {
      Terminal.message("interrupted: \(report.cancelled) source(s) not loaded; their placeholders were removed")
      throw ExitCode(ExitStatus.interrupted)
    }
    if !(refused + report.failures + report.keptFailures).isEmpty { throw ExitCode(ExitStatus.partial) }
  }

  /// Lists committed items: position now, id and source a line, or JSON.
  private static func list(_ items: [Item], in document: String, json: Bool) throws {
    if json { return try JSONOutput.write(items: items) }
    guard !items.isEmpty else { return }
    // The ids only: no item need be read.
    let opened = try GalleryDocument.openLazily(document)
    let positions = opened.positions(of: items.map(\.id))
    Terminal.out(items.map { "\(positions[$0.id].map { String($0 + 1) } ?? "-")\t\($0.id)\t\($0.source)\n" }.joined())
  }
}

/// Runs work that SIGINT or SIGTERM cancel instead of ending the process: the work sees its
/// task cancelled and returns what it did. The signals are trapped (swift-service-lifecycle's
/// `UnixSignalsSequence`, which `watch` uses through its service group too) only while the
/// work runs.
enum Interruption {
  private enum Event<T: Sendable>: Sendable {
    case finished(T)
    case signal
  }

  /// The work's value, and whether a signal cancelled it.
  static func cancelling<T: Sendable>(
    _ work: @escaping @Sendable () async throws -> T
  ) async throws -> (value: T, interrupted: Bool) {
    let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
    return try await withThrowingTaskGroup(of: Event<T>.self) { group in
      group.addTask { .finished(try await work()) }
      group.addTask {
        for await _ in signals { return .signal }
        return .signal
      }
      var interrupted = false
      while let event = try await group.next() {
        switch event {
        case .finished(let value):
          group.cancelAll()
          return (value, interrupted)
        case .signal where !Task.isCancelled:
          interrupted = true
          group.cancelAll()
        case .signal:
          break
        }
      }
      preconditionFailure("the work ended without a value")
    }
  }
}
