import Foundation
import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem

#if canImport(Glibc)
  import Glibc
#endif

/// Downloaded originals under `$XDG_CACHE_HOME/gallery/downloads`, keyed by URL, so that
/// dropping again, `retry` and `export` revalidate (ETag, Last-Modified) instead of
/// downloading again. Bounded in size: least recently used entries are evicted first.
///
/// One file per URL (in a `CacheFolder`): a header line of JSON, then the body.
public struct DownloadCache: Sendable {
  /// What is known about a cached body.
  public struct Entry: Sendable, Equatable {
    public var url: String
    /// The URL the body was finally served from, after redirects.
    public var finalURL: String
    public var etag: String?
    public var lastModified: String?
    public var contentType: String?
    public var stored: Date
  }

  public static let defaultLimit = 500 * 1024 * 1024
  private static let magic = "gallery-cache 1"

  public var folder: String
  /// Total bytes kept at most.
  public var limit: Int

  public init(folder: String = DownloadCache.defaultFolder, limit: Int = DownloadCache.configuredLimit) {
    self.folder = folder
    self.limit = limit
  }

  public static var defaultFolder: String { XDGDirectory.cache.path + "/gallery/downloads" }

  /// `$GALLERY_CACHE_SIZE` (bytes, or with a K, M or G suffix), else 500 MB.
  public static var configuredLimit: Int {
    ProcessInfo.processInfo.environment["GALLERY_CACHE_SIZE"].flatMap(ByteCount.parse) ?? defaultLimit
  }

  func path(for url: String) -> String { folder + "/" + name(for: url) }

  private func name(for url: String) -> String { String(contentHash(of: Data(url.utf8)).dropFirst("sha256:".count)) }

  /// A cached copy: its entry, read at once, and its body, read only when wanted (a changed
  /// image needs only the entry's validators). The open file keeps reading the copy that was
  /// looked up even if another process replaces it meanwhile.
  public struct CachedCopy {
    public var entry: Entry
    let file: FileHandle
    let bodyOffset: UInt64
    let length: Int

    /// The body, or nil when the file is shorter than its header says.
    public func body() -> Data? {
      guard (try? file.seek(toOffset: bodyOffset)) != nil, let data = try? file.readToEnd() ?? Data(),
        data.count == length
      else { return nil }
      return data
    }
  }

  /// Room for the two header lines: the JSON holds a URL, two validators and a type.
  private static let headerLimit = 64 * 1024

  /// The cached copy for a URL, if any (an unreadable or foreign file is a miss).
  public func lookup(_ url: String) -> CachedCopy? {
    guard let file = FileHandle(forReadingAtPath: path(for: url)),
      let prefix = try? file.read(upToCount: Self.headerLimit),
      let newline = prefix.firstIndex(of: UInt8(ascii: "\n")),
      String(decoding: prefix[..<newline], as: UTF8.self) == Self.magic
    else { return nil }
    let rest = prefix[(newline + 1)...]
    guard let end = rest.firstIndex(of: UInt8(ascii: "\n")),
      let header = try? JSONSerialization.jsonObject(with: Data(rest[..<end])) as? [String: Any],
      let storedURL = header["url"] as? String, storedURL == url,
      let length = header["length"] as? Int
    else { return nil }
    let entry = Entry(
      url: storedURL, finalURL: header["finalURL"] as? String ?? storedURL,
      etag: header["etag"] as? String, lastModified: header["lastModified"] as? String,
      contentType: header["contentType"] as? String,
      stored: Date(timeIntervalSince1970: header["stored"] as? Double ?? 0))
    return CachedCopy(entry: entry, file: file, bodyOffset: UInt64(end - prefix.startIndex + 1), length: length)
  }

  /// Stores a body (unless it alone is over the limit). The caller evicts (`evict()`) once
  /// it has stored what it downloads, rather than listing the folder for every body.
  public func store(_ entry: Entry, body: Data) {
    guard body.count <= limit else { return }
    var header: [String: Any] = [
      "url": entry.url, "finalURL": entry.finalURL, "length": body.count,
      "stored": entry.stored.timeIntervalSince1970,
    ]
    header["etag"] = entry.etag
    header["lastModified"] = entry.lastModified
    header["contentType"] = entry.contentType
    guard let json = try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]) else { return }
    var file = Data(Self.magic.utf8)
    file.append(UInt8(ascii: "\n"))
    file.append(json)
    file.append(UInt8(ascii: "\n"))
    file.append(body)
    // A cache that cannot be written is no reason to fail a drop.
    files.store(file, as: name(for: entry.url))
  }

  /// Marks an entry as just used.
  public func touch(_ url: String) { files.touch(name(for: url)) }

  public typealias Usage = CacheUsage

  public func usage() -> Usage { files.usage() }

  /// Removes least recently used entries until the total is within the limit.
  @discardableResult
  public func evict(to limit: Int? = nil) -> Usage { files.evict(to: limit) }

  /// Removes every entry (and temporary files of writers that died).
  @discardableResult
  public func clear() -> Usage { evict(to: -1) }

  private var files: CacheFolder { CacheFolder(path: folder, limit: limit) }
}

/// Byte counts as people write them: `500M`, `2G`, `1048576`.
public enum ByteCount {
  /// The largest size accepted anywhere (a cache, a download limit): 1 TiB.
  public static let ceiling = 1 << 40

  /// "50M", "1.5G", "2048", "200 MiB" -> bytes; nil for anything else, negative, not
  /// finite, or over `ceiling` (so `1e300G` and `infG` are refused, not trapped on).
  public static func parse(_ text: String) -> Int? {
    let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
      .replacingOccurrences(of: "IB", with: "").replacingOccurrences(of: "B", with: "")
      .trimmingCharacters(in: .whitespaces)
    let units: [Character: Double] = ["K": 1024, "M": 1024 * 1024, "G": 1024 * 1024 * 1024, "T": 1024 * 1024 * 1024 * 1024]
    var number = Substring(trimmed)
    var unit = 1.0
    if let last = number.last, let scale = units[last] {
      unit = scale
      number = Substring(number.dropLast().trimmingCharacters(in: .whitespaces))
    }
    // Digits and one dot only: no "inf", "nan", exponents or signs.
    guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
      number.filter({ $0 == "." }).count <= 1, let value = Double(number), value.isFinite
    else { return nil }
    let bytes = value * unit
    guard bytes.isFinite, bytes >= 0, bytes <= Double(ceiling) else { return nil }
    return Int(bytes)
  }
}
