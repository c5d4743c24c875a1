import Foundation
import GalleryImaging
import GalleryModel
import GallerySystem

#if canImport(Glibc)
  import Glibc
#endif

/// A `.gallery` document as last saved: its model and access to its thumbnails and cover.
///
/// Opening takes no lock: it reads the last complete revision, whatever writers are doing.
/// Edits go through `GalleryDocument.edit(_:_:)`, which locks, re-reads, applies and saves.
public final class GalleryDocument {
  public let path: String
  package let file: FileHandleFD
  package let layout: ArchiveLayout

  /// The model, every item read (a document opened by `open`).
  public var model: GalleryModel { layout.model }

  /// The model without its items (its title, settings, revision, trash): what a document
  /// opened lazily tells without reading an item.
  package var modelWithoutItems: GalleryModel {
    var model = layout.head
    model.trash = layout.working.trash.elements
    return model
  }

  /// How many items the document holds (nothing read).
  package var itemCount: Int { layout.working.items.count }
  /// The 0-based index of each of `ids` that the document holds (nothing read).
  package func positions(of ids: [String]) -> [String: Int] { layout.working.positions(of: ids) }

  /// The item at `index` (0-based), read if the document was opened lazily.
  package func item(at index: Int) throws -> Item {
    do { return try layout.working.items.element(at: index, reading: layout.read) } catch {
      throw layout.itemSource?.failure.map { DocumentError.damaged(path, $0) } ?? error
    }
  }

  package init(path: String, file: FileHandleFD, layout: ArchiveLayout) {
    self.path = path
    self.file = file
    self.layout = layout
  }

  /// Opens the document read-only: through its trailer and index when it has them, or, with
  /// `scanningWhole` (for `gallery check`), by reading every header, so that damage anywhere
  /// is found.
  public static func open(_ path: String, scanningWhole: Bool = false) throws(DocumentError) -> GalleryDocument {
    let file = try openRegularFile(path, flags: O_RDONLY)
    let layout = scanningWhole ? try DocumentArchive.scan(file) : try LayoutCache.layout(of: file)
    return GalleryDocument(path: path, file: file, layout: layout)
  }

  /// Opens the document as an edit does: its items are read when first needed (see
  /// ItemSource.swift), so that a look at its first items costs what they cost. An item
  /// that cannot be read stands in as a failed one: for guesses only, never for output.
  package static func openLazily(_ path: String) throws(DocumentError) -> GalleryDocument {
    let file = try openRegularFile(path, flags: O_RDONLY)
    return GalleryDocument(path: path, file: file, layout: try LayoutCache.layout(of: file, lazily: true))
  }

  /// The items of the document at `path` that `query` matches, with their 1-based
  /// positions. Opened as an edit opens it: an item still in the checkpoint is decoded only
  /// when its stored JSON may match, so a search costs what it finds, not every item. An
  /// item it decodes is checked as any read is, and one that breaks a rule is damage.
  public static func find(_ query: ItemQuery, in path: String) throws -> [(position: Int, item: Item)] {
    try find(query, in: try openLazily(path))
  }

  /// `find` in a document opened lazily (`openLazily`), whose title and counts are wanted too.
  package static func find(_ query: ItemQuery, in document: GalleryDocument) throws -> [(position: Int, item: Item)] {
    let path = document.path
    guard let source = document.layout.itemSource else {
      return document.model.items.enumerated().filter { query.matches($0.element) }.map { ($0.offset + 1, $0.element) }
    }
    let found: [(position: Int, item: Item)]
    do { found = try source.matches(of: query, among: document.layout.working.items) } catch {
      throw DocumentError.corrupt(path, "\(error)")
    }
    // An item the replay of the journal read, and could not: the document is damaged.
    if let failure = source.failure { throw DocumentError.corrupt(path, failure) }
    return found
  }

  /// The settings that loading images into the document at `path` needs: from the
  /// trailer's summary when it says them (a few kilobytes read), so that a drop loads its
  /// images while the document is opened for its first save; else from the document,
  /// opened as an edit opens it. The history settings are not among them: theirs are the
  /// defaults.
  package static func loadingSettings(_ path: String) throws(DocumentError) -> GalleryModel.Settings {
    let file = try openRegularFile(path, flags: O_RDONLY)
    guard let summary = try? DocumentArchive.trailer(of: file).summary, let keepFailed = summary.keepFailed,
      let embedOriginals = summary.embedOriginals
    else { return try LayoutCache.layout(of: file, lazily: true).head.settings }
    var settings = GalleryModel.Settings()
    settings.thumbnailSize = summary.thumbnailSize
    settings.maxPixels = summary.maxPixels
    settings.keepFailed = keepFailed
    settings.embedOriginals = embedOriginals
    return settings
  }

  /// What `gallery info` and `gallery browse` show of a document: from the trailer at the end
  /// of the file when it ends with one (a few kilobytes read, however large the document),
  /// from the whole document otherwise. `statistics` go with it.
  public static func summary(_ path: String) throws(DocumentError) -> (summary: DocumentSummary, statistics: DocumentStatistics) {
    let file = try openRegularFile(path, flags: O_RDONLY)
    let fileSize = Int64((try? file.status())?.st_size ?? 0)
    let mimetype = EntryLocation(offset: 0, span: 1024, size: Int64(GalleryModel.mediaType.utf8.count))
    if let trailer = try? DocumentArchive.trailer(of: file),
      (try? DocumentArchive.read(mimetype, named: DocumentArchive.mimetypeEntry, from: file))
        == Data(GalleryModel.mediaType.utf8)
    {
      // A trailer is only believed when nothing follows it: no torn tail.
      return (trailer.summary, DocumentStatistics(trailer.summary, fileBytes: fileSize, tornBytes: 0))
    }
    let layout = try LayoutCache.layout(of: file)
    let summary = DocumentSummary(layout)
    return (summary, DocumentStatistics(summary, fileBytes: layout.fileSize, tornBytes: layout.tornBytes))
  }

  /// Opens a document file without blocking on a FIFO or a device, and refuses anything
  /// that is not a regular file before reading a byte of it.
  package static func openRegularFile(_ path: String, flags: Int32) throws(DocumentError) -> FileHandleFD {
    let opened: (file: FileHandleFD, type: mode_t)
    do { opened = try FileSystem.openWithoutBlocking(path, flags: flags) } catch {
      switch error.code {
      case .ENOENT: throw .notFound(path)
      case .EISDIR: throw .notAGallery(path, "it is a directory")
      case .ENXIO: throw .notAGallery(path, "not a regular file")
      default: throw .io(error)
      }
    }
    guard opened.type == S_IFREG else {
      throw .notAGallery(path, opened.type == S_IFDIR ? "it is a directory" : "not a regular file")
    }
    return opened.file
  }

  /// Creates an empty document; never overwrites an existing file.
  @discardableResult
  public static func create(
    _ path: String, title: String? = nil, settings: GalleryModel.Settings = .init()
  ) throws -> GalleryDocument {
    var model = GalleryModel(title: title ?? DocumentName.title(forPath: path))
    model.settings = settings
    let cover = try CoverMaker.cover(from: [])
    try DocumentArchive.writeComplete(
      to: path, model: model,
      entries: { writer in
        try writer.write(name: DocumentArchive.coverEntry, data: cover, modified: model.modified)
      }, replacing: false)
    return try open(path)
  }

  /// The thumbnail bytes of an item (ready items only).
  public func thumbnail(of item: Item) throws -> Data { try thumbnail(of: item, through: file) }

  /// `thumbnail(of:)`, read through another descriptor of the document's file (reads move
  /// a descriptor's offset: two threads read through two).
  package func thumbnail(of item: Item, through file: FileHandleFD) throws -> Data {
    guard let name = item.thumbnail, let location = layout.entries[name] else {
      throw DocumentError.corrupt(path, "item \(item.id) has no thumbnail entry")
    }
    return try DocumentArchive.read(location, named: name, from: file)
  }

  /// The embedded original bytes of an item, or nil when it has none.
  public func original(of item: Item) throws -> Data? {
    guard let name = item.original else { return nil }
    guard let location = layout.entries[name] else {
      throw DocumentError.corrupt(path, "item \(item.id) has no original entry \(name)")
    }
    return try DocumentArchive.read(location, named: name, from: file)
  }

  /// The cover at `size` pixels square, encoded by `suffix` (".png", ".jpg", ".webp"), made
  /// from the first ready items: their thumbnails, or for a tile larger than a thumbnail
  /// (a file manager's large icons ask 512 or 1024) a rendition of the original when it can
  /// be read (embedded, or its unchanged local file), so that no tile is enlarged.
  public func cover(size: Int, suffix: String) throws -> Data {
    let tileSize = max(1, size / CoverMaker.tilesAcross)
    let tiles = try GalleryDocument.coverThumbnailNames(WorkingModel(model)).map { name in
      guard let location = layout.entries[name] else { throw DocumentError.corrupt(path, "missing thumbnail entry \(name)") }
      let thumbnail = try DocumentArchive.read(location, named: name, from: file)
      guard let item = model.items.first(where: { $0.thumbnail == name }), let width = item.width,
        let height = item.height, tileSize > Self.thumbnailShortEdge(width: width, height: height, model.settings)
      else { return thumbnail }
      return Self.rendition(of: item, in: self, shortEdge: tileSize, width: width, height: height) ?? thumbnail
    }
    return try CoverMaker.mosaic(from: tiles, tileSize: tileSize, suffix: suffix)
  }

  /// The short edge of an image's thumbnail (the long edge is the document's thumbnail size).
  static func thumbnailShortEdge(width: Int, height: Int, _ settings: GalleryModel.Settings) -> Int {
    let (short, long) = (min(width, height), max(1, width, height))
    return Int((Double(short) * min(1, Double(settings.thumbnailSize) / Double(long))).rounded())
  }

  /// The item's original at `shortEdge` on its short side (at most 4096 on the long one),
  /// decoded as a dropped image is; nil when it cannot be read.
  static func rendition(of item: Item, in document: GalleryDocument, shortEdge: Int, width: Int, height: Int) -> Data? {
    guard let original = ItemOriginal.read(item, in: document) else { return nil }
    let (short, long) = (max(1, min(width, height)), max(1, width, height))
    let size = min(4096, Int((Double(long) * Double(shortEdge) / Double(short)).rounded()))
    let options = ImageOptions(thumbnailSize: size, maxPixels: document.model.settings.maxPixels)
    return try? ImageProcessor.process(original, options: options).thumbnail.data
  }

  /// The cover picture (JPEG).
  public func cover() throws -> Data {
    guard let location = layout.entries[DocumentArchive.coverEntry] else {
      throw DocumentError.corrupt(path, "no cover entry")
    }
    return try DocumentArchive.read(location, named: DocumentArchive.coverEntry, from: file)
  }

  public var statistics: DocumentStatistics {
    DocumentStatistics(DocumentSummary(layout), fileBytes: layout.fileSize, tornBytes: layout.tornBytes)
  }

  /// Names of every entry in the last complete revision.
  public var entryNames: Set<String> { Set(layout.entries.names) }

  /// Why the last save looks interrupted, if it does (the document still opens).
  public var interruptedSave: String? { layout.tornReason }

  /// The damage the document shows before its last revision, if any: it is then shown as
  /// far as it could be read, and edits refuse it until `gallery check --fix` rescues it.
  public var damage: String? { layout.damage }

  /// Every rule a damaged revision's model broke (for `gallery check`).
  public var damageProblems: [String] { layout.damageProblems }
}

/// Sizes and counts that `gallery info` reports.
public struct DocumentStatistics: Sendable, Encodable {
  public var fileBytes: Int64
  public var liveBytes: Int64
  public var deadBytes: Int64
  public var revisions: Int
  public var tornBytes: Int64
  public var entryCount: Int
  /// Journal records kept (the history), and the oldest revision they can rebuild.
  public var historyRevisions: Int
  public var oldestRevision: Int
  /// The revision of the last checkpoint (`gallery.json`); later ones are replayed.
  public var checkpointRevision: Int
}

extension DocumentStatistics {
  /// A summary's sizes and counts, with what only the file itself tells.
  init(_ summary: DocumentSummary, fileBytes: Int64, tornBytes: Int64) {
    self.fileBytes = fileBytes
    liveBytes = summary.liveBytes
    deadBytes = max(0, summary.revisionEnd - summary.liveBytes)
    revisions = summary.revisions
    self.tornBytes = tornBytes
    entryCount = summary.entryCount
    historyRevisions = summary.historyRevisions
    oldestRevision = summary.oldestRevision
    checkpointRevision = summary.checkpointRevision
  }
}

/// Document file names and titles.
public enum DocumentName {
  public static let fileExtension = "gallery"

  /// "Trips/Summer 2026.gallery" -> "Summer 2026". A name's bytes that are not UTF-8 are
  /// read as Latin-1, the likeliest guess for a title ("gal\xE9rie" -> "galérie").
  public static func title(forPath path: String) -> String {
    let base = PathBytes.latin1Text((path as NSString).lastPathComponent)
    return base.hasSuffix(".\(fileExtension)") ? String(base.dropLast(fileExtension.count + 1)) : base
  }
}
