import Foundation
import GalleryModel
import GallerySystem

/// Conflict copies that sync tools make when a document was edited on two machines, and
/// their three-way merge through the history both copies share.
public enum DocumentConflict {
  /// The document a conflict copy was made from, by the name its tool gave it (in the same
  /// folder), or nil when the name is not a conflict copy's:
  /// Syncthing `NAME.sync-conflict-20261123-031500-ABCDEFG.gallery`, Dropbox
  /// `NAME (Ann's conflicted copy 2026-11-23).gallery`, Nextcloud `NAME (conflicted copy
  /// 2026-11-23 031500).gallery`, ownCloud `NAME_conflict-20261123-031500.gallery`.
  public static func original(ofCopy path: String) -> String? {
    let folder = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    let suffix = "." + DocumentName.fileExtension
    guard name.hasSuffix(suffix) else { return nil }
    let stem = String(name.dropLast(suffix.count))
    for pattern in patterns {
      guard let match = stem.wholeMatch(of: pattern), !match.output.1.isEmpty else { continue }
      let original = String(match.output.1) + suffix
      return folder.isEmpty ? original : (folder as NSString).appendingPathComponent(original)
    }
    return nil
  }

  /// Regex literals: checked when the program is compiled, never at run time (and made
  /// per call: `Regex` is not Sendable, so it cannot be a shared constant).
  private static var patterns: [Regex<(Substring, Substring)>] {
    [
      #/(.*)\.sync-conflict-[0-9]{8}-[0-9]{6}-[A-Z0-9]{7}/#,
      #/(.*) \([^()]*conflicted copy[^()]*\)/#,
      #/(.*)_conflict-[0-9]{8}-[0-9]{6}/#,
    ]
  }

  /// The conflict copies of `path` in its folder, by name.
  public static func copies(of path: String) -> [String] {
    copies(of: [path])[path] ?? []
  }

  /// The conflict copies of each of `paths`, keyed by those paths; each folder is listed once.
  public static func copies(of paths: [String]) -> [String: [String]] {
    var result: [String: [String]] = [:]
    let byFolder = Dictionary(grouping: paths) { ($0 as NSString).deletingLastPathComponent }
    for (folder, documents) in byFolder {
      let listing = (try? DocumentFiles.documents(in: folder.isEmpty ? "." : folder)) ?? []
      // Copies by the name of the document they were made from.
      let copies = Dictionary(grouping: listing.filter { original(ofCopy: $0) != nil }) {
        (original(ofCopy: $0)! as NSString).lastPathComponent
      }
      for path in documents {
        if let found = copies[(path as NSString).lastPathComponent] { result[path] = found }
      }
    }
    return result
  }

  /// What a merge did.
  public struct Report: Sendable, Encodable {
    /// The revision both copies share, in the document's numbering.
    public var base: Int
    /// Operations of the copy applied, and of the document kept.
    public var theirs: Int
    public var ours: Int
    /// Edits of one item (or the title) on both sides: the later one was kept.
    public var conflicts: [String]
    public var revision: Int?
    /// Where the copy went (the Trash).
    public var copyTrashedTo: String?

    private enum CodingKeys: String, CodingKey {
      case base, theirs, ours, conflicts, revision, copyTrashedTo, copyTrashedToURL
    }

    /// The path as JSON gives one (`PathBytes.forJSON`).
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(base, forKey: .base)
      try container.encode(theirs, forKey: .theirs)
      try container.encode(ours, forKey: .ours)
      try container.encode(conflicts, forKey: .conflicts)
      try container.encodeIfPresent(revision, forKey: .revision)
      try container.encodePath(copyTrashedTo, forKey: .copyTrashedTo, urlKey: .copyTrashedToURL)
    }
  }

  public enum Failure: Error, CustomStringConvertible, GalleryError {
    case unrelated(String, String)

    public var description: String {
      switch self {
      case .unrelated(let path, let copy):
        "\(copy) and \(path) share no revision in the history they keep: they are not copies of one document (`gallery merge --into` adds one's items to the other)"
      }
    }
  }

  /// Merges what `copy` changed since the last revision it shares with `path` into `path`
  /// as it is now, as one revision (see `ModelMerge`: both sides' drops are kept, a move on
  /// one side and a trash on the other both apply, an item changed the same way on both
  /// sides takes the later change). Then moves the copy to the Trash.
  public static func merge(_ copy: String, into path: String) throws -> Report {
    let theirs = try GalleryDocument.open(copy)
    if let damage = theirs.damage { throw DocumentError.damaged(copy, damage) }
    let report = try GalleryDocument.edit(path) { edit -> Report in
      // Found by the records' places (which the index gives), then only the records since
      // are read: a merge costs what the copies did apart, not their whole history.
      let theirHistory = theirs.layout.history
      var ourIDs: [String: Int] = [:]
      for place in edit.history.entries.map(\.place) { ourIDs[place.id] = place.revision }
      if let id = edit.revisionID { ourIDs[id] = edit.revision }
      // The newest revision of theirs that we have too.
      var shared: (ours: Int, theirs: Int)?
      if let id = theirs.model.revisionID, let revision = ourIDs[id] { shared = (revision, theirs.model.revision) }
      for place in theirHistory.entries.map(\.place).reversed() where shared == nil {
        if let revision = ourIDs[place.id] { shared = (revision, place.revision) }
      }
      guard let shared else { throw Failure.unrelated(path, copy) }
      let theirRecords = try theirHistory.records(Set(theirHistory.revisions.filter { $0 > shared.theirs }))
      let ourRecords = try edit.history.records(Set(edit.history.revisions.filter { $0 > shared.ours }))
      let merged = ModelMerge.merge(
        ours: try edit.wholeModel(), theirs: theirs.model, ourRecords: ourRecords, theirRecords: theirRecords)
      edit.replaceModel(merged.model)
      let report = Report(
        base: shared.ours, theirs: theirRecords.count, ours: ourRecords.count, conflicts: merged.conflicts)
      // The thumbnails and originals of what came from the copy (items its records name:
      // the others are ours, and not read).
      let named = theirRecords.reduce(into: Set<String>()) { $0.formUnion($1.change.keys) }
      for item in merged.model.items + merged.model.trash.map(\.item) where named.contains(item.id) {
        for name in [item.thumbnail, item.original].compactMap({ $0 }) where !edit.holds(name) {
          guard let location = theirs.layout.entries[name] else { continue }
          edit.addEntry(name, data: try DocumentArchive.read(location, named: name, from: theirs.file))
        }
      }
      edit.summary =
        "merge of conflict copy \((copy as NSString).lastPathComponent): "
        + JournalRecord.counted(theirRecords.count, "operation")
      return report
    }
    var result = report
    result.revision = try GalleryDocument.open(path).model.revision
    result.copyTrashedTo = try DocumentFiles.moveToTrash(copy)
    return result
  }
}
