import Foundation
import GalleryImaging
import GalleryModel
import GallerySystem

/// What `gallery check` found.
public struct CheckReport: Sendable, Encodable {
  public var problems: [String]
  /// A remark that is not a problem (an interrupted save the next write cleans up).
  public var note: String?

  public init(problems: [String], note: String?) {
    self.problems = problems
    self.note = note
  }
}

/// Verifies a document's model against its entries.
public enum DocumentCheck {
  public static func run(_ document: GalleryDocument) -> CheckReport {
    var problems: [String] = []
    if let damage = document.damage {
      problems.append("the archive is damaged \(damage): the document is read-only; `gallery check --fix` rescues it")
      problems += document.damageProblems.map { "the damaged revision: \($0)" }
    }
    let model = document.model
    let all = model.items + model.trash.map(\.item)

    // The rules of the model itself were checked when it was read (`ModelValidation`): a
    // model that breaks one never opens, and `check` lists those from the error. Each item's
    // problems are listed together, its thumbnail's last.
    var found = [[String]](repeating: [], count: all.count)
    var thumbnails: [(slot: Int, item: Item, name: String)] = []
    for (slot, item) in all.enumerated() {
      switch item.state {
      case .ready:
        guard let width = item.width, let height = item.height, width > 0, height > 0 else {
          found[slot].append("item \(item.id) is ready but has no pixel size")
          continue
        }
        if abs(item.aspectRatio - Double(width) / Double(height)) > 1e-6 {
          found[slot].append("item \(item.id): aspect ratio \(item.aspectRatio) does not match \(width)x\(height)")
        }
        if item.hash == nil { found[slot].append("item \(item.id) is ready but has no content hash") }
        guard let name = item.thumbnail else {
          found[slot].append("item \(item.id) has no thumbnail")
          continue
        }
        if let original = item.original, document.layout.entries[original] == nil {
          found[slot].append("item \(item.id): embedded original \(original) is missing")
        }
        thumbnails.append((slot, item, name))
      case .placeholder:
        if item.placeholder == nil { found[slot].append("placeholder \(item.id) does not say where it loads from") }
        if item.aspectRatio != 1 {
          found[slot].append("placeholder \(item.id) has aspect ratio \(item.aspectRatio), not 1")
        }
      case .failed:
        if item.aspectRatio != 1 {
          found[slot].append("failed item \(item.id) has aspect ratio \(item.aspectRatio), not 1")
        }
      case .note:
        break
      }
    }
    for (thumbnail, problem) in zip(thumbnails, thumbnailProblems(thumbnails.map { ($0.item, $0.name) }, in: document)) {
      if let problem { found[thumbnail.slot].append(problem) }
    }
    problems += found.joined()

    let layout = document.layout
    let live = layout.liveNames
    for name in layout.entries.names.sorted() where !live.contains(name) {
      problems.append("orphan entry \(name): no item refers to it (`gallery compact` removes it)")
    }
    if layout.entries[DocumentArchive.coverEntry] == nil {
      problems.append("the cover (\(DocumentArchive.coverEntry)) is missing")
    }

    if let problem = indexProblem(document) { problems.append(problem) }

    var notes: [String] = []
    if let reason = layout.tornReason {
      notes.append(
        "an interrupted save left \(layout.tornBytes) bytes at the end (ignored; the next save removes them): \(reason)")
    }
    if let cover = try? document.cover(), let problem = StoredImage.verdict(cover) {
      problems.append("the cover: \(problem) (the next edit that changes the first items makes a new one)")
    }
    let stale = model.items.filter { $0.displayState == .stale }.count
    if stale > 0 {
      problems.append(
        "\(stale) stale placeholder\(stale == 1 ? "" : "s") (their loading process is gone): `gallery retry` loads them again, `gallery check --fix` removes them (those whose image the document holds become failed items)"
      )
    }
    return CheckReport(problems: problems, note: notes.isEmpty ? nil : notes.joined(separator: "; "))
  }
}

extension DocumentCheck {
  /// What is wrong with each thumbnail, if anything: read and decoded whole, on both cores
  /// (a check of many items is mostly this), each half through a descriptor of its own.
  static func thumbnailProblems(_ thumbnails: [(item: Item, name: String)], in document: GalleryDocument) -> [String?] {
    func problems(_ part: ArraySlice<(item: Item, name: String)>) -> [String?] {
      let file = Result { try document.file.reopenedForReading() }
      return part.map { item, name in
        do {
          let data = try document.thumbnail(of: item, through: file.get())
          return StoredImage.verdict(data).map { "thumbnail \(name) of item \(item.id): \($0)" }
        } catch {
          return "item \(item.id): thumbnail \(name) is missing or unreadable (\(error))"
        }
      }
    }
    let half = thumbnails.count / 2
    let (front, back) = ForkJoin.both({ problems(thumbnails[..<half]) }, { problems(thumbnails[half...]) })
    return front + back
  }

  /// What is wrong with the trailer and index of a document scanned whole, if anything:
  /// commands open it through them, `info` and `browse` show the trailer's summary.
  static func indexProblem(_ document: GalleryDocument) -> String? {
    // The last revision ends with a trailer entry, then its end marker and nothing else:
    // the trailer must describe the file, whatever its last block claims (a count of blocks
    // it does not have is no reason to pass it over). What an interrupted save left (a torn
    // tail, or the end marker already cut) is not the trailer's fault: the next save mends it.
    let layout = document.layout
    let endsWithTrailerEntry = layout.entries[ArchiveTrailer.name].map {
      $0.offset + $0.span == layout.revisionEnd && layout.tornReason == nil
        && layout.fileSize - layout.revisionEnd >= DocumentArchive.endOfArchiveMarkerSize
    }
    guard !document.layout.readThroughIndex, endsWithTrailerEntry == true || DocumentArchive.endsWithTrailer(document.file)
    else {
      return nil  // a format-1 document, or one a plain tar tool appended to: opened by a whole scan
    }
    let trailer: ArchiveTrailer
    let indexed: ArchiveLayout
    do {
      trailer = try DocumentArchive.trailer(of: document.file)
      // As an edit opens it, so that the outline of the checkpoint is checked too.
      indexed = try DocumentArchive.openThroughIndex(document.file, lazily: true)
    } catch {
      return
        "the index does not describe the file (\(error)): commands read it whole until `gallery check --fix` writes a new one"
    }
    var expected = DocumentSummary(document.layout)
    expected.liveBytes = trailer.summary.liveBytes  // kept save by save; `info` shows it
    // A trailer written before the summary said these settings still describes the document.
    if trailer.summary.keepFailed == nil, trailer.summary.embedOriginals == nil {
      (expected.keepFailed, expected.embedOriginals) = (nil, nil)
    }
    guard (try? indexed.wholeModel()) == document.model, indexed.itemSource?.failure == nil, trailer.summary == expected
    else {
      return "the index or the trailer's summary does not match the document: `gallery check --fix` writes new ones"
    }
    if let entry = indexed.itemSource?.changedSinceWritten.first {
      return "the items of \(entry) are not as a save wrote them (their CRC-32 differs), though they read as valid:"
        + " `gallery check --fix` takes them as they are"
    }
    // What the index says of the history: where its records are, the undo stack and the
    // ids they name (with the model's, those a new item may not take).
    let scanned = document.layout.history
    let ids = document.model.ids
    guard indexed.history.revisions == scanned.revisions,
      (try? indexed.history.undoStack()) == (try? scanned.undoStack()),
      (try? indexed.history.itemIDs().union(ids)) == (try? scanned.itemIDs().union(ids))
    else {
      return "the index does not describe the history: `gallery check --fix` writes a new one"
    }
    return nil
  }

  /// Repairs what can be repaired without guessing: removes stale placeholders (their loader
  /// is gone), and rewrites the document without orphan entries and torn tails. A stale
  /// placeholder whose bytes the document holds (an image given without a URL: standard
  /// input, a clipboard, a page's upload) is their only copy: it becomes a failed item that
  /// `gallery retry` loads from them. Returns how many placeholders it removed and kept so.
  @discardableResult
  public static func fix(_ path: String) throws -> (removed: Int, kept: Int) {
    _ = try rescue(path)
    let settled = try GalleryDocument.edit(path) { edit in
      let stale = try edit.wholeModel().items.enumerated().filter { $0.element.displayState == .stale }
      for (index, item) in stale where item.original != nil {
        edit.replaceItem(at: index, with: item.failed(because: "its drop was stopped before it loaded"))
      }
      let removed = Set(stale.filter { $0.element.original == nil }.map(\.element.id))
      let staleTrash = edit.trash.filter {
        $0.item.state == .placeholder && $0.item.displayState == .stale && $0.item.original == nil
      }
      edit.remove(items: removed, trashed: Set(staleTrash.map(\.item.id)))
      return (removed.count, stale.count - removed.count)
    }
    let document = try GalleryDocument.open(path, scanningWhole: true)
    let live = document.layout.liveNames
    if document.layout.tornReason != nil || document.layout.entries.names.contains(where: { !live.contains($0) })
      || indexProblem(document) != nil
    {
      try GalleryDocument.compact(path)
    }
    return settled
  }
}

extension DocumentCheck {
  /// Rescues a damaged document: what could be read (the last revision that decodes, as
  /// bsdtar reads past the damage) becomes a new, clean document at the same path; items
  /// whose thumbnail was lost become failed items that `gallery retry` loads again. The
  /// damaged file stays beside it as `NAME.gallery.damaged` (or `-2`, ...), for the user to
  /// remove. Returns that name, or nil when the document was not damaged.
  public static func rescue(_ path: String) throws -> String? {
    let lock = try DocumentLock(path: path)
    let layout = try DocumentArchive.scan(lock.file)
    guard layout.damage != nil else { return nil }
    var model = layout.model
    var entries: [String: Data] = [:]
    func readable(_ name: String?) -> Bool {
      guard let name else { return false }
      if entries[name] != nil { return true }
      guard let location = layout.entries[name], let data = try? DocumentArchive.read(location, named: name, from: lock.file)
      else {
        return false
      }
      if name.hasPrefix(DocumentArchive.thumbnailFolder), StoredImage.verdict(data) != nil {
        return false
      }
      entries[name] = data
      return true
    }
    func salvage(_ item: inout Item) {
      if item.original != nil, !readable(item.original) { item.original = nil }
      if item.thumbnail != nil, !readable(item.thumbnail) {
        item.thumbnail = nil
        if item.state == .ready {
          item = item.failed(because: "its thumbnail was lost to damage in the document: `gallery retry` loads it again")
        }
      }
    }
    for index in model.items.indices { salvage(&model.items[index]) }
    for index in model.trash.indices { salvage(&model.trash[index].item) }
    model.revision = min(model.revision + 1, ModelValidation.Limits.counter.upperBound)
    model.modified = .nowInWholeSeconds
    let thumbnails = try GalleryDocument.coverThumbnailNames(WorkingModel(model)).compactMap { entries[$0] }
    let cover = try CoverMaker.cover(from: thumbnails)

    let target = FileSystem.resolvingLinks(path)
    var backup = target + ".damaged"
    var number = 1
    while true {
      do {
        try FileSystem.hardLink(target, as: backup)
        break
      } catch  where error.errno == EEXIST && number < 1000 {
        number += 1
        backup = target + ".damaged-\(number)"
      } catch {
        throw DocumentError.io(error)
      }
    }
    LayoutCache.forget(path)
    do {
      try DocumentArchive.writeComplete(
        to: path, model: model,
        entries: { writer in
          for name in model.referencedEntries {
            if let data = entries[name] { try writer.write(name: name, data: data, modified: model.modified) }
          }
          try writer.write(name: DocumentArchive.coverEntry, data: cover, modified: model.modified)
        }, replacing: true)
    } catch {
      FileSystem.remove(backup)
      throw error
    }
    return backup
  }
}
