import Foundation
import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem

/// Something dropped: a local file or a web URL, with the text the user gave for it.
public struct DropSource: Sendable, Equatable {
  public enum Location: Sendable, Equatable {
    case file(path: String)
    case web(URL)
    /// Image bytes with no URL (standard input, a clipboard holding an image): embedded in
    /// the document, and named by their content.
    case data(Data)
  }

  /// Image bytes given as data (standard input, a clipboard).
  public static func data(_ data: Data, given: String) -> DropSource {
    DropSource(given: given, location: .data(data))
  }

  /// Whether bytes are an image that a drop can take as data (by content, as always).
  public static func isImageData(_ data: Data) -> Bool {
    ImageProcessor.recognises(data.prefix(LocalImageLoader.precheckPrefix))
  }

  /// What the user typed or the uri-list said, for messages.
  public var given: String
  public var location: Location
  /// The web page an image-search result pointed to, kept on the item.
  public var page: String?

  public init(given: String, location: Location, page: String? = nil) {
    self.given = given
    self.location = location
    self.page = page
  }

  public var isWeb: Bool {
    if case .web = location { return true }
    return false
  }

  /// Bytes given with the source itself (standard input, a clipboard, a `data:` URI).
  public var isData: Bool {
    if case .data = location { return true }
    return false
  }

  /// The `file:` URL an item records for a local path: absolute, its bytes percent-encoded.
  static func fileURL(_ path: String) -> String { PathBytes.fileURL(absolutePath: XDGDirectory.standardized(path)) }

  /// The URL stored on the item: `file:///absolute/path` or the web URL.
  public var url: String {
    switch location {
    case .file(let path): Self.fileURL(path)
    case .web(let url): url.absoluteString
    // A URN for the content: the bytes are in the document, under originals/HASH.EXT.
    case .data(let data): "urn:sha256:" + contentHash(of: data).dropFirst("sha256:".count)
    }
  }
}

/// A source that was not dropped, and why.
public struct DropFailure: Error, Sendable, Equatable, CustomStringConvertible {
  public var source: String
  public var reason: String
  /// What the image loader refused, when it was that (rules such as "not an image is not
  /// tried again" look at this, not at the words).
  public var refusal: ImageRefusal?

  public init(source: String, reason: String, refusal: ImageRefusal? = nil) {
    self.source = source
    self.reason = reason
    self.refusal = refusal
  }

  init(source: String, refusal: ImageRefusal) {
    self.init(source: source, reason: refusal.description, refusal: refusal)
  }

  public var description: String { "\(source): \(reason)" }
}

/// Turns command-line sources into drop sources: paths, `file://` URIs, http(s) URLs,
/// `data:` URIs, and `-` for a `text/uri-list` on standard input.
public enum DropSourceParser {
  /// `-` reads a uri-list from standard input, or with `nullSeparated` a list of paths or
  /// URIs each ended by a NUL (`find -print0`).
  public static func parse(
    _ arguments: [String], recursive: Bool, nullSeparated: Bool = false, readStandardInput: () -> Data
  ) -> (sources: [DropSource], failures: [DropFailure]) {
    var sources: [DropSource] = []
    var failures: [DropFailure] = []
    var standardInputRead = false
    for argument in arguments {
      let entries: [String]
      if argument == "-" {
        guard !standardInputRead else { continue }
        standardInputRead = true
        let input = readStandardInput()
        if nullSeparated {
          entries = input.split(separator: 0).map { PathBytes.string($0) }
        } else if let binary = binaryByte(in: input) {
          // A uri-list is text: its lines would be names made of whatever bytes (an archive,
          // a clipboard's foreign data), each a failure, or a failed item to keep.
          let start = input.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
          failures.append(
            DropFailure(
              source: "standard input",
              reason:
                "neither an image Gallery reads nor a text/uri-list (byte 0x\(String(format: "%02x", binary)) is "
                + "no text's; it starts \(start))"))
          entries = []
        } else {
          // Bytes that are not UTF-8 are a file name's (see PathBytes); a NUL is no line's.
          entries = uriList(PathBytes.string(input))
          for line in entries where line.contains("\u{0}") {
            failures.append(
              DropFailure(
                source: named(line.replacingOccurrences(of: "\u{0}", with: "\\0")),
                reason: "a NUL byte inside a line (for a list ended by NULs, as find -print0 writes, use --null)"))
          }
        }
      } else {
        entries = [argument]
      }
      for entry in entries where !entry.contains("\u{0}") {
        switch source(for: entry) {
        case .success(let source):
          if case .file(let path) = source.location, isDirectory(path) {
            guard recursive else {
              failures.append(DropFailure(source: entry, reason: "is a directory (use --recursive to drop the images in it)"))
              continue
            }
            sources += filesBelow(path).map { DropSource(given: $0, location: .file(path: $0)) }
          } else {
            sources.append(source)
          }
        case .failure(let failure): failures.append(failure)
        }
      }
    }
    return (sources, failures)
  }

  /// The first control byte in `input` that no text holds (a NUL is left to the lines that
  /// hold one, which are told about `--null`), or nil when it reads as text.
  package static func binaryByte(in input: Data) -> UInt8? {
    input.first { $0 < 0x20 && ![0x00, 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains($0) || $0 == 0x7F }
  }

  /// Writes a `text/uri-list` (RFC 2483): one URI a line, each ended by CRLF.
  public static func uriListText(_ uris: [String]) -> String {
    // A note card's source is empty: it has no place in a list of URIs.
    uris.filter { !$0.isEmpty }.map { $0 + "\r\n" }.joined()
  }

  /// Parses a `text/uri-list` (RFC 2483): one URI a line, `#` comments, CRLF or LF.
  public static func uriList(_ text: String) -> [String] {
    text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty && !$0.hasPrefix("#") }
  }

  /// `checkingFiles` false never asks the file system (for the fuzz target). A source is
  /// refused here when its item could not hold its URL (see `ModelValidation`), and its
  /// page is left out when the item could not hold that: an item that breaks a rule would
  /// be refused by the save, the whole drop with it.
  package static func source(for text: String, checkingFiles: Bool = true) -> Result<DropSource, DropFailure> {
    // Not the current folder: an empty name is a script's empty variable.
    guard !text.isEmpty else { return .failure(DropFailure(source: "''", reason: "an empty name names no file")) }
    let given = named(text)
    let parsed = parsedSource(for: text, given: given, checkingFiles: checkingFiles)
    guard case .success(var source) = parsed, !source.isData else { return parsed }
    guard ModelValidation.isURLText(source.url) else {
      return .failure(
        DropFailure(
          source: given,
          reason: "its URL is \(source.url.utf8.count) bytes long, over the \(ModelValidation.Limits.urlBytes) an item holds"))
    }
    if let page = source.page, !ModelValidation.isURLText(page) { source.page = nil }
    return .success(source)
  }

  /// A source as messages name it: a long one by its start (a data: URI may be megabytes
  /// long, a line of a hostile list anything).
  package static func named(_ text: String) -> String { text.utf8.count > 256 ? String(text.prefix(200)) + "…" : text }

  private static func parsedSource(
    for text: String, given: String, checkingFiles: Bool
  ) -> Result<DropSource, DropFailure> {
    guard let colon = text.firstIndex(of: ":"), let scheme = schemeOf(text, colon: colon) else {
      return .success(DropSource(given: given, location: .file(path: absolute(text))))
    }
    switch scheme {
    case "file":
      // Percent-escapes decoded to bytes, which need not be UTF-8 (see PathBytes).
      guard let path = PathBytes.path(fromFileURL: text) else {
        return .failure(DropFailure(source: given, reason: "not a local file URI"))
      }
      return .success(DropSource(given: given, location: .file(path: path)))
    case "http", "https":
      guard let url = ImageSearchResult.canonicalWebURL(text) else {
        return .failure(DropFailure(source: given, reason: "not a valid URL"))
      }
      if let result = ImageSearchResult(url: url) {
        return .success(DropSource(given: given, location: .web(result.image), page: result.page?.absoluteString))
      }
      return .success(DropSource(given: given, location: .web(url)))
    case "data":
      // What a browser gives for an image a page holds inline.
      guard let bytes = dataURIBytes(text) else {
        return .failure(DropFailure(source: given, reason: "not a valid data: URI (RFC 2397)"))
      }
      return .success(.data(bytes, given: given))
    default:
      // "photo:1.jpg" is a file name when such a file exists.
      if checkingFiles, FileSystem.linkStatus(of: text) != nil {
        return .success(DropSource(given: given, location: .file(path: absolute(text))))
      }
      return .failure(
        DropFailure(
          source: given, reason: "unsupported URI scheme '\(scheme):' (use a path, file://, http://, https:// or data:)"))
    }
  }

  /// The bytes of a `data:` URI (RFC 2397, `data:[TYPE][;base64],DATA`): base64, or
  /// percent-escaped bytes. Nil when it is neither.
  package static func dataURIBytes(_ text: String) -> Data? {
    guard let comma = text.firstIndex(of: ","), text.lowercased().hasPrefix("data:") else { return nil }
    let header = text[text.index(text.startIndex, offsetBy: 5)..<comma].lowercased()
    guard let bytes = PathBytes.percentDecoded(text[text.index(after: comma)...], strict: true) else { return nil }
    guard header.hasSuffix(";base64") else { return Data(bytes) }
    return Data(base64Encoded: Data(bytes))
  }

  /// A scheme is letters, digits, `+-.` before the colon, starting with a letter; a
  /// one-letter "scheme" or a path with a slash before the colon is a file name.
  private static func schemeOf(_ text: String, colon: String.Index) -> String? {
    let scheme = text[..<colon]
    guard scheme.count > 1, let first = scheme.first, first.isLetter,
      scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
    else { return nil }
    return scheme.lowercased()
  }

  static func absolute(_ path: String) -> String { XDGDirectory.absolute(path) }

  static func isDirectory(_ path: String) -> Bool { FileSystem.isDirectory(path) }

  /// Files below a folder, hidden ones and hidden folders skipped, in a stable (sorted)
  /// order. Folders are entered, links to folders are not (a link cannot make a loop).
  static func filesBelow(_ folder: String) -> [String] {
    var files: [String] = []
    var folders = [folder]
    while let current = folders.popLast() {
      for name in (try? FileSystem.entries(of: current)) ?? [] where !name.hasPrefix(".") {
        let path = current + "/" + name
        guard let info = FileSystem.linkStatus(of: path) else { continue }
        if (info.st_mode & S_IFMT) == S_IFDIR {
          folders.append(path)
        } else if !isDirectory(path) {
          files.append(path)
        }
      }
    }
    return files.sorted { $0.localizedStandardCompare($1) == .orderedAscending }
  }
}

extension DropSourceParser {
  /// An absolute path for a path given on the command line.
  public static func absoluteForCommand(_ path: String) -> String { absolute(path) }
}
