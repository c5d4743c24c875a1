import Foundation
import GalleryDocument
import GalleryModel
import GallerySystem
import Logging

/// A gallery document, for programs: what the `gallery` command does to one, as async calls.
///
/// A `Gallery` is only a path. Each call opens the file as it is then (other processes,
/// a drop folder's watcher or the browser view, may have saved since the last call) and
/// every edit is one revision, saved under the document's lock and fsynced before the call
/// returns. What blocks a thread (a lock waited for, an fsync, the read of a large document)
/// runs on ``BlockingWork``'s threads, never on the caller's.
///
/// ```swift
/// let gallery = try await Gallery.create(at: "Trip.gallery")
/// let report = try await gallery.drop(files: ["/photos/a.jpg", "/photos/b.png"])
/// for item in try await gallery.items() { print(item.id, item.source) }
/// try await gallery.undo()
/// ```
public struct Gallery: Sendable, Hashable {
  /// The document's file.
  public let path: String

  /// The document at `path`; nothing is read until a call needs it.
  public init(path: String) { self.path = path }

  /// Creates an empty document; never overwrites an existing file
  /// (``DocumentError/exists(_:)``).
  public static func create(
    at path: String, title: String? = nil, settings: GalleryModel.Settings = .init()
  ) async throws -> Gallery {
    try await BlockingWork.run { _ = try GalleryDocument.create(path, title: title, settings: settings) }
    return Gallery(path: path)
  }

  // MARK: Reading

  /// The document as last saved: its items in order, its trash, its title and settings.
  public func model() async throws -> GalleryModel {
    let path = path
    return try await BlockingWork.run { try GalleryDocument.open(path).model }
  }

  /// The items, in order.
  public func items() async throws -> [Item] { try await model().items }

  /// The thumbnail of a ready item (JPEG, or PNG where the image has transparency).
  public func thumbnail(of id: String) async throws -> Data {
    let path = path
    return try await BlockingWork.run {
      let document = try GalleryDocument.open(path)
      guard let item = document.model.items.first(where: { $0.id == id }) else {
        throw DocumentError.itemNotFound("with id \(id)")
      }
      return try document.thumbnail(of: item)
    }
  }

  // MARK: Editing

  /// Locks the document, reads its last revision, lets `body` change it and saves what
  /// changed as one revision, which undo takes back whole. Nothing is saved when `body`
  /// throws or changes nothing.
  @discardableResult
  public func edit<T: Sendable>(_ body: @escaping @Sendable (inout DocumentEdit) throws -> T) async throws -> T {
    let path = path
    return try await BlockingWork.run { try GalleryDocument.edit(path, body) }
  }

  /// Moves the items with these ids, in this order, to a 1-based position.
  public func move(_ ids: [String], to position: Int) async throws {
    try await edit { $0.move(ids, to: position) }
  }

  /// Puts the items with these ids in the trash; ``restore(_:)`` puts them back.
  public func trash(_ ids: [String]) async throws {
    try await edit { try $0.trash(ids) }
  }

  /// Puts trashed items back where they were.
  public func restore(_ ids: [String]) async throws {
    try await edit { $0.restore(ids) }
  }

  /// Gives the document a new title.
  public func setTitle(_ title: String) async throws {
    try await edit { $0.title = title }
  }

  /// Writes what a person says of items (a caption, a note, stars, a label, tags) as one
  /// edit, as `gallery tag`, `caption`, `note`, `rate` and `label` do. Returns the ids of
  /// those present.
  @discardableResult
  public func describe(_ ids: [String], _ change: MetadataEdit) async throws -> [String] {
    try await edit { try $0.describe(ids, change) }
  }

  /// Adds a note card holding `text` at a 1-based position (nil: the end).
  @discardableResult
  public func addNote(_ text: String, at position: Int? = nil) async throws -> Item {
    try await edit { try $0.addNote(text, at: position) }
  }

  /// The items a query (`gallery find`'s language) matches, with their 1-based positions.
  public func find(_ query: ItemQuery) async throws -> [(position: Int, item: Item)] {
    let path = path
    return try await BlockingWork.run { try GalleryDocument.find(query, in: path) }
  }

  // MARK: Dropping images

  /// Drops images the way the classic app did: a placeholder for each at once (or the image
  /// itself, when it loaded while the document was being opened), then each image
  /// committed where its placeholder stands when it has loaded. Sources that cannot
  /// be used are in the report's `failures`; cancelling the calling task stops the loads,
  /// saves what loaded and removes the other placeholders.
  public func drop(
    _ sources: [DropSource], options: DropOptions = .init(),
    progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }
  ) async throws -> DropReport {
    try await ImageDrop.drop(sources, into: path, options: options, progress: progress)
  }

  /// Drops local image files, or the images below folders (`recursive`), by path.
  public func drop(files paths: [String], recursive: Bool = false, options: DropOptions = .init()) async throws -> DropReport {
    let parsed = DropSourceParser.parse(paths, recursive: recursive, readStandardInput: { Data() })
    var report = parsed.sources.isEmpty ? DropReport() : try await drop(parsed.sources, options: options)
    report.failures = parsed.failures + report.failures
    return report
  }

  /// Loads again the given failed or stale items, or every one when `ids` is nil.
  public func retry(_ ids: [String]? = nil, options: DropOptions = .init()) async throws -> DropReport {
    try await ImageRetry.retry(ids, in: path, options: options)
  }

  // MARK: History

  /// Takes back the last operation (a drop whole, a move, a trash...), as a new revision.
  @discardableResult
  public func undo() async throws -> DocumentHistory.Outcome {
    let path = path
    return try await BlockingWork.run { try DocumentHistory.undo(path) }
  }

  /// Brings back the last operation undone.
  @discardableResult
  public func redo() async throws -> DocumentHistory.Outcome {
    let path = path
    return try await BlockingWork.run { try DocumentHistory.redo(path) }
  }

  /// Makes the document as it was at `revision`, as a new revision.
  @discardableResult
  public func revert(to revision: Int) async throws -> DocumentHistory.Outcome {
    let path = path
    return try await BlockingWork.run { try DocumentHistory.revert(path, to: revision) }
  }

  /// The history the document keeps, oldest first: each revision's time and summary.
  public func history() async throws -> [JournalRecord] {
    let path = path
    // The records are read where the index locates them; the items are not needed.
    return try await BlockingWork.run { try GalleryDocument.openLazily(path).history() }
  }

  // MARK: Drop folders

  /// A watcher that drops the images that arrive in `folder` into this document. Run it
  /// as a service of a `ServiceGroup` (which stops it gracefully on SIGTERM or when
  /// asked), or with `options.once` to import what is there and return. A save the disk
  /// has no room for waits for room (a `.waiting` event) unless `options.once`; a document
  /// renamed while no watcher ran is found again beside its old name by its history, and a
  /// folder renamed within its parent by its inode (also while the watcher runs).
  public func watcher(
    of folder: String, options: WatchOptions = .init(), logger: Logger = Logger(label: "gallery.watch"),
    onEvent: @escaping @Sendable (WatchEvent) -> Void = { _ in }
  ) throws -> DropFolderWatcher {
    try DropFolderWatcher(
      pairs: [DropFolder(folder: folder, document: path)], options: options, logger: logger, onEvent: onEvent)
  }
}
