import Foundation
import GalleryImaging
import GalleryModel
import GallerySystem

/// A contact sheet laid out like the classic collection view: rows of thumbnails at their
/// aspect ratios, each row filling the width; placeholders grey, failed items pale red.
public enum ContactSheet {
  /// What a caption under each tile says.
  public enum Caption: String, Sendable, CaseIterable {
    case position, id, name
  }

  package static let captionHeight = 14

  /// The caption's text for an item at a 1-based position, as Pango markup.
  package static func captionMarkup(_ caption: Caption, item: Item, position: Int) -> String {
    let text: String
    switch caption {
    case .position: text = String(position)
    case .id: text = item.id
    case .name:
      let name = item.source.hasPrefix("urn:sha256:") ? "" : PathBytes.lastSegment(ofURL: item.source)
      text = name.isEmpty ? item.id : name
    }
    return markup(TerminalText.escaped(text))
  }

  /// Text as Pango markup that shows it as it is.
  static func markup(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;")
  }

  public enum Layout: Sendable {
    /// Rows about this tall, as many items a row as fit.
    case rowHeight(Int)
    /// This many items a row.
    case columns(Int)
  }

  /// One placed tile.
  package struct Tile: Equatable {
    package var index: Int
    package var width: Int
    package var height: Int
  }

  package static let maxRowHeight = 4096
  /// The largest sheet rendered: it is held in memory while encoded (3 bytes a pixel).
  public static let maxPixels = 64_000_000

  /// A sheet that would be too large to render.
  public struct TooLarge: Error, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var description: String {
      "the sheet would be \(width)x\(height) pixels, over the limit of \(ContactSheet.maxPixels / 1_000_000) megapixels: "
        + "use a smaller --width or --row-height, or more --columns"
    }
  }

  /// Rows of tiles for items of these aspect ratios across `width` pixels (spacing between).
  package static func rows(aspectRatios given: [Double], width: Int, spacing: Int, layout: Layout) -> [[Tile]] {
    // A tile at the layout's nominal height is at most the row's width (with --columns,
    // whose nominal tile is square, at most twice as wide as high), and at least a third
    // as wide as high: a panorama is drawn cropped instead of squashing its row (no row is
    // then much under half the nominal height), a tall strip keeps a usable width.
    let widest: Double
    switch layout {
    case .rowHeight(let target): widest = max(1, Double(width) / Double(target))
    case .columns: widest = 2
    }
    let aspectRatios = given.map { min(max($0, 1.0 / 3.0), widest) }
    var rows: [[Tile]] = []
    var current: [Int] = []
    func close(justify: Bool) {
      guard !current.isEmpty else { return }
      let gaps = Double(spacing * (current.count - 1))
      let total = current.reduce(0.0) { $0 + aspectRatios[$1] }
      var height: Double
      switch layout {
      case .rowHeight(let target):
        height = justify ? (Double(width) - gaps) / total : min(Double(target), (Double(width) - gaps) / total)
      case .columns(let columns):
        // A short last row keeps the height a full row of such items would have: a lone
        // last item is not stretched across the sheet.
        let full = Double(columns)
        height =
          justify
          ? (Double(width) - gaps) / total
          : (Double(width) - Double(spacing) * (full - 1)) / (full * total / Double(current.count))
      }
      // A 3,000,000x1 image must not make a 3,000,000-pixel tile, nor a 1x3,000,000 one a
      // row that tall: a tile is at most the sheet's width and a row at most `maxRowHeight`.
      height = min(max(1, height), Double(maxRowHeight))
      rows.append(
        current.map {
          Tile(index: $0, width: min(width, max(1, Int((aspectRatios[$0] * height).rounded()))), height: Int(height.rounded()))
        })
      current = []
    }
    for index in aspectRatios.indices {
      current.append(index)
      switch layout {
      case .rowHeight(let target):
        let gaps = Double(spacing * (current.count - 1))
        if current.reduce(0.0, { $0 + aspectRatios[$1] }) * Double(target) + gaps >= Double(width) { close(justify: true) }
      case .columns(let columns):
        if current.count == columns { close(justify: true) }
      }
    }
    close(justify: false)
    return rows
  }

  /// The image a tile is made from: the thumbnail, or a rendition of the original when the
  /// tile needs more pixels than the thumbnail has.
  private static func source(
    of item: Item, for tile: Tile, in document: GalleryDocument, enlarged: (Item) -> Void
  )
    -> Data?
  {
    guard let width = item.width, let height = item.height, width > 0, height > 0 else {
      return try? document.thumbnail(of: item)
    }
    // Filled and cropped: the image's short side at the scale that covers the tile.
    let scale = max(Double(tile.width) / Double(width), Double(tile.height) / Double(height))
    let needed = Int((scale * Double(min(width, height))).rounded(.up))
    let thumbnailShort = GalleryDocument.thumbnailShortEdge(width: width, height: height, document.model.settings)
    guard needed > thumbnailShort, thumbnailShort < min(width, height) else { return try? document.thumbnail(of: item) }
    if let rendition = GalleryDocument.rendition(of: item, in: document, shortEdge: needed, width: width, height: height) {
      return rendition
    }
    enlarged(item)
    return try? document.thumbnail(of: item)
  }

  /// Where each tile of a sheet goes: a rectangle in the sheet's pixels (its margin
  /// included), for `gallery sheet --json` and the browser view's layout, which is the same.
  package struct Frame: Equatable {
    package var index: Int
    package var x, y, width, height: Int
  }

  package static func frames(
    aspectRatios: [Double], width: Int, layout: Layout, spacing: Int = 8, captioned: Bool = false
  ) -> (height: Int, frames: [Frame]) {
    let strip = captioned ? captionHeight + 2 : 0
    var frames: [Frame] = []
    var y = spacing
    for row in rows(aspectRatios: aspectRatios, width: width - 2 * spacing, spacing: spacing, layout: layout) {
      var x = spacing
      for tile in row {
        frames.append(Frame(index: tile.index, x: x, y: y, width: tile.width, height: tile.height))
        x += tile.width + spacing
      }
      y += (row.first?.height ?? 0) + strip + spacing
    }
    return (frames.isEmpty ? 2 * spacing + 1 : y, frames)
  }

  /// Renders the sheet as PNG (or the format `suffix` names).
  /// A tile larger than its item's thumbnail is made from the original when that can be
  /// read (embedded, or its unchanged local file); `enlarged` is told of each that cannot.
  public static func render(
    _ document: GalleryDocument, width: Int = 1200, layout: Layout = .rowHeight(160), spacing: Int = 8,
    suffix: String = ".png", caption: Caption? = nil, enlarged: (Item) -> Void = { _ in }
  ) throws -> Data {
    try VipsRuntime.start()
    let items = document.model.items
    let inner = width - 2 * spacing
    let laidOut = rows(aspectRatios: items.map(\.aspectRatio), width: inner, spacing: spacing, layout: layout)
    let strip = caption == nil ? 0 : captionHeight + 2
    let height = laidOut.reduce(spacing) { $0 + ($1.first?.height ?? 0) + strip + spacing }
    guard width * height <= maxPixels else { throw TooLarge(width: width, height: height) }
    var rowImages: [VipsImageHandle] = []
    for row in laidOut {
      var tiles: [VipsImageHandle] = []
      for tile in row {
        let item = items[tile.index]
        if item.isNoteCard {
          // Its text as far as a card shows it; control characters but line breaks shown as
          // escapes, as everywhere else.
          let text = String((item.note ?? "").prefix(600)).split(separator: "\n", omittingEmptySubsequences: false)
            .map { TerminalText.escaped(String($0)) }.joined(separator: "\n")
          tiles.append(
            try .noteCard(markup(text), width: max(1, tile.width - 2), height: max(1, tile.height - 2))
              .framed(width: 1, grey: 200))
        } else if item.state == .ready, let data = source(of: item, for: tile, in: document, enlarged: enlarged),
          StoredImage.problem(data) == nil,
          let tile = try? data.withUnsafeBytes({ raw in
            // A thin grey frame inside the tile, so that white images do not vanish into the
            // white page.
            let frame = tile.width > 4 && tile.height > 4 ? 1 : 0
            return try VipsImageHandle.thumbnail(of: raw, width: tile.width - 2 * frame, height: tile.height - 2 * frame)
              .framed(width: frame, grey: 200).copiedToMemory()
          })
        {
          tiles.append(tile)
        } else {
          let (r, g, b) = item.state == .failed ? (240.0, 200.0, 200.0) : (215.0, 215.0, 215.0)
          tiles.append(try .tile(width: tile.width, height: tile.height, red: r, green: g, blue: b))
        }
      }
      if let caption {
        // Each tile over its caption, 2 px apart.
        tiles = try zip(row, tiles).map { tile, image in
          let markup = captionMarkup(caption, item: items[tile.index], position: tile.index + 1)
          return try image.joined(
            with: try .caption(markup, width: tile.width, height: captionHeight), horizontal: false, spacing: 2)
        }
      }
      rowImages.append(try join(tiles, horizontal: true, spacing: spacing))
    }
    if rowImages.isEmpty {
      rowImages.append(try .tile(width: inner, height: 1, red: 255, green: 255, blue: 255))
    }
    let sheet = try join(rowImages, horizontal: false, spacing: spacing)
    let data = try sheet.withMargin(spacing).encoded(as: suffix)
    withExtendedLifetime(rowImages) {}
    return data
  }

  /// Joins images in a row (or a column); the result keeps references to its inputs.
  private static func join(_ images: [VipsImageHandle], horizontal: Bool, spacing: Int) throws -> VipsImageHandle {
    var joined = images[0]
    for next in images.dropFirst() {
      joined = try joined.joined(with: next, horizontal: horizontal, spacing: spacing)
    }
    return joined
  }
}

extension ContactSheet.TooLarge: GalleryError {}
