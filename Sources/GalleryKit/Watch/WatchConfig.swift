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
  ) -> Followed {
    follow(.document, renameOf: old, to: new, also: also, stateFolder: stateFolder)
  }

  /// The same for a drop folder renamed: the lines whose folder is `old` name `new`.
  @discardableResult
  package static func follow(
    renameOfFolder old: String, to new: String, also: String? = nil, stateFolder: String? = nil
  ) -> Followed {
    follow(.folder, renameOf: old, to: new, also: also, stateFolder: stateFolder)
  }

  /// The side of a `DIR:DOC` pair that was renamed.
  enum Side {
    case folder, document
  }

  private static func follow(
    _ side: Side, renameOf old: String, to new: String, also: String?, stateFolder: String?
  ) -> Followed {
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
      switch rewrite(file, text: renaming(side, old, to: new, in: text)) {
      case .some(true):
        followed.rewritten.append(file)
        let new = XDGDirectory.standardized(new)
        for pair in pairs(side, naming: old, in: text) {
          let renamed =
            side == .document
            ? DropFolder(folder: pair.folder, document: new) : DropFolder(folder: new, document: pair.document)
          ImportMemory.follow(pair, to: renamed, stateFolder: stateFolder)
        }
      case .some(false): followed.unwritable.append(file)
      case nil: break
      }
    }
    return followed
  }

  /// The pairs of `text` whose document (or folder) is `old`.
  static func pairs(_ side: Side, naming old: String, in text: String) -> [DropFolder] {
    let old = XDGDirectory.standardized(old)
    return text.split(separator: "\n").compactMap { pair(in: $0, side, naming: old) }
  }

  /// The pair of a line of a configuration file, when its document (or folder) is `old`
  /// (standardized).
  private static func pair(in line: Substring, _ side: Side, naming old: String) -> DropFolder? {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    guard !trimmed.hasPrefix("#"), let pair = DropFolder(pair: trimmed),
      XDGDirectory.standardized(side == .document ? pair.document : pair.folder) == old
    else { return nil }
    return pair
  }

  /// `text` with every pair whose document is `old` naming `new` instead, or nil when no
  /// pair names `old`. Comments, other pairs and line ends stay as they were.
  public static func renaming(_ old: String, to new: String, in text: String) -> String? {
    renaming(.document, old, to: new, in: text)
  }

  /// `text` with every pair whose document (or folder) is `old` naming `new` instead.
  static func renaming(_ side: Side, _ old: String, to new: String, in text: String) -> String? {
    let old = XDGDirectory.standardized(old)
    let new = XDGDirectory.standardized(new)
    // A line break in the new name would end the line, and a colon in a document's name
    // would be taken for the pair's last one (a folder's may hold colons): such a name is
    // not written.
    guard !new.contains("\n"), side == .folder || !new.contains(":") else { return nil }
    var changed = false
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
      guard pair(in: line, side, naming: old) != nil, let colon = line.lastIndex(of: ":") else { return String(line) }
      changed = true
      switch side {
      case .document: return line[...colon] + new
      case .folder:
        let start = line.firstIndex { !$0.isWhitespace } ?? line.startIndex
        return line[..<start] + new + line[colon...]
      }
    }
    return changed ? lines.joined(separator: "\n") : nil
  }

  /// True when `file` was rewritten with `text`, false when it could not be, nil when there
  /// is nothing to rewrite (it names no such document or folder). (A file that cannot be
  /// read is not ours to report.)
  private static func rewrite(_ file: String, text: String?) -> Bool? {
    guard let text else { return nil }
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
