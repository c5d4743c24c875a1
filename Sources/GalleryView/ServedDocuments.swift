import Foundation
import GalleryDocument
import GalleryModel
import GallerySystem
import Synchronization

/// The documents the view may show, each under an id the server made up: a page names a
/// document only by such an id, never by a path (a path from a request would let a page
/// read any file). Served folders' documents, the documents `open` asked for and the recent
/// documents get ids as they are listed.
///
/// It also keeps each document open while its file is unchanged (same size and time), so
/// that thumbnails are served without reading the archive's index again.
package final class ServedDocuments: Sendable {
  private struct State {
    var pathByID: [String: String] = [:]
    var idByPath: [String: String] = [:]
    /// Folders given to `serve`: their documents are listed, new ones as they appear.
    var folders: [String] = []
    /// Documents given to `serve` or `open`, in order.
    var opened: [String] = []
    /// Documents a page moved to the Trash, by the token that puts each back: the path of
    /// its file in the Trash. A page never names that path either.
    var trashed: [String: String] = [:]
  }

  private let state = Mutex(State())
  private let open = Mutex<[String: OpenDocument]>([:])
  /// Tells the change monitor that the set of folders to watch grew.
  package let foldersChanged: AsyncStream<Void>
  private let foldersContinuation: AsyncStream<Void>.Continuation

  package init() {
    (foldersChanged, foldersContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
  }

  package static func absolute(_ path: String) -> String {
    XDGDirectory.standardized(path)
  }

  /// Serves a folder's documents.
  package func serveFolder(_ path: String) {
    let folder = Self.absolute(path)
    let added = state.withLock { state in
      guard !state.folders.contains(folder) else { return false }
      state.folders.append(folder)
      return true
    }
    if added { foldersContinuation.yield() }
  }

  /// Remembers a document moved to the Trash (its file there); the token that puts it back.
  package func noteTrashed(_ trashedPath: String) -> String {
    let token = Self.newID()
    state.withLock { state in
      // The last few only: an undo is offered for a moment.
      if state.trashed.count >= 64, let any = state.trashed.keys.first { state.trashed[any] = nil }
      state.trashed[token] = trashedPath
    }
    return token
  }

  /// The file in the Trash a token puts back, taken (once).
  package func takeTrashed(_ token: String) -> String? {
    state.withLock { $0.trashed.removeValue(forKey: token) }
  }

  /// Serves a document and returns its id.
  @discardableResult
  package func serveDocument(_ path: String) -> String {
    let absolute = Self.absolute(path)
    let id = id(for: absolute)
    state.withLock { state in
      if !state.opened.contains(absolute) { state.opened.append(absolute) }
    }
    return id
  }

  /// The id of a document (made when it has none).
  package func id(for absolute: String) -> String {
    let (id, isNew) = state.withLock { state -> (String, Bool) in
      if let id = state.idByPath[absolute] { return (id, false) }
      var id = Self.newID()
      while state.pathByID[id] != nil { id = Self.newID() }
      state.idByPath[absolute] = id
      state.pathByID[id] = absolute
      return (id, true)
    }
    if isNew { foldersContinuation.yield() }
    return id
  }

  /// The path of a document this server shows. One renamed or moved since (a file manager,
  /// `gallery rename`) is followed through the descriptor its last read holds: the id then
  /// names the file under its new name, so that an open page goes on showing and editing it.
  package func path(for id: String) -> String? {
    guard let path = state.withLock({ $0.pathByID[id] }) else { return nil }
    guard FileSystem.status(of: path) == nil, let renamed = open.withLock({ $0[path] })?.currentPath() else {
      return path
    }
    return follow(id, from: path, to: Self.absolute(renamed))
  }

  /// Every id of `path` names `renamed` from now on, `id` its id.
  private func follow(_ id: String, from path: String, to renamed: String) -> String {
    let followed = state.withLock { state -> String in
      guard state.pathByID[id] == path else { return state.pathByID[id] ?? renamed }
      for (other, named) in state.pathByID where named == path { state.pathByID[other] = renamed }
      state.idByPath[path] = nil
      state.idByPath[renamed] = id
      state.opened = state.opened.map { $0 == path ? renamed : $0 }
      return renamed
    }
    open.withLock { documents in
      if let opened = documents.removeValue(forKey: path) { documents[renamed] = opened }
    }
    // It may be in a folder not watched yet.
    foldersContinuation.yield()
    return followed
  }

  package func forget(_ id: String) {
    state.withLock { state in
      guard let path = state.pathByID.removeValue(forKey: id) else { return }
      state.idByPath[path] = nil
      state.opened.removeAll { $0 == path }
    }
  }

  /// The folders whose changes the pages must see: those served, and those that hold a
  /// document with an id.
  package var watchedFolders: [String] {
    state.withLock { state in
      var folders = state.folders
      for path in state.idByPath.keys.sorted() {
        let folder = (path as NSString).deletingLastPathComponent
        if !folders.contains(folder) { folders.append(folder) }
      }
      return folders.filter { FileSystem.isDirectory($0) }
    }
  }

  package var servedFolders: [String] { state.withLock { $0.folders } }

  /// Whether a change of `path` changes the list of documents (a document appears or goes
  /// in a served folder).
  package func isListed(folder: String) -> Bool {
    let folder = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
    return state.withLock { $0.folders.contains(folder) }
  }

  package func knownID(of absolute: String) -> String? { state.withLock { $0.idByPath[absolute] } }

  /// The documents that have ids.
  package var knownPaths: [String] { state.withLock { Array($0.idByPath.keys) } }

  /// Every document to list: those opened, those in the served folders, the recent ones;
  /// each once, by path.
  package func listedPaths() -> [String] {
    let (folders, opened) = state.withLock { ($0.folders, $0.opened) }
    var paths: [String] = []
    var seen = Set<String>()
    func add(_ path: String) {
      if seen.insert(path).inserted { paths.append(path) }
    }
    opened.forEach(add)
    for folder in folders { ((try? DocumentFiles.documents(in: folder)) ?? []).forEach(add) }
    RecentDocuments.list().map(Self.absolute).forEach(add)
    return paths.filter { FileSystem.status(of: $0) != nil }
  }

  private static func newID() -> String {
    String((0..<12).map { _ in ItemAlphabet.characters.randomElement()! })
  }

  private enum ItemAlphabet {
    static let characters = Array("abcdefghjkmnpqrstuvwxyz23456789")
  }

  // MARK: - Open documents

  /// One document kept open while its file is unchanged. `@unchecked Sendable`: the
  /// document (a class that reads by seeking its one file descriptor) is touched only
  /// inside `reading`, under `lock`.
  private final class OpenDocument: @unchecked Sendable {
    let stamp: FileStamp
    let model: GalleryModel
    private let document: GalleryDocument
    private let lock = Mutex(())

    init(stamp: FileStamp, document: GalleryDocument) {
      self.stamp = stamp
      self.model = document.model
      self.document = document
    }

    func reading<T>(_ body: (GalleryDocument) throws -> T) rethrows -> T {
      try lock.withLock { _ in try body(document) }
    }

    /// The name of the file it read, now (see `FileHandleFD.currentPath`).
    func currentPath() -> String? { lock.withLock { _ in document.file.currentPath() } }
  }

  private func current(_ path: String) throws -> OpenDocument {
    let stamp = FileSystem.stamp(of: path)
    if let stamp, let cached = open.withLock({ $0[path] }), cached.stamp == stamp { return cached }
    let document = try GalleryDocument.open(path)
    let opened = OpenDocument(stamp: stamp ?? FileStamp(size: -1, modified: 0), document: document)
    // Kept only when the file did not change while it was read: what a read that raced a
    // save holds is not known to be the file's state under either stamp.
    guard let stamp, FileSystem.stamp(of: path) == stamp else {
      open.withLock { _ = $0.removeValue(forKey: path) }
      return opened
    }
    open.withLock { documents in
      if documents.count > 64 { documents.removeAll() }
      documents[path] = opened
    }
    return opened
  }

  /// Which placeholders of an open document are pending (their loader runs) and which
  /// stale: this changes when a loader dies, with no change to the file.
  package func placeholderLiveness(of path: String) -> [Bool] {
    guard let model = open.withLock({ $0[path] })?.model else { return [] }
    return model.items.filter { $0.state == .placeholder }.map { $0.displayState == .pending }
  }

  /// The model as it is on disk now.
  package func model(of path: String) throws -> GalleryModel { try current(path).model }

  /// Reads from the document as it is on disk now (one reader at a time per document).
  package func reading<T>(_ path: String, _ body: (GalleryDocument) throws -> T) throws -> T {
    let opened = try current(path)
    return try opened.reading(body)
  }
}
