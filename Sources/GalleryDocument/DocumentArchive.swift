import Foundation
import GalleryImaging
import GalleryModel
import GallerySystem

#if canImport(Glibc)
  import Glibc
#endif

/// Reads and writes the `.gallery` archive: a pax tar whose first entry is `mimetype`, and
/// whose later revisions are appended after the earlier ones (as `tar -r` would).
///
/// A revision is complete once its `gallery.json` is complete; everything after the last
/// complete one is an interrupted save, ignored when read and cut off by the next write.
package enum DocumentArchive {
  package static let mimetypeEntry = "mimetype"
  package static let modelEntry = "gallery.json"
  package static let coverEntry = "cover.jpg"
  package static let journalFolder = "journal/"
  package static let thumbnailFolder = EntryName.thumbnailFolder
  package static let originalsFolder = EntryName.originalsFolder

  /// Limits that keep a hostile archive from making us allocate without bound. A
  /// document we write comes near them only far past 100,000 items (or with thousands of
  /// the longest notes), and never passes them: `EntryWriter` refuses to.
  package static let modelSizeLimit: Int64 = 128 << 20
  package static let thumbnailSizeLimit: Int64 = 16 << 20
  /// Originals are embedded only up to the download limit's ceiling (see `WebLimits`).
  package static let originalSizeLimit: Int64 = 256 << 20

  package static let endOfArchiveMarkerSize: Int64 = 1024

  /// The largest data an entry of this name may hold, or nil for names the model never
  /// refers to (skipped, never read). Names are judged as the bytes they are: every name a
  /// document holds is printable ASCII, and any other is not one of them.
  package static func sizeLimit(of name: String) -> Int64? {
    var contiguous = name  // `withUTF8` may make its String contiguous first
    return contiguous.withUTF8 { sizeLimit(of: UnsafeRawBufferPointer($0)) }
  }

  package static func sizeLimit(of name: UnsafeRawBufferPointer) -> Int64? {
    guard name.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return nil }
    func starts(_ prefix: [UInt8]) -> Bool {
      guard name.count >= prefix.count else { return false }
      for index in prefix.indices where name[index] != prefix[index] { return false }
      return true
    }
    func equals(_ other: [UInt8]) -> Bool { name.count == other.count && starts(other) }
    let names = NameBytes.shared
    if starts(names.thumbnails) || equals(names.cover) { return thumbnailSizeLimit }
    if starts(names.journal) || equals(names.model) || equals(names.index) || equals(names.delta)
      || equals(names.deltaModel)
    {
      return modelSizeLimit
    }
    if starts(names.originals) { return originalSizeLimit }
    if equals(names.trailer) { return Int64(ArchiveTrailer.blockLimit) * 512 }
    if equals(names.mimetype) { return 256 }
    return nil
  }

  /// The bytes of the names `sizeLimit(of:)` knows, made once: an index lists 100,000.
  private final class NameBytes: Sendable {
    static let shared = NameBytes()
    let thumbnails = Array(thumbnailFolder.utf8)
    let journal = Array(journalFolder.utf8)
    let originals = Array(originalsFolder.utf8)
    let cover = Array(coverEntry.utf8)
    let model = Array(modelEntry.utf8)
    let index = Array(ArchiveIndex.name.utf8)
    let delta = Array(ArchiveIndex.deltaName.utf8)
    let deltaModel = Array(ArchiveIndex.deltaModelEntry.utf8)
    let trailer = Array(ArchiveTrailer.name.utf8)
    let mimetype = Array(mimetypeEntry.utf8)
  }

  /// `journal/0000000042.json`: padded, so that a listing sorts by revision.
  package static func journalEntry(_ revision: Int) -> String {
    let digits = String(revision)
    return journalFolder + String(repeating: "0", count: max(0, 10 - digits.count)) + digits + ".json"
  }

  // MARK: - Reading

  /// The last complete revision of a document: through its trailer and last index when the
  /// file ends with a trailer that describes it (reading the end of the file, the index,
  /// the checkpoint after it and what follows), by scanning the whole file otherwise.
  ///
  /// `lazily` (for an edit) leaves the checkpoint's items in the file when its index
  /// outlines them: each is read and checked when first needed (see ItemSource.swift).
  package static func open(_ file: FileHandleFD, lazily: Bool = false) throws(DocumentError) -> ArchiveLayout {
    if let layout = try? openThroughIndex(file, lazily: lazily) { return layout }
    return try scan(file)
  }

  /// Scans the whole file from its start and returns its last complete revision.
  ///
  /// A save that was interrupted leaves a *torn tail*: the file ends inside an entry, or
  /// with entries and no `gallery.json` after them. That is ignored here and cut off by the
  /// next save. Anything else that is wrong (a block that is not a header, a link or sparse
  /// entry, an entry over its size limit, a `gallery.json` that does not decode or breaks a
  /// rule) is *damage*: reading goes on past it, as bsdtar does, and the layout says so, so
  /// that the document opens read-only and no save ever truncates what could not be read.
  package static func scan(_ file: FileHandleFD) throws(DocumentError) -> ArchiveLayout {
    let fileSize = try regularFileSize(file)
    guard fileSize > 0 else { throw .notAGallery(file.path, "the file is empty") }
    let reader: ArchiveReader
    do {
      try file.seek(to: 0)
      reader = try ArchiveReader(fileDescriptor: file.rawValue)
    } catch {
      throw .notAGallery(file.path, "not a tar archive (\(error))")
    }
    // The first entry must be the mimetype, so content sniffing and our checks agree.
    do {
      guard let first = try reader.next(), first.name == mimetypeEntry, first.isRegularFile,
        try reader.readData(size: first.size, limit: 256) == Data(GalleryModel.mediaType.utf8)
      else { throw DocumentError.notAGallery(file.path, "its first entry is not the mimetype \(GalleryModel.mediaType)") }
    } catch let error as DocumentError {
      throw error
    } catch {
      throw .notAGallery(file.path, "not a tar archive (\(error))")
    }
    var scan = EntryScan(fileSize: fileSize)
    scan.previous = (mimetypeEntry, 0, Int64(GalleryModel.mediaType.utf8.count))
    try scan.read(reader, from: 0)
    return try scan.layout(file)
  }

  private static func regularFileSize(_ file: FileHandleFD) throws(DocumentError) -> Int64 {
    do {
      let info = try file.status()
      guard (info.st_mode & S_IFMT) == S_IFREG else { throw DocumentError.notAGallery(file.path, "not a regular file") }
      return Int64(info.st_size)
    } catch let error as DocumentError {
      throw error
    } catch {
      throw .io(error)
    }
  }

  /// How many data blocks the trailer at the very end of the file (before the end marker)
  /// says it has, if the file ends with one.
  private static func trailerBlocks(_ file: FileHandleFD) throws -> (blocks: Int, fileSize: Int64) {
    let fileSize = try regularFileSize(file)
    let marker = endOfArchiveMarkerSize
    guard fileSize >= 2048 + marker else { throw IndexMismatch("too short for a trailer") }
    try file.seek(to: fileSize - marker - 512)
    let last = try file.read(upTo: Int(512 + marker))
    guard last.count == 512 + marker, last.suffix(Int(marker)).allSatisfy({ $0 == 0 }),
      let blocks = ArchiveTrailer.blocks(inLastBlock: last.prefix(512))
    else { throw IndexMismatch("the file does not end with a trailer") }
    return (blocks, fileSize)
  }

  /// Whether the file ends with something that looks like a trailer (which may still lie).
  package static func endsWithTrailer(_ file: FileHandleFD) -> Bool { (try? trailerBlocks(file)) != nil }

  /// The trailer at the very end of the file (before the end marker), if there is one that
  /// describes where it is.
  package static func trailer(of file: FileHandleFD) throws -> ArchiveTrailer {
    let (blocks, fileSize) = try trailerBlocks(file)
    let marker = endOfArchiveMarkerSize
    let offset = fileSize - marker - Int64(blocks + 1) * 512
    guard offset >= 0 else { throw IndexMismatch("the trailer does not fit") }
    let data = try read(
      EntryLocation(offset: offset, span: Int64(blocks + 1) * 512, size: Int64(blocks) * 512), named: ArchiveTrailer.name,
      from: file)
    return try ArchiveTrailer.decode(data, at: offset)
  }

  /// The layout through the trailer and the last index; throws when they do not describe
  /// the file (the caller then scans it).
  package static func openThroughIndex(_ file: FileHandleFD, lazily: Bool = false) throws -> ArchiveLayout {
    let fileSize = try regularFileSize(file)
    let trailer = try trailer(of: file)
    guard let indexOffset = trailer.index else { throw IndexMismatch("no index") }
    let (indexData, indexSpan) = try bookkeeping(ArchiveIndex.name, at: indexOffset, of: file, fileSize: fileSize)
    // The checkpoint is opened through the outline while the rest of the index is read: an
    // edit reads the items it needs through the source, any other reader all of them.
    let (index, outlined) = try ArchiveIndex.decode(indexData, at: indexOffset, readingHistory: trailer.delta == nil) {
      outline, ids, location in
      Result { try outlinedCheckpoint(at: location, outline: outline, ids: ids, of: file, entry: modelEntry) }
    }
    let deltas = try self.deltas(after: (indexOffset, indexSpan, index), upTo: trailer.delta, of: file, fileSize: fileSize)
    // What the scan of the file after the last index or delta starts from.
    let last = deltas.last?.index ?? index
    var checkpoint: GalleryModel
    var working: WorkingModel
    var itemSource: ItemSource?
    var startIDs: (@Sendable (String) -> Bool)?
    var entries = index.entries
    if let outlined {
      let (opened, source, ids) = try outlined.get()
      checkpoint = opened
      guard checkpoint.revision == index.revision else { throw IndexMismatch("the index is not its checkpoint's") }
      if !deltas.isEmpty {
        // The deltas' model on one core, their entries on the other.
        let indexLocation = EntryLocation(offset: indexOffset, span: indexSpan, size: Int64(indexData.count))
        let (opened, merged) = ForkJoin.both(
          { Result { try modelOfDeltas(deltas, checkpoint: source, ids: ids) } },
          { Result { try entriesOfDeltas(deltas, after: index.entries, at: indexLocation) } })
        let (model, combined, contains) = try opened.get()
        entries = try merged.get()
        itemSource = combined
        startIDs = contains
        working = model
      } else {
        itemSource = source
        startIDs = ids.contains
        working = WorkingModel(head: checkpoint, storedItemIDs: source.itemIDs)
      }
      if !lazily, let source = itemSource {
        // Every item read (each part on both cores), in the model's order.
        let all = try source.readAll()
        var whole = working.head
        whole.items = deltas.isEmpty ? all : (0..<working.items.count).map { all[working.items.storedIndex(at: $0)!] }
        whole.trash = working.trash.elements
        working = WorkingModel(whole)
        itemSource = nil
      }
    } else {
      guard deltas.isEmpty else { throw IndexMismatch("deltas after an index without an outline") }
      checkpoint = try ModelCoding.decode(try read(index.entries[modelEntry]!, named: modelEntry, from: file))
      guard checkpoint.revision == index.revision else { throw IndexMismatch("the index is not its checkpoint's") }
      working = WorkingModel(checkpoint)
    }
    var history: [History.Entry] = []
    var digest: History.Digest?
    if let indexed = last.history {
      // Nothing of the history is read: the index places each record, and says what undo
      // and new ids need of them. A record is read (and checked to be what the index says)
      // when it is needed whole.
      for place in indexed.places {
        guard let location = entries[journalEntry(place.revision)] else {
          throw IndexMismatch("it does not locate the record of r\(place.revision)")
        }
        history.append(.located(place, location))
      }
      if let lastPlace = indexed.places.last, lastPlace.id != working.head.revisionID {
        throw IndexMismatch("its history does not lead to its checkpoint")
      }
      digest = History.Digest(count: history.count, undo: indexed.undo, ids: indexed.ids)
    } else {
      guard deltas.isEmpty else { throw IndexMismatch("a delta without its history") }
      // An index written before it carried the history: each record is read for its place.
      for (name, location) in index.entries.named(withPrefix: journalFolder) {
        let place = try JournalCoding.decodePlace(try dataOnly(location, from: file))
        guard name == journalEntry(place.revision) else { throw IndexMismatch("\(name) holds another revision") }
        if place.revision <= checkpoint.revision { history.append(.located(place, location)) }
      }
    }
    let (lastOffset, lastSpan) = deltas.last.map { ($0.offset, $0.span) } ?? (indexOffset, indexSpan)
    var scan = EntryScan(fileSize: fileSize)
    scan.model = working
    if let itemSource { scan.read = { try itemSource.item($0) } }
    scan.revisions = last.revisions
    scan.liveBytes = last.liveBytes
    scan.journal = JournalScan(
      checkpoint: checkpoint.revision, bytes: index.entries[modelEntry]!.size,
      journal: (last.delta?.journalBytes ?? 0, last.delta?.journalRecords ?? 0),
      ids: startIDs.map { (working.head.revision, $0) }, history: history, digest: digest,
      file: history.isEmpty ? nil : try file.reopenedForReading())
    scan.committed = .init(entries: entries, end: lastOffset, revision: working.head.revision)
    // What follows the index (or the last delta), read by the same rules as a whole scan
    // (by a new reader: the reads above moved the descriptor's offset).
    let tailReader = try reader(at: lastOffset, of: file)
    guard let lastEntry = try tailReader.next() else { throw IndexMismatch("the index moved") }
    try tailReader.skipData()
    scan.previous = (deltas.isEmpty ? ArchiveIndex.name : ArchiveIndex.deltaName, lastOffset, lastEntry.size)
    scan.nextHeader = lastOffset + lastSpan
    try scan.read(tailReader, from: lastOffset)
    var layout = try scan.layout(file)
    guard layout.head.revision == trailer.summary.revision, layout.revisionEnd == fileSize - endOfArchiveMarkerSize,
      layout.damage == nil
    else { throw IndexMismatch("the trailer does not describe the revisions after the index") }
    layout.readThroughIndex = true
    layout.indexIsComplete = index.outline != nil && last.history != nil
    layout.itemSource = itemSource
    layout.summary = trailer.summary
    layout.deltaLocations = deltas.map { EntryLocation(offset: $0.offset, span: $0.span, size: $0.size) }
    layout.storedAsIndexed = itemSource != nil
    layout.journalAtDelta = (last.delta?.journalBytes ?? 0, last.delta?.journalRecords ?? 0)
    return layout
  }

  /// The most deltas a chain holds: a save writes a checkpoint instead of another. Deltas
  /// take in the small ones before them (see `GalleryDocument.deltasTakenIn`), so a chain
  /// holds about one delta for each `deltaMergeBytes` of items, and a few small ones.
  package static let deltaLimit = 64

  /// An index or a delta at `offset`: its data, and its span (header to the next header).
  private static func bookkeeping(
    _ name: String, at offset: Int64, of file: FileHandleFD, fileSize: Int64
  ) throws -> (data: Data, span: Int64) {
    let reader = try reader(at: offset, of: file)
    guard let entry = try reader.next(), entry.name == name, entry.isRegularFile else {
      throw IndexMismatch("no \(name) where the trailer says")
    }
    // Read straight from the file (it can hold a few megabytes), not through the reader.
    let dataOffset = offset + reader.dataPosition
    guard entry.size <= modelSizeLimit, entry.size <= fileSize - dataOffset else {
      throw IndexMismatch("\(name) is larger than it may be")
    }
    let data = try file.read(at: dataOffset, count: Int(entry.size))
    guard data.count == entry.size else { throw IndexMismatch("\(name) ends past the end of the file") }
    return (data, reader.dataPosition + (entry.size + 511) / 512 * 512)
  }

  /// A delta read, with where it lies and its model opened through its outline.
  private struct ReadDelta {
    var index: ArchiveIndex
    var offset: Int64
    var span: Int64
    var size: Int64
    var model: GalleryModel
    var source: ItemSource
  }

  /// The deltas from `last` back to the index, oldest first: each must follow the one
  /// before it (its entries after it, a later revision, the same checkpoint).
  private static func deltas(
    after index: (offset: Int64, span: Int64, index: ArchiveIndex), upTo last: Int64?, of file: FileHandleFD,
    fileSize: Int64
  ) throws -> [ReadDelta] {
    guard let last else { return [] }
    var chain: [ReadDelta] = []
    var next = last
    while next != index.offset {
      guard next > index.offset, chain.count < deltaLimit else { throw IndexMismatch("its deltas do not lead to its index") }
      let (data, span) = try bookkeeping(ArchiveIndex.deltaName, at: next, of: file, fileSize: fileSize)
      // Only the last delta's history is used: it carries the whole history.
      let isLast = chain.isEmpty
      let (delta, opened) = try ArchiveIndex.decode(data, at: next, readingHistory: isLast, tablingEntries: false) {
        outline, ids, location in
        Result {
          try outlinedCheckpoint(
            at: location, outline: outline, ids: ids, of: file, entry: ArchiveIndex.deltaModelEntry, tabling: false)
        }
      }
      guard let info = delta.delta, let opened, delta.history != nil || !isLast else {
        throw IndexMismatch("a delta without its model or its history")
      }
      let (model, source, _) = try opened.get()
      guard model.revision == delta.revision, info.checkpointRevision == index.index.revision,
        info.checkpointBytes == index.index.entries[modelEntry]?.size
      else { throw IndexMismatch("a delta is not of its own revision and checkpoint") }
      chain.append(
        ReadDelta(index: delta, offset: next, span: span, size: Int64(data.count), model: model, source: source))
      next = info.previous
    }
    chain.reverse()
    var previous = (end: index.offset + index.span, revision: index.index.revision)
    for delta in chain {
      guard delta.index.entriesStart.map({ $0 >= previous.end }) ?? false, delta.index.revision > previous.revision
      else { throw IndexMismatch("a delta does not follow the one before it") }
      previous = (delta.offset + delta.span, delta.index.revision)
    }
    return chain
  }

  /// The entries of the index (`indexed`, its own at `location`), then each delta's (one
  /// table of them all: a grown gallery lists most of its thumbnails in its deltas), and
  /// each delta but the last (which the scan after it adds), which lists none of them.
  private static func entriesOfDeltas(
    _ deltas: [ReadDelta], after indexed: EntryTable, at location: EntryLocation
  ) throws -> EntryTable {
    let lists = deltas.map { $0.index.listed! }
    var names: [UInt8] = []
    var ends: [Int] = []
    var locations: [EntryLocation] = []
    names.reserveCapacity(lists.reduce(0) { $0 + $1.names.count })
    ends.reserveCapacity(lists.reduce(0) { $0 + $1.ends.count })
    locations.reserveCapacity(ends.capacity)
    for list in lists {
      let start = names.count
      names += list.names
      ends += list.ends.map { $0 + start }
      locations += list.locations
    }
    let later: IndexedEntries.Merged
    do {
      later = try IndexedEntries.merging(names: names, ends: ends, locations: locations, counts: lists.map(\.ends.count))
    } catch {
      throw IndexMismatch("a delta lists entry \(error.name) twice")
    }
    var entries = indexed.adding(later)
    entries.update(location, for: ArchiveIndex.name)
    for delta in deltas.dropLast() {
      entries.update(EntryLocation(offset: delta.offset, span: delta.span, size: delta.size), for: ArchiveIndex.deltaName)
    }
    return entries
  }

  /// The model the last of `deltas` holds: its title, settings and trash, and its items as
  /// its order places them among the checkpoint's and the deltas' (each stored item at most
  /// once, no id twice among the items and the trash). Also the source that reads them, and
  /// what tells whether an id is the model's.
  private static func modelOfDeltas(
    _ deltas: [ReadDelta], checkpoint: ItemSource, ids checkpointIDs: NameTable
  ) throws -> (WorkingModel, ItemSource, @Sendable (String) -> Bool) {
    let last = deltas[deltas.count - 1]
    let source = ItemSource([checkpoint] + deltas.map(\.source))
    let stored = source.itemIDs
    var used = [Bool](repeating: false, count: stored.count)
    var order: [Int32] = []
    order.reserveCapacity(stored.count)
    for run in last.index.delta!.order {
      guard run.upperBound <= stored.count else { throw IndexMismatch("the delta's order names items it does not hold") }
      for index in run {
        guard !used[index] else { throw IndexMismatch("the delta's order places an item twice") }
        used[index] = true
        order.append(Int32(index))
      }
    }
    // The checkpoint's ids are distinct (its table); the others (the deltas' items the order
    // places, and the trash) make a table of their own, which refuses an id twice, and none
    // of them may be one of the checkpoint's items the order places.
    let checkpointCount = checkpoint.itemIDs.count
    var others = ArchiveIndex.IDBytes()
    others.reserve(bytes: (order.count - checkpointCount + last.model.trash.count) * 8, ids: order.count)
    for index in order where Int(index) >= checkpointCount { others.append(stored[Int(index)].utf8) }
    for entry in last.model.trash { others.append(entry.item.id.utf8) }
    let table: NameTable
    do { table = try NameTable(names: others.bytes, ends: others.ends) } catch {
      throw IndexMismatch("the delta holds id \(error.name) twice")
    }
    let kept = used
    var twice: String?
    checkpointIDs.forEachShared(with: table) { position, _ in
      if twice == nil, position < checkpointCount, kept[position] { twice = checkpointIDs.name(at: position) }
    }
    if let twice { throw IndexMismatch("the delta holds id \(twice) twice") }
    let contains: @Sendable (String) -> Bool = { id in
      table.contains(id) || checkpointIDs.position(of: id).map { $0 < checkpointCount && kept[$0] } ?? false
    }
    return (WorkingModel(head: last.model, storedItemIDs: stored, order: order), source, contains)
  }

  /// The checkpoint with its items left in the file: everything but the items array is read
  /// and checked as usual (the items array read as empty), and the items are those of an
  /// `ItemSource` that reads them through a descriptor of its own. Also the table of its ids
  /// (the items' and the trash's) that checked them distinct.
  private static func outlinedCheckpoint(
    at location: EntryLocation, outline: CheckpointOutline, ids outlineIDs: ArchiveIndex.IDBytes, of file: FileHandleFD,
    entry name: String, tabling: Bool = true
  ) throws -> (GalleryModel, ItemSource, NameTable) {
    // Within a checkpoint's limit (it runs before the rest of the index is checked), and
    // the header must be the checkpoint's, of the size the index gives.
    guard (0...modelSizeLimit).contains(location.size), location.offset >= 0 else {
      throw IndexMismatch("its outline's checkpoint is out of range")
    }
    let header = try reader(at: location.offset, of: file)
    guard let entry = try header.next(), entry.isRegularFile, entry.name == name, entry.size == location.size else {
      throw IndexMismatch("no \(name) where the index says")
    }
    let dataStart = location.dataOffset
    let size = Int(location.size)
    // Up to the items array's `[`, and from its `]`: `"items":[` + `]...` reads as an empty array.
    let head = try file.read(at: dataStart, count: outline.array.lowerBound + 1)
    let tail = try file.read(at: dataStart + Int64(outline.array.upperBound - 1), count: size - outline.array.upperBound + 1)
    guard head.count == outline.array.lowerBound + 1, tail.count == size - outline.array.upperBound + 1,
      head.suffix(9).elementsEqual("\"items\":[".utf8), tail.first == UInt8(ascii: "]")
    else { throw IndexMismatch("the outline's items array is not the checkpoint's") }
    let checkpoint = try ModelCoding.decode(head + tail)
    guard checkpoint.items.isEmpty else { throw IndexMismatch("the checkpoint has items outside its outline") }
    // Each id once among the items and the trash (ids are printable ASCII: bytes compare
    // as the Strings do). A delta's are checked with those of the chain (`modelOfDeltas`).
    var table = NameTable.empty
    if tabling {
      var ids = outlineIDs
      for entry in checkpoint.trash { ids.append(entry.item.id.utf8) }
      do { table = try NameTable(names: ids.bytes, ends: ids.ends) } catch {
        throw IndexMismatch("the outline names item \(error.name) twice")
      }
    }
    let items = CheckpointItemsFile(try file.reopenedForReading(), dataStart: dataStart)
    let source = ItemSource(outline, entry: name) { offset, count in try items.read(at: offset, count: count) }
    return (checkpoint, source, table)
  }

  /// A reader whose first header is at `offset` (its positions are relative to it).
  private static func reader(at offset: Int64, of file: FileHandleFD) throws -> ArchiveReader {
    try file.seek(to: offset)
    return try ArchiveReader(fileDescriptor: file.rawValue)
  }

  /// The data of an entry, read without its header: for the many small records of the
  /// history, which the index located and which decode only if they are what it says.
  private static func dataOnly(_ location: EntryLocation, from file: FileHandleFD) throws -> Data {
    let data = try file.read(at: location.dataOffset, count: Int(location.size))
    guard data.count == location.size else { throw IndexMismatch("an entry ends past the end of the file") }
    return data
  }

  /// Where a scan is: the newest model read, the revisions committed, what the journal
  /// told so far. A whole scan starts it at the mimetype; a read through an index starts it
  /// at the index, with the checkpoint before it.
  private struct EntryScan {
    struct Committed {
      var entries: EntryTable
      var end: Int64
      var revision: Int
    }

    let fileSize: Int64
    /// The newest model read: the last complete revision's, or the candidate's while the
    /// entry that made it is not yet known to be complete. One value, changed in place as
    /// records are replayed (its lists as handles), so that a large model is never copied.
    var model: WorkingModel?
    /// Reads an item the model holds still in the file (opened for an edit).
    var read: HandleList<Item>.Read = WorkingModel.neverStored
    var candidate: Candidate?
    var committed: Committed?
    var revisions = 0
    var pending: [String: EntryLocation] = [:]
    var journal = JournalScan()
    var previous: (name: String, offset: Int64, size: Int64)?
    var tornReason: String?
    var damage: String?
    var damageProblems: [String] = []
    var endPosition: Int64?
    /// Live bytes, kept from an index's count by the same rule as `append` keeps them.
    var liveBytes: Int64?

    init(fileSize: Int64) { self.fileSize = fileSize }

    mutating func damaged(_ reason: String, at offset: Int64) {
      if damage == nil { damage = "at byte \(offset): \(reason)" }
    }

    /// Why a revision entry (a checkpoint or a journal record) could not be taken: damage,
    /// or a newer format, which is not damage but a reason to refuse the document.
    mutating func unreadable(_ error: any Error, _ what: String, at offset: Int64) throws(DocumentError) {
      switch error {
      case DocumentError.unsupportedFormat(let version): throw DocumentError.unsupportedFormat(version)
      case let failure as ModelValidation.Failure:
        damaged("\(what) breaks a rule: \(failure)", at: offset)
        damageProblems = failure.problems.map(\.description)
      default:
        damaged("\(what) does not decode or apply: \(error)", at: offset)
      }
    }

    /// Entries read since the last complete revision join it.
    mutating func commit(end: Int64, revision: Int) {
      if var live = liveBytes, let entries = committed?.entries {
        for (name, location) in pending { live += location.span - (entries[name]?.span ?? 0) }
        liveBytes = live
      }
      if committed == nil {
        committed = Committed(entries: EntryTable(pending), end: end, revision: revision)
      } else {
        committed!.entries.update(pending)
        committed!.end = end
        committed!.revision = revision
      }
      pending = [:]
    }

    /// Where the next header starts: after the data of the entry read last. A header cut
    /// short stops the reader, which then no longer tells its own position.
    var nextHeader: Int64?

    /// Reads headers from `reader`, whose positions count from `base`, to the end.
    mutating func read(_ reader: ArchiveReader, from base: Int64) throws(DocumentError) {
      while true {
        let header = reader.nextHeader()
        var position = base + reader.headerPosition
        if case .fatal(let reason) = header {
          // The last entry's blocks cut short (its padding too) make it a torn tail, not
          // the end of a complete revision.
          guard (nextHeader ?? base) <= fileSize else {
            tornReason = reason
            return
          }
          position = nextHeader ?? base
        }
        if let previous {
          pending[previous.name] = EntryLocation(offset: previous.offset, span: position - previous.offset, size: previous.size)
        }
        previous = nil
        if candidate != nil, let revision = model?.head.revision {
          // A checkpoint written after its own revision's record is not another revision.
          if committed?.revision != revision { revisions += 1 }
          commit(end: position, revision: revision)
          candidate = nil
          journal.commit(revision)
        }
        let entry: ArchiveReader.Entry
        switch header {
        case .entry(let found): entry = found
        case .end:
          endPosition = position
          return
        case .damaged(let reason):
          damaged(reason, at: position)
          continue
        case .fatal(let reason):
          tornReason = reason
          return
        }
        nextHeader = base + reader.dataPosition + (entry.size + 511) / 512 * 512
        guard try readEntry(entry, at: position, from: reader) else { return }
      }
    }

    /// Reads one entry's data when it is a revision's; returns false when reading cannot
    /// go on (a torn tail).
    private mutating func readEntry(
      _ entry: ArchiveReader.Entry, at position: Int64, from reader: ArchiveReader
    ) throws(DocumentError) -> Bool {
      guard entry.isRegularFile else {
        damaged(
          "entry \(ModelValidation.quoted(entry.name)) is not a regular file (a link, device, folder or sparse file)",
          at: position)
        return true
      }
      let limit = sizeLimit(of: entry.name)
      if let limit, entry.size > limit {
        damaged("entry \(ModelValidation.quoted(entry.name)) of \(entry.size) bytes is over its limit of \(limit)", at: position)
        do { try reader.skipData() } catch {
          tornReason = "\(error)"
          return false
        }
        return true
      }
      previous = (entry.name, position, entry.size)
      do {
        // (A name that is not one of ours has no limit, and is never read.)
        if limit != nil, entry.name == modelEntry {
          let data = try reader.readData(size: entry.size, limit: modelSizeLimit, available: fileSize - position)
          do {
            // A checkpoint: the complete model (after the record of its own revision, if any).
            let checkpoint = try ModelCoding.decode(data)
            candidate = .checkpoint(replacing: model)
            model = WorkingModel(checkpoint)
            journal.checkpointRead(bytes: entry.size)
          } catch {
            try unreadable(error, "a gallery.json revision", at: position)
          }
        } else if limit != nil, entry.name.hasPrefix(journalFolder) {
          let data = try reader.readData(size: entry.size, limit: modelSizeLimit)
          do {
            let modified = model?.head.modified
            if let record = try journal.read(data, bytes: entry.size, replayingOn: &model, reading: read), let modified {
              candidate = .record(record, modified: modified)
            }
          } catch {
            try unreadable(error, "a journal record", at: position)
          }
        } else {
          try reader.skipData()
        }
      } catch let error as DocumentError {
        throw error
      } catch {
        tornReason = "\(error)"
        return false
      }
      return true
    }

    /// The layout of the last complete revision read.
    mutating func layout(_ file: FileHandleFD) throws(DocumentError) -> ArchiveLayout {
      // A revision whose last entry was not followed by a header is not complete: back to
      // the last complete one.
      switch candidate {
      case .checkpoint(let replaced): model = replaced
      case .record(let record, let modified):
        var ids = ModelIDs(model!.ids)
        try? record.change.reversed.replay(on: &model!, ids: &ids, reading: read)
        model!.head.revision = record.revision - 1
        model!.head.modified = modified
        model!.head.revisionID = record.parent
      case nil: break
      }
      guard committed != nil, var model else {
        if !damageProblems.isEmpty { throw .invalid(file.path, damageProblems) }
        throw .corrupt(file.path, damage ?? tornReason ?? "it holds no complete gallery.json")
      }
      // The index and trailer a save writes after its revision belong to it.
      if let endPosition, tornReason == nil, !pending.isEmpty,
        pending.keys.allSatisfy(ArchiveLayout.bookkeepingNames.contains)
      {
        commit(end: endPosition, revision: committed!.revision)
      }
      // A model read whole is kept as one list: its readers take it as it is.
      if model.items.isRead { model = WorkingModel(model.current) }
      var committed = committed!
      // A delta an index follows is dead, and listed no more (as a save that writes the
      // index leaves it).
      if let index = committed.entries[ArchiveIndex.name] {
        for name in [ArchiveIndex.deltaName, ArchiveIndex.deltaModelEntry] {
          if let delta = committed.entries[name], delta.offset < index.offset { committed.entries.remove(name) }
        }
      }
      let tail = fileSize - committed.end
      // After the end marker, plain tar tools may pad with zeros up to their block size.
      let cleanTail =
        tornReason == nil && endPosition != nil
        && (tail == 0 || DocumentArchive.zeros(in: file, from: committed.end, to: fileSize))
      var layout = ArchiveLayout(
        working: model, entries: committed.entries, revisionEnd: committed.end,
        fileSize: fileSize, revisions: revisions, tornBytes: cleanTail || damage != nil ? 0 : tail,
        tornReason: cleanTail || damage != nil ? nil : (tornReason ?? "trailing bytes after the last revision"),
        damage: damage, damageProblems: damageProblems, history: journal.history(of: model.head, in: file.path),
        checkpointRevision: journal.checkpointRevision, checkpointBytes: journal.checkpointBytes,
        journalBytes: journal.journalBytes, journalRecords: journal.journalRecords)
      layout.countedLiveBytes = liveBytes
      layout.knownIDs = journal.ids(of: model.head.revision).map { (model.head.revision, $0) }
      return layout
    }
  }

  /// What the newest model read came from, and how to go back to the one before it.
  private enum Candidate {
    case checkpoint(replacing: WorkingModel?)
    case record(JournalRecord, modified: Date)
  }

  /// What a scan learns of the journal: the history, the last checkpoint, and the replay of
  /// the records after it.
  private struct JournalScan {
    private var records: [Int: History.Entry] = [:]
    /// Records and checkpoint read since the last complete revision.
    private var pendingRecords: [JournalRecord] = []
    private var pendingCheckpoint: Int64?
    private var pendingJournalBytes: Int64 = 0
    private(set) var checkpointRevision = 0
    private(set) var checkpointBytes: Int64 = 0
    private(set) var journalBytes: Int64 = 0
    private(set) var journalRecords = 0
    private var pendingJournalRecords = 0
    /// The ids of the model of revision `idsRevision`, kept as records are replayed, so that
    /// no record can give two items one id and no replay scans the whole model.
    private var ids = ModelIDs([])
    private var idsRevision: Int?
    /// What tells the ids of the model the scan started from (the checkpoint the index
    /// outlined, or the last delta's model), and its revision.
    private var startIDs: (revision: Int, contains: @Sendable (String) -> Bool)?

    init() {}

    /// What the index said of the history it located, and where those records are read.
    private var digest: History.Digest?
    private var file: FileHandleFD?

    /// Starting at a checkpoint, with the history an index located before it.
    init(
      checkpoint revision: Int, bytes: Int64, journal: (bytes: Int64, records: Int),
      ids: (revision: Int, contains: @Sendable (String) -> Bool)?, history: [History.Entry], digest: History.Digest?,
      file: FileHandleFD?
    ) {
      checkpointRevision = revision
      checkpointBytes = bytes
      journalBytes = journal.bytes
      journalRecords = journal.records
      startIDs = ids
      for entry in history { records[entry.place.revision] = entry }
      self.digest = digest
      self.file = file
    }

    mutating func checkpointRead(bytes: Int64) {
      pendingCheckpoint = bytes
      pendingJournalBytes = 0
      pendingJournalRecords = 0
      // A checkpoint is the model now, whatever the records before it left.
      idsRevision = nil
      startIDs = nil
    }

    /// Reads a record and replays it on `model` when it follows it (returning it); returns
    /// nil when it is history (a compaction writes the records up to its checkpoint before
    /// it, so before any model). A record that does not fit leaves `model` as it was; once
    /// there is a model, a record of its revision or an earlier one (a copy of an old one, a
    /// changed number) is damage, never history or a torn save.
    mutating func read(
      _ data: Data, bytes: Int64, replayingOn model: inout WorkingModel?, reading read: HandleList<Item>.Read
    ) throws -> JournalRecord? {
      let record = try JournalCoding.decode(data)
      guard let current = model?.head.revision else {
        pendingRecords.append(record)
        return nil
      }
      guard record.revision == current + 1 else {
        if record.revision <= current {
          throw ChangeMismatch("journal r\(record.revision) after r\(current): a copy of an earlier record, or one changed")
        }
        throw ChangeMismatch("journal r\(record.revision) does not follow r\(current)")
      }
      // The ids are needed only to refuse an id given twice, so only by a record that
      // brings in ids it does not take out (a drop, not a move, trash or restore). They are
      // told by the checkpoint's table (and a delta's) when the index outlined it; without
      // one, a 100,000-item model's ids are gathered only when a record needs them. Kept by
      // every record after.
      if idsRevision != current, let start = startIDs, current == start.revision {
        ids = ModelIDs(containedIn: start.contains)
        idsRevision = current
      }
      let change = record.change
      let leaving = Set(change.leavingIDs)
      if idsRevision != current, change.arrivingIDs.allSatisfy(leaving.contains) {
        var unused = ModelIDs([])
        try change.replay(on: &model!, ids: &unused, reading: read)
      } else {
        if idsRevision != current { ids = ModelIDs(model!.ids) }
        try change.replay(on: &model!, ids: &ids, reading: read)
        idsRevision = record.revision
      }
      model!.head.revision = record.revision
      model!.head.modified = record.time
      model!.head.revisionID = record.id
      pendingJournalBytes += bytes
      pendingJournalRecords += 1
      pendingRecords.append(record)
      return record
    }

    /// The ids of the model of `revision`, when the tables it started from and the records
    /// replayed since tell them.
    func ids(of revision: Int) -> ModelIDs? {
      if idsRevision == revision { return ids }
      if let start = startIDs, start.revision == revision { return ModelIDs(containedIn: start.contains) }
      return nil
    }

    /// A revision is complete: what was read for it counts.
    mutating func commit(_ revision: Int) {
      for record in pendingRecords { records[record.revision] = .decoded(record) }
      pendingRecords = []
      if let pendingCheckpoint {
        checkpointRevision = revision
        checkpointBytes = pendingCheckpoint
        journalBytes = 0
        journalRecords = 0
      }
      journalBytes += pendingJournalBytes
      journalRecords += pendingJournalRecords
      pendingCheckpoint = nil
      pendingJournalBytes = 0
      pendingJournalRecords = 0
    }

    /// The records that lead to `model`, oldest first: the unbroken chain of revisions and
    /// ids back from it. Records of another lineage (a stray append, a hostile file) are not
    /// its history: taking them back would not give its past.
    func history(of model: GalleryModel, in path: String) -> History {
      var chain: [History.Entry] = []
      var revision = model.revision
      var id = model.revisionID
      while let wanted = id, let entry = records[revision], entry.place.id == wanted {
        chain.append(entry)
        id = entry.place.parent
        revision -= 1
      }
      return History(chain.reversed(), digest: digest, file: file, of: path)
    }
  }

  /// Whether the bytes from `start` to `end` are all zero (read in bounded chunks).
  fileprivate static func zeros(in file: FileHandleFD, from start: Int64, to end: Int64) -> Bool {
    do {
      try file.seek(to: start)
      var left = end - start
      while left > 0 {
        let chunk = try file.read(upTo: Int(min(left, 64 * 1024)))
        guard !chunk.isEmpty, chunk.allSatisfy({ $0 == 0 }) else { return false }
        left -= Int64(chunk.count)
      }
      return true
    } catch {
      return false
    }
  }

  /// Reads one entry's data where the layout says it is (checking that its header, there,
  /// is of that size, and of that name when one is given).
  package static func read(_ location: EntryLocation, named name: String? = nil, from file: FileHandleFD) throws -> Data {
    let reader = try reader(at: location.offset, of: file)
    guard let entry = try reader.next(), entry.isRegularFile, let limit = sizeLimit(of: entry.name),
      entry.size == location.size, name == nil || entry.name == name
    else {
      throw ArchiveError(status: -30, message: "no entry at offset \(location.offset)", operation: "reading an entry")
    }
    // Read into one buffer of its size: a location lies inside the file (a scan found it,
    // or an index that was checked against the file placed it there).
    return try reader.readData(size: entry.size, limit: limit, available: location.span)
  }

  // MARK: - Writing

  /// Appends a revision: new entries first, then its journal record, which the caller puts
  /// last; a new checkpoint after it when one is given, with an index that outlines it; the
  /// trailer; the end-of-archive marker; fsyncs before returning. The caller holds the
  /// document lock. A save that fails midway (a full disk, an item to copy that turns out
  /// damaged) is cut off again, and the file ends as it did, with its end marker.
  package static func append(
    _ entries: [(name: String, data: Data)], checkpoint: CheckpointPlan? = nil, delta: CheckpointPlan? = nil,
    takingIn merged: Int = 0, model: WorkingModel, record: JournalRecord, to file: FileHandleFD, layout: ArchiveLayout
  ) throws -> ArchiveLayout {
    // Cut an interrupted save's tail (and the old end marker) first, so nothing stale ever
    // follows what we write.
    try file.truncate(to: layout.revisionEnd)
    try file.seek(to: layout.revisionEnd)
    do {
      return try appendAtEnd(
        entries, checkpoint: checkpoint, delta: delta, takingIn: merged, model: model, record: record, to: file,
        layout: layout)
    } catch {
      try? file.truncate(to: layout.revisionEnd)
      try? file.seek(to: layout.revisionEnd)
      try? file.writeAll(Data(count: Int(endOfArchiveMarkerSize)))
      try? file.sync()
      throw error
    }
  }

  private static func appendAtEnd(
    _ entries: [(name: String, data: Data)], checkpoint: CheckpointPlan?, delta: CheckpointPlan?, takingIn merged: Int,
    model working: WorkingModel, record: JournalRecord, to file: FileHandleFD, layout: ArchiveLayout
  ) throws -> ArchiveLayout {
    let model = working.head
    var result = layout
    let writer = try EntryWriter(file: file, entries: layout.entries, liveBytes: layout.liveBytes)
    for (name, data) in entries {
      try writer.write(name: name, data: data, modified: model.modified)
      if name.hasPrefix(journalFolder) {
        result.journalBytes += Int64(data.count)
        result.journalRecords += 1
      }
    }
    // Each outline as written, with its items' CRC.
    var checkpointOutline = checkpoint?.outline
    if let checkpoint {
      let start = writer.offset
      try writer.write(name: modelEntry, size: checkpoint.size, modified: model.modified) {
        checkpointOutline = try checkpoint.write(to: $0)
      }
      // Its megabytes set off for the disk while the index is made: the save's fsync then
      // waits for less.
      file.startWriteback(from: start, count: writer.offset - start)
      result.checkpointBytes = Int64(checkpoint.size)
      result.checkpointRevision = model.revision
      result.journalBytes = 0
      result.journalRecords = 0
      // The items still stored are the old checkpoint's, not numbered as the new one's.
      result.storedAsIndexed = false
    }
    result.working = working
    result.history.append(record)
    result.revisions += 1
    // The ids opening knew, kept through the save (so that the process's next save asks
    // them too), until a checkpoint: from there the next opening knows them from its table.
    result.knownIDs = checkpoint == nil ? layout.ids.map { (record.revision, record.change.ids(after: $0)) } : nil
    // A delta is written only with the history it must carry.
    let deltaHistory =
      checkpoint == nil && delta != nil && layout.entries[ArchiveIndex.name] != nil ? indexedHistory(of: result) : nil
    var deltaOutline = delta?.outline
    if let delta, deltaHistory != nil {
      try writer.write(name: ArchiveIndex.deltaModelEntry, size: delta.size, modified: model.modified) {
        deltaOutline = try delta.write(to: $0)
      }
    }
    try finishRevision(
      writer, layout: &result, index: checkpointOutline,
      delta: deltaHistory.map { (delta!.order, deltaOutline!, $0, merged) }, change: record.change)
    if checkpoint != nil { result.readThroughIndex = true }
    try file.sync()
    // As opening through what was just written would give it, so that this process's next
    // save may write a delta too (its items numbered as the file numbers them).
    if let checkpointOutline, let location = result.entries[modelEntry] {
      storeAgain(&result, in: checkpointOutline, order: [], at: location, entry: modelEntry, after: nil, file: file)
    } else if let delta, let deltaOutline, deltaHistory != nil,
      let location = result.entries[ArchiveIndex.deltaModelEntry]
    {
      storeAgain(
        &result, in: deltaOutline, order: delta.order, at: location, entry: ArchiveIndex.deltaModelEntry,
        // The checkpoint's items and those of the deltas this one keeps, then its own.
        after: layout.itemSource?.prefix(parts: result.deltas), file: file)
    }
    result.fileSize = file.offset
    result.tornBytes = 0
    result.tornReason = nil
    return result
  }

  /// `layout`'s items stored where a plan wrote them (a checkpoint's, or a delta's after the
  /// parts of `before`, in `order`), numbered as opening through it numbers them. Left as
  /// they were, and not numbered so (no delta refers to them then), if the file cannot be
  /// opened again.
  private static func storeAgain(
    _ layout: inout ArchiveLayout, in outline: CheckpointOutline, order: [Range<Int>], at location: EntryLocation,
    entry: String, after before: ItemSource?, file: FileHandleFD
  ) {
    guard let reopened = try? file.reopenedForReading() else { return }
    let items = CheckpointItemsFile(reopened, dataStart: location.dataOffset)
    let part = ItemSource(outline, entry: entry) { offset, count in try items.read(at: offset, count: count) }
    let source = before.map { ItemSource([$0, part]) } ?? part
    var head = layout.working.head
    head.trash = layout.working.trash.elements
    let order = before == nil ? nil : order.flatMap { $0.map(Int32.init) }
    layout.working = WorkingModel(head: head, storedItemIDs: source.itemIDs, order: order)
    layout.itemSource = source
    layout.storedAsIndexed = true
  }

  /// Ends the revision `layout` describes: writes the index (after a checkpoint, with the
  /// checkpoint's outline when there is one) or the delta (after its model), the trailer
  /// and the end marker, and brings `layout`'s entries, live bytes, summary and end along.
  /// `change` made the revision from the one `layout.summary` describes, when it is a save.
  private static func finishRevision(
    _ writer: EntryWriter, layout: inout ArchiveLayout, index outline: CheckpointOutline?,
    delta: (order: [Range<Int>], outline: CheckpointOutline, history: IndexedHistory, takingIn: Int)? = nil,
    change: ModelChange?
  ) throws {
    if let outline {
      // The deltas before a new index are dead: it lists none.
      writer.forget([ArchiveIndex.deltaName, ArchiveIndex.deltaModelEntry])
      let history = indexedHistory(of: layout)
      let data = ArchiveIndex(
        revision: layout.head.revision, revisions: layout.revisions, liveBytes: writer.liveBytes,
        entries: writer.entries, outline: outline, history: history
      ).encode()
      try writer.write(name: ArchiveIndex.name, data: data, modified: layout.head.modified)
      layout.indexIsComplete = history != nil
      layout.deltaLocations = []
      layout.journalAtDelta = (0, 0)
    } else if let delta, let index = writer.entries[ArchiveIndex.name] {
      // The deltas it takes in are dead, the one before it that it keeps is named, and it
      // lists the entries after that one, its own model last.
      let kept = layout.deltaLocations.dropLast(delta.takingIn)
      let previous = kept.last?.offset ?? index.offset
      if delta.takingIn > 0 {
        // As opening through the chain counts it: the newest delta before this one is the
        // last it keeps (the live bytes it says, and what this one replaces, agree then).
        writer.forget([ArchiveIndex.deltaName])
        if let last = kept.last { writer.place(ArchiveIndex.deltaName, at: last) }
      }
      let data = ArchiveIndex(
        revision: layout.head.revision, revisions: layout.revisions, liveBytes: writer.liveBytes,
        entries: writer.entries, outline: delta.outline, history: delta.history,
        delta: IndexDelta(
          previous: previous, checkpointRevision: layout.checkpointRevision, checkpointBytes: layout.checkpointBytes,
          journalBytes: layout.journalBytes, journalRecords: layout.journalRecords, order: delta.order)
      ).encode()
      try writer.write(name: ArchiveIndex.deltaName, data: data, modified: layout.head.modified)
      layout.deltaLocations = kept + [writer.entries[ArchiveIndex.deltaName]!]
      layout.journalAtDelta = (layout.journalBytes, layout.journalRecords)
    }
    layout.countedLiveBytes = writer.liveBytes
    // The trailer's summary counts the trailer itself: its size is found by trying.
    let offset = writer.offset
    let previousSpan = writer.entries[ArchiveTrailer.name]?.span ?? 0
    var summary = try change.map { try DocumentSummary(layout, changedBy: $0) } ?? DocumentSummary(layout)
    summary.entryCount = writer.entries.count + (previousSpan == 0 ? 1 : 0)
    let index = writer.entries[ArchiveIndex.name]?.offset
    let lastDelta = writer.entries[ArchiveIndex.deltaName]?.offset
    var span: Int64 = 1024
    while true {
      summary.liveBytes = writer.liveBytes + span - previousSpan
      summary.revisionEnd = offset + span
      var trailer = ArchiveTrailer(end: offset, index: index, summary: summary)
      if let index, let lastDelta, lastDelta > index { trailer.delta = lastDelta }
      let data = trailer.encode()
      guard 512 + Int64(data.count) == span else {
        span = 512 + Int64(data.count)
        continue
      }
      try writer.write(name: ArchiveTrailer.name, data: data, modified: layout.head.modified)
      break
    }
    layout.summary = summary
    layout.entries = writer.entries
    layout.countedLiveBytes = writer.liveBytes
    layout.revisionEnd = writer.offset
    try writer.close()
  }

  /// What an index after the checkpoint of `layout.model` says of its history: nil when the
  /// history does not lead to that model or a record of it does not read (opening then
  /// reads each record for its place, as it does in an index written before this).
  private static func indexedHistory(of layout: ArchiveLayout) -> IndexedHistory? {
    let places = layout.history.entries.map(\.place)
    guard places.last.map({ $0.revision == layout.head.revision && $0.id == layout.head.revisionID }) ?? true,
      let digest = try? layout.history.digest(checkpoint: layout.working)
    else { return nil }
    return IndexedHistory(places: places, digest: digest)
  }

  /// Writes a new, complete document to `path` through a temporary file: the whole
  /// file appears at once or not at all. With `replacing` false, an existing file is never
  /// overwritten (link(2) fails instead). With `replacing` true, a symlink is followed (the
  /// document it names is replaced, the link stays) and the new file keeps the old one's
  /// mode and, where permitted, its owner; with `locked` too, only while the name still
  /// names that file (the document a compaction locked): one renamed or replaced meanwhile
  /// by another program is left as it is, and no copy appears under its old name.
  package static func writeComplete(
    to path: String, model: GalleryModel, history: [JournalRecord] = [], entries: (EntryWriter) throws -> Void,
    replacing: Bool, locked: FileHandleFD? = nil
  ) throws {
    let current = currentFormat(model)
    let target = replacing ? FileSystem.resolvingLinks(path) : path
    let existing = replacing ? FileSystem.status(of: target) : nil
    let temporary = FileSystem.temporaryName(beside: target)
    do {
      let file = try FileHandleFD(path: temporary, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
      if let existing { file.takeMetadata(of: existing) }
      let writer = try EntryWriter(file: file, entries: EntryTable(), liveBytes: 0)
      try writer.write(name: mimetypeEntry, data: Data(GalleryModel.mediaType.utf8), modified: model.modified)
      try entries(writer)
      let (checkpoint, outline) = ModelCoding.encodeWithOutline(current)
      try writer.write(name: modelEntry, data: checkpoint, modified: model.modified)
      try finishFirstRevision(
        writer, model: current, history: history, checkpointBytes: Int64(checkpoint.count), outline: outline)
      try file.sync()
      if replacing {
        if let locked, !locked.isNamed(by: target) { throw DocumentError.saveFailed(path, RenamedMeanwhile()) }
        try FileSystem.rename(temporary, to: target)
      } else {
        do { try FileSystem.renameWithoutReplacing(temporary, to: target) } catch  where error.errno == EEXIST {
          throw DocumentError.exists(path)
        }
      }
      syncDirectory(containing: target)
    } catch {
      FileSystem.remove(temporary)
      // Name the document, not the temporary beside it, and the system's reason (a full disk).
      if error is DocumentError { throw error }
      if let failed = error as? FileSystemError { throw OutputFile.Failure(path: path, errno: failed.errno) }
      if replacing { throw DocumentError.saveFailed(path, error) }
      if let failed = error as? ArchiveError, let errno = failed.errorNumber {
        throw OutputFile.Failure(path: path, errno: errno)
      }
      throw error
    }
  }

  /// The document a compaction was to replace is no longer under its name.
  private struct RenamedMeanwhile: GalleryError {
    var description: String { "it was renamed or replaced by another program meanwhile" }
  }

  /// Ends a new file's only revision: everything written is live.
  private static func finishFirstRevision(
    _ writer: EntryWriter, model: GalleryModel, history: [JournalRecord], checkpointBytes: Int64,
    outline: CheckpointOutline
  ) throws {
    var layout = ArchiveLayout(
      working: WorkingModel(model), entries: EntryTable(), revisionEnd: 0, fileSize: 0, revisions: 1, tornBytes: 0,
      tornReason: nil,
      history: History(history), checkpointRevision: model.revision, checkpointBytes: checkpointBytes)
    try finishRevision(writer, layout: &layout, index: outline, change: nil)
  }

  /// Whatever it was read as, a document is written in this version's format.
  private static func currentFormat(_ model: GalleryModel) -> GalleryModel {
    var current = model
    current.format = GalleryModel.formatVersion
    if current.revisionID == nil { current.revisionID = JournalRecord.newID() }
    return current
  }

  /// Removes temporary files left by a save that was killed (the caller holds the lock).
  package static func removeStaleTemporaries(for path: String) {
    FileSystem.removeStaleTemporaries(beside: FileSystem.resolvingLinks(path))
  }
}

/// The descriptor an `ItemSource` reads a checkpoint's items through: its own open file
/// description, so that it neither moves another reader's offset nor holds the document's
/// lock. @unchecked Sendable: only `pread` is called on it, which any thread may call.
private final class CheckpointItemsFile: @unchecked Sendable {
  private let file: FileHandleFD
  private let dataStart: Int64

  init(_ file: FileHandleFD, dataStart: Int64) {
    self.file = file
    self.dataStart = dataStart
  }

  func read(at offset: Int, count: Int) throws -> Data { try file.read(at: dataStart + Int64(offset), count: count) }
}

/// Writes entries at the file's offset, keeping where each lies and the live bytes (what a
/// name held before is dead once it is written again).
package final class EntryWriter {
  private let file: FileHandleFD
  private let writer: ArchiveWriter
  package private(set) var entries: EntryTable
  package private(set) var liveBytes: Int64

  init(file: FileHandleFD, entries: EntryTable, liveBytes: Int64) throws {
    self.file = file
    self.writer = try ArchiveWriter(fileDescriptor: file.rawValue)
    self.entries = entries
    self.liveBytes = liveBytes
  }

  package var offset: Int64 { file.offset }

  package func write(name: String, data: some ContiguousBytes, modified: Date) throws {
    try data.withUnsafeBytes { bytes in
      try write(name: name, size: bytes.count, modified: modified) { write in try write(bytes) }
    }
  }

  /// Writes an entry of `size` bytes that `produce` hands over a piece at a time.
  package func write(
    name: String, size: Int, modified: Date, produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
  ) throws {
    // An entry past what a reader takes would leave a document every reader calls damaged.
    if let limit = DocumentArchive.sizeLimit(of: name), Int64(size) > limit {
      throw EntryTooLarge(name: name, size: Int64(size), limit: limit)
    }
    let start = file.offset
    try writer.write(name: name, size: size, modified: modified, produce: produce)
    place(name, at: EntryLocation(offset: start, span: file.offset - start, size: Int64(size)))
  }

  /// Appends an entry as it lies in `source`, its header, data and padding byte for byte
  /// (a tar header does not say where it lies): how a compaction moves the entries a whole
  /// scan read, without a reader and a writer for each of 100,000 thumbnails.
  package func copy(name: String, at location: EntryLocation, from source: FileHandleFD) throws {
    let bytes = try source.read(at: location.offset, count: Int(location.span))
    guard bytes.count == location.span else {
      throw ArchiveError(status: -30, message: "no entry at offset \(location.offset)", operation: "copying an entry")
    }
    let start = file.offset
    try file.writeAll(bytes)
    place(name, at: EntryLocation(offset: start, span: location.span, size: location.size))
  }

  /// Records where `name` now lies: the newest entry of that name, the one before it dead.
  func place(_ name: String, at location: EntryLocation) {
    liveBytes += location.span - (entries[name]?.span ?? 0)
    entries.update(location, for: name)
  }

  /// Forgets the entries of `names`: dead, and no longer listed.
  func forget(_ names: [String]) {
    for name in names {
      guard let location = entries[name] else { continue }
      liveBytes -= location.span
      entries.remove(name)
    }
  }

  /// Writes the end-of-archive marker.
  func close() throws { try writer.close() }
}

/// An entry a save would write past the size a reader takes (see `sizeLimit(of:)`): the
/// save is refused, the document left as it was.
public struct EntryTooLarge: Error, CustomStringConvertible, Sendable, GalleryError {
  public var name: String
  public var size: Int64
  public var limit: Int64

  public var description: String {
    "\(name) would be \(size) bytes, over the \(limit) a document's reader takes"
      + (name.hasPrefix(DocumentArchive.originalsFolder) ? "" : " (a model this large is beyond what Gallery keeps)")
  }
}

/// One JSON encoding for the model everywhere (see ModelJSON.swift).
public enum ModelCoding {
  public static func encode(_ model: GalleryModel) -> Data { encodeWithOutline(model).data }

  /// The checkpoint and where its items lie in it, for the index.
  package static func encodeWithOutline(_ model: GalleryModel) -> (data: Data, outline: CheckpointOutline) {
    var writer = JSONWriter(capacity: 512 + model.items.count * 400)
    var outline = writer.model(model)
    outline.itemsCRC32 = writer.bytes.withUnsafeBytes { CRC32(UnsafeRawBufferPointer(rebasing: $0[outline.array])).value }
    return (Data(writer.bytes), outline)
  }

  public static func decode(_ data: Data) throws -> GalleryModel {
    let model = try data.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      return try reader.model()
    }
    guard model.format <= GalleryModel.formatVersion else {
      throw DocumentError.unsupportedFormat(model.format)
    }
    let problems = ModelValidation.problems(of: model)
    guard problems.isEmpty else { throw ModelValidation.Failure(problems: problems) }
    return model
  }
}
