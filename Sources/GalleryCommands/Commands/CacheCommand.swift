import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct CacheCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cache",
    abstract: "Show or clear the download cache.",
    discussion: """
      Web images dropped into any gallery are cached under $XDG_CACHE_HOME/gallery/downloads \
      (default ~/.cache/gallery/downloads), keyed by URL, so that dropping them again, \
      `retry` and `export` revalidate them (ETag, Last-Modified) instead of downloading \
      them again; the cached copy stands in when the server cannot be reached or no longer \
      serves the image (an error status, a page where it was: an expired link), and the \
      command says so on standard error. The cache \
      keeps at most $GALLERY_CACHE_SIZE bytes (a number, or with a K, M or G suffix; \
      default 500M), evicting the least recently used first.

      Without options, the same as --info. Documents never depend on the cache: clearing \
      it only means downloading again.
      """)

  @Flag(help: "Show where the cache is, how many entries and bytes it holds, and its limit (the default).")
  var info = false

  @Flag(help: "Remove every cached download.")
  var clear = false

  @Option(
    help: ArgumentHelp("Evict least recently used entries until at most this size is left.", valueName: "size"),
    transform: { text in
      guard let bytes = ByteCount.parse(text) else { throw ValidationError("not a size: '\(text)' (try 200M)") }
      return bytes
    })
  var trim: Int?

  @OptionGroup var output: OutputOptions

  func validate() throws {
    if clear && trim != nil { throw ValidationError("--clear and --trim do not go together") }
  }

  func run() throws {
    let cache = DownloadCache()
    if clear {
      let removed = cache.clear()
      Terminal.message("removed \(removed.entries) cached download(s), \(Self.size(removed.bytes))")
    } else if let trim {
      let removed = cache.evict(to: trim)
      Terminal.message("removed \(removed.entries) cached download(s), \(Self.size(removed.bytes))")
    }
    guard info || (!clear && trim == nil) || output.json else { return }
    let usage = cache.usage()
    if output.json {
      let (folder, folderURL) = PathBytes.forJSON(cache.folder)
      try JSONOutput.write(
        CacheInfo(folder: folder, folderURL: folderURL, entries: usage.entries, bytes: usage.bytes, limit: cache.limit))
    } else {
      Terminal.out(
        """
        folder:  \(cache.folder)
        entries: \(usage.entries)
        size:    \(Self.size(usage.bytes)) (\(usage.bytes) bytes)
        limit:   \(Self.size(cache.limit)) (\(cache.limit) bytes)

        """)
    }
  }

  private static func size(_ bytes: Int) -> String {
    ByteCountFormatter.string(fromByteCount: Int64(bytes), countStyle: .binary)
  }
}

/// The folder as JSON gives a path (`PathBytes.forJSON`).
private struct CacheInfo: Encodable {
  var folder: String
  var folderURL: String?
  var entries: Int
  var bytes: Int
  var limit: Int
}
