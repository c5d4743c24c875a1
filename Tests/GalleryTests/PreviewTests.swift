import Foundation
import GalleryKit
import GalleryTestSupport
import Testing

@testable import GalleryImaging
@testable import GallerySystem

@Suite("Previews: renditions of originals for sharp tiles, cached with a bound")
struct PreviewTests {
  @Test("A preview is named by its short edge: a panorama is as sharp as its row is tall; a bitmap is never enlarged")
  func sizes() {
    #expect(PreviewCache.longEdge(width: 2560, height: 1600, shortEdge: 720) == 1152)
    #expect(PreviewCache.longEdge(width: 1600, height: 2560, shortEdge: 720) == 1152)
    #expect(PreviewCache.longEdge(width: 10240, height: 1600, shortEdge: 360) == 2304)
    #expect(PreviewCache.longEdge(width: 30000, height: 2000, shortEdge: 1440) == PreviewCache.maxLongEdge)
    #expect(PreviewCache.longEdge(width: 640, height: 480, shortEdge: 1440) == 640)
    #expect(PreviewCache.longEdge(width: 400, height: 200, shortEdge: 720, drawing: true) == 1440)
    #expect(PreviewCache.longEdge(width: 0, height: 0, shortEdge: 360) == 1)
  }

  @Test("Made from a real photo once, then read from the cache; the least recently used go past the bound")
  func cache() throws {
    let workspace = try TestWorkspace()
    let photo = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/backgrounds/mate/nature/Garden.jpg"))
    let hash = contentHash(of: photo)
    // Room for the two larger previews (about 60 and 190 KB), not for all three.
    let previews = PreviewCache(folder: workspace.path("previews"), limit: 250_000)
    #expect(previews.cached(hash: hash, shortEdge: 360) == nil)
    let made = try previews.make(
      from: photo, width: 2560, height: 1600, format: "jpeg", hash: hash, shortEdge: 360, maxPixels: 100_000_000)
    #expect(made.mediaType == "image/jpeg")
    let image = try ImageProcessor.process(made.data, options: ImageOptions(thumbnailSize: 4096))
    #expect(image.width == 576 && image.height == 360)
    #expect(previews.cached(hash: hash, shortEdge: 360)?.data == made.data)
    // Larger previews of the same photo push the oldest out once the bound is passed.
    for edge in [720, 1440] {
      _ = try previews.make(
        from: photo, width: 2560, height: 1600, format: "jpeg", hash: hash, shortEdge: edge, maxPixels: 100_000_000)
      Thread.sleep(forTimeInterval: 0.02)
    }
    let usage = CacheFolder(path: workspace.path("previews"), limit: 0).usage()
    #expect(usage.entries == 2 && usage.bytes <= 250_000)
    #expect(previews.cached(hash: hash, shortEdge: 360) == nil)
  }
}
