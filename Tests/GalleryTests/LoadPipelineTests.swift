import Foundation
import GalleryTestSupport
import Synchronization
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryKit
@testable import GalleryModel
@testable import GallerySystem

/// The drop's commit schedule, as a value driven by a manual clock: no process, no sleep.
@Suite("The load pipeline: when outcomes are saved, and cancellation")
struct LoadPipelineTests {
  static let start = ContinuousClock.now
  static let image = try! ImageProcessor.process(try! FixtureImage.make(width: 40, height: 30, format: .jpeg), options: .init())

  func at(_ milliseconds: Int) -> ContinuousClock.Instant { Self.start + .milliseconds(milliseconds) }

  @Test("Outcomes wait for the placeholders' save until it takes them, in source order; later ones are not kept")
  func earlyOutcomes() {
    let early = EarlyOutcomes()
    #expect(early.offer(2, .loaded(Self.image)))
    #expect(early.offer(0, .failed(DropFailure(source: "a", reason: "not an image"))))
    #expect(early.offer(1, .cancelled))
    #expect(early.take().map(\.index) == [0, 1, 2])
    #expect(!early.offer(3, .loaded(Self.image)))
    #expect(early.take().isEmpty)
  }

  @Test("Outcomes the placeholders' save committed count as arrived; after images, nothing is a lost cause")
  func settledEarlier() {
    var batch = CommitBatch(count: 3, spacing: .seconds(60), start: at(0))
    batch.settledEarlier(2, committingAny: false)
    #expect(batch.arrived == 2 && batch.next(now: at(1)) == .wait)
    batch.record(2, .failed(DropFailure(source: "c", reason: "HTTP 404 Not Found")))
    #expect(batch.next(now: at(1)) == .finish && batch.isLostCause(keepFailed: false))
    var committed = CommitBatch(count: 3, spacing: .seconds(60), start: at(0))
    committed.settledEarlier(2, committingAny: true)
    committed.record(2, .failed(DropFailure(source: "c", reason: "HTTP 404 Not Found")))
    #expect(committed.next(now: at(1)) == .finish && !committed.isLostCause(keepFailed: false))
  }

  @Test("Loaded images wait for the spacing after the placeholders, then are saved together")
  func spacing() {
    var batch = CommitBatch(count: 4, spacing: .milliseconds(500), start: at(0))
    #expect(batch.next(now: at(10)) == .wait)
    batch.record(2, .loaded(Self.image))
    #expect(batch.next(now: at(100)) == .commit(at: at(500)))
    batch.record(0, .loaded(Self.image))
    #expect(batch.next(now: at(499)) == .commit(at: at(500)))
    #expect(batch.next(now: at(500)) == .commitNow)
    let taken = batch.take()
    #expect(taken.loaded.map(\.index) == [0, 2])
    batch.committed(at: at(520))
    // Nothing new: nothing to save; the next batch is due a spacing after the last save.
    #expect(batch.next(now: at(600)) == .wait)
    batch.record(1, .loaded(Self.image))
    #expect(batch.next(now: at(600)) == .commit(at: at(1020)))
  }

  @Test("Failures and cancellations wait for loaded images or the end, so an all-failed drop can be taken back")
  func failuresWait() {
    var batch = CommitBatch(count: 3, spacing: .milliseconds(50), start: at(0))
    batch.record(0, .failed(DropFailure(source: "a", reason: "not an image")))
    batch.record(1, .cancelled)
    #expect(batch.next(now: at(10_000)) == .wait)
    batch.record(2, .failed(DropFailure(source: "c", reason: "HTTP 404 Not Found")))
    #expect(batch.next(now: at(10_000)) == .finish)
    #expect(batch.isLostCause(keepFailed: false))
    #expect(!batch.isLostCause(keepFailed: true))
    let taken = batch.take()
    #expect(taken.failed.map(\.failure.source) == ["a", "c"])
    #expect(taken.cancelled == [1])
    #expect(batch.take().failed.isEmpty)
  }

  @Test("The last outcome finishes at once, whatever the time; after a save nothing is a lost cause")
  func finishAtOnce() {
    var batch = CommitBatch(count: 2, spacing: .seconds(60), start: at(0))
    batch.record(0, .loaded(Self.image))
    #expect(batch.next(now: at(1)) == .commit(at: at(60_000)))
    _ = batch.take()
    batch.committed(at: at(2))
    batch.record(1, .failed(DropFailure(source: "b", reason: "x")))
    #expect(batch.next(now: at(3)) == .finish)
    #expect(!batch.isLostCause(keepFailed: false))
  }

  @Test("A drop's saves are one to take back, byte for byte, while no other save comes between them")
  func ownSavesTakenBack() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let before = try work.bytes(document)
    func titled(_ title: String) throws -> SaveMark {
      try #require(try GalleryDocument.editRecordingSave(document) { $0.title = title }.save)
    }
    let first = try titled("one")
    let second = try titled("two")
    let both = try #require(first.followed(by: second))
    #expect(both.previousEnd == first.previousEnd && both.end == second.end && both.revision == 2)
    #expect(try GalleryDocument.rollBack(document, both))
    #expect(try work.bytes(document) == before)

    // Another save between them: not the drop's to take back.
    let own = try titled("three")
    _ = try titled("another writer's")
    let later = try titled("four")
    #expect(own.followed(by: later) == nil)
    #expect(try !GalleryDocument.rollBack(document, own))
    #expect(try GalleryDocument.open(document).model.title == "four")
  }

  @Test("A drop whose task is cancelled before it loads anything leaves the document byte for byte as it was")
  func cancelledBeforeLoading() async throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let before = try work.bytes(document)
    let sources = try work.images(6).map { DropSource(given: $0, location: .file(path: $0)) }
    let drop = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await ImageDrop.drop(sources, into: document)
    }
    let report = try await drop.value
    #expect(report.committed.isEmpty)
    #expect(report.cancelled + report.failures.count == 6)
    #expect(try work.bytes(document) == before)
  }

  @Test("Images load while the placeholder save waits for another writer's lock, and are committed once it has")
  func loadsWhileTheSaveWaits() async throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let before = try work.bytes(document)
    let sources = try work.images(6).map { DropSource(given: $0, location: .file(path: $0)) }
    let arrived = Mutex(0)
    let drop: Task<DropReport, any Error>
    do {
      let lock = try DocumentLock(path: document)
      drop = Task {
        try await ImageDrop.drop(sources, into: document) { done, _ in arrived.withLock { $0 = max($0, done) } }
      }
      // Generous: the whole suite running at once can keep this task waiting for minutes.
      let deadline = Date() + 300
      while arrived.withLock({ $0 }) < 6 && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
      #expect(arrived.withLock { $0 } == 6, "the loads waited for the lock")
      #expect(try work.bytes(document) == before)
      withExtendedLifetime(lock) {}
    }
    let report = try await drop.value
    #expect(report.committed.count == 6)
    let opened = try GalleryDocument.open(document)
    #expect(opened.model.items.map(\.id) == report.committed.map(\.id))
    #expect(opened.model.items.allSatisfy { $0.state == .ready })
    // Everything had loaded once the document was open: one save, no placeholder in it.
    #expect(opened.model.revision == 1)
    #expect(try Run.gallery(["undo", document]).status == 0)
    #expect(try GalleryDocument.open(document).model.items.isEmpty)
  }

  @Test("A document opened ahead of a drop and then changed by another process: the drop saves after that change")
  func openedAheadThenChanged() async throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let first = try work.images(3, width: 40, height: 30)
    #expect(try Run.gallery(["drop", document] + first).status == 0)
    let opening = DocumentOpening(document)
    await opening.finished()
    let opened = try GalleryDocument.openLazily(document).model
    // Another process's save after the layout was cached in this one.
    #expect(try Run.gallery(["move", document, "1", "--to", "end"]).status == 0)
    let moved = try GalleryDocument.open(document).model.items.map(\.id)
    #expect(moved == Array(opened.items.map(\.id).dropFirst()) + [opened.items[0].id])
    let sources = try work.images(2, width: 50, height: 30).map { DropSource(given: $0, location: .file(path: $0)) }
    let report = try await ImageDrop.drop(sources, into: document, opening: opening)
    let after = try GalleryDocument.open(document).model
    #expect(after.items.map(\.id) == moved + report.committed.map(\.id))
    #expect(after.items.allSatisfy { $0.state == .ready })
    #expect(try Run.gallery(["check", document]).status == 0)
  }

  @Test("What loaded before the document opened is in the placeholders' save; downloads follow in a save of the same drop")
  func earlyOutcomesInTheFirstSave() async throws {
    let web = try WebSetup()
    let document = web.document
    let local = try web.work.images(3).map { DropSource(given: $0, location: .file(path: $0)) }
    let remote = try (0..<2).map { index in
      let url = try web.image("w\(index).jpg", seed: 7 + index)
      return DropSource(given: url, location: .web(try #require(URL(string: url))))
    }
    // Files load before the save (those before the first web source); downloads after it.
    let sources = local + remote
    var options = DropOptions()
    options.cache = nil
    let arrived = Mutex(0)
    let drop: Task<DropReport, any Error>
    do {
      let lock = try DocumentLock(path: document)
      drop = Task {
        try await ImageDrop.drop(sources, into: document, options: options) { done, _ in
          arrived.withLock { $0 = max($0, done) }
        }
      }
      let deadline = Date() + 300
      while arrived.withLock({ $0 }) < 3 && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
      #expect(arrived.withLock { $0 } == 3, "the files waited for the lock")
      withExtendedLifetime(lock) {}
    }
    let report = try await drop.value
    #expect(report.failures.isEmpty)
    let items = try GalleryDocument.open(document).model.items
    #expect(items.map(\.source) == sources.map(\.url))
    #expect(items.allSatisfy { $0.state == .ready })
    // The first save (r1) held the files as loaded and the downloads as placeholders.
    let first = try Run.program("bsdtar", ["-xOf", document, "journal/0000000001.json"])
    #expect(first.status == 0, "\(first.stderr)")
    func count(_ text: String) -> Int { first.stdout.components(separatedBy: text).count - 1 }
    #expect(count(#""state":"ready""#) == 3 && count(#""state":"placeholder""#) == 2, "\(first.stdout)")
    #expect(first.stdout.contains(#""summary":"drop: 5 images""#))
    // One operation in the history, from r1 to its last commit; r1 shows the drop as loaded.
    let history = try Run.gallery(["history", "--json", document])
    let lines = try #require(try JSONSerialization.jsonObject(with: history.stdoutData) as? [[String: Any]])
    #expect(lines.count == 1 && lines[0]["first"] as? Int == 1 && (lines[0]["revision"] as? Int ?? 0) >= 2)
    let atFirst = try Run.gallery(["show", "--json", "--at", "1", document])
    #expect(atFirst.status == 0 && !atFirst.stdout.contains(#""state":"placeholder""#), "\(atFirst.stdout)")
    // Undo takes the drop back whole, both saves.
    #expect(try Run.gallery(["undo", document]).status == 0)
    #expect(try GalleryDocument.open(document).model.items.isEmpty)
  }

  @Test("A drop loads with the settings its trailer gives; an older or lying trailer sends it to the document")
  func settingsFromTheTrailer() throws {
    let work = try TestWorkspace()
    let document = work.path("settings.gallery")
    var settings = GalleryModel.Settings()
    settings.thumbnailSize = 128
    settings.maxPixels = 5_000_000
    settings.keepFailed = true
    settings.embedOriginals = true
    try GalleryDocument.create(document, settings: settings)
    func trailer() throws -> DocumentSummary {
      try DocumentArchive.trailer(of: try GalleryDocument.openRegularFile(document, flags: O_RDONLY)).summary
    }
    #expect(try trailer().keepFailed == true && trailer().embedOriginals == true)
    #expect(try GalleryDocument.loadingSettings(document) == settings)

    // Changed in the trailer only (the checkpoint's settings stay), in place: bytes of the
    // same length, spaces where a member was.
    func rewriteTrailer(_ member: String, as replacement: String) throws {
      var bytes = try work.bytes(document)
      let range = try #require(bytes.range(of: Data(member.utf8), options: .backwards))
      bytes.replaceSubrange(range, with: Data(replacement.padding(toLength: member.utf8.count, withPad: " ", startingAt: 0).utf8))
      try bytes.write(to: URL(fileURLWithPath: document))
    }
    // The trailer is what is read, not the document: a size only the trailer says.
    try rewriteTrailer(#""thumbnailSize":128"#, as: #""thumbnailSize":256"#)
    #expect(try GalleryDocument.loadingSettings(document).thumbnailSize == 256)
    try rewriteTrailer(#""thumbnailSize":256"#, as: #""thumbnailSize":128"#)
    // As an earlier version wrote it: neither member. The settings come from the document,
    // and `check` finds the trailer describes it still.
    try rewriteTrailer(#""embedOriginals":true,"#, as: "")
    try rewriteTrailer(#""keepFailed":true,"#, as: "")
    #expect(try trailer().keepFailed == nil && trailer().embedOriginals == nil)
    #expect(try GalleryDocument.loadingSettings(document) == settings)
    #expect(try Run.gallery(["check", document]).status == 0)

    // A thumbnail size no document may have: the trailer is refused, the document says.
    try rewriteTrailer(#""thumbnailSize":128"#, as: #""thumbnailSize":9"#)
    #expect(throws: (any Error).self) { try trailer() }
    #expect(try GalleryDocument.loadingSettings(document) == settings)
  }

  @Test("Cancelled during the loads: what loaded is committed, every other placeholder removed")
  func cancelledWhileLoading() async throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let sources = try work.images(24, width: 1600, height: 1200).map { DropSource(given: $0, location: .file(path: $0)) }
    var options = DropOptions()
    options.parallelism = 1
    let drop = Task { try await ImageDrop.drop(sources, into: document, options: options) }
    // Cancel once the placeholders are saved (the document then holds 24 items).
    let deadline = Date() + 30
    while (try? GalleryDocument.open(document).model.items.count) != 24 && Date() < deadline {
      try await Task.sleep(for: .milliseconds(5))
    }
    drop.cancel()
    let report = try await drop.value
    let items = try GalleryDocument.open(document).model.items
    #expect(report.cancelled > 0, "the cancel came too late to show anything")
    #expect(report.committed.count + report.cancelled == 24)
    #expect(items.map(\.id) == report.committed.map(\.id))
    #expect(items.allSatisfy { $0.state == .ready })
  }

  @Test("The cover's thumbnails are known once the dropped images among them have loaded, in the document's order")
  func coverPlan() {
    let stored = Data("stored".utf8)
    #expect(CoverPlan(slots: [.stored(stored)]) == nil, "a drop that does not reach the cover needs none")
    var plan = CoverPlan(slots: [.stored(stored), .dropped(index: 3, thumbnail: nil), .dropped(index: 0, thumbnail: nil)])!
    let thumbnail = Self.image.thumbnail.data
    #expect(plan.record(1, .loaded(Self.image)) == nil, "not on the cover")
    #expect(plan.record(0, .loaded(Self.image)) == nil, "image 3 is still loading")
    #expect(plan.record(3, .loaded(Self.image)) == [stored, thumbnail, thumbnail])

    var failing = CoverPlan(slots: [.dropped(index: 0, thumbnail: nil), .dropped(index: 1, thumbnail: nil)])!
    #expect(failing.record(1, .failed(DropFailure(source: "b", reason: "x"))) == nil)
    #expect(failing.record(0, .loaded(Self.image)) == nil, "a failed image leaves no guess")
  }

  @Test("A cover made ahead is used only for exactly its thumbnails; the drop's cover is the one made from scratch")
  func coverAhead() async throws {
    let thumbnails = try (1...4).map {
      try ImageProcessor.process(try FixtureImage.make(width: 300, height: 200, seed: $0), options: .init()).thumbnail.data
    }
    let fresh = try CoverMaker.mosaic(from: thumbnails, tileSize: 128, suffix: ".jpg[Q=80,strip]")
    CoverMaker.prepare(from: thumbnails)
    #expect(try CoverMaker.cover(from: thumbnails) == fresh)
    #expect(try CoverMaker.cover(from: Array(thumbnails.reversed())) != fresh)

    let work = try TestWorkspace()
    let document = try work.document()
    let sources = try work.images(6, width: 900, height: 600).map { DropSource(given: $0, location: .file(path: $0)) }
    var options = DropOptions()
    options.parallelism = 2
    _ = try await ImageDrop.drop(sources, into: document, options: options)
    let opened = try GalleryDocument.open(document)
    let first = try opened.model.items.prefix(4).map { try opened.thumbnail(of: $0) }
    #expect(try opened.cover() == CoverMaker.mosaic(from: first, tileSize: 128, suffix: ".jpg[Q=80,strip]"))
  }
}
