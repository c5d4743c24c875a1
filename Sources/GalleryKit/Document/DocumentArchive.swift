import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Reads and writes the `.gallery` archive: a pax tar whose first entry is `mimetype`, and
/// whose later revisions are appended after the earlier ones (as `tar -r` would).
///
/// A revision is complete once its `gallery.json` is complete; everything after the last
/// complete one is an interrupted save, ignored when read and cut off by the next write.
enum DocumentArchive {
  static let mimetypeEntry = "mimetype"
  static let modelEntry = "gallery.json"
  static let coverEntry = "cover.jpg"
  static let thumbnailFolder = "thumbnails/"
  static let originalsFolder = "originals/"

  /// Limits that keep a hostile archive from making us allocate without bound.
  static let modelSizeLimit: Int64 = 512 << 20
  static let entrySizeLimit: Int64 = 1 << 30

  static let endOfArchiveMarkerSize: Int64 = 1024

  // MARK: - Reading

  /// Scans the whole file from its start and returns its last complete revision.
  static func scan(_ file: FileHandleFD) throws(DocumentError) -> ArchiveLayout {
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
      guard let first = try reader.next(), first.name == mimetypeEntry,
        try reader.readData(size: first.size, limit: 256) == Data(GalleryModel.mediaType.utf8)
      else { throw DocumentError.notAGallery(file.path, "its first entry is not the mimetype \(GalleryModel.mediaType)") }
    } catch let error as DocumentError {
      throw error
    } catch {
      throw .notAGallery(file.path, "not a tar archive (\(error))")
    }

    var committed: (model: GalleryModel, entries: [String: EntryLocation], end: Int64)?
    var revisions = 0
    var pending: [String: EntryLocation] = [:]
    var previous: (name: String, offset: Int64, size: Int64)? = (mimetypeEntry, 0, Int64(GalleryModel.mediaType.utf8.count))
    var candidate: GalleryModel?
    var tornReason: String?
    var modelProblem: String?

    while true {
      var entry: ArchiveReader.Entry?
      do { entry = try reader.next() } catch {
        tornReason = "\(error)"
        entry = nil
      }
      let position = reader.headerPosition
      if let previous {
        pending[previous.name] = EntryLocation(offset: previous.offset, span: position - previous.offset, size: previous.size)
      }
      previous = nil
      if let model = candidate {
        var entries: [String: EntryLocation]
        if var earlier = committed?.entries {
          earlier.merge(pending) { _, new in new }
          entries = earlier
        } else {
          entries = pending
        }
        pending = [:]
        committed = (model, entries, position)
        revisions += 1
        candidate = nil
      }
      guard let entry else { break }
      previous = (entry.name, position, entry.size)
      do {
        if entry.name == modelEntry {
          let data = try reader.readData(size: entry.size, limit: modelSizeLimit)
          do {
            candidate = try ModelCoding.decode(data)
          } catch DocumentError.unsupportedFormat(let version) {
            throw DocumentError.unsupportedFormat(version)
          } catch {
            modelProblem = "a gallery.json revision does not decode: \(error)"
          }
        } else {
          try reader.skipData()
        }
      } catch let error as DocumentError {
        throw error
      } catch {
        tornReason = "\(error)"
        break
      }
    }
    guard let committed else {
      throw .corrupt(file.path, modelProblem ?? tornReason ?? "it holds no complete gallery.json")
    }
    let tail = fileSize - committed.end
    let cleanTail = tornReason == nil && (tail == 0 || tail == endOfArchiveMarkerSize)
    return ArchiveLayout(
      model: committed.model, entries: committed.entries, revisionEnd: committed.end,
      fileSize: fileSize, revisions: revisions, tornBytes: cleanTail ? 0 : tail,
      tornReason: cleanTail ? nil : (tornReason ?? modelProblem ?? "trailing bytes after the last revision"))
  }

  /// Reads one entry's data where the layout says it is.
  static func read(_ location: EntryLocation, from file: FileHandleFD) throws -> Data {
    try file.seek(to: location.offset)
    let reader = try ArchiveReader(fileDescriptor: file.rawValue)
    guard let entry = try reader.next() else {
      throw ArchiveError(status: -30, message: "no entry at offset \(location.offset)", operation: "reading an entry")
    }
    return try reader.readData(size: entry.size, limit: entrySizeLimit)
  }

  // MARK: - Writing

  /// Appends a revision: new entries first, then the model that refers to them, then the
  /// end-of-archive marker; fsyncs before returning. The caller holds the document lock.
  static func append(
    _ entries: [(name: String, data: Data)], model: GalleryModel, to file: FileHandleFD,
    layout: ArchiveLayout
  ) throws -> ArchiveLayout {
    // Cut an interrupted save's tail (and the old end marker) first, so nothing stale ever
    // follows what we write.
    try file.truncate(to: layout.revisionEnd)
    try file.seek(to: layout.revisionEnd)
    let modelData = ModelCoding.encode(model)
    var result = layout
    let writer = try ArchiveWriter(fileDescriptor: file.rawValue)
    for (name, data) in entries + [(modelEntry, modelData)] {
      let start = file.offset
      try writer.write(name: name, data: data, modified: model.modified)
      result.entries[name] = EntryLocation(offset: start, span: file.offset - start, size: Int64(data.count))
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
  /// overwritten (link(2) fails instead).
  static func writeComplete(
    to path: String, model: GalleryModel, entries: (ArchiveWriter) throws -> Void, replacing: Bool
  ) throws {
    let directory = (path as NSString).deletingLastPathComponent
    let base = (path as NSString).lastPathComponent
    let temporary = (directory.isEmpty ? "" : directory + "/") + ".\(base).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    do {
      let file = try FileHandleFD(path: temporary, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
      let writer = try ArchiveWriter(fileDescriptor: file.rawValue)
      try writer.write(name: mimetypeEntry, data: Data(GalleryModel.mediaType.utf8), modified: model.modified)
      try entries(writer)
      try writer.write(name: modelEntry, data: ModelCoding.encode(model), modified: model.modified)
      try writer.close()
      try file.sync()
      if replacing {
        guard rename(temporary, path) == 0 else { throw FileSystemError(errno: errno, operation: "rename", path: path) }
      } else {
        guard link(temporary, path) == 0 else {
          let code = errno
          throw code == EEXIST ? DocumentError.exists(path) : FileSystemError(errno: code, operation: "link", path: path)
        }
        unlink(temporary)
      }
      syncDirectory(containing: path)
    } catch {
      unlink(temporary)
      throw error
    }
  }

  /// Removes temporary files left by a save that was killed (the caller holds the lock).
  static func removeStaleTemporaries(for path: String) {
    let directory = (path as NSString).deletingLastPathComponent
    let prefix = ".\((path as NSString).lastPathComponent).tmp-"
    let folder = directory.isEmpty ? "." : directory
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
    for name in names where name.hasPrefix(prefix) {
      // The pid in the name tells whether its writer may still be running.
      let pid = name.dropFirst(prefix.count).split(separator: "-").first.flatMap { Int32($0) }
      if let pid, pid != getpid(), kill(pid, 0) == 0 { continue }
      unlink(folder + "/" + name)
    }
  }
}

/// One JSON encoding for the model everywhere (see ModelJSON.swift).
public enum ModelCoding {
  public static func encode(_ model: GalleryModel) -> Data {
    let writer = JSONWriter(capacity: 512 + model.items.count * 400)
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
    return model
  }
}
