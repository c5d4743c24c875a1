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
  /// document we write never comes near them: the model of 100,000 items is about 40 MB.
  package static let modelSizeLimit: Int64 = 128 << 20
  package static let thumbnailSizeLimit: Int64 = 16 << 20
  /// Originals are embedded only up to the download limit's ceiling (see `WebLimits`).
  package static let originalSizeLimit: Int64 = 256 << 20

  package static let endOfArchiveMarkerSize: Int64 = 1024

  /// The largest data an entry of this name may hold, or nil for names the model never
  /// refers to (skipped, never read).
  package static func sizeLimit(of name: String) -> Int64? {
    if name == modelEntry || name.hasPrefix(journalFolder) { return modelSizeLimit }
    if name == coverEntry || name.hasPrefix(thumbnailFolder) { return thumbnailSizeLimit }
    if name.hasPrefix(originalsFolder) { return originalSizeLimit }
    return nil
  }

  /// `journal/0000000042.json`: padded, so that a listing sorts by revision.
  package static func journalEntry(_ revision: Int) -> String {
    let digits = String(revision)
    return journalFolder + String(repeating: "0", count: max(0, 10 - digits.count)) + digits + ".json"
  }

  // MARK: - Reading

  /// Scans the whole file from its start and returns its last complete revision.
  ///
  /// A save that was interrupted leaves a *torn tail*: the file ends inside an entry, or
  /// with entries and no `gallery.json` after them. That is ignored here and cut off by the
  /// next save. Anything else that is wrong (a block that is not a header, a link or sparse
  /// entry, an entry over its size limit, a `gallery.json` that does not decode or breaks a
  /// rule) is *damage*: reading goes on past it, as bsdtar does, and the layout says so, so
  /// that the document opens read-only and no save ever truncates what could not be read.
  package static func scan(_ file: FileHandleFD) throws(DocumentError) -> ArchiveLayout {
    let fileSize: Int64
    do {
      let info = try file.status()
      guard (info.st_mode & S_IFMT) == S_IFREG else { throw DocumentError.notAGallery(file.path, "not a regular file") }
      fileSize = Int64(info.st_size)
      try file.seek(to: 0)
    } catch let error as DocumentError {
      throw error
    } catch {
      throw .io(error)
    }
    guard fileSize > 0 else { throw .notAGallery(file.path, "the file is empty") }

    let reader: ArchiveReader
    do { reader = try ArchiveReader(fileDescriptor: file.rawValue) } catch {
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

    // The newest model read: the last complete revision's, or the candidate's while the entry
    // that made it is not yet known to be complete. One value, changed in place as records
    // are replayed (its lists as handles), so that a large model is never copied.
    var model: ReplayingModel?
    var candidate: Candidate?
    var committed: (entries: [String: EntryLocation], end: Int64, revision: Int)?
    var revisions = 0
    var pending: [String: EntryLocation] = [:]
    var journal = JournalScan()
    var previous: (name: String, offset: Int64, size: Int64)? = (mimetypeEntry, 0, Int64(GalleryModel.mediaType.utf8.count))
    var tornReason: String?
    var damage: String?
    var damageProblems: [String] = []
    var endMarker = false

    func damaged(_ reason: String, at offset: Int64) {
      if damage == nil { damage = "at byte \(offset): \(reason)" }
    }

    /// Why a revision entry (a checkpoint or a journal record) could not be taken: damage,
    /// or a newer format, which is not damage but a reason to refuse the document.
    func unreadable(_ error: any Error, _ what: String, at offset: Int64) throws {
      switch error {
      case DocumentError.unsupportedFormat(let version): throw DocumentError.unsupportedFormat(version)
      case let failure as ModelValidation.Failure:
        damaged("\(what) breaks a rule: \(failure)", at: offset)
        damageProblems = failure.problems.map(\.description)
      default:
        damaged("\(what) does not decode or apply: \(error)", at: offset)
      }
    }

    scanning: while true {
      let header = reader.nextHeader()
      let position = reader.headerPosition
      if let previous {
        pending[previous.name] = EntryLocation(offset: previous.offset, span: position - previous.offset, size: previous.size)
      }
      previous = nil
      if candidate != nil, let revision = model?.head.revision {
        // A checkpoint written after its own revision's record is not another revision.
        if committed?.revision != revision { revisions += 1 }
        if committed == nil {
          committed = (pending, position, revision)
        } else {
          committed!.entries.merge(pending) { _, new in new }
          committed!.end = position
          committed!.revision = revision
        }
        pending = [:]
        candidate = nil
        journal.commit(revision)
      }
      let entry: ArchiveReader.Entry
      switch header {
      case .entry(let found): entry = found
      case .end:
        endMarker = true
        break scanning
      case .damaged(let reason):
        damaged(reason, at: position)
        continue scanning
      case .fatal(let reason):
        tornReason = reason
        break scanning
      }
      guard entry.isRegularFile else {
        damaged(
          "entry \(ModelValidation.quoted(entry.name)) is not a regular file (a link, device, folder or sparse file)",
          at: position)
        continue
      }
      if let limit = sizeLimit(of: entry.name), entry.size > limit {
        damaged("entry \(ModelValidation.quoted(entry.name)) of \(entry.size) bytes is over its limit of \(limit)", at: position)
        do { try reader.skipData() } catch {
          tornReason = "\(error)"
          break scanning
        }
        continue scanning
      }
      previous = (entry.name, position, entry.size)
      do {
        if entry.name == modelEntry {
          let data = try reader.readData(size: entry.size, limit: modelSizeLimit, available: fileSize - position)
          do {
            // A checkpoint: the complete model (after the record of its own revision, if any).
            let checkpoint = try ModelCoding.decode(data)
            candidate = .checkpoint(replacing: model)
            model = ReplayingModel(checkpoint)
            journal.checkpointRead(bytes: entry.size)
          } catch {
            try unreadable(error, "a gallery.json revision", at: position)
          }
        } else if entry.name.hasPrefix(journalFolder) {
          let data = try reader.readData(size: entry.size, limit: modelSizeLimit)
          do {
            let modified = model?.head.modified
            if let record = try journal.read(data, bytes: entry.size, replayingOn: &model), let modified {
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
        break scanning
      }
    }
    // A revision whose last entry was not followed by a header is not complete: back to the
    // last complete one.
    switch candidate {
    case .checkpoint(let replaced): model = replaced
    case .record(let record, let modified):
      var ids = model!.ids
      try? record.change.reversed.replay(on: &model!, ids: &ids)
      model!.head.revision = record.revision - 1
      model!.head.modified = modified
      model!.head.revisionID = record.parent
    case nil: break
    }
    guard let committed, let model = model?.current else {
      if !damageProblems.isEmpty { throw .invalid(file.path, damageProblems) }
      throw .corrupt(file.path, damage ?? tornReason ?? "it holds no complete gallery.json")
    }
    let tail = fileSize - committed.end
    // After the end marker, plain tar tools may pad with zeros up to their block size.
    let cleanTail = tornReason == nil && endMarker && (tail == 0 || zeros(in: file, from: committed.end, to: fileSize))
    return ArchiveLayout(
      model: model, entries: committed.entries, revisionEnd: committed.end,
      fileSize: fileSize, revisions: revisions, tornBytes: cleanTail || damage != nil ? 0 : tail,
      tornReason: cleanTail || damage != nil ? nil : (tornReason ?? "trailing bytes after the last revision"),
      damage: damage, damageProblems: damageProblems, history: journal.history(upTo: model.revision),
      checkpointRevision: journal.checkpointRevision, checkpointBytes: journal.checkpointBytes,
      journalBytes: journal.journalBytes, journalRecords: journal.journalRecords)
  }

  /// What the newest model read came from, and how to go back to the one before it.
  private enum Candidate {
    case checkpoint(replacing: ReplayingModel?)
    case record(JournalRecord, modified: Date)
  }

  /// What a scan learns of the journal: the history, the last checkpoint, and the replay of
  /// the records after it.
  private struct JournalScan {
    private var records: [Int: JournalRecord] = [:]
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
    private var ids = Set<String>()
    private var idsRevision: Int?

    mutating func checkpointRead(bytes: Int64) {
      pendingCheckpoint = bytes
      pendingJournalBytes = 0
      pendingJournalRecords = 0
      // A checkpoint is the model now, whatever the records before it left.
      idsRevision = nil
    }

    /// Reads a record and replays it on `model` when it follows it (returning it); returns
    /// nil when it is history (a compaction writes the records up to its checkpoint before
    /// it). A record that does not fit leaves `model` as it was.
    mutating func read(_ data: Data, bytes: Int64, replayingOn model: inout ReplayingModel?) throws -> JournalRecord? {
      let record = try JournalCoding.decode(data)
      guard let current = model?.head.revision, record.revision > current else {
        pendingRecords.append(record)
        return nil
      }
      guard record.revision == current + 1 else {
        throw ChangeMismatch("journal r\(record.revision) does not follow r\(current)")
      }
      if idsRevision != current { ids = model!.ids }
      try record.change.replay(on: &model!, ids: &ids)
      idsRevision = record.revision
      model!.head.revision = record.revision
      model!.head.modified = record.time
      model!.head.revisionID = record.id
      pendingJournalBytes += bytes
      pendingJournalRecords += 1
      pendingRecords.append(record)
      return record
    }

    /// A revision is complete: what was read for it counts.
    mutating func commit(_ revision: Int) {
      for record in pendingRecords { records[record.revision] = record }
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

    func history(upTo revision: Int) -> [JournalRecord] {
      records.values.filter { $0.revision <= revision }.sorted { $0.revision < $1.revision }
    }
  }

  /// Whether the bytes from `start` to `end` are all zero (read in bounded chunks).
  private static func zeros(in file: FileHandleFD, from start: Int64, to end: Int64) -> Bool {
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

  /// Reads one entry's data where the layout says it is.
  package static func read(_ location: EntryLocation, from file: FileHandleFD) throws -> Data {
    try file.seek(to: location.offset)
    let reader = try ArchiveReader(fileDescriptor: file.rawValue)
    guard let entry = try reader.next(), entry.isRegularFile, let limit = sizeLimit(of: entry.name),
      entry.size == location.size
    else {
      throw ArchiveError(status: -30, message: "no entry at offset \(location.offset)", operation: "reading an entry")
    }
    return try reader.readData(size: entry.size, limit: limit)
  }

  // MARK: - Writing

  /// Appends a revision: new entries first, then its journal record (and checkpoint), which
  /// the caller puts last, then the end-of-archive marker; fsyncs before returning. The
  /// caller holds the document lock.
  package static func append(
    _ entries: [(name: String, data: Data)], model: GalleryModel, to file: FileHandleFD,
    layout: ArchiveLayout
  ) throws -> ArchiveLayout {
    // Cut an interrupted save's tail (and the old end marker) first, so nothing stale ever
    // follows what we write.
    try file.truncate(to: layout.revisionEnd)
    try file.seek(to: layout.revisionEnd)
    var result = layout
    result.countedLiveBytes = layout.liveBytes
    let writer = try ArchiveWriter(fileDescriptor: file.rawValue)
    for (name, data) in entries {
      let start = file.offset
      try writer.write(name: name, data: data, modified: model.modified)
      let location = EntryLocation(offset: start, span: file.offset - start, size: Int64(data.count))
      // What the name held before is dead now; what it holds is live.
      result.countedLiveBytes! += location.span - (result.entries[name]?.span ?? 0)
      result.entries[name] = location
    }
    result.revisionEnd = file.offset
    try writer.close()
    try file.sync()
    result.model = model
    result.fileSize = file.offset
    result.revisions += 1
    result.tornBytes = 0
    result.tornReason = nil
    return result
  }

  /// Writes a new, complete document to `path` through a temporary file: the whole
  /// file appears at once or not at all. With `replacing` false, an existing file is never
  /// overwritten (link(2) fails instead). With `replacing` true, a symlink is followed (the
  /// document it names is replaced, the link stays) and the new file keeps the old one's
  /// mode and, where permitted, its owner.
  package static func writeComplete(
    to path: String, model: GalleryModel, entries: (ArchiveWriter) throws -> Void, replacing: Bool
  ) throws {
    let current = currentFormat(model)
    let target = replacing ? FileSystem.resolvingLinks(path) : path
    let existing = replacing ? FileSystem.status(of: target) : nil
    let temporary = FileSystem.temporaryName(beside: target)
    do {
      let file = try FileHandleFD(path: temporary, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
      if let existing { file.takeMetadata(of: existing) }
      let writer = try ArchiveWriter(fileDescriptor: file.rawValue)
      try writer.write(name: mimetypeEntry, data: Data(GalleryModel.mediaType.utf8), modified: model.modified)
      try entries(writer)
      try writer.write(name: modelEntry, data: ModelCoding.encode(current), modified: model.modified)
      try writer.close()
      try file.sync()
      if replacing {
        try FileSystem.rename(temporary, to: target)
      } else {
        do { try FileSystem.renameWithoutReplacing(temporary, to: target) } catch  where error.errno == EEXIST {
          throw DocumentError.exists(path)
        }
      }
      syncDirectory(containing: target)
    } catch let error as FileSystemError {
      FileSystem.remove(temporary)
      // Name the document, not the temporary beside it.
      throw OutputFile.Failure(path: path, errno: error.errno)
    } catch {
      FileSystem.remove(temporary)
      throw error
    }
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

/// One JSON encoding for the model everywhere (see ModelJSON.swift).
public enum ModelCoding {
  public static func encode(_ model: GalleryModel) -> Data {
    var writer = JSONWriter(capacity: 512 + model.items.count * 400)
    writer.model(model)
    return Data(writer.bytes)
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
