import Foundation
import GalleryImaging
import GalleryModel
import GallerySystem

/// Where an entry of the last complete revision lies in the file.
struct EntryLocation: Sendable, Equatable {
  /// Offset of the entry's first header block.
  var offset: Int64
  /// Bytes from that header to the next one: headers, data and padding.
  var span: Int64
  /// Size of the entry's data.
  var size: Int64
}

/// What a scan of a document found: the newest complete model and where every entry is.
struct ArchiveLayout: Sendable {
  var model: GalleryModel
  /// The newest location of each name, up to the end of the last complete revision.
  var entries: [String: EntryLocation]
  /// Where the next append starts: the end of the last complete `gallery.json`.
  var revisionEnd: Int64
  var fileSize: Int64
  /// How many complete `gallery.json` revisions the file holds.
  var revisions: Int
  /// Bytes after the last complete revision that are not a clean end-of-archive marker: an
  /// interrupted save, ignored on read and cut by the next write.
  var tornBytes: Int64
  /// Why the scan stopped early, when it did.
  var tornReason: String?
  /// The first damage the scan read past, when there was any: the document then opens
  /// read-only (as the last revision that could be read) and edits refuse it.
  var damage: String? = nil
  /// Every rule a damaged `gallery.json` broke, for `gallery check`.
  var damageProblems: [String] = []

  /// Names a revision needs: the model, the cover, and every item's thumbnail and original.
  var liveNames: Set<String> {
    var names: Set<String> = [DocumentArchive.mimetypeEntry, DocumentArchive.modelEntry]
    if entries[DocumentArchive.coverEntry] != nil { names.insert(DocumentArchive.coverEntry) }
    names.formUnion(model.referencedEntries)
    return names
  }

  var liveBytes: Int64 {
    liveNames.reduce(0) { $0 + (entries[$1]?.span ?? 0) }
  }

  /// Bytes of superseded entries: old revisions of the model, replaced thumbnails and covers.
  var deadBytes: Int64 { max(0, revisionEnd - liveBytes) }
}
