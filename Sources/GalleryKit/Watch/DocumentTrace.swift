import Foundation
import GalleryDocument
import GalleryModel
import GallerySystem

/// What a drop folder's watcher last knew of its document and its folder: the document's
/// file (device and inode) and a revision it held, the folder's device and inode. A watcher
/// that starts and finds nothing under the document's name (renamed in a file manager while
/// no watcher ran) looks beside it for the document whose history holds that revision, and
/// drops into it there; one that finds no folder looks beside it for the folder itself.
/// Otherwise it would stop with "no such gallery document" or "not a folder", and its unit
/// would not start it again.
///
/// Kept as one line of JSON under `$XDG_STATE_HOME/gallery/watch/`, beside the import
/// memory of the same folder and document.
struct DocumentTrace: Codable, Equatable, Sendable {
  var device: UInt64
  var inode: UInt64
  var revision: Int
  var revisionID: String
  var folderDevice: UInt64?
  var folderInode: UInt64?

  /// The most documents beside the missing one that are opened to find it: a folder of
  /// many galleries is not read whole at every start.
  static let candidateLimit = 64

  /// The trace of the pair's document and folder as they are now, or nil when the document
  /// has no revision identity (a format-1 document) or cannot be opened.
  static func current(of pair: DropFolder) -> DocumentTrace? {
    guard let head = try? GalleryDocument.openLazily(pair.document).modelWithoutItems else { return nil }
    return DocumentTrace(pair, head: head)
  }

  /// The trace of the pair, whose document (as just opened) has the head `head`.
  init?(_ pair: DropFolder, head: GalleryModel) {
    guard let status = FileSystem.status(of: pair.document), let id = head.revisionID else { return nil }
    self.init(device: UInt64(status.st_dev), inode: UInt64(status.st_ino), revision: head.revision, revisionID: id)
    if let folder = FileSystem.status(of: pair.folder) {
      folderDevice = UInt64(folder.st_dev)
      folderInode = UInt64(folder.st_ino)
    }
  }

  init(device: UInt64, inode: UInt64, revision: Int, revisionID: String) {
    self.device = device
    self.inode = inode
    self.revision = revision
    self.revisionID = revisionID
  }

  static func file(for pair: DropFolder, stateFolder: String?) -> String {
    ImportMemory.stateFile(for: pair, stateFolder: stateFolder, extension: "trace")
  }

  static func load(for pair: DropFolder, stateFolder: String?) -> DocumentTrace? {
    guard let data = try? FileSystem.read(file(for: pair, stateFolder: stateFolder), limit: 4096) else { return nil }
    return try? JSONDecoder().decode(DocumentTrace.self, from: data)
  }

  /// Best effort: without it a renamed document is not found again, nothing else changes.
  /// A folder not there now (moved while the watcher stopped) keeps the identity traced
  /// before.
  func save(for pair: DropFolder, stateFolder: String?) {
    let path = Self.file(for: pair, stateFolder: stateFolder)
    var trace = self
    if trace.folderInode == nil, let before = Self.load(for: pair, stateFolder: stateFolder) {
      (trace.folderDevice, trace.folderInode) = (before.folderDevice, before.folderInode)
    }
    guard let data = try? JSONEncoder.sorted().encode(trace) else { return }
    try? FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try? FileSystem.writeAtomically(data + [0x0A], to: path, mode: 0o600)
  }

  /// Whether a document with this head and history continues the traced one: it holds the
  /// traced revision (a copy of the document holds it too; see `choose`).
  func isContinued(head: GalleryModel, history: [JournalRecord.Place]) -> Bool {
    head.revisionID == revisionID
      || (revision < head.revision && history.contains { $0.revision == revision && $0.id == revisionID })
  }

  /// What the search for a missing document found.
  enum Found: Equatable, Sendable {
    case renamed(String)
    case nowhere
    /// Several documents continue it (copies of it): which one is not guessed.
    case several([String])
  }

  /// Of the documents that continue the traced one, the one that is the traced file (a
  /// rename keeps the inode; a copy does not), else the only one.
  static func choose(_ continuing: [(path: String, sameFile: Bool)]) -> Found {
    let same = continuing.filter(\.sameFile)
    if same.count == 1 { return .renamed(same[0].path) }
    if continuing.count == 1 { return .renamed(continuing[0].path) }
    return continuing.isEmpty ? .nowhere : .several(continuing.map(\.path).sorted())
  }

  /// The traced folder under another name beside `missing`, its name before (a rename
  /// keeps the folder's inode), or nil.
  func folder(beside missing: String) -> String? {
    guard let folderDevice, let folderInode else { return nil }
    let parent = (missing as NSString).deletingLastPathComponent
    let names = (try? FileSystem.entries(of: parent.isEmpty ? "/" : parent)) ?? []
    for name in names {
      let path = (parent == "/" ? "" : parent) + "/" + name
      guard path != missing, let status = FileSystem.linkStatus(of: path), status.st_mode & S_IFMT == S_IFDIR,
        UInt64(status.st_dev) == folderDevice, UInt64(status.st_ino) == folderInode
      else { continue }
      return path
    }
    return nil
  }

  /// Looks for the traced document beside `missing`, its name before: the `*.gallery`
  /// files of that folder that continue it, the traced file first, then the newest. A sync
  /// tool's conflict copy is not a rename: it is merged, not dropped into.
  func find(beside missing: String) -> Found {
    let folder = (missing as NSString).deletingLastPathComponent
    let names = (try? FileSystem.entries(of: folder.isEmpty ? "." : folder)) ?? []
    let candidates: [(path: String, status: stat)] = names.compactMap { name in
      guard name.hasSuffix("." + DocumentName.fileExtension), !name.hasPrefix(".") else { return nil }
      let path = folder.isEmpty ? name : folder + "/" + name
      guard path != missing, DocumentConflict.original(ofCopy: path) == nil,
        let status = FileSystem.linkStatus(of: path), status.st_mode & S_IFMT == S_IFREG
      else { return nil }
      return (path, status)
    }
    func isTraced(_ status: stat) -> Bool { UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode }
    let ordered = candidates.sorted { first, second in
      if isTraced(first.status) != isTraced(second.status) { return isTraced(first.status) }
      return first.status.st_mtim.tv_sec > second.status.st_mtim.tv_sec
    }
    var continuing: [(path: String, sameFile: Bool)] = []
    for candidate in ordered.prefix(Self.candidateLimit) {
      guard let document = try? GalleryDocument.openLazily(candidate.path),
        isContinued(head: document.modelWithoutItems, history: document.layout.history.entries.map(\.place))
      else { continue }
      continuing.append((candidate.path, isTraced(candidate.status)))
      // The traced file itself: no copy can be a better answer.
      if isTraced(candidate.status) { break }
    }
    return Self.choose(continuing)
  }
}
