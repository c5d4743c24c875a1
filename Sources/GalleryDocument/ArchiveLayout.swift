import Foundation
import GalleryImaging
import GalleryModel
import GallerySystem

/// Where an entry of the last complete revision lies in the file.
package struct EntryLocation: Sendable, Equatable {
  /// Offset of the entry's first header block.
  package var offset: Int64
  /// Bytes from that header to the next one: headers, data and padding.
  package var span: Int64
  /// Size of the entry's data.
  package var size: Int64

  /// Where the entry's data starts: its last blocks, after its header (and any pax header).
  package var dataOffset: Int64 { offset + span - (size + 511) / 512 * 512 }
}

/// What a scan of a document found: the newest complete model and where every entry is.
package struct ArchiveLayout: Sendable {
  /// The newest complete model, its lists as handles. Opened for an edit (`itemSource`),
  /// its items are still in the file: `read` reads one.
  package var working: WorkingModel
  /// The newest location of each name, up to the end of the last complete revision.
  package var entries: EntryTable
  /// Where the next append starts: the end of the last complete `gallery.json`.
  package var revisionEnd: Int64
  package var fileSize: Int64
  /// How many complete `gallery.json` revisions the file holds.
  package var revisions: Int
  /// Bytes after the last complete revision that are not a clean end-of-archive marker: an
  /// interrupted save, ignored on read and cut by the next write.
  package var tornBytes: Int64
  /// Why the scan stopped early, when it did.
  package var tornReason: String?
  /// The first damage the scan read past, when there was any: the document then opens
  /// read-only (as the last revision that could be read) and edits refuse it.
  package var damage: String? = nil
  /// Every rule a damaged `gallery.json` broke, for `gallery check`.
  package var damageProblems: [String] = []
  /// The journal records that lead to the model: the document's history.
  package var history = History()
  /// The revision and size of the last checkpoint (`gallery.json`).
  package var checkpointRevision = 0
  package var checkpointBytes: Int64 = 0
  /// Bytes of journal records after that checkpoint: a new checkpoint is written when they
  /// pass a fraction of it.
  package var journalBytes: Int64 = 0
  /// Journal records after that checkpoint: each costs a replay when the document opens.
  package var journalRecords = 0
  /// Where the deltas after the last index lie (see `IndexDelta`), oldest first: the chain
  /// the last one ends. Also the journal after the checkpoint up to the last of them: a save
  /// writes another when the journal after it has grown.
  package var deltaLocations: [EntryLocation] = []
  package var deltas: Int { deltaLocations.count }
  package var journalAtDelta: (bytes: Int64, records: Int) = (0, 0)
  /// Whether the stored items (`itemSource`) are numbered as the last index and its deltas
  /// number them, so that a delta may refer to them: opened through them, and no checkpoint
  /// written since.
  package var storedAsIndexed = false
  /// Where the model's stored items are read from, when it was opened for an edit through
  /// an outline (nil when every item was read).
  package var itemSource: ItemSource?

  /// The ids of the items and trash of the model of a revision, when opening knew them
  /// without a pass over the items: from the tables of the checkpoint and its deltas, kept
  /// through the records replayed after them.
  package var knownIDs: (revision: Int, ids: ModelIDs)?

  /// The ids of `working`, when they are known (a save changes the model: they are then
  /// of another revision).
  package var ids: ModelIDs? { knownIDs?.revision == head.revision ? knownIDs?.ids : nil }

  /// The model of a layout whose items are all read (opened whole, not for an edit).
  package var model: GalleryModel { working.current }

  /// The model's fields but its lists (its title, settings, revision).
  package var head: GalleryModel { working.head }

  /// Reads an item still in the file (see `ItemSource`).
  package var read: HandleList<Item>.Read {
    guard let itemSource else { return WorkingModel.neverStored }
    return { try itemSource.item($0) }
  }

  /// The model, every item read (those still in the file now).
  package func wholeModel() throws -> GalleryModel { try working.model(reading: read) }
  /// Whether the last index outlines its checkpoint's items and carries its history: an
  /// edit of a document whose index does not (written before either) writes a checkpoint,
  /// so that the next one reads only the items and records it needs.
  package var indexIsComplete = false
  /// The summary of this revision as its trailer gave it, so that the next save counts
  /// only what it changes (nil when the file was scanned).
  package var summary: DocumentSummary?

  /// Names a revision needs: the model, the cover, every item's thumbnail and original, and
  /// the history (its records, and the entries of items it can bring back).
  package var liveNames: Set<String> {
    var names: Set<String> = [DocumentArchive.mimetypeEntry, DocumentArchive.modelEntry]
    names.formUnion(liveBookkeeping)
    if entries[DocumentArchive.coverEntry] != nil { names.insert(DocumentArchive.coverEntry) }
    names.formUnion(model.referencedEntries)
    names.formUnion(history.revisions.map(DocumentArchive.journalEntry))
    for record in history.readableRecords {
      names.formUnion(record.change.referencedEntries.filter { entries[$0] != nil })
    }
    return names
  }

  /// The bytes of `liveNames`: counted when first needed, then kept by each append (a save
  /// makes nothing dead but the names it writes again: the history keeps what the model
  /// lets go, until a compaction), so that a save among 100,000 items does not count them
  /// all again.
  package var liveBytes: Int64 { countedLiveBytes ?? countLiveBytes() }

  /// `liveBytes` once a save has needed it: a reader that only shows the document never
  /// counts it.
  package var countedLiveBytes: Int64?

  /// `liveBytes` counted from the model and the history, without building `liveNames`.
  package func countLiveBytes() -> Int64 {
    var total: Int64 = 0
    func add(_ name: String) { total += entries[name]?.span ?? 0 }
    // What only the history needs, unless a live item needs it too.
    var historyNames = Set<String>()
    for revision in history.revisions { add(DocumentArchive.journalEntry(revision)) }
    for record in history.readableRecords {
      historyNames.formUnion(record.change.referencedEntries)
    }
    var originals = Set<String>()
    func count(_ item: Item) {
      // A thumbnail belongs to one item (its id is in the name); an original may be shared.
      if let thumbnail = item.thumbnail {
        add(thumbnail)
        historyNames.remove(thumbnail)
      }
      if let original = item.original, originals.insert(original).inserted {
        add(original)
        historyNames.remove(original)
      }
    }
    for item in model.items { count(item) }
    for entry in model.trash { count(entry.item) }
    for name in historyNames { add(name) }
    for name in [DocumentArchive.mimetypeEntry, DocumentArchive.modelEntry, DocumentArchive.coverEntry] { add(name) }
    for name in liveBookkeeping { add(name) }
    return total
  }

  /// The index, the trailer and a delta: what a save writes after its revision. Their
  /// newest copies are live though no model refers to them, a delta's only while no index
  /// follows it.
  package static let bookkeepingNames = [
    ArchiveIndex.name, ArchiveTrailer.name, ArchiveIndex.deltaName, ArchiveIndex.deltaModelEntry,
  ]

  private var liveBookkeeping: [String] {
    let index = entries[ArchiveIndex.name]?.offset ?? -1
    return Self.bookkeepingNames.filter { name in
      guard let location = entries[name] else { return false }
      return !ArchiveIndex.isDeltaName(name) || location.offset > index
    }
  }

  /// Whether the file opens through its trailer and an index, as this layout was read or
  /// written: the entries before the index were then not read, so damage among them is not
  /// known (`gallery check` and a compaction scan the whole file). After a whole scan it is
  /// false, and the next save writes a checkpoint and an index, so the next open is quick.
  package var readThroughIndex = false
  /// Scanned whole, without damage: each entry lies where the scan read its header, so a
  /// compaction may copy it as it lies.
  package var scannedSound: Bool { !readThroughIndex && damage == nil }

  /// Bytes of superseded entries: old revisions of the model, replaced thumbnails and covers.
  package var deadBytes: Int64 { max(0, revisionEnd - liveBytes) }
}
