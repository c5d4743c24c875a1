import Foundation
import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem

/// What a drop folder has imported already (path, size, modification time, hash), so that a
/// restart imports only what arrived while the watcher was not running. An append-only
/// file of tab-separated lines under `$XDG_STATE_HOME/gallery/watch/`; a torn last line is
/// ignored. Under `--then move:` or `--then delete`, files no longer in the folder are
/// forgotten once they are most of its lines (`forget(allBut:)`), so that a folder whose
/// imports leave it for years keeps a memory the size of what it holds. It is named by the
/// folder and the document, and renamed with either (its paths too, for the folder).
final class ImportMemory {
  struct Record: Equatable {
    var size: Int64
    var modified: Int64
    var hash: String

    /// Its line in the file.
    func line(_ path: String) -> String { "\(path)\t\(size)\t\(modified)\t\(hash)\n" }
  }

  /// The folder and document it is kept for, and where.
  private var pair: DropFolder
  private let stateFolder: String?
  private(set) var file: String
  private(set) var records: [String: Record] = [:]
  /// The lines of the file: one per import, a path imported again leaves its old line.
  private(set) var lines = 0
  /// Below this many lines the file is left to grow.
  static let forgetFloor = 1000

  init(for pair: DropFolder, stateFolder: String? = nil) {
    self.pair = pair
    self.stateFolder = stateFolder
    file = Self.stateFile(for: pair, stateFolder: stateFolder, extension: "tsv")
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return }
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard fields.count == 4, let size = Int64(fields[1]), let modified = Int64(fields[2]), fields[3].hasPrefix("sha256:")
      else { continue }
      records[String(fields[0])] = Record(size: size, modified: modified, hash: String(fields[3]))
      lines += 1
    }
  }

  /// A file of what is kept for the pair (`tsv`: this memory; `trace`: `DocumentTrace`),
  /// named by the folder and the document as the pair gives them.
  static func stateFile(for pair: DropFolder, stateFolder: String?, extension: String) -> String {
    let state = stateFolder ?? XDGDirectory.state.path
    let key = contentHash(of: Data((pair.folder + "\n" + pair.document).utf8)).dropFirst(7).prefix(16)
    return state + "/gallery/watch/\(key).\(`extension`)"
  }

  /// What is kept for the pair follows it to `renamed` (its document or its folder
  /// renamed), unless the new pair has its own already: the memory, so that a watcher
  /// started under the new names does not hash every file of the folder again (its paths
  /// below a renamed folder now below the new one); and the document's trace, copied, so
  /// that one started under either finds them (see `DocumentTrace`).
  static func follow(_ pair: DropFolder, to renamed: DropFolder, stateFolder: String?) {
    let from = stateFile(for: pair, stateFolder: stateFolder, extension: "tsv")
    let to = stateFile(for: renamed, stateFolder: stateFolder, extension: "tsv")
    guard from != to else { return }
    if renamed.folder == pair.folder {
      try? FileSystem.renameWithoutReplacing(from, to: to)
    } else if FileSystem.linkStatus(of: to) == nil {
      let below = pair.folder + "/"
      func moved(_ path: String) -> String {
        path.hasPrefix(below) ? renamed.folder + "/" + path.dropFirst(below.count) : path
      }
      let records = ImportMemory(for: pair, stateFolder: stateFolder).records
      let rewritten = Dictionary(records.map { (moved($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
      if !records.isEmpty, write(rewritten, to: to) { _ = FileSystem.remove(from) }
    }
    if DocumentTrace.load(for: renamed, stateFolder: stateFolder) == nil {
      DocumentTrace.load(for: pair, stateFolder: stateFolder)?.save(for: renamed, stateFolder: stateFolder)
    }
  }

  /// Writes `records` as the whole of `file`, atomically; false when it could not.
  private static func write(_ records: [String: Record], to file: String) -> Bool {
    let text = records.map { $0.value.line($0.key) }.joined()
    return (try? FileSystem.writeAtomically(Data(text.utf8), to: file, mode: 0o600)) != nil
  }

  /// The document is named `document` now (renamed while the watcher runs): the memory
  /// follows it, as the configuration files that name it do.
  func follow(document: String) {
    guard document != pair.document else { return }
    Self.follow(pair, to: DropFolder(folder: pair.folder, document: document), stateFolder: stateFolder)
    pair.document = document
    file = Self.stateFile(for: pair, stateFolder: stateFolder, extension: "tsv")
  }

  /// Forgets the files that are gone (not in `present`, the folder's files as listed now,
  /// and no longer there when looked for), rewriting the file, once they are most of its
  /// lines. Only what is in the folder is ever looked up; a file that cannot be looked at
  /// now (a folder unreadable for a moment) is kept, or it would be imported again.
  func forget(allBut present: [String]) {
    guard lines > Self.forgetFloor else { return }
    let present = Set(present)
    let kept = records.filter { present.contains($0.key) || !Self.isGone($0.key) }
    guard kept.count * 2 < lines, Self.write(kept, to: file) else { return }
    records = kept
    lines = kept.count
  }

  func contains(path: String, size: Int64, modified: Int64) -> Bool {
    guard let record = records[path] else { return false }
    return record.size == size && record.modified == modified
  }

  private static func isGone(_ path: String) -> Bool {
    do {
      _ = try FileSystem.statusOrError(of: path)
      return false
    } catch {
      return error.errno == ENOENT || error.errno == ENOTDIR
    }
  }

  func remember(_ entries: [(path: String, record: Record)]) {
    guard !entries.isEmpty else { return }
    try? FileManager.default.createDirectory(
      atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    var text = ""
    for (path, record) in entries where !path.contains("\n") && !path.contains("\t") {
      records[path] = record
      lines += 1
      text += record.line(path)
    }
    guard let handle = try? FileHandleFD(path: file, flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o600) else { return }
    try? handle.writeAll(Data(text.utf8))
  }
}
