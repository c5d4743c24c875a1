import Foundation
import GallerySystem

/// The model stored as `gallery.json`: ordered items, the trash, and document settings.
///
/// See docs/FORMAT.md and docs/gallery.schema.json.
public struct GalleryModel: Codable, Sendable, Equatable {
  public static let formatVersion = 2
  public static let mediaType = "application/x-gallery"

  public var format: Int
  public var title: String
  public var created: Date
  public var modified: Date
  /// Counts saves; a reader can tell two states of one document apart.
  public var revision: Int
  /// The identity of this revision, unique across machines (32 hex digits), so that two
  /// copies of one document can tell the revisions they share (format 2; nil in format 1).
  public var revisionID: String?
  public var settings: Settings
  public var items: [Item]
  public var trash: [TrashedItem]
  /// Moves that `gallery drag --move` offered and no drop has taken yet: the source's own
  /// consent, without which a drag payload can only copy. Nil when there are none.
  public var moveOffers: [MoveOffer]?
  /// Members a later version wrote that this one does not know, kept so that a rewrite
  /// keeps them.
  package var unknown: [UnknownMember]? = nil

  package enum CodingKeys: String, CodingKey {
    case format, title, created, modified, revision, settings, items, trash, moveOffers
    case revisionID = "revisionId"
  }

  public init(title: String, now: Date = .nowInWholeSeconds) {
    format = Self.formatVersion
    self.title = title
    created = now
    modified = now
    revision = 0
    settings = Settings()
    items = []
    trash = []
  }

  public struct Settings: Codable, Sendable, Equatable {
    /// Longest side of thumbnails, in pixels.
    public var thumbnailSize: Int = 256
    /// Images with more pixels than this are refused (decompression bombs).
    public var maxPixels: Int = 100_000_000
    /// Keep a `failed` item when a source cannot be loaded, instead of removing it.
    public var keepFailed: Bool = false
    /// Store the original bytes of dropped images in the document, so it travels with them.
    public var embedOriginals: Bool = false
    /// History kept by compaction: the last `historyOperations` operations or those of the
    /// last `historyDays` days, whichever keeps more.
    public var historyOperations: Int = 1000
    public var historyDays: Int = 90
    package var unknown: [UnknownMember]? = nil

    public init() {}

    package enum CodingKeys: String, CodingKey {
      case thumbnailSize, maxPixels, keepFailed, embedOriginals, historyOperations, historyDays
    }

    public init(from decoder: Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      thumbnailSize = try container.decodeIfPresent(Int.self, forKey: .thumbnailSize) ?? 256
      maxPixels = try container.decodeIfPresent(Int.self, forKey: .maxPixels) ?? 100_000_000
      keepFailed = try container.decodeIfPresent(Bool.self, forKey: .keepFailed) ?? false
      embedOriginals = try container.decodeIfPresent(Bool.self, forKey: .embedOriginals) ?? false
      historyOperations = try container.decodeIfPresent(Int.self, forKey: .historyOperations) ?? 1000
      historyDays = try container.decodeIfPresent(Int.self, forKey: .historyDays) ?? 90
    }
  }
}

/// A member of a stored object that this version does not know (a later version of the
/// format added it), kept as its JSON text: a document rewritten by this version keeps what
/// a later one wrote. Read as strictly as any member, at most `limit` per object.
package struct UnknownMember: Sendable, Equatable {
  package static let limit = 64

  package var name: String
  package var json: [UInt8]

  package init(name: String, json: [UInt8]) {
    self.name = name
    self.json = json
  }
}

/// Items that a `gallery drag --move` payload may take out of this document, once: the
/// payload carries the token; the drop that saved the items presents it.
public struct MoveOffer: Codable, Sendable, Equatable {
  public var token: String
  public var ids: [String]
  public var created: Date

  public init(token: String, ids: [String], created: Date) {
    self.token = token
    self.ids = ids
    self.created = created
  }

  /// Offers older than this are forgotten: a drag not dropped within a day was abandoned.
  public static let lifetime: TimeInterval = 24 * 3600
  public static let maxOffers = 100
}

/// One image of a gallery, referenced by URL: a plain value, its members as `gallery.json`
/// stores them.
public struct Item: Codable, Sendable, Equatable {
  /// Short, stable, unique in its document; never all digits, so it cannot be read as a position.
  public var id: String
  public var source: String
  /// The web page the image came from, when known.
  public var page: String?
  public var state: State
  /// Width / height as displayed (after EXIF orientation); 1 for placeholders and failures.
  public var aspectRatio: Double
  public var width: Int?
  public var height: Int?
  public var orientation: Int?
  public var format: String?
  /// Pages in the file, when more than one (a multi-page TIFF or PDF: it shows its first).
  public var pages: Int? = nil
  public var bytes: Int?
  /// `sha256:<hex>` of the original bytes.
  public var hash: String?
  /// Archive entry holding the thumbnail, e.g. `thumbnails/k3x9qa.jpg`.
  public var thumbnail: String?
  /// Archive entry holding the original bytes, when embedded: `originals/<sha256>.<ext>`
  /// (one entry per content, shared by items with the same image).
  public var original: String?
  public var added: Date
  public var placeholder: Placeholder?
  public var failure: String?
  /// A line a person wrote about the item.
  public var caption: String? = nil
  /// Text a person wrote about the item, any number of lines.
  public var note: String? = nil
  /// The item's tags, a set kept sorted by their UTF-8 bytes (`a/b` for a hierarchy, as
  /// digiKam writes them; see `tagSet`); nil when there are none.
  public var tags: [String]? = nil
  /// Stars, 1 to 5; nil when not rated.
  public var rating: Int? = nil
  /// A colour label, as photo managers put on items.
  public var label: Label? = nil
  /// The camera that took the photo, as its EXIF block names it ("Canon EOS 5D Mark IV").
  public var camera: String? = nil
  /// When the photo was taken, by the camera's clock, as its EXIF block says:
  /// "2024-06-01T14:03:22", with the clock's offset ("+02:00") when the camera wrote one.
  public var taken: String? = nil
  /// The lens, as the camera names it ("EF24-70mm f/2.8L II USM").
  public var lens: String? = nil
  /// The exposure, as far as the camera said it: "1/250 s, f/8, ISO 100, 35 mm".
  public var exposure: String? = nil
  /// Where the photo was taken, as its GPS block says.
  public var location: Location? = nil
  /// Members a later version wrote that this one does not know.
  package var unknown: [UnknownMember]? = nil

  package enum CodingKeys: String, CodingKey {
    case id, source, page, state, aspectRatio, width, height, orientation, format, pages, bytes, hash, thumbnail
    case original, added, placeholder, failure, caption, note, tags, rating, label, camera, taken, lens, exposure
    case location
  }

  package init(
    id: String, source: String, page: String?, state: State, aspectRatio: Double, width: Int?, height: Int?,
    orientation: Int?, format: String?, bytes: Int?, hash: String?, thumbnail: String?, original: String?,
    added: Date, placeholder: Placeholder?, failure: String?, pages: Int? = nil
  ) {
    self.id = id
    self.source = source
    self.page = page
    self.state = state
    self.aspectRatio = aspectRatio
    self.width = width
    self.height = height
    self.orientation = orientation
    self.format = format
    self.pages = pages
    self.bytes = bytes
    self.hash = hash
    self.thumbnail = thumbnail
    self.original = original
    self.added = added
    self.placeholder = placeholder
    self.failure = failure
  }

  /// A place on Earth, in degrees (south and west negative).
  public struct Location: Codable, Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
      self.latitude = latitude
      self.longitude = longitude
    }

    /// The great-circle distance to `other`, in kilometres (a sphere of the Earth's mean
    /// radius: within half a percent).
    public func kilometres(to other: Location) -> Double {
      // The haversine formula.
      let radians = Double.pi / 180
      let (from, to) = (latitude * radians, other.latitude * radians)
      let (north, east) = ((other.latitude - latitude) * radians, (other.longitude - longitude) * radians)
      let a = sin(north / 2) * sin(north / 2) + cos(from) * cos(to) * sin(east / 2) * sin(east / 2)
      return 6371.0088 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
  }

  /// The colour labels of digiKam, darktable and Lightroom.
  public enum Label: String, Codable, Sendable, CaseIterable {
    case red, orange, yellow, green, blue, purple, grey
  }

  /// Tags as a set: each once, sorted by their UTF-8 bytes; nil when none is left.
  public static func tagSet(_ tags: [String]) -> [String]? {
    let set = Array(Set(tags)).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    return set.isEmpty ? nil : set
  }

  /// What the item is now: an image (`ready`), one loading (`placeholder`), one that could
  /// not be loaded (`failed`), or a note card: text a person wrote, laid out among the
  /// images, with no source and no picture (its text is its `note`).
  public enum State: String, Codable, Sendable, CaseIterable {
    case ready, placeholder, failed, note
  }

  /// A pending load: where from, who loads it, since when.
  public struct Placeholder: Codable, Sendable, Equatable {
    public var from: String
    public var owner: Owner
    public var since: Date
  }

  /// The process loading a placeholder.
  public struct Owner: Codable, Sendable, Hashable {
    public var pid: Int32
    public var host: String
    /// When that process started, so a recycled pid is not mistaken for the owner.
    public var started: Date

    public init(pid: Int32, host: String, started: Date) {
      self.pid = pid
      self.host = host
      self.started = started
    }

    public static let current = Owner(
      pid: ProcessInfo.processInfo.processIdentifier, host: ProcessInfo.processInfo.hostName,
      started: ProcessStart.ofThisProcess.wholeSeconds)
  }

  public static func placeholder(id: String, source: String, page: String? = nil, now: Date = .nowInWholeSeconds) -> Item {
    Item(
      id: id, source: source, page: page, state: .placeholder, aspectRatio: 1, width: nil,
      height: nil, orientation: nil, format: nil, bytes: nil, hash: nil, thumbnail: nil, original: nil,
      added: now, placeholder: Placeholder(from: source, owner: .current, since: now),
      failure: nil)
  }

  /// This item as a placeholder of this process again, where it stands (a retry, a watcher
  /// taking over what a killed one left): its id, source, page and date added kept.
  public func placeholderAgain(now: Date = .nowInWholeSeconds) -> Item {
    var placeholder = Item.placeholder(id: id, source: source, page: page, now: now)
    placeholder.added = added
    return placeholder
  }

  /// A note card holding `text` (the board app's cards, PureRef's notes): a square among the
  /// images until the page lays it out.
  public static func noteCard(id: String, text: String, now: Date = .nowInWholeSeconds) -> Item {
    var card = Item(
      id: id, source: "", page: nil, state: .note, aspectRatio: 1, width: nil, height: nil, orientation: nil,
      format: nil, bytes: nil, hash: nil, thumbnail: nil, original: nil, added: now, placeholder: nil, failure: nil)
    card.note = text
    return card
  }

  /// Whether this is a note card rather than an image.
  public var isNoteCard: Bool { state == .note }

  /// The content its original must have: its hash, or before it loaded, the one its source
  /// names when the image was given as bytes (`urn:sha256:HEX`).
  public var originalHash: String? {
    hash ?? (source.hasPrefix("urn:sha256:") ? "sha256:" + source.dropFirst("urn:sha256:".count) : nil)
  }

  /// This placeholder, kept as a failure (the classic app's error image: aspect ratio 1).
  public func failed(because reason: String) -> Item {
    var item = self
    item.state = .failed
    item.placeholder = nil
    // A reason may quote what a server or a file said: it is cut to what a model holds.
    item.failure = ModelValidation.cut(reason, toBytes: ModelValidation.Limits.textBytes)
    item.aspectRatio = 1
    return item
  }
}

/// An item in the trash keeps its data until the trash is emptied.
public struct TrashedItem: Codable, Sendable, Equatable {
  public var item: Item
  public var trashed: Date
  /// 1-based position it had, so `restore` can put it back there.
  public var position: Int

  public init(item: Item, trashed: Date, position: Int) {
    self.item = item
    self.trashed = trashed
    self.position = position
  }
}

extension Item {
  /// What a person is told of an item: a placeholder is `pending` while its loader runs and
  /// `stale` once it is gone.
  public enum DisplayState: String, Sendable, CaseIterable, CustomStringConvertible {
    case ready, failed, pending, stale, note
    public var description: String { rawValue }
  }

  public var displayState: DisplayState {
    switch state {
    case .ready: .ready
    case .failed: .failed
    case .note: .note
    case .placeholder: (placeholder?.owner.isAlive ?? false) ? .pending : .stale
    }
  }
}

extension GalleryModel {
  /// The ids of the items and of the trash.
  public var ids: Set<String> {
    var ids = Set<String>(minimumCapacity: items.count + trash.count)
    for item in items { ids.insert(item.id) }
    for entry in trash { ids.insert(entry.item.id) }
    return ids
  }

  /// Those of `ids` that an item or the trash has (see `WorkingModel.held`).
  package func held(_ ids: [String]) -> Set<String> { WorkingModel(self).held(ids) }

  /// The archive entries the model refers to (thumbnails and embedded originals of the items,
  /// then of the trash), each once, in item order.
  package var referencedEntries: [String] {
    var seen = Set<String>()
    var names: [String] = []
    for item in items + trash.map(\.item) {
      for name in [item.thumbnail, item.original].compactMap({ $0 }) where seen.insert(name).inserted {
        names.append(name)
      }
    }
    return names
  }
}
