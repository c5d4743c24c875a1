import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

/// The items a command changes what a person wrote of (tags, caption, stars, label): at
/// least one, by position or id.
struct ItemsArgument: ParsableArguments {
  @Argument(help: "Items, by position or id.", completion: ItemCompletion.items)
  var items: [ItemReference]

  func validate() throws {
    guard !items.isEmpty else { throw ValidationError("name at least one ITEM") }
  }
}

/// A document or folder on the command line: a path, or a local `file:` URL, the exact form
/// in which `--json` gives a path that is not UTF-8 (`PathBytes.forJSON`). Anything else,
/// another host's URL too, is taken as a path.
enum PathArgument {
  @Sendable static func local(_ argument: String) -> String { PathBytes.path(fromFileURL: argument) ?? argument }
}

/// The document a command works on.
struct DocumentArgument: ParsableArguments {
  @Argument(
    help: "The gallery document (NAME.gallery).", completion: .file(extensions: ["gallery"]),
    transform: PathArgument.local)
  var document: String

  /// Opens the document to read it, warning on standard error when it is damaged: what is
  /// shown is then the last revision that could be read, and edits refuse the document.
  /// `lazily` leaves its items unread until needed, for a command that shows none of them
  /// (`history`).
  func open(lazily: Bool = false) throws -> GalleryDocument {
    let opened = lazily ? try GalleryDocument.openLazily(document) : try GalleryDocument.open(document)
    if let damage = opened.damage {
      Terminal.message(
        "warning: \(document) is damaged (\(damage)): showing what could be read; it is read-only until `gallery check --fix` rescues it"
      )
    }
    return opened
  }
}

/// `--json` for read commands.
struct OutputOptions: ParsableArguments {
  @Flag(help: "Write JSON to standard output instead of text.")
  var json = false
}

/// `--json` of an edit command.
struct EditOutputOptions: ParsableArguments {
  @Flag(help: "Write what was done as JSON: the revision made, its summary, the items and their positions now.")
  var json = false
}

/// A position on the command line: a 1-based number, or `end`.
enum TargetPosition: ExpressibleByArgument {
  case position(Int)
  case end

  init?(argument: String) {
    if argument.lowercased() == "end" {
      self = .end
    } else if let number = Int(argument), number >= 1 {
      self = .position(number)
    } else {
      return nil
    }
  }

  var value: Int {
    switch self {
    case .position(let number): number
    case .end: Int.max
    }
  }
}

extension ItemReference: ExpressibleByArgument {
  public init?(argument: String) {
    guard !argument.isEmpty else { return nil }
    if let number = Int(argument), number < 1 { return nil }
    self.init(argument)
  }
}

/// How web images are downloaded: by `drop`, `retry` and `export`.
struct WebOptions: ParsableArguments {
  @Option(help: ArgumentHelp("How many web downloads run at once.", valueName: "n"))
  var downloads = 8

  @Option(help: ArgumentHelp("Seconds a web download may take in all, redirects included.", valueName: "seconds"))
  var timeout: Double = 60

  @Option(
    help: ArgumentHelp(
      "Largest image accepted, downloaded or local (at most 256M), in bytes or with a K, M or G suffix.", valueName: "size"),
    transform: { text in
      guard let bytes = ByteCount.parse(text), bytes > 0 else { throw ValidationError("not a size: '\(text)' (try 50M)") }
      return bytes
    })
  var maxDownloadSize: Int = WebLimits().maxBytes

  @Flag(help: "Neither read nor fill the download cache (~/.cache/gallery).")
  var noCache = false

  func validate() throws {
    guard (1...256).contains(downloads) else { throw ValidationError("--downloads must be from 1 to 256") }
    guard timeout > 0, timeout <= 86_400 else {
      throw ValidationError("--timeout must be a number of seconds from 0 to 86400 (a day)")
    }
    guard maxDownloadSize <= WebLimits.maxBytesCeiling else {
      throw ValidationError(
        "--max-download-size can be at most \(WebLimits.maxBytesCeiling >> 20)M (the largest original a document holds)")
    }
  }

  var limits: WebLimits {
    var limits = WebLimits()
    limits.timeout = timeout
    limits.connectTimeout = min(limits.connectTimeout, timeout)
    limits.maxBytes = maxDownloadSize
    return limits
  }

  var cache: DownloadCache? { noCache ? nil : DownloadCache() }

  /// Applies the options to a drop's options.
  func configure(_ options: inout DropOptions) {
    options.downloads = downloads
    options.web = limits
    options.cache = cache
  }

  func fetcher() -> WebImageFetcher { WebImageFetcher(limits: limits, cache: cache) }
}
