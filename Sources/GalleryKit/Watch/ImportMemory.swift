import Foundation
import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem

/// What a drop folder has imported already (path, size, modification time, hash), so that a
/// restart imports only what arrived while the watcher was not running. An append-only
/// file of tab-separated lines under `$XDG_STATE_HOME/gallery/watch/`; a torn last line is
/// ignored.
final class ImportMemory {
  struct Record: Equatable {
    var size: Int64
    var modified: Int64
    var hash: String
  }

  let file: String
  private(set) var records: [String: Record] = [:]

  init(for pair: DropFolder, stateFolder: String? = nil) {
    let state = stateFolder ?? XDGDirectory.state.path
    let key = contentHash(of: Data((pair.folder + "\n" + pair.document).utf8)).dropFirst(7).prefix(16)
    file = state + "/gallery/watch/\(key).tsv"
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return }
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard fields.count == 4, let size = Int64(fields[1]), let modified = Int64(fields[2]), fields[3].hasPrefix("sha256:")
      else { continue }
      records[String(fields[0])] = Record(size: size, modified: modified, hash: String(fields[3]))
    }
  }

  func contains(path: String, size: Int64, modified: Int64) -> Bool {
    guard let record = records[path] else { return false }
    return record.size == size && record.modified == modified
  }

  func remember(_ entries: [(path: String, record: Record)]) {
    guard !entries.isEmpty else { return }
    try? FileManager.default.createDirectory(
      atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    var text = ""
    for (path, record) in entries where !path.contains("\n") && !path.contains("\t") {
      records[path] = record
      text += "\(path)\t\(record.size)\t\(record.modified)\t\(record.hash)\n"
    }
    guard let handle = try? FileHandleFD(path: file, flags: O_WRONLY | O_CREAT | O_APPEND) else { return }
    try? handle.writeAll(Data(text.utf8))
  }
}
