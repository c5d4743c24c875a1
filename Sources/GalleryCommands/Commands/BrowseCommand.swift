import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct BrowseCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "browse",
    abstract: "List gallery documents: the document browser.",
    discussion: """
      One line per document: title, items, pending placeholders, size, modified time, \
      path. Without DIR, the current folder and the recently used documents; --recent, \
      only those (most recent first, kept in $XDG_STATE_HOME/gallery/recent). A file \
      that does not open is listed with the reason.
      """)

  @Argument(help: "Folders to list.", completion: .directory, transform: PathArgument.local)
  var folders: [String] = []

  @Flag(help: "Only the recently used documents.")
  var recent = false

  @OptionGroup var output: OutputOptions

  /// Paths as JSON gives them (`PathBytes.forJSON`).
  struct Entry: Encodable {
    var path: String
    var pathURL: String?
    var title: String?
    var items: Int?
    var pending: Int?
    var bytes: Int64
    var modified: Date
    var error: String?
    /// Conflict copies of this document that a sync tool left beside it; nil for none.
    var conflictCopies: [String]? = nil
    /// Each copy's exact URL, when one of them is not UTF-8.
    var conflictCopyURLs: [String]? = nil

    init(_ path: String, bytes: Int64, modified: Date, error: String? = nil) {
      (self.path, pathURL) = PathBytes.forJSON(path)
      (self.bytes, self.modified, self.error) = (bytes, modified, error)
    }
  }

  func run() throws {
    var paths: [String] = []
    if !recent {
      for folder in folders.isEmpty ? ["."] : folders {
        paths += try DocumentFiles.documents(in: folder)
      }
    }
    if recent || folders.isEmpty {
      let listed = Set(paths.map(XDGDirectory.standardized))
      paths += RecentDocuments.list().filter { !listed.contains($0) }
    }
    let copies = DocumentConflict.copies(of: paths)
    let entries = paths.map { entry($0, conflictCopies: copies[$0] ?? []) }
    if output.json {
      try JSONOutput.write(entries)
      return
    }
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    Terminal.out(
      entries.map { entry in
        let counts =
          entry.items.map { "\($0) item\($0 == 1 ? "" : "s")" + ((entry.pending ?? 0) > 0 ? ", \(entry.pending!) pending" : "") }
          ?? "-"
        return [
          // A document that does not open keeps the columns; why comes after its path.
          TerminalText.escaped(entry.title ?? "(does not open)").padded(to: 24), counts.padded(to: 22),
          ByteCountFormatter.string(fromByteCount: entry.bytes, countStyle: .file).leftPadded(to: 9),
          formatter.string(from: entry.modified), TerminalText.escaped(entry.path),
        ].joined(separator: "  ") + (entry.error.map { "  (\(TerminalText.escaped($0)))" } ?? "") + "\n"
          + (entry.conflictCopies ?? []).map {
            "    conflict copy: \(TerminalText.escaped($0))  (gallery merge --conflict DOC COPY)\n"
          }.joined()
      }.joined())
  }

  private func entry(_ path: String, conflictCopies: [String]) -> Entry {
    let info = FileSystem.status(of: path)
    let bytes = info.map { Int64($0.st_size) } ?? 0
    let modified = info.map { Date(timeIntervalSince1970: Double($0.st_mtim.tv_sec)) } ?? Date(timeIntervalSince1970: 0)
    do {
      let summary = try GalleryDocument.summary(path).summary
      var entry = Entry(path, bytes: bytes, modified: modified)
      (entry.title, entry.items, entry.pending) = (summary.title, summary.items, summary.placeholderCount)
      if !conflictCopies.isEmpty {
        entry.conflictCopies = conflictCopies.map(PathBytes.displayed)
        if conflictCopies.contains(where: PathBytes.hasRawBytes) {
          entry.conflictCopyURLs = conflictCopies.map(PathBytes.fileURL(of:))
        }
      }
      return entry
    } catch {
      return Entry(path, bytes: bytes, modified: modified, error: PathBytes.displayed("\(error)"))
    }
  }
}
