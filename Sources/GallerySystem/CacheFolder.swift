import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A folder of cache files bounded in total size: the least recently used go first. A file
/// is written under a temporary name and renamed (another process reads the old file or
/// the new one, never a mix), and its modification time is its last use. Nothing is
/// fsynced: a file lost to a crash is made again.
package struct CacheFolder: Sendable {
  package var path: String
  /// Total bytes kept at most.
  package var limit: Int

  package init(path: String, limit: Int) {
    self.path = path
    self.limit = limit
  }

  package typealias Usage = CacheUsage

  /// Writes `data` as the file `name` (unless it alone is over the limit); false when it
  /// could not be written, which is no reason for anything else to fail.
  @discardableResult
  package func store(_ data: Data, as name: String) -> Bool {
    guard data.count <= limit else { return false }
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let target = path + "/" + name
    let temporary = FileSystem.temporaryName(beside: target)
    guard FileManager.default.createFile(atPath: temporary, contents: data) else { return false }
    do { try FileSystem.rename(temporary, to: target) } catch {
      FileSystem.remove(temporary)
      return false
    }
    return true
  }

  /// Marks the file `name` as just used.
  package func touch(_ name: String) { FileSystem.touch(path + "/" + name) }

  package func usage() -> Usage {
    let files = entries()
    return Usage(entries: files.count, bytes: files.reduce(0) { $0 + $1.size })
  }

  /// Removes least recently used files until the total is within `limit` (this cache's
  /// own by default); what it removed.
  @discardableResult
  package func evict(to limit: Int? = nil) -> Usage {
    let limit = limit ?? self.limit
    var files = entries().sorted { $0.used < $1.used }
    var total = files.reduce(0) { $0 + $1.size }
    var removed = Usage(entries: 0, bytes: 0)
    while total > limit, !files.isEmpty {
      let oldest = files.removeFirst()
      if FileSystem.remove(oldest.path) {
        total -= oldest.size
        removed.entries += 1
        removed.bytes += oldest.size
      }
    }
    return removed
  }

  private func entries() -> [(path: String, size: Int, used: Date)] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return [] }
    return names.compactMap { name in
      let file = path + "/" + name
      guard let info = FileSystem.status(of: file), (info.st_mode & S_IFMT) == S_IFREG else { return nil }
      // Another writer's temporary file is left alone unless it is an hour old.
      if name.hasPrefix("."), Date().timeIntervalSince1970 - Double(info.st_mtim.tv_sec) < 3600 { return nil }
      let used = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
      return (file, Int(info.st_size), used)
    }
  }
}

/// How many files a cache holds, and their bytes.
public struct CacheUsage: Sendable, Equatable {
  public var entries: Int
  public var bytes: Int
  public init(entries: Int, bytes: Int) {
    self.entries = entries
    self.bytes = bytes
  }
}
