import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

#if canImport(Glibc)
  import Glibc
#endif

/// What the fuzz targets (`Sources/gallery-fuzz`) run on each input: the readers of
/// everything that comes from outside, from bytes, with the properties that must hold for
/// any input checked by `precondition` (a violation is a crash libFuzzer reports).
enum FuzzEntryPoints {
  /// A `.gallery` file's bytes: scan, decode, validate; every entry of the last revision
  /// read; and whatever opens must write back to a model that reads again the same.
  static func document(_ data: Data, scratch: String) {
    guard let file = try? FileHandleFD(path: scratch, flags: O_RDWR | O_CREAT | O_TRUNC, mode: 0o600) else { return }
    guard (try? file.writeAll(data)) != nil else { return }
    guard let layout = try? DocumentArchive.scan(file) else { return }
    for (name, location) in layout.entries { _ = try? DocumentArchive.read(location, named: name, from: file) }
    // Opened through its trailer and index (as every command opens it), a hostile file may
    // read otherwise than scanned whole (`gallery check` says so), but obeys every rule.
    if let opened = try? DocumentArchive.open(file), opened.readThroughIndex { checkRoundTrip(opened.model) }
    // A model rebuilt from a checkpoint and journal records obeys every rule, like one read
    // whole; the history reads back, and every past revision it claims can be rebuilt.
    checkRoundTrip(layout.model)
    // A scan decodes every record it keeps; opened through an index, a record is decoded
    // when needed, and one that decodes then is the one a scan would have read.
    let history = layout.history.readableRecords
    precondition(history.count == layout.history.count, "a scanned history holds a record that does not decode")
    if let opened = try? DocumentArchive.open(file), opened.readThroughIndex {
      for record in opened.history.readableRecords { checkRoundTrip(record) }
    }
    for record in history { checkRoundTrip(record) }
    _ = UndoStack(history)
    let oldest = ModelHistory.oldest(layout.model, history)
    if oldest < layout.model.revision {
      precondition(
        (try? ModelHistory.model(at: oldest, from: layout.model, history: history)) != nil,
        "a past revision within the history cannot be rebuilt")
    }
    precondition(layout.revisionEnd <= layout.fileSize, "a revision ends past the end of the file")
    precondition(layout.damage == nil || layout.tornBytes == 0, "a damaged document must never be cut")
  }

  /// `gallery.json` or journal record bytes: decode and validate; what is accepted must
  /// round-trip, and a record applied to an empty model (as undo and redo apply one to a
  /// model it was not made on) leaves a model that obeys every rule.
  static func model(_ data: Data) {
    if let model = try? ModelCoding.decode(data) { checkRoundTrip(model) }
    guard let record = try? JournalCoding.decode(data) else { return }
    checkRoundTrip(record)
    // What opening reads of a record without decoding it agrees with the record decoded.
    precondition((try? JournalCoding.decodePlace(data)) == record.place, "a record's place reads otherwise than the record")
    var listed = record
    listed.change = ModelChange()
    precondition((try? JournalCoding.decodeWithoutChange(data)) == listed, "a record read without its change differs")
    precondition(JournalCoding.namedIDs(data).isSuperset(of: record.change.keys), "a record's ids read without decoding miss one")
    for change in [record.change, record.change.reversed] {
      var model = GalleryModel(title: "fuzz")
      _ = change.apply(to: &model)
      precondition(ModelValidation.problems(of: model).isEmpty, "a record applied to a model leaves it breaking a rule")
    }
  }

  private static func checkRoundTrip(_ record: JournalRecord) {
    let bytes = JournalCoding.encode(record)
    guard let again = try? JournalCoding.decode(bytes) else {
      preconditionFailure("a journal record that was read cannot be read back after writing it")
    }
    precondition(again == record, "writing a journal record that was read back changes it")
  }

  /// Standard input of `gallery drop DOC -` (or a pasted clipboard): a gallery payload or a
  /// uri-list. A payload that is accepted holds only valid items.
  static func dropInput(_ data: Data) {
    do {
      if let payload = try DragPayload.decode(data) {
        for entry in payload.items {
          precondition(ModelValidation.problems(of: entry.item).isEmpty, "an accepted payload holds an invalid item")
        }
        return
      }
    } catch {
      return
    }
    let text = String(decoding: data, as: UTF8.self)
    for line in DropSourceParser.uriList(text) {
      precondition(!line.contains("\n") && !line.contains("\r"), "a uri-list entry spans lines")
      if case .success(let source) = DropSourceParser.source(for: line, checkingFiles: false), source.isWeb {
        precondition(source.url.hasPrefix("http://") || source.url.hasPrefix("https://"), "a web source that is not http(s)")
      }
    }
  }

  /// A dropped JPEG through libjpeg alone: its header, its scans counted, its thumbnail. A
  /// thumbnail made is one libjpeg reads back, of the size said and within the box. What
  /// photo tools wrote in it (XMP, IPTC-IIM; a TIFF's too, as a seed is) is only ever what the
  /// model keeps.
  static func jpeg(_ data: Data) {
    if let words = PhotoXMP.embedded(in: data) {
      precondition(words.tags.allSatisfy(ModelValidation.isTag), "a tag the model refuses")
      precondition(words.caption.map { ModelValidation.isLine($0, limit: ModelValidation.Limits.captionBytes) } ?? true)
    }
    guard let header = PlainJPEG.header(of: data) else { return }
    precondition((1...8).contains(header.orientation), "an EXIF orientation out of range")
    // Large images decode slowly even when their data is missing: bounded as --max-pixels
    // would bound them, smaller for the fuzzer's sake.
    guard header.plain, header.width * header.height <= 1 << 22, (try? PlainJPEG.checkScans(data)) != nil,
      let thumbnail = try? PlainJPEG.thumbnail(of: data, box: 32, quality: 50)
    else { return }
    let back = PlainJPEG.header(of: thumbnail.data)
    precondition(back?.width == thumbnail.width && back?.height == thumbnail.height, "a thumbnail's size is not the one said")
    precondition((1...32).contains(thumbnail.width) && (1...32).contains(thumbnail.height), "a thumbnail outside its box")
  }

  private static func checkRoundTrip(_ model: GalleryModel) {
    precondition(ModelValidation.problems(of: model).isEmpty, "an opened model breaks a rule")
    let bytes = ModelCoding.encode(model)
    guard let again = try? ModelCoding.decode(bytes) else {
      preconditionFailure("a model that was read cannot be read back after writing it")
    }
    precondition(ModelCoding.encode(again) == bytes, "writing a model that was read back changes it")
  }
}
