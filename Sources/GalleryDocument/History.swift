import Foundation
import GalleryModel

/// A document's history, oldest first: the journal records that lead to its model. Opened
/// through an index, a record is read for its place in the history (its revision and ids)
/// and kept as bytes, decoded and checked whole only when something needs it (undo, redo,
/// merge, `history`, new ids): showing or moving items does not decode the 10,000 items a
/// past drop inserted. A record that does not decode then is damage, reported as such.
package struct History: Sendable, Equatable {
  package enum Entry: Sendable, Equatable {
    case decoded(JournalRecord)
    /// Bytes an index located, whose place was read; not yet decoded whole.
    case stored(JournalRecord.Place, Data)

    package var place: JournalRecord.Place {
      switch self {
      case .decoded(let record): record.place
      case .stored(let place, _): place
      }
    }
  }

  package private(set) var entries: [Entry] = []
  /// The document the stored records came from, for the error that names it.
  private var path = ""

  package init() {}

  package init(_ records: [JournalRecord]) { entries = records.map(Entry.decoded) }

  package init(_ entries: [Entry], of path: String) {
    self.entries = entries
    self.path = path
  }

  package var count: Int { entries.count }
  package var isEmpty: Bool { entries.isEmpty }
  package var revisions: [Int] { entries.map(\.place.revision) }

  package mutating func append(_ record: JournalRecord) { entries.append(.decoded(record)) }

  /// Every record, decoded and checked; a stored one that does not decode (or is not the
  /// revision its place said) is damage.
  package func records() throws(DocumentError) -> [JournalRecord] {
    var records: [JournalRecord] = []
    records.reserveCapacity(entries.count)
    for entry in entries {
      switch entry {
      case .decoded(let record): records.append(record)
      case .stored(let place, let data):
        let record: JournalRecord
        do {
          record = try JournalCoding.decode(data)
        } catch DocumentError.unsupportedFormat(let version) {
          throw .unsupportedFormat(version)
        } catch {
          throw .corrupt(path, "the history's record of r\(place.revision) does not decode: \(error)")
        }
        guard record.place == place else { throw .corrupt(path, "the history's record of r\(place.revision) is not that") }
        records.append(record)
      }
    }
    return records
  }

  /// Every item id the history names, a record kept as bytes read without decoding it
  /// whole (a superset of its change's ids): the ids a new item may not take.
  package var itemIDs: Set<String> {
    entries.reduce(into: Set<String>()) { ids, entry in
      switch entry {
      case .decoded(let record): ids.formUnion(record.change.keys)
      case .stored(_, let data): ids.formUnion(JournalCoding.namedIDs(data))
      }
    }
  }

  /// The records that decode: all of them unless the history is damaged (`records()` says
  /// where). For counting what the history keeps alive, where a damaged record keeps nothing.
  package var readableRecords: [JournalRecord] {
    entries.compactMap { entry in
      switch entry {
      case .decoded(let record): record
      case .stored(let place, let data): (try? JournalCoding.decode(data)).flatMap { $0.place == place ? $0 : nil }
      }
    }
  }
}
