import Foundation
import GalleryImaging
import GalleryModel
import GallerySystem

/// One locked edit of a document: the freshly re-read model to change, plus the new entries
/// the save must write with it.
public struct DocumentEdit {
  /// The model as the edit changes it, its items possibly still in the file: read and
  /// changed through the calls of DocumentEdit+Items.swift, which say when one is read.
  package var working: WorkingModel
  /// The document's path, for the errors of reads.
  package let path: String
  /// Where the model's items still in the file are read from.
  package let itemSource: ItemSource?
  /// Thumbnails and originals added during this edit, by entry name.
  private(set) var newEntries: [String: Data] = [:]
  /// Entries the document holds already (an original shared by content is stored once).
  private let existingEntries: EntryTable
  /// The document's file, locked for this edit (nil for an edit of a model alone).
  private let file: FileHandleFD?
  /// The document's history, oldest first.
  package let history: History
  /// What made this edit, for the history (`move: 2 items`); said from the change when nil.
  public var summary: String?
  /// The revision this edit takes back or brings back (undo, redo).
  package var undoing: Int?
  package var redoing: Int?
  /// The first revision of the operation this edit finishes (a drop's commit).
  public var continuing: Int?
  /// A save of the same process follows soon and holds more of the journal (a drop's
  /// placeholders, then their loads): a delta due now is left to it, so that a drop writes
  /// one, not two, each of which every later opening would read.
  package var saveFollows = false
  /// The ids of the model as opened, when opening knew them (`ArchiveLayout.ids`).
  package var openedIDs: ModelIDs?
  /// Saves a revision even when the model does not change (an undo that found everything
  /// changed since still counts as one, so the next undo goes further back).
  package var recordEvenIfUnchanged = false

  package init(
    model: GalleryModel, existingEntries: EntryTable = EntryTable(), history: History = History(), path: String = ""
  ) {
    self.init(working: WorkingModel(model), existingEntries: existingEntries, history: history, path: path, itemSource: nil)
  }

  package init(
    working: WorkingModel, existingEntries: EntryTable, history: History, path: String, itemSource: ItemSource?,
    file: FileHandleFD? = nil
  ) {
    self.working = working
    self.path = path
    self.itemSource = itemSource
    self.existingEntries = existingEntries
    self.history = history
    self.file = file
  }

  /// The original bytes the document holds for an item, or nil when it holds none (read
  /// through a descriptor of its own: the save writes through the edit's).
  package func original(of item: Item) throws -> Data? {
    guard let name = item.original, let location = existingEntries[name], let file else { return nil }
    return try DocumentArchive.read(location, named: name, from: try file.reopenedForReading())
  }

  /// Embeds an image's original bytes, once per content; returns the entry name.
  public mutating func addOriginal(_ data: Data, hash: String, format: String) -> String {
    let hex = hash.hasPrefix("sha256:") ? String(hash.dropFirst(7)) : hash
    let name = DocumentArchive.originalsFolder + hex + "." + (format.isEmpty ? "bin" : format)
    if existingEntries[name] == nil { newEntries[name] = data }
    return name
  }

  /// Ids a new item may not take: the items', the trash's, and those the history still
  /// knows (so the thumbnail of an item undo can bring back is never replaced by another's).
  /// Gathered only when an edit makes a new item; an index says the history's.
  package func takenIDs() throws(DocumentError) -> Set<String> { working.ids.union(try history.itemIDs()) }

  /// Whether the document holds an entry of this name already.
  package func holds(_ name: String) -> Bool { existingEntries[name] != nil }

  /// Stores an entry as it is (a thumbnail or original carried from another copy).
  package mutating func addEntry(_ name: String, data: Data) {
    newEntries[name] = data
  }

  /// Stores a thumbnail for an item; returns its entry name.
  public mutating func addThumbnail(_ thumbnail: Thumbnail, for id: String) -> String {
    let name = DocumentArchive.thumbnailFolder + id + "." + thumbnail.fileExtension
    newEntries[name] = thumbnail.data
    return name
  }

  /// Fresh short ids, unique among the items, the trash and the history.
  public mutating func newItemIDs(_ count: Int) throws(DocumentError) -> [String] {
    // Drawn at random, then checked against the document's in one pass over its items (a
    // set of every id of 100,000 items would cost more than the rest of a drop's first
    // save); one that is taken, rare among two billion, is drawn again.
    let known = try history.itemIDs()
    var ids: [String] = []
    var drawn = Set<String>()
    while ids.count < count {
      var candidates: [String] = []
      while candidates.count < count - ids.count {
        let id = ItemID.make(avoiding: known)
        if drawn.insert(id).inserted { candidates.append(id) }
      }
      let taken = mayHold(candidates)
      ids += candidates.filter { !taken.contains($0) }
    }
    return ids
  }

  /// Those of `ids` the model holds, and perhaps a few it held when opened: the ids known
  /// then are asked, and only the items this edit made or read and the trash are looked at
  /// (a pass over 100,000 stored ids would cost more than the rest of a drop's first save).
  package func mayHold(_ ids: [String]) -> Set<String> {
    guard let openedIDs else { return working.held(ids) }
    let wanted = Set(ids)
    var held = wanted.filter(openedIDs.contains)
    // A stored item is one the model was opened with: its id is known.
    for index in 0..<working.items.count where working.items.storedIndex(at: index) == nil {
      let key = working.items.key(at: index)
      if wanted.contains(key) { held.insert(key) }
    }
    held.formUnion(working.trash.keys.filter(wanted.contains))
    return held
  }
}

/// Item ids: six characters, letters and digits that cannot be confused, starting with a
/// letter so that an id is never read as a position.
package enum ItemID {
  package static let letters = Array("abcdefghjkmnpqrstuvwxyz")
  package static let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")

  package static func make(avoiding taken: Set<String>) -> String {
    while true {
      var id = String(letters.randomElement()!)
      for _ in 0..<5 { id.append(alphabet.randomElement()!) }
      if !taken.contains(id) { return id }
    }
  }
}

extension GalleryDocument {
  /// Locks the document, re-reads its last revision, lets `body` change it, and saves what
  /// changed as one appended revision (compacting when dead bytes pass half the file).
  /// Nothing is written when `body` throws or changes nothing.
  @discardableResult
  public static func edit<T>(_ path: String, _ body: (inout DocumentEdit) throws -> T) throws -> T {
    try editRecordingSave(path, body).result
  }

  /// `edit`, also telling which revision it made and what the history calls it (nil when
  /// the edit changed nothing, and nothing was saved), and where the file ended before the
  /// save, so that the caller can take its own save back later if nothing else was saved
  /// since (nil too after a compaction the save was worth).
  package static func editRecordingSave<T>(
    _ path: String, _ body: (inout DocumentEdit) throws -> T
  ) throws -> (result: T, save: SaveMark?, saved: SavedRevision?) {
    let lock = try DocumentLock(path: path)
    // What a killed save or compaction left beside the document goes at the next edit.
    DocumentArchive.removeStaleTemporaries(for: path)
    let layout = try LayoutCache.layout(of: lock.file, lazily: true)
    if let damage = layout.damage { throw DocumentError.damaged(path, damage) }
    var edit = DocumentEdit(
      working: layout.working, existingEntries: layout.entries, history: layout.history, path: path,
      itemSource: layout.itemSource, file: lock.file)
    edit.openedIDs = layout.ids
    let result = try body(&edit)
    let change = try edit.reading { try ModelChange(from: layout.working, to: edit.working, reading: layout.read) }
    guard
      !change.isEmpty || !edit.newEntries.isEmpty || edit.recordEvenIfUnchanged || edit.undoing != nil
        || edit.redoing != nil
    else { return (result, nil, nil) }
    let (mark, saved) = try save(edit, change, over: layout, lock: lock)
    return (result, mark, saved)
  }

  /// Takes back the save `mark` describes, restoring the file byte for byte, when it is
  /// still the last one. Returns whether it did.
  package static func rollBack(_ path: String, _ mark: SaveMark) throws -> Bool {
    let lock = try DocumentLock(path: path)
    let layout = try LayoutCache.layout(of: lock.file, lazily: true)
    guard layout.head.revision == mark.revision, layout.revisionEnd == mark.end,
      layout.fileSize > mark.previousEnd
    else { return false }
    // Cutting back to the previous revision's end is itself a valid state at every instant.
    try lock.file.truncate(to: mark.previousEnd)
    try lock.file.seek(to: mark.previousEnd)
    // The end marker, and the zero padding a plain tar tool may have written after it.
    try lock.file.writeAll(Data(count: Int(max(DocumentArchive.endOfArchiveMarkerSize, mark.previousTail))))
    try lock.file.sync()
    LayoutCache.forget(path)
    return true
  }

  /// Appends the edit as one revision: its new entries, its journal record, and a new
  /// checkpoint when the journal since the last one has grown past a fraction of it (or the
  /// document is still format 1, so that a format-1 reader refuses it instead of showing
  /// the old state; or its index does not outline its checkpoint, so that the next edit
  /// reads only what it needs).
  private static func save(
    _ edit: DocumentEdit, _ change: ModelChange, over layout: ArchiveLayout, lock: DocumentLock
  ) throws -> (SaveMark?, SavedRevision) {
    var working = edit.working
    working.head.format = GalleryModel.formatVersion
    working.head.revision = layout.head.revision + 1
    working.head.modified = .nowInWholeSeconds
    working.head.revisionID = JournalRecord.newID()
    let model = working.head
    let record = JournalRecord(
      revision: model.revision, id: model.revisionID!, parent: layout.head.revisionID, time: model.modified,
      summary: JournalRecord.cut(edit.summary ?? JournalRecord.describe(change)),
      undoing: edit.undoing, redoing: edit.redoing, continues: edit.continuing, change: change)
    // A value that breaks a rule of the model (a URL too long, a reason quoting a server at
    // length) would leave a record every reader refuses, the document damaged: refused
    // before a byte is written. Values are fitted where they come in; this is the backstop.
    let problems = record.problems
    guard problems.isEmpty else { throw DocumentError.saveFailed(lock.file.path, ModelValidation.Failure(problems: problems)) }
    // Likewise an id put in that the document holds already (and does not take out), or
    // twice: replaying the record, the reader refuses it.
    let arriving = change.arrivingIDs
    if !arriving.isEmpty {
      let held = (layout.ids.map { ids in Set(arriving.filter(ids.contains)) } ?? layout.working.held(arriving))
        .subtracting(change.leavingIDs)
      var seen = Set<String>()
      if let twice = arriving.first(where: { held.contains($0) || !seen.insert($0).inserted }) {
        throw DocumentError.saveFailed(lock.file.path, ChangeMismatch("id \(twice) would be used twice"))
      }
    }
    let revision = SavedRevision(revision: record.revision, summary: record.summary)
    // Thumbnails of items dropped meanwhile (a placeholder trashed during its load) are not
    // kept: only the items this save put in or changed can refer to a new entry.
    let referenced = Set(
      (change.items.inserted.map(\.element) + change.items.updated.map(\.after)
        + change.trash.inserted.map(\.element.item) + change.trash.updated.map(\.after.item))
        .flatMap { [$0.thumbnail, $0.original].compactMap { $0 } })
    var entries = edit.newEntries.filter { referenced.contains($0.key) }.sorted { $0.key < $1.key }
      .map { (name: $0.key, data: $0.value) }

    let coverSources = try edit.reading { try coverThumbnailNames(working, reading: layout.read) }
    let coverBefore = try edit.reading { try coverThumbnailNames(layout.working, reading: layout.read) }
    if coverSources != coverBefore || layout.entries[DocumentArchive.coverEntry] == nil {
      let thumbnails = try coverSources.map { name in
        if let data = edit.newEntries[name] { return data }
        guard let location = layout.entries[name] else {
          throw DocumentError.corrupt(lock.file.path, "missing thumbnail entry \(name)")
        }
        return try DocumentArchive.read(location, named: name, from: lock.file)
      }
      entries.append((DocumentArchive.coverEntry, try CoverMaker.cover(from: thumbnails)))
    }
    let journal = JournalCoding.encode(record)
    entries.append((DocumentArchive.journalEntry(record.revision), journal))
    // The stored items' parts: the checkpoint's, then each delta's of the chain.
    let parts = layout.itemSource?.partSizes ?? []
    let storedBytes = Int64(parts.reduce(0) { $0 + $1.bytes })
    let bookkeeping = Self.bookkeeping(
      checkpointBytes: layout.checkpointBytes, journal: (layout.journalBytes + Int64(journal.count), layout.journalRecords + 1),
      atDelta: layout.journalAtDelta, deltas: layout.deltas,
      deltasPossible: layout.itemSource != nil && layout.storedAsIndexed && working.trash.count <= Self.deltaTrashLimit
        && parts.count == layout.deltas + 1,
      checkpointOwed: layout.head.format < GalleryModel.formatVersion || !layout.readThroughIndex
        || !layout.indexIsComplete, saveFollows: edit.saveFollows, storedBytes: storedBytes)
    // A new checkpoint copies the items still as the last one holds them, each checked first
    // (on both cores, in large pieces), and encodes the others.
    let plan = bookkeeping == .checkpoint ? CheckpointPlan(working, source: layout.itemSource) : nil
    if let plan, let source = layout.itemSource { source.check(plan.copied) }
    var delta: CheckpointPlan?
    var takenIn = 0
    if bookkeeping == .delta, let source = layout.itemSource {
      let own = CheckpointPlan(working, keeping: source.itemIDs.count, source: nil)
      takenIn = Self.deltasTakenIn(
        parts.dropFirst().map(\.bytes), adding: own.outline.array.count,
        limit: max(Self.deltaMergeBytes, Int(storedBytes) / Self.deltaMergeFraction))
      if takenIn > 0 {
        // The items of the deltas it takes in that the model still holds are copied into it,
        // each checked first, as a checkpoint's are.
        let kept = parts.dropLast(takenIn).reduce(0) { $0 + $1.items }
        delta = CheckpointPlan(working, keeping: kept, source: source)
        source.check(delta!.copied)
      } else {
        delta = own
      }
    }
    // An item this edit read (or is to copy) that broke a rule: the document is damaged
    // there, and nothing that read it may be saved.
    if let failure = layout.itemSource?.failure { throw DocumentError.damaged(lock.file.path, failure) }
    let saved: ArchiveLayout
    do {
      saved = try DocumentArchive.append(
        entries, checkpoint: plan, delta: delta, takingIn: takenIn, model: working, record: record, to: lock.file,
        layout: layout)
    } catch {
      // What a checkpoint copied turned out damaged (see `ItemSource.copy`).
      if let failure = layout.itemSource?.failure { throw DocumentError.damaged(lock.file.path, failure) }
      if error is DocumentError { throw error }
      throw DocumentError.saveFailed(lock.file.path, error)
    }
    // The save is durable from here: a compaction that fails (a full disk) leaves the
    // document as saved, and the next save tries again. Failing the edit would tell the
    // user that a saved change was not made.
    if DocumentCompaction.isWorthIt(saved), DocumentCompaction.hasRoom(for: saved, beside: lock.file.path),
      (try? DocumentCompaction.compactIfSound(lock: lock, layout: saved)) == true
    {
      return (nil, revision)
    }
    LayoutCache.remember(saved, of: lock.file)
    let mark = SaveMark(
      previousEnd: layout.revisionEnd, end: saved.revisionEnd, revision: model.revision,
      previousTail: layout.tornBytes == 0 ? min(layout.fileSize - layout.revisionEnd, 1 << 20) : 0)
    return (mark, revision)
  }

  /// What a save writes after its journal record so that opening replays little: a new
  /// checkpoint, a delta (see `IndexDelta`), or neither. `journal` is the journal since the
  /// checkpoint with the save's record, `atDelta` the part of it the last index or delta
  /// holds, `storedBytes` the items the checkpoint and its deltas hold (the checkpoint's
  /// size when not given). A checkpoint is `owed` when the document was format 1 or its
  /// index does not outline its checkpoint or carry its history (the next edit then reads
  /// only what it needs). A delta is left to the next save when one of this process follows.
  ///
  /// While deltas can be written they bound the replay, and a checkpoint, which costs the
  /// whole model, waits for a full chain: deltas take in the small ones before them (see
  /// `deltasTakenIn`), so a chain fills only with many times the items the targets are set
  /// for. Without deltas a checkpoint is written when the journal passes a fraction of it.
  package static func bookkeeping(
    checkpointBytes: Int64, journal: (bytes: Int64, records: Int), atDelta: (bytes: Int64, records: Int), deltas: Int,
    deltasPossible: Bool, checkpointOwed: Bool, saveFollows: Bool = false, storedBytes: Int64? = nil
  ) -> SaveBookkeeping {
    if checkpointOwed { return .checkpoint }
    guard deltasPossible else {
      let due =
        journal.bytes > max(journalAllowance, checkpointBytes / checkpointFraction)
        || journal.records > journalRecordLimit
      return due ? .checkpoint : .none
    }
    let deltaDue =
      journal.bytes - atDelta.bytes > max(deltaAllowance, (storedBytes ?? checkpointBytes) / deltaFraction)
      || journal.records - atDelta.records >= deltaRecords
    guard deltaDue else { return .none }
    if deltas >= DocumentArchive.deltaLimit { return .checkpoint }
    return saveFollows ? .none : .delta
  }

  /// How many of the chain's last deltas (`chain`: the bytes of each one's items, oldest
  /// first) a new delta whose own items are `own` bytes takes in: each, from the last, that
  /// holds no more than the new one would hold so far, while that stays within `limit`. The
  /// deltas' sizes then fall off as a binary counter's digits do, so the chain holds about one
  /// delta for each `limit` of items and a few smaller ones, each item is copied a few times
  /// at most, and no save copies more than `limit`. Deltas of no items (moves) take each
  /// other in.
  package static func deltasTakenIn(_ chain: [Int], adding own: Int, limit: Int) -> Int {
    var taken = 0
    var bytes = own
    for size in chain.reversed() {
      guard size <= bytes, bytes + size <= limit else { break }
      bytes += size
      taken += 1
    }
    return taken
  }

  /// A new checkpoint is written when the journal after the last one passes this fraction
  /// of its size (and this many bytes), while deltas cannot be written: opening then
  /// replays at most that much.
  package static let checkpointFraction: Int64 = 8
  package static let journalAllowance: Int64 = 16 * 1024
  /// And when this many records follow it: each costs an opening a replay (decoded, checked
  /// against the items it names, its handles moved), so their number is bounded too; the
  /// checkpoint the last of them writes is shared by all of them.
  package static let journalRecordLimit = 500
  /// A delta is written when the journal after the last index or delta passes this
  /// fraction of the stored items (and this many bytes), or this many records: opening then
  /// replays at most that much after it. Not when the trash holds more than this many
  /// items: a delta holds the trash whole.
  package static let deltaFraction: Int64 = 64
  package static let deltaAllowance: Int64 = 64 * 1024
  package static let deltaRecords = 32
  package static let deltaTrashLimit = 1000
  /// The most bytes of items a delta takes in from the ones before it (see
  /// `deltasTakenIn`): this many, or this fraction of the stored items when more.
  package static let deltaMergeBytes = 4 << 20
  package static let deltaMergeFraction = 16

  /// The thumbnails of the first ready items, as many as the cover has tiles. The loop
  /// stops at the last one: in an edit, the items after it are not read.
  package static func coverThumbnailNames(
    _ model: WorkingModel, reading read: HandleList<Item>.Read = WorkingModel.neverStored
  ) throws -> [String] {
    let tiles = CoverMaker.tilesAcross * CoverMaker.tilesAcross
    var names: [String] = []
    for index in 0..<model.items.count {
      let item = try model.items.element(at: index, reading: read)
      guard item.state == .ready, let thumbnail = item.thumbnail else { continue }
      names.append(thumbnail)
      if names.count == tiles { break }
    }
    return names
  }

  /// Rewrites the document with only its live entries and the history its settings keep
  /// (none with `forgettingHistory`). Returns the file size before and after.
  @discardableResult
  public static func compact(_ path: String, forgettingHistory: Bool = false) throws -> (before: Int64, after: Int64) {
    let lock = try DocumentLock(path: path)
    var layout = try DocumentArchive.scan(lock.file)
    if let damage = layout.damage { throw DocumentError.damaged(path, damage) }
    if forgettingHistory { layout.history = History() }
    try DocumentCompaction.compact(lock: lock, layout: layout)
    let after = try GalleryDocument.open(path).layout.fileSize
    return (layout.fileSize, after)
  }
}

/// What a save writes after its journal record (see `GalleryDocument.bookkeeping`).
package enum SaveBookkeeping: Equatable, Sendable {
  case none
  case delta
  case checkpoint
}

/// A revision an edit saved: its number, and what the history calls it.
package struct SavedRevision: Sendable, Equatable {
  package var revision: Int
  package var summary: String
}

/// One appended save: where the file ended before it and after it, and the revision it made.
package struct SaveMark {
  package var previousEnd: Int64
  package var end: Int64
  package var revision: Int
  /// The zeros after the previous revision (its end marker and any padding), restored by
  /// a roll-back so that the file is byte for byte what it was.
  package var previousTail: Int64 = 0

  /// This save and `next` as one save to take back, when `next` came right after it; nil
  /// when another save came between them.
  package func followed(by next: SaveMark) -> SaveMark? {
    guard next.revision == revision + 1, next.previousEnd == end else { return nil }
    return SaveMark(previousEnd: previousEnd, end: next.end, revision: next.revision, previousTail: previousTail)
  }
}

/// Rewriting a document without its dead bytes: to a temporary file, fsync, rename.
package enum DocumentCompaction {
  /// Dead bytes past half the file, and enough of them to be worth a rewrite.
  package static func isWorthIt(_ layout: ArchiveLayout) -> Bool {
    layout.deadBytes > layout.revisionEnd / 2 && layout.deadBytes > 256 * 1024
  }

  /// Whether the filesystem has room for the compacted copy written beside the document
  /// (its live bytes, and a sixteenth more to spare). A save does not start a compaction
  /// that cannot finish: it would fill the disk for a moment, so that other programs' writes
  /// fail, and the whole scan and the copy would be paid again at every save. A filesystem
  /// that cannot tell is tried (a quota does not show in the free space either).
  package static func hasRoom(for layout: ArchiveLayout, beside path: String) -> Bool {
    guard let available = FileSystem.availableBytes(at: path) else { return true }
    return available > layout.liveBytes + layout.liveBytes / 16 + 1024 * 1024
  }

  /// Compacts after a save, unless the file, scanned whole, shows damage that opening it
  /// through its index did not read: a compaction never drops what it could not read.
  package static func compactIfSound(lock: DocumentLock, layout: ArchiveLayout) throws -> Bool {
    var layout = layout
    if layout.readThroughIndex {
      layout = try DocumentArchive.scan(lock.file)
      guard layout.damage == nil else { return false }
    }
    try compact(lock: lock, layout: layout)
    return true
  }

  package static func compact(lock: DocumentLock, layout: ArchiveLayout) throws {
    let path = lock.file.path
    LayoutCache.forget(path)
    DocumentArchive.removeStaleTemporaries(for: path)
    var model = layout.model
    model.format = GalleryModel.formatVersion
    try writeLive(
      layout, from: lock.file, model: model, history: kept(try layout.history.records(), of: model), to: path,
      replacing: true, locked: lock.file)
  }

  /// The history a compaction keeps: the last `historyOperations` operations or those of
  /// the last `historyDays` days, whichever keeps more (always an unbroken run up to now).
  package static func kept(_ history: [JournalRecord], of model: GalleryModel, now: Date = Date()) -> [JournalRecord] {
    let settings = model.settings
    let since = now.addingTimeInterval(-Double(settings.historyDays) * 86400)
    guard
      let first = history.firstIndex(where: {
        $0.revision > model.revision - settings.historyOperations || $0.time >= since
      })
    else { return [] }
    return Array(history[first...])
  }

  /// Writes a complete document holding `model`, the live entries of `layout` (read from
  /// `file`) and `history` with the entries it needs: a compaction when it replaces the
  /// same path (only while it names `locked`, when given), a copy otherwise.
  package static func writeLive(
    _ layout: ArchiveLayout, from file: FileHandleFD, model: GalleryModel, history: [JournalRecord] = [],
    to path: String, replacing: Bool, locked: FileHandleFD? = nil
  ) throws {
    // Thumbnails in item order, so `tar -t` lists them as the gallery shows them; then those
    // only the history needs.
    var names = layout.model.referencedEntries
    var named = Set(names)
    for record in history {
      for name in record.change.referencedEntries.sorted() where named.insert(name).inserted { names.append(name) }
    }
    if layout.entries[DocumentArchive.coverEntry] != nil { names.append(DocumentArchive.coverEntry) }
    try DocumentArchive.writeComplete(
      to: path, model: model, history: history,
      entries: { writer in
        // The history first: a reader takes the records up to the checkpoint as history.
        for record in history {
          try writer.write(
            name: DocumentArchive.journalEntry(record.revision), data: JournalCoding.encode(record), modified: record.time)
        }
        for name in names {
          guard let location = layout.entries[name] else { continue }
          if layout.scannedSound, location.dataOffset == location.offset + 512 {
            // One header block, then the data, where the whole scan read them.
            try writer.copy(name: name, at: location, from: file)
          } else {
            let data = try DocumentArchive.read(location, named: name, from: file)
            try writer.write(name: name, data: data, modified: model.modified)
          }
        }
      }, replacing: replacing, locked: locked)
  }
}

// Edits the commands and the page both make, each named in the history the same way.
extension DocumentEdit {
  /// Makes `change` on the items `ids` names that are present; returns their ids.
  @discardableResult
  public mutating func describe(_ ids: [String], _ change: MetadataEdit) throws -> [String] {
    if let problem = change.problem { throw MetadataEdit.Refusal(problem) }
    // One pass over the ids, comparing the few named (hashing each of 100,000 ids would
    // cost more than the rest of the edit's own work); only the items named are read.
    let indices = working.indices(of: ids)
    var items = try indices.map(item(at:))
    if change.note == "", let card = items.first(where: \.isNoteCard) {
      throw MetadataEdit.Refusal("item \(card.id) is a note card: its text can be changed, not cleared")
    }
    summary = change.summary(count: items.count)
    for (index, position) in indices.enumerated() {
      let before = items[index]
      change.apply(to: &items[index])
      if let tags = items[index].tags, tags.count > ModelValidation.Limits.tags {
        throw MetadataEdit.Refusal(
          "item \(before.id) would have \(tags.count) tags: an item holds at most \(ModelValidation.Limits.tags)")
      }
      if items[index] != before { replaceItem(at: position, with: items[index]) }
    }
    return items.map(\.id)
  }

  /// Adds a note card holding `text` at 1-based `position` (nil: the end): `add a note card`
  /// in the history. The text is checked as an item's note is.
  public mutating func addNote(_ text: String, at position: Int?) throws -> Item {
    if let problem = MetadataEdit.cardProblem(text) { throw MetadataEdit.Refusal(problem) }
    let card = Item.noteCard(id: try newItemIDs(1)[0], text: text)
    summary = "add a note card"
    insert([card], at: position)
    return card
  }
}
