import Foundation
import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem
import Synchronization

/// `gallery refresh-metadata`: the photo's own facts read again for items already in a
/// gallery (dropped before this version read them, or whose sidecar changed since), from
/// their original where it can be read without the network (embedded, an unchanged local
/// file, the download cache). EXIF facts replace what the item had; what photo managers
/// wrote in XMP adds tags, and gives stars, a label and a caption only to an item that has
/// none (what a person wrote in the gallery stays). One edit, which undo takes back.
public enum MetadataRefresh {
  public struct Report: Sendable, Equatable, Encodable {
    /// Items whose fields changed.
    public var refreshed: [String] = []
    /// Items read whose fields were already what the photo says.
    public var unchanged: [String] = []
    /// Items whose original could not be read here (a web image not in the cache, a file
    /// moved or changed since).
    public var unreadable: [String] = []
  }

  /// What refreshing one item found: its facts, and the XMP of its sidecar or its file.
  struct Found: Sendable {
    var id: String
    var hash: String?
    var facts: PhotoFacts
    var xmp: PhotoXMP?
  }

  /// Refreshes `ids` (every ready item when empty) of the document at `path`. The originals
  /// are read outside the document's lock, on every core; the edit then changes the items
  /// that still hold the content that was read. `progress` is told how many were read.
  public static func refresh(
    _ path: String, ids: [String] = [], cached: @escaping @Sendable (String) -> Data? = { _ in nil },
    progress: @Sendable (Int, Int) -> Void = { _, _ in }
  ) throws -> Report {
    let document = try GalleryDocument.open(path)
    let wanted = Set(ids)
    let items = document.model.items.filter { $0.state == .ready && (wanted.isEmpty || wanted.contains($0.id)) }
    // Embedded originals are read through the one document, one at a time.
    let archive = Mutex(document)
    let found = Mutex<[Found?]>([Found?](repeating: nil, count: items.count))
    let done = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: items.count) { index in
      let item = items[index]
      var result: Found?
      let embedded = item.original == nil ? nil : archive.withLock { try? $0.original(of: item) }
      if let data = embedded ?? ItemOriginal.outside(item, cached: cached) {
        let (facts, embedded) = ImageProcessor.facts(of: data)
        let sidecar = PathBytes.path(fromFileURL: item.source).flatMap(PhotoXMP.sidecar(of:))
        result = Found(id: item.id, hash: item.hash, facts: facts, xmp: sidecar ?? embedded)
      }
      found.withLock { $0[index] = result }
      progress(done.add(1, ordering: .relaxed).newValue, items.count)
    }
    let results = found.withLock { $0 }
    var report = Report()
    report.unreadable = zip(items, results).filter { $0.1 == nil }.map(\.0.id)
    let readable = results.compactMap { $0 }
    guard !readable.isEmpty else { return report }
    try GalleryDocument.edit(path) { edit in
      let byID = Dictionary(readable.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
      for (id, index) in edit.positions(of: Array(byID.keys)).sorted(by: { $0.value < $1.value }) {
        let before = try edit.item(at: index)
        guard let found = byID[id], before.hash == found.hash else { continue }
        var item = before
        apply(found, to: &item)
        if item == before {
          report.unchanged.append(id)
        } else {
          edit.replaceItem(at: index, with: item)
          report.refreshed.append(id)
        }
      }
      edit.summary = "refresh-metadata: " + JournalRecord.counted(report.refreshed.count, "item")
    }
    return report
  }

  static func apply(_ found: Found, to item: inout Item) {
    let facts = found.facts
    item.camera = facts.camera
    item.taken = facts.taken
    item.lens = facts.lens
    item.exposure = facts.exposure
    item.location = facts.latitude.flatMap { latitude in
      facts.longitude.map { Item.Location(latitude: latitude, longitude: $0) }
    }
    guard let xmp = found.xmp else { return }
    // Added up to the model's limit: a sidecar cannot make the item one that breaks a rule.
    let new = xmp.tags.filter { !(item.tags ?? []).contains($0) }
    let room = max(0, ModelValidation.Limits.tags - (item.tags?.count ?? 0))
    if !new.isEmpty, room > 0 { item.tags = Item.tagSet((item.tags ?? []) + new.prefix(room)) }
    if item.rating == nil { item.rating = xmp.rating }
    if item.label == nil { item.label = xmp.label.flatMap(Item.Label.init(rawValue:)) }
    if item.caption == nil { item.caption = xmp.caption }
  }
}
