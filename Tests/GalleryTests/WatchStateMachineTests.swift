import Foundation
import GalleryTestSupport
import Logging
import ServiceLifecycle
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryKit
@testable import GalleryModel
@testable import GallerySystem

/// The drop-folder watcher's rules, driven by synthetic events and a manual clock: no
/// inotify, no process, no sleep. (DropFolderTests checks the same rules end to end.)
@Suite("The watcher's state machine: settle, temporary names, renames, deletes, rescans, retry, dedup, --then")
struct WatchStateMachineTests {
  typealias Machine = WatchStateMachine
  static let start = ContinuousClock.now
  static let folder = "/drop"

  func at(_ milliseconds: Int) -> ContinuousClock.Instant { Self.start + .milliseconds(milliseconds) }

  static func image(_ hash: String, original: Bool = false) -> ProcessedImage {
    ProcessedImage(
      width: 4, height: 3, orientation: 1, format: "jpeg", hash: hash, byteCount: 10,
      thumbnail: Thumbnail(data: Data([1, 2, 3]), fileExtension: "jpg"), original: original ? Data([9]) : nil)
  }

  /// Stamps of files whose writers cannot be told (as on a filesystem without leases): they
  /// settle.
  static let stamp = FileStamp(size: 100, modified: 1)
  static let changedStamp = FileStamp(size: 200, modified: 2)
  /// A file no process holds open for writing any more: its writer is done.
  static let doneStamp = FileStamp(size: 100, modified: 1, openForWriting: false)
  /// A file another descriptor still holds open for writing.
  static let heldStamp = FileStamp(size: 100, modified: 1, openForWriting: true)

  /// A machine and the world around it: the files' stamps now, what was asked, and the
  /// answers a watcher would give (saves take no time here; ids are p1, p2...).
  struct Harness {
    var machine: Machine
    var stamps: [String: FileStamp] = [:]
    var log: [Machine.Action] = []
    var nextID = 0
    var started: [String] = []
    var commits: [Machine.Commit] = []
    var duplicatesInDocument: Set<String> = []

    init(_ configure: (inout Machine.Configuration) -> Void = { _ in }) {
      var configuration = Machine.Configuration(folders: [WatchStateMachineTests.folder])
      configure(&configuration)
      machine = Machine(configuration, now: WatchStateMachineTests.start)
    }

    /// Performs actions the way the watcher does, feeding the synchronous answers back.
    mutating func run(_ actions: [Machine.Action], now: ContinuousClock.Instant) {
      var queue = actions[...]
      while let action = queue.popFirst() {
        log.append(action)
        switch action {
        case .savePlaceholders(let pair, let paths):
          let ids = paths.map { _ in
            nextID += 1
            return "p\(nextID)"
          }
          queue += machine.event(.placeholdersSaved(pair: pair, paths: paths, ids: ids, took: .zero), now: now)
        case .load(let path, _):
          if stamps[path] == nil {
            queue += machine.event(.vanished(path: path), now: now)
          } else {
            started.append(path)
          }
        case .examine(let paths):
          queue += machine.event(.examined(paths.map { ($0, stamps[$0]) }), now: now)
        case .commit(let commit):
          commits.append(commit)
          let duplicates = Set(commit.loaded.filter { duplicatesInDocument.contains($0.image.hash) }.map(\.path))
          queue += machine.event(.committed(.init(commit: commit, duplicates: duplicates)), now: now)
        case .scan, .report, .remember, .deleteSource, .fail:
          break
        }
      }
    }

    mutating func event(_ event: Machine.Event, at now: ContinuousClock.Instant) {
      run(machine.event(event, now: now), now: now)
      checkDeadline(now)
    }

    /// A scan's answer as the watcher feeds it: each file found, one after the other, all
    /// before any action they ask for is performed, while the clock goes on (`step`
    /// milliseconds between two). Returns when the last was fed, in milliseconds.
    mutating func scanFound(_ paths: [String], from start: Int, step: Int) -> Int {
      var asked: [Machine.Action] = []
      var now = start
      for (position, path) in paths.enumerated() {
        now = start + position * step
        asked += machine.event(
          .found(path: path, pair: 0, stamp: stamps[path] ?? WatchStateMachineTests.stamp),
          now: WatchStateMachineTests.start + .milliseconds(now))
      }
      let end = WatchStateMachineTests.start + .milliseconds(now)
      run(asked, now: end)
      checkDeadline(end)
      return now
    }

    /// A writer closes the file (as it is now: `stamp`, by default still held by a writer
    /// or not known to be free).
    mutating func close(_ path: String, at now: ContinuousClock.Instant, stamp: FileStamp = WatchStateMachineTests.stamp) {
      stamps[path] = stamp
      event(.closed(path: path, pair: 0, stamp: stamp), at: now)
    }

    mutating func tick(_ now: ContinuousClock.Instant) {
      run(machine.tick(now: now), now: now)
      checkDeadline(now)
    }

    mutating func stop(_ now: ContinuousClock.Instant) {
      run(machine.stop(now: now), now: now)
      checkDeadline(now)
    }

    /// A load the watcher started ends.
    mutating func finishLoad(_ path: String, _ outcome: Result<ProcessedImage, DropFailure>, at now: ContinuousClock.Instant) {
      started.removeAll { $0 == path }
      event(.loaded(path: path, stamp: stamps[path] ?? WatchStateMachineTests.stamp, outcome: outcome), at: now)
    }

    /// The next deadline is never in the past: a watcher waiting for it cannot spin.
    func checkDeadline(_ now: ContinuousClock.Instant) {
      if let deadline = machine.nextDeadline { #expect(deadline > now) }
      // The loaded files the table keeps apart by time are those a walk would find.
      let files = machine.files
      #expect(files.ripe == Set(files.loaded.filter { $0.value <= files.now }.keys))
      #expect(files.nextRipe == files.loaded.values.filter { $0 > files.now }.min())
    }

    func reports(_ kind: WatchEvent.Kind) -> [String] {
      log.compactMap {
        guard case .report(let reported, let path, _, _, _) = $0, reported == kind else { return nil }
        return path
      }
    }

    var placeholderSaves: [[String]] {
      log.compactMap {
        guard case .savePlaceholders(_, let paths) = $0 else { return nil }
        return paths
      }
    }

    var examined: [[String]] {
      log.compactMap {
        guard case .examine(let paths) = $0 else { return nil }
        return paths
      }
    }

    var scans: [String] {
      log.compactMap {
        guard case .scan(let folder, _) = $0 else { return nil }
        return folder
      }
    }
  }

  // MARK: -

  @Test("A closed file: placeholder within the delay, load at once, commit when the settle time is over unchanged")
  func settle() {
    var world = Harness()
    let path = "/drop/a.jpg"
    world.stamps[path] = Self.stamp
    world.event(.created(path: path, pair: 0), at: at(0))
    world.close(path, at: at(5))
    #expect(world.placeholderSaves.isEmpty)
    #expect(world.machine.nextDeadline == at(30))
    world.tick(at(30))
    #expect(world.placeholderSaves == [[path]])
    #expect(world.reports(.placeholder) == [path])
    // The load starts as soon as the placeholder is there, during the settle time.
    #expect(world.started == [path])
    world.finishLoad(path, .success(Self.image("sha256:a")), at: at(80))
    #expect(world.commits.isEmpty)
    #expect(world.machine.nextDeadline == at(205))
    world.tick(at(204))
    #expect(world.commits.isEmpty)
    world.tick(at(205))
    #expect(world.examined == [[path]])
    #expect(world.commits.count == 1)
    #expect(world.commits[0].loaded.map(\.id) == ["p1"])
    #expect(world.reports(.committed) == [path])
    #expect(world.log.contains { if case .remember(path, path, 0, "sha256:a") = $0 { true } else { false } })
    #expect(world.machine.trackedCount == 0)
    #expect(world.machine.nextDeadline == nil)
  }

  @Test("Placeholders follow the order files arrived in, not their names")
  func arrivalOrder() {
    var world = Harness()
    for (offset, name) in ["c.jpg", "a.jpg", "b.jpg"].enumerated() {
      world.event(.created(path: "/drop/" + name, pair: 0), at: at(offset))
    }
    world.tick(at(30))
    #expect(world.placeholderSaves == [["/drop/c.jpg", "/drop/a.jpg", "/drop/b.jpg"]])
  }

  @Test("An empty file (a browser's, beside its .part download) is neither rejected nor reported; its bytes, when they come, are")
  func emptyFileBesideADownload() {
    var world = Harness { $0.rejectTo = "/rejected" }
    let path = "/drop/photo.jpg"
    let empty = FileStamp(size: 0, modified: 1, openForWriting: false)
    world.event(.created(path: path, pair: 0), at: at(0))
    world.close(path, at: at(1), stamp: empty)
    world.tick(at(300))
    #expect(world.placeholderSaves.isEmpty && world.started.isEmpty)
    #expect(world.reports(.rejected).isEmpty && world.reports(.removed).isEmpty)
    #expect(world.commits.allSatisfy { $0.rejected.isEmpty })
    // Firefox renames the finished .part over it.
    world.close(path, at: at(5000), stamp: Self.doneStamp)
    world.tick(at(5030))
    #expect(world.placeholderSaves == [[path]])
    world.finishLoad(path, .success(Self.image("sha256:f")), at: at(5040))
    world.tick(at(5300))
    #expect(world.reports(.committed) == [path])
  }

  @Test("A file its writer closed and no process holds open for writing is committed as soon as it is loaded")
  func writerDone() {
    var world = Harness()
    let path = "/drop/a.jpg"
    world.event(.created(path: path, pair: 0), at: at(0))
    world.close(path, at: at(5), stamp: Self.doneStamp)
    world.tick(at(30))
    #expect(world.started == [path])
    // No settle time: the commit follows the load.
    world.finishLoad(path, .success(Self.image("sha256:a")), at: at(80))
    #expect(world.examined == [[path]])
    #expect(world.commits.flatMap(\.loaded).map(\.id) == ["p1"])
    #expect(world.machine.trackedCount == 0)
  }

  @Test("A writer that opens the file again before the commit makes it settle again; what it wrote is what is committed")
  func writerReopens() {
    var world = Harness()
    let path = "/drop/a.jpg"
    world.close(path, at: at(0), stamp: Self.doneStamp)
    world.tick(at(30))
    // Opened again for writing while the first load ran (which began on the closed file):
    // the stamp at the commit says so.
    world.stamps[path] = FileStamp(size: 150, modified: 2, openForWriting: true)
    world.started.removeAll()
    world.event(.loaded(path: path, stamp: Self.doneStamp, outcome: .success(Self.image("sha256:part"))), at: at(60))
    #expect(world.examined == [[path]])
    #expect(world.commits.isEmpty)
    // It is loaded again at once, but not committed while the writer holds it.
    #expect(world.started == [path])
    world.finishLoad(path, .success(Self.image("sha256:part")), at: at(100))
    world.tick(at(260))
    world.tick(at(460))
    #expect(world.commits.isEmpty)
    // The writer closes it: loaded again and committed.
    world.close(path, at: at(500), stamp: FileStamp(size: 200, modified: 3, openForWriting: false))
    world.finishLoad(path, .success(Self.image("sha256:whole")), at: at(530))
    #expect(world.commits.flatMap(\.loaded).map(\.image.hash) == ["sha256:whole"])
  }

  @Test("A file still held open for writing is not committed while it is held, nor loaded again while unchanged")
  func heldByAnotherWriter() {
    var world = Harness()
    let path = "/drop/a.jpg"
    world.close(path, at: at(0), stamp: Self.heldStamp)
    world.tick(at(30))
    world.finishLoad(path, .success(Self.image("sha256:a")), at: at(60))
    for now in stride(from: 200, through: 2000, by: 100) { world.tick(at(now)) }
    #expect(world.commits.isEmpty)
    #expect(world.started.isEmpty && world.log.filter { if case .load = $0 { true } else { false } }.count == 1)
    // Its last writer closes it: committed at the next look.
    world.close(path, at: at(2050), stamp: Self.doneStamp)
    world.finishLoad(path, .success(Self.image("sha256:a")), at: at(2080))
    #expect(world.commits.flatMap(\.loaded).map(\.image.hash) == ["sha256:a"])
  }

  @Test("A file written again after its load began is loaded again, and committed once")
  func changedDuringSettle() {
    var world = Harness()
    let path = "/drop/a.jpg"
    world.close(path, at: at(0))
    world.tick(at(30))
    world.finishLoad(path, .success(Self.image("sha256:old")), at: at(50))
    // Reopened and written without our seeing the close yet: the stamp differs at the end.
    world.stamps[path] = Self.changedStamp
    world.tick(at(200))
    #expect(world.commits.isEmpty)
    #expect(world.started == [path])
    world.finishLoad(path, .success(Self.image("sha256:new")), at: at(260))
    world.tick(at(400))
    #expect(world.commits.flatMap(\.loaded).map(\.image.hash) == ["sha256:new"])
    #expect(world.placeholderSaves.count == 1)
  }

  @Test("A close while the file is still settling starts the settle time again")
  func closeAgain() {
    var world = Harness()
    let path = "/drop/a.jpg"
    world.close(path, at: at(0))
    world.tick(at(30))
    world.finishLoad(path, .success(Self.image("sha256:a")), at: at(60))
    world.close(path, at: at(150))
    // The load that was done is dropped; a new one starts and the settle time is new.
    #expect(world.started == [path])
    world.finishLoad(path, .success(Self.image("sha256:a")), at: at(170))
    world.tick(at(200))
    #expect(world.commits.isEmpty)
    world.tick(at(350))
    #expect(world.commits.count == 1)
  }

  @Test("Writers' temporary names are ignored until renamed; the rename is the close")
  func temporaryNames() {
    let configuration = Machine.Configuration(folders: [Self.folder])
    for name in [".a.jpg.XyZ12", "b.jpg.part", "c.crdownload", "d.tmp", "e.partial", "f.download", "g.jpg~"] {
      let event = InotifyEvent(folder: "/drop/", name: name, mask: [.create, .closeWrite])
      #expect(Machine.translate(event, stamp: Self.stamp, configuration: configuration) == nil, "\(name)")
    }
    let renamed = InotifyEvent(folder: "/drop/", name: "b.jpg", mask: .movedTo)
    guard case .closed(let path, 0, _) = Machine.translate(renamed, stamp: Self.stamp, configuration: configuration)
    else {
      Issue.record("a rename into the folder is a close")
      return
    }
    #expect(path == "/drop/b.jpg")
    // Not a regular file (a link, a FIFO): nothing.
    let link = InotifyEvent(folder: "/drop/", name: "link.jpg", mask: .create)
    #expect(Machine.translate(link, stamp: nil, configuration: configuration) == nil)
    // Outside every folder, or the folder itself deleted.
    #expect(
      Machine.translate(
        InotifyEvent(folder: "/other/", name: "x.jpg", mask: .closeWrite), stamp: Self.stamp, configuration: configuration) == nil
    )
    guard
      case .folderGone(0) = Machine.translate(
        InotifyEvent(folder: "/drop/", name: "", mask: .deleteSelf), stamp: nil, configuration: configuration)
    else {
      Issue.record("the folder deleted ends the watcher")
      return
    }
  }

  @Test("Renames out and deletes: the placeholder goes, a moved file is reported as moved")
  func deletesAndRenames() {
    var world = Harness()
    world.stamps["/drop/a.jpg"] = Self.stamp
    world.stamps["/drop/b.jpg"] = Self.stamp
    world.event(.created(path: "/drop/a.jpg", pair: 0), at: at(0))
    world.event(.created(path: "/drop/b.jpg", pair: 0), at: at(0))
    world.tick(at(30))
    #expect(world.placeholderSaves == [["/drop/a.jpg", "/drop/b.jpg"]])
    world.stamps["/drop/a.jpg"] = nil
    world.event(.removed(path: "/drop/a.jpg", movedOut: false), at: at(40))
    world.stamps["/drop/b.jpg"] = nil
    world.event(.removed(path: "/drop/b.jpg", movedOut: true), at: at(41))
    #expect(world.reports(.moved) == ["/drop/b.jpg"])
    let removed = world.commits.flatMap(\.removed).map(\.id)
    #expect(Set(removed) == ["p1", "p2"])
    #expect(Set(world.reports(.removed)) == ["/drop/a.jpg", "/drop/b.jpg"])
    #expect(world.machine.trackedCount == 0)
  }

  @Test("A file deleted while it loads loses its placeholder when the load ends")
  func deletedWhileLoading() {
    var world = Harness()
    let path = "/drop/a.jpg"
    world.close(path, at: at(0))
    world.tick(at(30))
    world.event(.removed(path: path, movedOut: false), at: at(40))
    #expect(world.commits.isEmpty)
    world.finishLoad(path, .success(Self.image("sha256:a")), at: at(60))
    #expect(world.commits.flatMap(\.removed).map(\.id) == ["p1"])
    #expect(world.commits.flatMap(\.loaded).isEmpty)
  }

  @Test("A deleted file that comes back gets its placeholder again")
  func comesBack() {
    var world = Harness()
    let path = "/drop/a.jpg"
    world.event(.created(path: path, pair: 0), at: at(0))
    world.event(.removed(path: path, movedOut: false), at: at(5))
    world.tick(at(30))
    #expect(world.placeholderSaves.isEmpty)
    // Gone before it had a placeholder: nothing to remove, nothing to report.
    #expect(world.reports(.removed).isEmpty)
    world.close(path, at: at(40))
    world.tick(at(70))
    #expect(world.placeholderSaves == [[path]])
    world.finishLoad(path, .success(Self.image("sha256:a")), at: at(90))
    world.tick(at(240))
    #expect(world.commits.flatMap(\.loaded).map(\.path) == [path])
  }

  @Test("A queue overflow rescans every folder; what the scan finds is settled once, what is tracked is not duplicated")
  func overflowRescan() {
    var world = Harness { $0.folders = ["/drop", "/other"] }
    world.stamps["/drop/a.jpg"] = Self.stamp
    world.event(.created(path: "/drop/a.jpg", pair: 0), at: at(0))
    world.event(.overflow, at: at(10))
    #expect(world.scans == ["/drop", "/other"])
    #expect(world.reports(.rescan) == ["/drop", "/other"])
    // The scan answers: the file whose close was lost, and one never seen.
    world.stamps["/drop/b.jpg"] = Self.stamp
    world.event(.found(path: "/drop/a.jpg", pair: 0, stamp: Self.stamp), at: at(12))
    world.event(.found(path: "/drop/b.jpg", pair: 0, stamp: Self.stamp), at: at(12))
    world.tick(at(30))
    #expect(world.placeholderSaves == [["/drop/a.jpg", "/drop/b.jpg"]])
    #expect(world.started == ["/drop/a.jpg", "/drop/b.jpg"])
    world.finishLoad("/drop/a.jpg", .success(Self.image("sha256:a")), at: at(100))
    world.finishLoad("/drop/b.jpg", .success(Self.image("sha256:b")), at: at(100))
    world.tick(at(212))
    #expect(world.commits.flatMap(\.loaded).map(\.path) == ["/drop/a.jpg", "/drop/b.jpg"])
  }

  @Test("A scan's files get one placeholder each, however long feeding them to the machine takes")
  func longScan() {
    var world = Harness()
    let paths = (0..<8).map { "/drop/\($0).jpg" }
    for path in paths { world.stamps[path] = Self.doneStamp }
    // The placeholder delay passes twice while they are fed: the second save must not ask
    // again for the first one's files, whose ids are not known yet.
    _ = world.scanFound(paths, from: 0, step: 20)
    world.tick(at(150))
    #expect(world.placeholderSaves == [Array(paths[0..<3]), Array(paths[3..<6]), Array(paths[6...])])
    var now = 160
    while let loading = world.started.first, now < 5_000 {
      world.finishLoad(loading, .success(Self.image("sha256:\(loading)")), at: at(now))
      now += 100
    }
    world.tick(at(now))
    let committed = world.commits.flatMap(\.loaded)
    #expect(committed.map(\.path).sorted() == paths)
    #expect(Set(committed.map(\.id)).count == paths.count)
    #expect(world.nextID == paths.count, "one placeholder a file")
    #expect(world.machine.trackedCount == 0)
  }

  @Test("A scan's answer fed at once: one placeholder save for all its files, in their order")
  func scanAnswerAtOnce() {
    var world = Harness()
    let paths = (0..<50).map { "/drop/\($0).jpg" }
    for path in paths { world.stamps[path] = Self.doneStamp }
    world.run(world.machine.events(paths.map { .found(path: $0, pair: 0, stamp: Self.doneStamp) }, now: at(0)), now: at(0))
    #expect(world.placeholderSaves.isEmpty)
    #expect(world.machine.nextDeadline == at(30))
    world.tick(at(30))
    #expect(world.placeholderSaves == [paths])
    #expect(world.started.count == 2)
  }

  @Test("A file gone while its placeholder is being saved loses that placeholder once its id is known")
  func goneWhileItsPlaceholderIsSaved() {
    var world = Harness()
    let path = "/drop/a.jpg"
    world.stamps[path] = Self.stamp
    world.event(.found(path: path, pair: 0, stamp: Self.stamp), at: at(0))
    // Asked for, not yet performed: the file goes meanwhile.
    let asked = world.machine.tick(now: at(30))
    world.stamps[path] = nil
    let meanwhile = world.machine.event(.removed(path: path, movedOut: false), now: at(31))
    #expect(!meanwhile.contains { if case .commit = $0 { true } else { false } }, "its id is not known yet")
    world.run(asked + meanwhile, now: at(32))
    #expect(world.placeholderSaves == [[path]])
    #expect(world.commits.flatMap(\.removed).map(\.id) == ["p1"])
    #expect(world.machine.trackedCount == 0)
  }

  @Test("A failed load is tried once more after the settle time; not an image is final at once")
  func retryOnce() {
    var world = Harness()
    world.stamps["/drop/a.jpg"] = Self.stamp
    world.stamps["/drop/b.txt"] = Self.stamp
    world.close("/drop/a.jpg", at: at(0))
    world.close("/drop/b.txt", at: at(0))
    world.tick(at(30))
    let truncated = DropFailure(source: "/drop/a.jpg", refusal: .undecodable("premature end of JPEG"))
    world.finishLoad("/drop/a.jpg", .failure(truncated), at: at(50))
    world.finishLoad("/drop/b.txt", .failure(DropFailure(source: "/drop/b.txt", refusal: .notAnImage)), at: at(50))
    world.tick(at(200))
    #expect(world.commits.flatMap(\.rejected).map(\.path) == ["/drop/b.txt"])
    // The retry waits a whole settle time before loading again.
    #expect(world.started.isEmpty)
    #expect(world.machine.nextDeadline == at(400))
    world.tick(at(400))
    #expect(world.started == ["/drop/a.jpg"])
    world.finishLoad("/drop/a.jpg", .failure(truncated), at: at(420))
    world.tick(at(420))
    #expect(world.commits.flatMap(\.rejected).map(\.path) == ["/drop/b.txt", "/drop/a.jpg"])
    #expect(world.reports(.rejected) == ["/drop/b.txt", "/drop/a.jpg"])
  }

  @Test("Commits are spaced while loads are pending, and immediate when none is")
  func commitSpacing() {
    var world = Harness { $0.parallelism = 1 }
    for name in ["a", "b", "c"] {
      world.close("/drop/\(name).jpg", at: at(0))
    }
    world.tick(at(30))
    #expect(world.started == ["/drop/a.jpg"])
    world.finishLoad("/drop/a.jpg", .success(Self.image("sha256:a")), at: at(100))
    world.tick(at(200))
    #expect(world.commits.count == 1)
    world.finishLoad("/drop/b.jpg", .success(Self.image("sha256:b")), at: at(250))
    world.tick(at(300))
    // b is settled, c still loads: b waits for the spacing of commits.
    #expect(world.commits.count == 1)
    #expect(world.machine.nextDeadline == at(700))
    world.tick(at(700))
    #expect(world.commits.count == 2)
    world.finishLoad("/drop/c.jpg", .success(Self.image("sha256:c")), at: at(710))
    // The last one commits at its settle time, with no load pending.
    world.tick(at(710))
    #expect(world.commits.count == 3)
  }

  @Test("Dedup: the plan leaves out content the document or the commit has already, unless allowed")
  func dedup() throws {
    var model = GalleryModel(title: "t")
    var existing = Item.placeholder(id: "old1", source: "file:///x.jpg")
    existing = existing.committed(with: Self.image("sha256:same"), thumbnailEntry: "thumbnails/old1.jpg")
    model.items = [
      existing, .placeholder(id: "p1", source: "file:///drop/a.jpg"), .placeholder(id: "p2", source: "file:///drop/b.jpg"),
      .placeholder(id: "p3", source: "file:///drop/c.jpg"),
    ]
    var commit = Machine.Commit(pair: 0, allowDuplicates: false)
    commit.loaded = [
      .init(path: "/drop/a.jpg", id: "p1", image: Self.image("sha256:same")),
      .init(path: "/drop/b.jpg", id: "p2", image: Self.image("sha256:new")),
      .init(path: "/drop/c.jpg", id: "p3", image: Self.image("sha256:new")),
    ]
    var edit = DocumentEdit(model: model)
    let duplicates = try WatchCommitPlan(commit).apply(to: &edit)
    #expect(duplicates == ["/drop/a.jpg", "/drop/c.jpg"])
    #expect(try edit.wholeModel().items.map(\.id) == ["old1", "p2"])
    #expect(try edit.item(at: 1).state == .ready)

    commit.allowDuplicates = true
    var allowed = DocumentEdit(model: model)
    #expect(try WatchCommitPlan(commit).apply(to: &allowed).isEmpty)
    #expect(try allowed.wholeModel().items.map(\.state) == [.ready, .ready, .ready, .ready])
  }

  @Test("Duplicates are reported and remembered, not committed; --then delete removes only committed originals")
  func thenDeleteAndDuplicates() {
    var world = Harness { $0.afterCommit = .delete }
    world.duplicatesInDocument = ["sha256:dup"]
    for name in ["a", "b", "c"] {
      world.close("/drop/\(name).jpg", at: at(0))
    }
    world.tick(at(30))
    world.finishLoad("/drop/a.jpg", .success(Self.image("sha256:a", original: true)), at: at(50))
    world.finishLoad("/drop/b.jpg", .success(Self.image("sha256:dup", original: true)), at: at(50))
    world.finishLoad("/drop/c.jpg", .success(Self.image("sha256:c", original: false)), at: at(50))
    world.tick(at(200))
    let deleted = world.log.compactMap { if case .deleteSource(let path) = $0 { path } else { nil } }
    #expect(deleted == ["/drop/a.jpg"])
    #expect(world.reports(.duplicate) == ["/drop/b.jpg"])
    let remembered = world.log.compactMap { if case .remember(let path, _, _, _) = $0 { path } else { nil } }
    #expect(remembered == ["/drop/b.jpg", "/drop/c.jpg"])
  }

  @Test("--then move:DIR asks to move each loaded file, and the report names where it went")
  func thenMove() {
    var world = Harness {
      $0.afterCommit = .move("/done")
      $0.rejectTo = "/rejected"
    }
    world.stamps["/drop/a.jpg"] = Self.stamp
    world.stamps["/drop/b.txt"] = Self.stamp
    world.close("/drop/a.jpg", at: at(0))
    world.close("/drop/b.txt", at: at(0))
    world.tick(at(30))
    world.finishLoad("/drop/a.jpg", .success(Self.image("sha256:a")), at: at(50))
    world.finishLoad("/drop/b.txt", .failure(DropFailure(source: "b", refusal: .notAnImage)), at: at(50))
    world.tick(at(200))
    #expect(world.commits.flatMap(\.loaded).map(\.moveTo) == ["/done"])
    #expect(world.commits.flatMap(\.rejected).map(\.moveTo) == ["/rejected"])
    // What the watcher moved is what the report and the memory name.
    var machine = Harness { $0.afterCommit = .move("/done") }
    machine.close("/drop/a.jpg", at: at(0))
    machine.tick(at(30))
    machine.finishLoad("/drop/a.jpg", .success(Self.image("sha256:a")), at: at(50))
    let actions = machine.machine.tick(now: at(200))
    guard case .examine(let paths) = actions.first else {
      Issue.record("a ripe load is examined first")
      return
    }
    let commitActions = machine.machine.event(.examined(paths.map { ($0, Self.stamp) }), now: at(200))
    guard case .commit(let commit) = commitActions.first else {
      Issue.record("then committed")
      return
    }
    let after = machine.machine.event(
      .committed(.init(commit: commit, movedTo: ["/drop/a.jpg": "/done/a.jpg"])), now: at(210))
    #expect(after.contains { if case .report(.committed, "/done/a.jpg", 0, "p1", nil) = $0 { true } else { false } })
    #expect(after.contains { if case .remember("/drop/a.jpg", "/done/a.jpg", 0, "sha256:a") = $0 { true } else { false } })
  }

  @Test("Stopping: loads running finish and commit, everything else loses its placeholder, then it is finished")
  func stopping() {
    var world = Harness()
    for name in ["a", "b", "c"] { world.stamps["/drop/\(name).jpg"] = Self.stamp }
    world.close("/drop/a.jpg", at: at(0))
    world.close("/drop/b.jpg", at: at(0))
    world.tick(at(30))
    world.event(.created(path: "/drop/c.jpg", pair: 0), at: at(40))
    world.tick(at(70))
    world.finishLoad("/drop/a.jpg", .success(Self.image("sha256:a")), at: at(80))
    world.stop(at(90))
    // c (still being written) goes at once; a waits for b's load, which is still running.
    #expect(world.commits.count == 0)
    #expect(!world.machine.isFinished)
    #expect(world.machine.nextDeadline == nil)
    world.event(.created(path: "/drop/d.jpg", pair: 0), at: at(95))
    world.finishLoad("/drop/b.jpg", .success(Self.image("sha256:b")), at: at(100))
    #expect(world.commits.count == 1)
    #expect(world.commits[0].loaded.map(\.path) == ["/drop/a.jpg", "/drop/b.jpg"])
    #expect(world.commits[0].removed.map(\.path) == ["/drop/c.jpg"])
    #expect(world.machine.isFinished)
    #expect(world.placeholderSaves.count == 2)
  }

  @Test("The folder deleted: what is loaded is committed, then the watcher fails with the error")
  func folderGone() {
    var world = Harness()
    world.close("/drop/a.jpg", at: at(0))
    world.tick(at(30))
    world.event(.folderGone(pair: 0), at: at(40))
    #expect(!world.log.contains { if case .fail = $0 { true } else { false } })
    world.finishLoad("/drop/a.jpg", .success(Self.image("sha256:a")), at: at(60))
    #expect(world.commits.flatMap(\.loaded).map(\.path) == ["/drop/a.jpg"])
    guard case .fail(.folderGone("/drop")) = world.log.last else {
      Issue.record("ends with the error, last")
      return
    }
  }

  @Test("--once is finished when what the scan found is imported; a vanished file just loses its placeholder")
  func once() {
    var world = Harness { $0.once = true }
    #expect(world.machine.isFinished)
    world.run(world.machine.start(), now: at(0))
    #expect(world.scans == ["/drop"])
    world.stamps["/drop/a.jpg"] = Self.stamp
    world.event(.found(path: "/drop/a.jpg", pair: 0, stamp: Self.stamp), at: at(1))
    world.event(.found(path: "/drop/gone.jpg", pair: 0, stamp: Self.stamp), at: at(1))
    #expect(!world.machine.isFinished)
    world.tick(at(31))
    world.finishLoad("/drop/a.jpg", .success(Self.image("sha256:a")), at: at(60))
    world.tick(at(201))
    #expect(world.commits.flatMap(\.removed).map(\.path) == ["/drop/gone.jpg"])
    #expect(world.commits.flatMap(\.loaded).map(\.path) == ["/drop/a.jpg"])
    #expect(world.machine.isFinished)
  }

  @Test("New folders with --recursive are scanned; unwatched ones are reported, and scanned when watched again")
  func recursiveFolders() {
    var world = Harness { $0.recursive = true }
    let configuration = world.machine.configuration
    let created = InotifyEvent(folder: "/drop/", name: "sub", mask: [.create, .isDirectory])
    guard let event = Machine.translate(created, stamp: nil, configuration: configuration) else {
      Issue.record("a new folder is an event with --recursive")
      return
    }
    world.event(event, at: at(0))
    world.event(.unwatched(folder: "/drop/deep", reason: "limit"), at: at(1))
    world.event(.watchedAgain(folder: "/drop/deep"), at: at(2))
    #expect(world.scans == ["/drop/sub", "/drop/deep"])
    #expect(world.reports(.unwatched) == ["/drop/deep"])
    #expect(world.reports(.watched) == ["/drop/deep"])
    var flat = Machine.Configuration(folders: [Self.folder])
    flat.recursive = false
    #expect(Machine.translate(created, stamp: nil, configuration: flat) == nil)
  }

  @Test("Random event sequences: no file is lost or committed twice, and the next deadline is never in the past")
  func randomSequences() {
    var random = SplitMix(state: 11)
    for _ in 0..<200 {
      var world = Harness { $0.parallelism = 1 + Int(random.next() % 3) }
      let names = (0..<5).map { "/drop/\($0).jpg" }
      var now = 0
      for _ in 0..<40 {
        now += Int(random.next() % 120)
        let path = names[Int(random.next() % 5)]
        switch random.next() % 7 {
        case 0:
          world.stamps[path] = Self.stamp
          world.event(.created(path: path, pair: 0), at: at(now))
        case 1:
          world.stamps[path] = FileStamp(
            size: Int64(random.next() % 3), modified: 1, openForWriting: [nil, false, true][Int(random.next() % 3)])
          world.event(.closed(path: path, pair: 0, stamp: world.stamps[path]!), at: at(now))
        case 2:
          world.stamps[path] = nil
          world.event(.removed(path: path, movedOut: random.next() % 2 == 0), at: at(now))
        case 3:
          if let loading = world.started.first {
            world.finishLoad(loading, .success(Self.image("sha256:\(loading)")), at: at(now))
          }
        case 4:
          // A rescan: the files there, fed while the clock goes on.
          let there = names.filter { world.stamps[$0].map { $0.size > 0 } ?? false }
          now = world.scanFound(there, from: now, step: Int(random.next() % 40))
        default:
          world.tick(at(now))
        }
      }
      // Drain: every load ends, time passes, the watcher stops.
      world.stop(at(now + 1))
      while let loading = world.started.first {
        world.finishLoad(loading, .success(Self.image("sha256:\(loading)")), at: at(now + 2))
      }
      #expect(world.machine.isFinished)
      // Every placeholder saved was committed or removed exactly once.
      let saved = world.placeholderSaves.count
      let ids = world.commits.flatMap { $0.loaded.map(\.id) + $0.rejected.compactMap(\.id) + $0.removed.compactMap(\.id) }
      #expect(Set(ids).count == ids.count)
      #expect(ids.count == world.nextID, "\(saved) saves")
    }
  }
}

/// The watcher in this process (no `gallery` child): its inotify owner lives exactly as long
/// as it runs.
/// What a drop folder remembers having imported, in its file under the state folder.
@Suite("The watcher's import memory")
struct ImportMemoryTests {
  let work: TestWorkspace
  let folder: String
  let pair: DropFolder
  let record = ImportMemory.Record(size: 1, modified: 2, hash: "sha256:00")

  init() throws {
    work = try TestWorkspace()
    folder = work.path("in")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    pair = DropFolder(folder: folder, document: work.path("d.gallery"))
  }

  func memory() -> ImportMemory { ImportMemory(for: pair, stateFolder: work.path("state")) }

  /// Paths of files imported from the folder, the last `present` of them still there.
  func imported(_ count: Int, present: Int) throws -> [String] {
    let paths = (0..<count).map { folder + "/IMG_\($0).jpg" }
    memory().remember(paths.map { ($0, record) })
    for path in paths.suffix(present) { try Data([1]).write(to: URL(fileURLWithPath: path)) }
    return paths
  }

  @Test("Files moved away for years are forgotten once they are most of its lines; the file is rewritten")
  func forgetsGoneFiles() throws {
    let paths = try imported(ImportMemory.forgetFloor + 1, present: 3)
    let memory = memory()
    #expect(memory.lines == paths.count)
    memory.forget(allBut: Array(paths.suffix(3)))
    #expect(Set(memory.records.keys) == Set(paths.suffix(3)))
    let read = self.memory()
    #expect(Set(read.records.keys) == Set(paths.suffix(3)) && read.lines == 3)
    #expect(read.contains(path: paths.last!, size: 1, modified: 2))
  }

  @Test("A listing that missed the folder's files forgets none of them; below its floor nothing is forgotten")
  func keepsWhatIsThere() throws {
    let paths = try imported(ImportMemory.forgetFloor + 1, present: ImportMemory.forgetFloor + 1)
    let memory = memory()
    // What the listing of a folder unreadable for a moment gives: nothing.
    memory.forget(allBut: [])
    #expect(memory.records.count == paths.count && self.memory().lines == paths.count)

    let few = try ImportMemoryTests()
    _ = try few.imported(10, present: 0)
    few.memory().forget(allBut: [])
    #expect(few.memory().lines == 10)
  }

  @Test("A renamed document keeps its memory: it follows the name, and a new name's own memory stays")
  func followsRenamedDocument() throws {
    let paths = try imported(3, present: 3)
    let memory = memory()
    let renamed = work.path("renamed.gallery")
    memory.follow(document: renamed)
    #expect(FileSystem.status(of: self.memory().file) == nil)
    let moved = ImportMemory(for: DropFolder(folder: folder, document: renamed), stateFolder: work.path("state"))
    #expect(moved.file == memory.file && Set(moved.records.keys) == Set(paths))
    // What it imports next is written where it is now.
    memory.remember([(folder + "/next.jpg", record)])
    #expect(ImportMemory(for: DropFolder(folder: folder, document: renamed), stateFolder: work.path("state")).lines == 4)

    // A name that has a memory of its own keeps it (the old one stays where it was).
    let otherPair = DropFolder(folder: folder, document: work.path("other.gallery"))
    ImportMemory(for: otherPair, stateFolder: work.path("state")).remember([(folder + "/other.jpg", record)])
    ImportMemory.follow(DropFolder(folder: folder, document: renamed), to: otherPair, stateFolder: work.path("state"))
    #expect(Set(ImportMemory(for: otherPair, stateFolder: work.path("state")).records.keys) == [folder + "/other.jpg"])
    #expect(ImportMemory(for: DropFolder(folder: folder, document: renamed), stateFolder: work.path("state")).lines == 4)
  }

  @Test("A document that continues the traced one: it holds the traced revision; the traced file wins over copies")
  func documentTrace() {
    let trace = DocumentTrace(device: 1, inode: 2, revision: 5, revisionID: "e5")
    var head = GalleryModel(title: "t")
    head.revision = 9
    head.revisionID = "e9"
    let places = (1...9).map { JournalRecord.Place(revision: $0, id: "e\($0)", parent: $0 == 1 ? nil : "e\($0 - 1)") }
    #expect(trace.isContinued(head: head, history: places))
    // Its history forgotten (compacted), or another document's: not it.
    #expect(!trace.isContinued(head: head, history: Array(places.suffix(3))))
    #expect(!trace.isContinued(head: head, history: places.map { .init(revision: $0.revision, id: "x" + $0.id, parent: nil) }))
    // The traced revision is the document's own (no save since).
    head.revision = 5
    head.revisionID = "e5"
    #expect(trace.isContinued(head: head, history: []))
    // A revision of that number made elsewhere is not it.
    head.revisionID = "f5"
    #expect(!trace.isContinued(head: head, history: []))

    #expect(DocumentTrace.choose([("/a.gallery", false)]) == .renamed("/a.gallery"))
    #expect(DocumentTrace.choose([("/copy.gallery", false), ("/moved.gallery", true)]) == .renamed("/moved.gallery"))
    #expect(DocumentTrace.choose([("/b.gallery", false), ("/a.gallery", false)]) == .several(["/a.gallery", "/b.gallery"]))
    #expect(DocumentTrace.choose([]) == .nowhere)
  }

  @Test("A name imported again and again leaves one line once the file is rewritten")
  func oneLinePerName() throws {
    let path = folder + "/IMG_0001.jpg"
    try Data([1]).write(to: URL(fileURLWithPath: path))
    memory().remember(Array(repeating: (path, record), count: ImportMemory.forgetFloor + 1))
    let memory = memory()
    #expect(memory.lines == ImportMemory.forgetFloor + 1 && memory.records.count == 1)
    memory.forget(allBut: [path])
    #expect(self.memory().lines == 1)
  }
}

@Suite("The watcher in process", .serialized)
struct WatcherInProcessTests {
  struct TimedOut: Error {}

  @Test("Watching twice in one process works; a second watcher at the same time is refused, not a trap")
  func twice() async throws {
    let work = try TestWorkspace()
    let document = work.path("d.gallery")
    try GalleryDocument.create(document)
    let folder = work.path("in")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: work.path("other"), withIntermediateDirectories: true)
    var watchOptions = WatchOptions()
    watchOptions.stateFolder = work.path("state")
    let options = watchOptions
    let logger = Logger(label: "test")

    for round in 0..<2 {
      // One file there before the start (found by the scan), one after (seen by inotify).
      try work.image("in/before\(round).jpg", seed: 10 + round)
      let (events, sink) = AsyncStream.makeStream(of: WatchEvent.self)
      let watcher = try DropFolderWatcher(
        pairs: [DropFolder(folder: folder, document: document)], options: options, logger: logger
      ) { sink.yield($0) }
      let group = ServiceGroup(
        configuration: ServiceGroupConfiguration(
          services: [.init(service: watcher, successTerminationBehavior: .gracefullyShutdownGroup)], logger: logger))
      let after = try FixtureImage.make(width: 300, height: 200, format: .jpeg, seed: 20 + round)
      let afterPath = work.path("in/after\(round).jpg")
      let otherFolder = work.path("other")
      try await withThrowingTaskGroup(of: [String].self) { tasks in
        tasks.addTask {
          try await group.run()
          return []
        }
        tasks.addTask {
          try await Task.sleep(for: .seconds(60))
          throw TimedOut()
        }
        tasks.addTask {
          var committed: [String] = []
          for await event in events where event.event == .committed {
            committed.append((event.path as NSString).lastPathComponent)
            if committed.count == 2 { break }
            if round == 0 {
              // While this one runs, another in the same process is refused.
              let other = try DropFolderWatcher(
                pairs: [DropFolder(folder: otherFolder, document: document)], options: options, logger: logger
              ) { _ in }
              await #expect(throws: WatchError.self) { try await other.run() }
            }
            try after.write(to: URL(fileURLWithPath: afterPath))
          }
          return committed
        }
        // The events, or the time-out.
        let committed = try await tasks.next()
        #expect(committed == ["before\(round).jpg", "after\(round).jpg"])
        await group.triggerGracefulShutdown()
        _ = try await tasks.next()
        tasks.cancelAll()
      }
    }
    let items = try GalleryDocument.open(document).model.items
    #expect(items.map(\.state) == [.ready, .ready, .ready, .ready])
  }
}

extension WatchStateMachineTests {
  @Test("A drop folder's census of sources and contents, brought forward by the records, is the one counted from the model")
  func contentCensusFollowsRecords() {
    var random = SplitMix(state: 5)
    for _ in 0..<20 {
      var model = GalleryModel(title: "t", now: JournalTests.date)
      var next = 0
      var records: [JournalRecord] = []
      var censuses = [ContentCensus(model)]
      for revision in 1...40 {
        let before = model
        JournalTests.randomEdit(&model, &random, next: &next)
        // Contents from a small pool, so that several items share one; now and then one
        // changes (a retry that loaded another file).
        for index in model.items.indices
        where model.items[index].hash == nil || Int.random(in: 0..<20, using: &random) == 0 {
          model.items[index].hash = "sha256:" + String(repeating: String(Int.random(in: 0..<4, using: &random)), count: 64)
        }
        model.revision = revision
        model.revisionID = JournalRecord.newID()
        records.append(
          JournalRecord(
            revision: revision, id: model.revisionID!, parent: before.revisionID, time: JournalTests.date, summary: "",
            change: ModelChange(from: before, to: model)))
        var census = censuses.last!
        let followed = census.apply(records.last!)
        #expect(followed && census == ContentCensus(model))
        let again = census.apply(records.last!)
        #expect(!again && census == ContentCensus(model), "a record that does not follow is refused")
        censuses.append(census)
      }
      let counted = ContentCensus(model)
      #expect(model.items.allSatisfy { counted.holds(source: $0.source) && counted.holds(hash: $0.hash!) })
      // From any revision, through the history; without the records it needs, counted anew.
      for start in stride(from: 0, through: 40, by: 7) {
        #expect(ContentCensus.current(censuses[start], of: model, history: History(records)) == counted)
        #expect(ContentCensus.current(censuses[start], of: model, history: History(Array(records.suffix(3)))) == counted)
      }
    }
  }
}
