import Foundation
import GalleryKit
import Testing

@Suite("gallery.json: the model's own JSON codec")
struct ModelJSONTests {
  func sample() -> GalleryModel {
    var model = GalleryModel(title: "Tricky \"title\" \\ with \u{7} bell, tab\t, é, 日本, 🖼️", now: Date(timeIntervalSince1970: 1_700_000_000))
    var ready = Item.placeholder(id: "abcdef", source: "file:///tmp/a%20b.jpg", now: Date(timeIntervalSince1970: 1_700_000_100))
    ready.state = .ready
    ready.placeholder = nil
    ready.aspectRatio = 4.0 / 3.0
    ready.width = 4000
    ready.height = 3000
    ready.hash = "sha256:" + String(repeating: "ab", count: 32)
    ready.thumbnail = "thumbnails/abcdef.jpg"
    ready.page = "https://example.invalid/page?q=1&r=/x"
    let pending = Item.placeholder(id: "ghjkmn", source: "https://example.invalid/i.png", now: Date(timeIntervalSince1970: 1_700_000_200))
    var failed = pending.failed(because: "HTTP 404 \"Not Found\"\n")
    failed.id = "pqrstu"  // ids are unique across items and trash
    model.items = [ready, pending]
    model.trash = [TrashedItem(item: failed, trashed: Date(timeIntervalSince1970: 1_700_000_300), position: 2)]
    model.revision = 7
    model.settings.keepFailed = true
    return model
  }

  @Test("Round trip, and Foundation's Codable reads what it writes and writes what it reads")
  func roundTrip() throws {
    let model = sample()
    let data = ModelCoding.encode(model)
    #expect(try ModelCoding.decode(data) == model)

    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    #expect(try decoder.decode(GalleryModel.self, from: data) == model)
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.prettyPrinted]
    #expect(try ModelCoding.decode(try encoder.encode(model)) == model)
  }

  @Test("Escapes, surrogate pairs, fractional seconds, offsets and unknown members are read")
  func readsWhatOthersWrite() throws {
    let text = #"""
      {"format":1,"title":"caf\u00e9 \ud83d\uddbc \/ ok","created":"2026-01-02T03:04:05.250+01:00",
       "modified":"2026-01-02T03:04:05Z","revision":1,"future":{"a":[1,2,{"b":null}]},
       "settings":{"thumbnailSize":128,"maxPixels":1e6,"keepFailed":false},
       "items":[],"trash":[]}
      """#
    let model = try ModelCoding.decode(Data(text.utf8))
    #expect(model.title == "café 🖼 / ok")
    #expect(model.created.timeIntervalSince1970 == 1_767_319_445.25)
    #expect(model.settings.thumbnailSize == 128)
    #expect(model.settings.maxPixels == 1_000_000)
  }

  @Test("Malformed JSON is an error, never a partial model", arguments: [
    "", "{", "[]", #"{"format":1}"#, #"{"format":1,"title":"x","created":"yesterday","modified":"2026-01-02T03:04:05Z","revision":0,"settings":{},"items":[],"trash":[]}"#,
    #"{"format":1,"title":"x\u0001","created":"2026-01-02T03:04:05Z","modified":"2026-01-02T03:04:05Z","revision":0,"settings":{},"items":[{"id":"a"}],"trash":[]}"#,
    #"{"format":1,"title":"x","created":"2026-01-02T03:04:05Z","modified":"2026-01-02T03:04:05Z","revision":0,"settings":{},"items":[],"trash":[]} trailing"#,
  ])
  func malformed(_ text: String) {
    #expect(throws: (any Error).self) { try ModelCoding.decode(Data(text.utf8)) }
  }
}
