import Foundation
import GalleryDocument
import GallerySystem

/// Drop folders' configuration files (`DIR:DOC` lines, see `DropFolder.parseList`) follow a
/// document that is renamed: `gallery rename`, the view, or a file manager while a watcher
/// runs. Otherwise the next watcher started from them (the unit, at the next login) finds no
/// document and stops, and what arrives in the folder waits there.
///
/// A line whose document is the renamed one names the new path (absolute); every other byte
/// of the file stays as it was.
public enum WatchConfig {
  /// Where `gallery watch` and its unit read configuration files: each `*.conf` in
  /// `$XDG_CONFIG_HOME/gallery` (`watch.conf` by default).
  public static var folder: String { XDGDirectory.config.path + "/gallery" }

  /// The configuration files that `follow` rewrote, and those it could not.
  public struct Followed: Sendable, Equatable {
    public var rewritten: [String] = []
    public var unwritable: [String] = []
  }

  /// Rewrites the lines naming `old` in each configuration file of `folder` and in `also`
  /// (a `--config` file elsewhere): they name `new`. Under a lock on the folder, so that
  /// two processes following two renames at once keep both. What the watchers of the
  /// rewritten pairs remember (see `ImportMemory`) follows too, in `stateFolder`
  /// (`$XDG_STATE_HOME` by default).
  @discardableResult
  public static func follow(
    renameOf old: String, to new: String, also: String? = nil, stateFolder: String? = nil
  )
    -> Followed
  {
    var followed = Followed()
    let lock = try? FileHandleFD(path: folder, flags: O_RDONLY | O_DIRECTORY)
    try? lock?.lockExclusive()
    defer { withExtendedLifetime(lock) {} }
    let names = (try? FileSystem.entries(of: folder)) ?? []
    // `also` may be one of them: rewritten once, the second look finds nothing to change.
    let files = names.filter { $0.hasSuffix(".conf") && !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
    for file in files + (also.map { [$0] } ?? []) {
      // As bytes: a folder's name need not be UTF-8 (see PathBytes).
      guard let text = (try? FileSystem.read(file, limit: 1 << 20)).map(PathBytes.string) else { continue }
      switch rewrite(file, text: text, renaming: old, to: new) {
      case .some(true):
        followed.rewritten.append(file)
        for pair in pairs(naming: old, in: text) {
          ImportMemory.follow(pair, to: XDGDirectory.standardized(new), stateFolder: stateFolder)
        }
      case .some(false): followed.unwritable.append(file)
      case nil: break
      }
    }
    return followed
  }

  /// The pairs of `text` whose document is `old`.
  static func pairs(naming old: String, in text: String) -> [DropFolder] {
    let old = XDGDirectory.standardized(old)
    return text.split(separator: "\n").compactMap { pair(in: $0, naming: old) }
  }

  /// The pair of a line of a configuration file, when its document is `old` (standardized).
  private static func pair(in line: Substring, naming old: String) -> DropFolder? {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    guard !trimmed.hasPrefix("#"), let pair = DropFolder(pair: trimmed), XDGDirectory.standardized(pair.document) == old
    else { return nil }
    return pair
  }

  /// `text` with every pair whose document is `old` naming `new` instead, or nil when no
  /// pair names `old`. Comments, other pairs and line ends stay as they were.
  public static func renaming(_ old: String, to new: String, in text: String) -> String? {
    let old = XDGDirectory.standardized(old)
    let new = XDGDirectory.standardized(new)
    // A line break in the new name would end the line: such a name is not written.
    guard !new.contains("\n") else { return nil }
    var changed = false
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
      guard pair(in: line, naming: old) != nil, let colon = line.lastIndex(of: ":") else { return String(line) }
      changed = true
      return line[...colon] + new
    }
    return changed ? lines.joined(separator: "\n") : nil
  }

  /// True when `file` (whose text is `text`) was rewritten, false when it could not be, nil
  /// when it names no such document. (A file that cannot be read is not ours to report.)
  private static func rewrite(_ file: String, text: String, renaming old: String, to new: String) -> Bool? {
    guard let text = renaming(old, to: new, in: text) else { return nil }
    // A link (a configuration kept with the user's other dotfiles) stays one.
    let target = FileSystem.resolvingLinks(file)
    let mode = FileSystem.status(of: target).map { $0.st_mode & 0o7777 } ?? 0o644
    do { try FileSystem.writeAtomically(Data(PathBytes.bytes(text)), to: target, mode: mode) } catch { return false }
    return true
  }
}

extension DocumentFiles {
  /// Renames a document (`rename`), and what names it with it: the recent documents and
  /// the drop folders' configuration files (`WatchConfig`). Returns what became of those.
  @discardableResult
  public static func renameFollowed(_ path: String, to target: String) throws -> WatchConfig.Followed {
    try rename(path, to: target)
    RecentDocuments.forget(path)
    RecentDocuments.note(target)
    return WatchConfig.follow(renameOf: path, to: target)
  }
}
