import Foundation
import Testing

@testable import GalleryDocument
@testable import GalleryModel

/// The layouts a process keeps of the documents it read last (pure: no file).
@Suite("LayoutCache: bounded, the least recently used goes first")
struct LayoutCacheTests {
  static func layout(_ title: String) -> ArchiveLayout {
    ArchiveLayout(
      working: WorkingModel(GalleryModel(title: title)), entries: EntryTable(), revisionEnd: 0, fileSize: 0, revisions: 1,
      tornBytes: 0, tornReason: nil)
  }

  @Test("Past its limit, the cache forgets the document used longest ago, not the one read first")
  func bounded() {
    var entries = LayoutCache.Entries()
    let stamp = LayoutCache.Stamp(stat())
    for index in 0..<LayoutCache.limit { entries["d\(index)"] = (stamp, Self.layout("d\(index)")) }
    #expect(entries.paths.count == LayoutCache.limit)
    // d0 is used again, so d1 is now the one used longest ago.
    #expect(entries["d0"]?.layout.model.title == "d0")
    entries["new"] = (stamp, Self.layout("new"))
    #expect(entries.paths.count == LayoutCache.limit)
    #expect(!entries.paths.contains("d1"))
    #expect(entries.paths.contains("d0") && entries.paths.contains("new"))
    // Replacing a document's layout does not grow the cache.
    entries["new"] = (stamp, Self.layout("newer"))
    #expect(entries.paths.count == LayoutCache.limit && entries["new"]?.layout.model.title == "newer")
    entries["new"] = nil
    #expect(entries.paths.count == LayoutCache.limit - 1)
  }
}
