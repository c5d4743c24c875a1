import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct InfoCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "info",
    abstract: "Show counts, sizes, format version, revisions and dead bytes.")

  @OptionGroup var target: DocumentArgument
  @OptionGroup var output: OutputOptions

  struct Report: Encodable {
    /// As JSON gives a path (`PathBytes.forJSON`).
    var path: String
    var pathURL: String?
    var title: String
    var format: Int
    var revision: Int
    var created: Date
    var modified: Date
    var items: Int
    var ready: Int
    var pending: Int
    var stale: Int
    var failed: Int
    var notes: Int
    var trashed: Int
    var thumbnailSize: Int
    var maxPixels: Int
    var storage: DocumentStatistics
  }

  func run() throws {
    // The summary a save leaves at the end of the file: no need to read 100,000 items.
    let (summary, storage) = try GalleryDocument.summary(target.document)
    let (path, pathURL) = PathBytes.forJSON(target.document)
    let report = Report(
      path: path, pathURL: pathURL, title: summary.title,
      format: summary.format, revision: summary.revision,
      created: summary.created, modified: summary.modified, items: summary.items, ready: summary.ready,
      pending: summary.pending, stale: summary.stale, failed: summary.failed, notes: summary.notes,
      trashed: summary.trashed,
      thumbnailSize: summary.thumbnailSize, maxPixels: summary.maxPixels, storage: storage)
    if output.json {
      try JSONOutput.write(report)
      return
    }
    var text = """
      title:          \(TerminalText.escaped(report.title))
      path:           \(report.path)
      format:         \(report.format)
      revision:       \(report.revision) (\(storage.revisions) in the file; last checkpoint r\(storage.checkpointRevision))
      history:        \(storage.historyRevisions) operation\(storage.historyRevisions == 1 ? "" : "s") kept (`gallery show --at` back to r\(storage.oldestRevision))
      items:          \(report.items) (\(report.ready) ready, \(report.pending) pending, \(report.stale) stale, \(report.failed) failed\(report.notes > 0 ? ", " + JournalRecord.counted(report.notes, "note card") : ""))
      trash:          \(report.trashed)
      file size:      \(storage.fileBytes) bytes
      live bytes:     \(storage.liveBytes)
      dead bytes:     \(storage.deadBytes) (reclaimed by `gallery compact`)
      thumbnails:     \(report.thumbnailSize) px
      max pixels:     \(report.maxPixels)

      """
    if storage.tornBytes > 0 {
      text += "interrupted:    \(storage.tornBytes) bytes of an unfinished save (ignored; the next save removes them)\n"
    }
    Terminal.out(text)
  }
}
