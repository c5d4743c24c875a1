import Foundation

/// What `gallery check` found.
public struct CheckReport: Codable, Sendable {
  public var problems: [String]
  /// A remark that is not a problem (an interrupted save the next write cleans up).
  public var note: String?
}

/// Verifies a document's model against its entries.
public enum DocumentCheck {
  public static func run(_ document: GalleryDocument) -> CheckReport {
    var problems: [String] = []
    let model = document.model
    let all = model.items + model.trash.map(\.item)

    var seen = Set<String>()
    for item in all where !seen.insert(item.id).inserted {
      problems.append("item id \(item.id) is used more than once")
    }
    for item in all {
      if item.id.isEmpty || Int(item.id) != nil { problems.append("item id \"\(item.id)\" is not a valid id") }
      switch item.state {
      case .ready:
        guard let width = item.width, let height = item.height, width > 0, height > 0 else {
          problems.append("item \(item.id) is ready but has no pixel size")
          continue
        }
        if abs(item.aspectRatio - Double(width) / Double(height)) > 1e-6 {
          problems.append("item \(item.id): aspect ratio \(item.aspectRatio) does not match \(width)x\(height)")
        }
        if item.hash == nil { problems.append("item \(item.id) is ready but has no content hash") }
        guard let name = item.thumbnail else {
          problems.append("item \(item.id) has no thumbnail")
          continue
        }
        if let original = item.original, document.layout.entries[original] == nil {
          problems.append("item \(item.id): embedded original \(original) is missing")
        }
        do {
          let data = try document.thumbnail(of: item)
          if VipsBuffer.loaderName(for: data) == nil { problems.append("thumbnail \(name) of item \(item.id) is not an image") }
        } catch {
          problems.append("item \(item.id): thumbnail \(name) is missing or unreadable (\(error))")
        }
      case .placeholder:
        if item.placeholder == nil { problems.append("placeholder \(item.id) does not say where it loads from") }
        if item.aspectRatio != 1 { problems.append("placeholder \(item.id) has aspect ratio \(item.aspectRatio), not 1") }
      case .failed:
        if item.aspectRatio != 1 { problems.append("failed item \(item.id) has aspect ratio \(item.aspectRatio), not 1") }
      }
    }

    let layout = document.layout
    let live = layout.liveNames
    for name in layout.entries.keys.sorted() where !live.contains(name) {
      problems.append("orphan entry \(name): no item refers to it (`gallery compact` removes it)")
    }
    if layout.entries[DocumentArchive.coverEntry] == nil { problems.append("the cover (\(DocumentArchive.coverEntry)) is missing") }

    var notes: [String] = []
    if let reason = layout.tornReason {
      notes.append("an interrupted save left \(layout.tornBytes) bytes at the end (ignored; the next save removes them): \(reason)")
    }
    let stale = model.items.filter { $0.displayState == "stale" }.count
    if stale > 0 {
      notes.append("\(stale) stale placeholder\(stale == 1 ? "" : "s") (their loading process is gone): `gallery retry` loads them again, `gallery check --fix` removes them")
    }
    return CheckReport(problems: problems, note: notes.isEmpty ? nil : notes.joined(separator: "; "))
  }
}

extension DocumentCheck {
  /// Repairs what can be repaired without guessing: removes stale placeholders (their loader
  /// is gone), and rewrites the document without orphan entries and torn tails.
  /// Returns how many placeholders it removed.
  @discardableResult
  public static func fix(_ path: String) throws -> Int {
    let removed = try GalleryDocument.edit(path) { edit in
      let stale = Set(edit.model.items.filter { $0.displayState == "stale" }.map(\.id))
      edit.model.items.removeAll { stale.contains($0.id) }
      edit.model.trash.removeAll { $0.item.state == .placeholder && $0.item.displayState == "stale" }
      return stale.count
    }
    let document = try GalleryDocument.open(path)
    let live = document.layout.liveNames
    if document.layout.tornReason != nil || document.layout.entries.keys.contains(where: { !live.contains($0) }) {
      try GalleryDocument.compact(path)
    }
    return removed
  }
}
