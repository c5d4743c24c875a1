import Foundation
import GalleryImaging
import GalleryModel
import GallerySystem

#if canImport(Glibc)
  import Glibc
#endif

/// The document browser's file operations: untitled names, copies, renames, the Trash.
public enum DocumentFiles {
  /// `Untitled.gallery`, `Untitled 2.gallery`, ... in `folder`: the first free name.
  public static func untitled(in folder: String) -> String {
    freeName(in: folder, stem: "Untitled")
  }

  /// The documents in a folder (not below it), hidden ones left out, in the order a file
  /// manager shows them. For `gallery browse` and the browser view's document list.
  public static func documents(in folder: String) throws -> [String] {
    try FileSystem.entries(of: folder)
      .filter { $0.hasSuffix("." + DocumentName.fileExtension) && !$0.hasPrefix(".") }
      .sorted { $0.localizedStandardCompare($1) == .orderedAscending }
      .map { (folder as NSString).appendingPathComponent($0) }
  }

  /// `NAME copy.gallery`, `NAME copy 2.gallery`, ... beside `path`.
  public static func copyName(of path: String) -> String {
    let folder = (path as NSString).deletingLastPathComponent
    return freeName(in: folder.isEmpty ? "." : folder, stem: DocumentName.title(forPath: path) + " copy")
  }

  package static func freeName(in folder: String, stem: String) -> String {
    let names = FileSystem.candidateNames(for: stem + "." + DocumentName.fileExtension, separator: " ", count: .max)
    for name in names where FileSystem.linkStatus(of: (folder as NSString).appendingPathComponent(name)) == nil {
      return (folder as NSString).appendingPathComponent(name)
    }
    fatalError("more than Int.max documents named \(stem)")
  }

  /// `NEW` as given, with `.gallery` added when it has no extension, beside `path` when it
  /// names no folder.
  public static func target(_ new: String, beside path: String) throws -> String {
    // The name must name a file: not empty, not "." or "..", not a folder.
    let base = (new as NSString).lastPathComponent
    let stem =
      base.hasSuffix("." + DocumentName.fileExtension) ? String(base.dropLast(DocumentName.fileExtension.count + 1)) : base
    guard !new.isEmpty, !new.hasSuffix("/"), !stem.isEmpty, stem != ".", stem != "..",
      !new.unicodeScalars.contains(where: ModelValidation.isControl)
    else {
      throw DocumentError.badName(new)
    }
    var target = new.hasSuffix("." + DocumentName.fileExtension) ? new : new + "." + DocumentName.fileExtension
    if !target.contains("/") {
      let folder = (path as NSString).deletingLastPathComponent
      if !folder.isEmpty { target = (folder as NSString).appendingPathComponent(target) }
    }
    return target
  }

  /// Copies a document (its live entries, no dead bytes or torn tail) under a new title;
  /// never overwrites.
  public static func duplicate(_ path: String, to target: String) throws {
    let source = try GalleryDocument.open(path)
    var model = source.model
    model.title = DocumentName.title(forPath: target)
    model.created = .nowInWholeSeconds
    model.modified = model.created
    model.revision = 0
    model.revisionID = nil  // a new document: a history of its own
    try DocumentCompaction.writeLive(source.layout, from: source.file, model: model, to: target, replacing: false)
  }

  /// Renames the file (never over another) and retitles the document after it; when the
  /// title cannot be saved (a full disk), the file gets its name back.
  public static func rename(_ path: String, to target: String) throws {
    // Opened as an edit opens it: a title change of 100,000 items reads the few it needs.
    let document = try GalleryDocument.openLazily(path)
    if let damage = document.damage { throw DocumentError.damaged(path, damage) }
    do { try FileSystem.renameWithoutReplacing(path, to: target) } catch {
      if error.errno == EEXIST { throw DocumentError.exists(target) }
      throw DocumentError.io(error)
    }
    syncDirectory(containing: target)
    LayoutCache.renamed(path, to: target, file: document.file)
    do {
      try GalleryDocument.edit(target) { edit in
        edit.title = DocumentName.title(forPath: target)
        // Undo gives the title back; the file keeps its new name.
        edit.summary = "rename: \(PathBytes.displayed((target as NSString).lastPathComponent))"
      }
    } catch {
      if (try? FileSystem.renameWithoutReplacing(target, to: path)) != nil {
        syncDirectory(containing: path)
        LayoutCache.renamed(target, to: path, file: document.file)
        if case DocumentError.saveFailed(_, let cause) = error { throw DocumentError.saveFailed(path, cause) }
      }
      throw error
    }
  }

  /// Moves a document to the freedesktop.org Trash (`$XDG_DATA_HOME/Trash`), with the
  /// `.trashinfo` a file manager needs to restore it. Returns where it went.
  @discardableResult
  public static func moveToTrash(_ path: String) throws -> String {
    _ = try GalleryDocument.openLazily(path)  // a document, not any file
    let data = XDGDirectory.data.path
    let trash = data + "/Trash"
    // Private, as GIO makes them: a Trash lists what a user deleted.
    for folder in [trash, trash + "/files", trash + "/info"] {
      try FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
    let absolute = XDGDirectory.standardized(path)
    let base = (absolute as NSString).lastPathComponent
    for name in FileSystem.candidateNames(for: base, separator: " ") {
      let info = trash + "/info/" + name + ".trashinfo"
      // The .trashinfo is created first and exclusively: it reserves the name (the spec's rule).
      let reservation: FileHandleFD
      do { reservation = try FileHandleFD(path: info, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600) } catch {
        if error.errno == EEXIST { continue }
        throw DocumentError.io(error)
      }
      // The spec's Path is URL-escaped: the name's bytes, percent-encoded.
      let encoded = String(PathBytes.fileURL(absolutePath: absolute).dropFirst("file://".count))
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
      let text = "[Trash Info]\nPath=\(encoded)\nDeletionDate=\(formatter.string(from: Date()))\n"
      do { try reservation.writeAll(Data(text.utf8)) } catch {
        FileSystem.remove(info)
        throw DocumentError.io(error)
      }
      let destination = trash + "/files/" + name
      do {
        do { try FileSystem.rename(absolute, to: destination) } catch {
          // Another file system: copied, then removed.
          guard error.errno == EXDEV else { throw error }
          try FileManager.default.moveItem(atPath: absolute, toPath: destination)
        }
      } catch {
        FileSystem.remove(info)
        throw DocumentError.io(error)
      }
      return destination
    }
    throw DocumentError.exists(trash + "/files/" + base)
  }

  /// Puts back a document `moveToTrash` moved to `trashed` (its file in the Trash), where
  /// it was, unless something took that name since; returns its path. Its `.trashinfo`
  /// says where: only a path that file gives is written to.
  public static func restoreFromTrash(_ trashed: String) throws -> String {
    let name = (trashed as NSString).lastPathComponent
    let trash = ((trashed as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
    let info = trash + "/info/" + name + ".trashinfo"
    let text = String(decoding: try FileSystem.read(info, limit: 64 * 1024), as: UTF8.self)
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Path=") }),
      let original = PathBytes.path(fromFileURL: "file://" + line.dropFirst("Path=".count))
    else { throw DocumentError.notFound(info) }
    do { try FileSystem.renameWithoutReplacing(trashed, to: original) } catch {
      if error.errno == EEXIST { throw DocumentError.exists(original) }
      guard error.errno == EXDEV else { throw DocumentError.io(error) }
      guard FileSystem.status(of: original) == nil else { throw DocumentError.exists(original) }
      try FileManager.default.moveItem(atPath: trashed, toPath: original)
    }
    FileSystem.remove(info)
    return original
  }
}
