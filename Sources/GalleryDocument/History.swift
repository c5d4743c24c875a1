import Foundation
import GalleryModel
import GallerySystem

/// A document's history, oldest first: the journal records that lead to its model. Opened
/// through an index, the records before its checkpoint are only located: the index gives
/// each one's place (its revision and ids), the undo stack they make and the ids they name,
/// so that a move, a drop or an undo in a gallery grown by years of drops reads none of
/// them, or only those it takes back. A record is read, decoded and checked when something
/// needs it whole (undo, redo, revert, merge, `history`); one that does not decode then is
/// damage, reported as such.
package struct History: Sendable {
  package enum Entry: Sendable, Equatable {
    case decoded(JournalRecord)
    /// A record an index located, with the place it gives; not read yet.
    case located(JournalRecord.Place, EntryLocation)

    package var place: JournalRecord.Place {
      switch self {
      case .decoded(let record): record.place
      case .located(let place, _): place
      }
    }
  }

  /// What an index says of the records it locates, which are the history's first
  /// `count` entries: the undo stack they make, and the item ids they name that its
  /// checkpoint does not hold (with the model's, the ids a new item may not take).
  package struct Digest: Sendable, Equatable {
    package var count: Int
    package var undo: UndoStack
    package var ids: Set<String>
  }

  package private(set) var entries: [Entry] = []
  /// Where located records are read from: a descriptor of the file the index described.
  private var file: RecordFile?
  /// The index's digest, when the entries it describes are still the history's first.
  private var digest: Digest?
  /// The document the records came from, for the error that names it.
  private var path = ""

  package init() {}

  package init(_ records: [JournalRecord]) { entries = records.map(Entry.decoded) }

  /// A history whose first entries an index located in `file` (and described by `digest`).
  package init(_ entries: [Entry], digest: Digest?, file: FileHandleFD?, of path: String) {
    self.entries = entries
    self.file = file.map(RecordFile.init)
    self.path = path
    if let digest, digest.count <= entries.count,
      entries.prefix(digest.count).allSatisfy({ if case .located = $0 { true } else { false } })
    {
      self.digest = digest
    }
  }

  package var count: Int { entries.count }
  package var isEmpty: Bool { entries.isEmpty }
  package var revisions: [Int] { entries.map(\.place.revision) }

  package mutating func append(_ record: JournalRecord) { entries.append(.decoded(record)) }

  /// Every record, read, decoded and checked.
  package func records() throws(DocumentError) -> [JournalRecord] {
    try entries.map { entry throws(DocumentError) in try record(entry) }
  }

  /// The records of these revisions the history holds, in history order.
  package func records(_ revisions: Set<Int>) throws(DocumentError) -> [JournalRecord] {
    var records: [JournalRecord] = []
    for entry in entries where revisions.contains(entry.place.revision) { records.append(try record(entry)) }
    return records
  }

  /// The records from `revision` on, in history order: those taken back to rebuild it, and
  /// its own (its time).
  package func records(from revision: Int) throws(DocumentError) -> [JournalRecord] {
    try records(Set(revisions.filter { $0 >= revision }))
  }

  /// The records of these revisions without their change (left empty): what made each and
  /// when, for listing the history.
  package func headers(_ revisions: Set<Int>) throws(DocumentError) -> [Int: JournalRecord] {
    var headers: [Int: JournalRecord] = [:]
    for entry in entries where revisions.contains(entry.place.revision) {
      switch entry {
      case .decoded(let record): headers[record.revision] = record
      case .located(let place, let location):
        headers[place.revision] = try checked(place) { try JournalCoding.decodeWithoutChange(try read(location)) }
      }
    }
    return headers
  }

  /// The undo stack of the whole history: the index's, with the records after it.
  package func undoStack() throws(DocumentError) -> UndoStack {
    guard let digest else { return UndoStack(try records()) }
    var stack = digest.undo
    for entry in entries[digest.count...] { stack.add(try record(entry)) }
    return stack
  }

  /// Every item id the history names: the ids a new item may not take, so that the
  /// thumbnail of an item undo can bring back is never replaced by another's.
  package func itemIDs() throws(DocumentError) -> Set<String> {
    var ids = digest?.ids ?? []
    for entry in entries[(digest?.count ?? 0)...] { ids.formUnion(try record(entry).change.keys) }
    return ids
  }

  /// What an index written after a checkpoint of `model` says of this history.
  package func digest(checkpoint model: WorkingModel) throws(DocumentError) -> Digest {
    // The few ids the history names since its last digest, looked for among the model's,
    // never a set of every id the model holds.
    let named = try itemIDs()
    return Digest(count: count, undo: try undoStack(), ids: named.subtracting(model.held(Array(named))))
  }

  /// The records that decode: all of them unless the history is damaged (`records()` says
  /// where). For counting what the history keeps alive, where a damaged record keeps nothing.
  package var readableRecords: [JournalRecord] { entries.compactMap { try? record($0) } }

  private func record(_ entry: Entry) throws(DocumentError) -> JournalRecord {
    switch entry {
    case .decoded(let record): record
    case .located(let place, let location): try checked(place) { try JournalCoding.decode(try read(location)) }
    }
  }

  private func read(_ location: EntryLocation) throws -> Data {
    guard let file else { throw DocumentError.corrupt(path, "a record of its history cannot be read") }
    return try file.read(location)
  }

  /// A located record decoded: one that does not decode, or is not the revision the index
  /// placed there, is damage.
  private func checked(
    _ place: JournalRecord.Place, _ decode: () throws -> JournalRecord
  ) throws(DocumentError) -> JournalRecord {
    let record: JournalRecord
    do {
      record = try decode()
    } catch DocumentError.unsupportedFormat(let version) {
      throw .unsupportedFormat(version)
    } catch {
      throw .corrupt(path, "the history's record of r\(place.revision) does not read: \(error)")
    }
    guard record.place == place else { throw .corrupt(path, "the history's record of r\(place.revision) is not that") }
    return record
  }
}

/// The file a history's located records are read from: a descriptor of its own (the inode
/// the index described, even if the path names another file since). @unchecked Sendable:
/// only `pread` is called on it, which any thread may call.
private final class RecordFile: @unchecked Sendable {
  private let file: FileHandleFD

  init(_ file: FileHandleFD) { self.file = file }

  func read(_ location: EntryLocation) throws -> Data {
    let data = try file.read(at: location.dataOffset, count: Int(location.size))
    guard data.count == location.size else { throw IndexMismatch("an entry ends past the end of the file") }
    return data
  }
}
