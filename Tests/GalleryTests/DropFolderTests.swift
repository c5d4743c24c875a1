import Foundation
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryKit
@testable import GalleryModel
@testable import GallerySystem

/// A drop folder, its document and a state folder, in one workspace.
struct DropFolderSetup {
  let work: TestWorkspace
  let folder: String
  let document: String
  let state: String

  init() throws {
    work = try TestWorkspace()
    folder = work.path("drop")
    state = work.path("state")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    document = try work.document("inbox.gallery")
  }

  func start(_ extra: [String] = []) throws -> WatcherProcess {
    let watcher = try WatcherProcess([folder, "--into", document] + extra, stateHome: state)
    // Ready once it logs that it watches.
    let end = Date() + 10
    while Date() < end && !watcher.log.contains("watching") { usleep(5_000) }
    return watcher
  }

  /// An image made by libvips outside the drop folder (same filesystem).
  func image(_ name: String, width: Int = 320, height: Int = 240, seed: Int) throws -> String {
    try work.image(name, width: width, height: height, seed: seed)
  }

  func items() throws -> [Item] { try GalleryDocument.open(document).model.items }

  /// A watcher killed (SIGKILL) while it imports `count` whole images, `held0.jpg`... (60 +
  /// their number pixels wide): each still held open by its writer, so that each gets its
  /// placeholder and none is loaded before the kill.
  func killWhileImporting(_ count: Int, seed: Int, _ extra: [String] = []) throws {
    let watcher = try start(extra)
    var writers: [FileHandleWriter] = []
    for number in 0..<count {
      let writer = try FileHandleWriter(path: folder + "/held\(number).jpg")
      try writer.write(FixtureImage.make(width: 60 + number, height: 40, seed: seed + number))
      writers.append(writer)
    }
    watcher.waitFor("\(count) placeholders") { $0.filter { $0.event == "placeholder" }.count == count }
    kill(watcher.process.processIdentifier, SIGKILL)
    watcher.process.wait(upTo: 10)
    for writer in writers { writer.close() }
  }
}

@Suite("Drop folders: gallery watch", .serialized)
struct DropFolderTests {
  @Test("cp of a large file: a placeholder at once, committed when complete")
  func copy() throws {
    let setup = try DropFolderSetup()
    let watcher = try setup.start()
    let large = try setup.image("large.jpg", width: 4000, height: 3000, seed: 1)
    #expect(try Run.program("cp", [large, setup.folder + "/"]).status == 0)
    watcher.waitFor("the placeholder") { $0.contains { $0.event == "placeholder" } }
    watcher.waitFor("the commit") { $0.contains { $0.event == "committed" } }
    let items = try setup.items()
    #expect(items.count == 1)
    #expect(items.first?.state == .ready && items.first?.width == 4000)
    #expect(watcher.stop() == 0)
  }

  @Test("mv within the filesystem, rsync with its temporary name, and a .part download renamed")
  func renames() throws {
    let setup = try DropFolderSetup()
    let watcher = try setup.start()
    let moved = try setup.image("moved.jpg", seed: 2)
    #expect(try Run.program("mv", [moved, setup.folder + "/moved.jpg"]).status == 0)
    let synced = try setup.image("synced.png", seed: 3)
    let rsync = try Run.program("rsync", [synced, setup.folder + "/"])
    #expect(rsync.status == 0, "\(rsync.stderr)")
    // A browser download: written as .part, renamed when done.
    let download = try setup.image("download.webp", seed: 4)
    #expect(try Run.program("cp", [download, setup.folder + "/download.webp.part"]).status == 0)
    usleep(400_000)
    #expect(!watcher.events.contains { $0.path.hasSuffix(".part") })
    #expect(rename(setup.folder + "/download.webp.part", setup.folder + "/download.webp") == 0)

    watcher.waitFor("three commits") { $0.filter { $0.event == "committed" }.count == 3 }
    let names = Set(try setup.items().map { URL(string: $0.source)!.lastPathComponent })
    #expect(names == ["moved.jpg", "synced.png", "download.webp"])
    // Temporary names never got a placeholder of their own.
    #expect(watcher.events.allSatisfy { !(($0.path as NSString).lastPathComponent.hasPrefix(".")) })
    #expect(watcher.stop() == 0)
  }

  /// Runs a python `writer` (argv[1] the source image, argv[2] the file in the drop folder)
  /// and checks that the file stays a placeholder while the writer runs, `pending` after
  /// the placeholder, and is committed whole once it is done.
  func expectPendingWhileWriting(_ writer: String, seed: Int, pending: UInt32) throws {
    let setup = try DropFolderSetup()
    let watcher = try setup.start()
    let source = try setup.image("source.jpg", width: 1200, height: 900, seed: seed)
    let process = try TestProcess("python3", ["-c", "import sys, time\n" + writer, source, setup.folder + "/photo.jpg"])
    watcher.waitFor("the placeholder") { $0.contains { $0.event == "placeholder" } }
    usleep(pending)
    #expect(process.isRunning)
    #expect(try setup.items().map(\.state) == [.placeholder])
    process.wait()
    watcher.waitFor("the commit") { $0.contains { $0.event == "committed" } }
    #expect(try setup.items().map(\.height) == [900])
    #expect(watcher.stop() == 0)
  }

  @Test("A writer that writes in pieces with pauses stays pending until it closes")
  func slowWriter() throws {
    try expectPendingWhileWriting(
      """
      data = open(sys.argv[1], 'rb').read()
      with open(sys.argv[2], 'wb') as f:
          for i in range(4):
              f.write(data[i * len(data) // 4:(i + 1) * len(data) // 4]); f.flush(); time.sleep(0.4)
      """, seed: 5, pending: 500_000)
  }

  @Test("A file one writer closed while another descriptor still holds it open for writing waits for that one")
  func heldByAnotherDescriptor() throws {
    // The first half through one descriptor, closed (a close event); the rest through
    // another, opened before and kept open for a second.
    try expectPendingWhileWriting(
      """
      data = open(sys.argv[1], 'rb').read()
      first = open(sys.argv[2], 'wb'); second = open(sys.argv[2], 'ab')
      first.write(data[:len(data) // 2]); first.close()
      time.sleep(1.0)
      second.write(data[len(data) // 2:]); second.close()
      """, seed: 6, pending: 700_000)
  }

  @Test("A file deleted half-written loses its placeholder; a non-image is rejected and left alone")
  func deletedAndRejected() throws {
    let setup = try DropFolderSetup()
    let watcher = try setup.start()
    let half = setup.folder + "/half.jpg"
    let handle = try FileHandleWriter(path: half)
    try handle.write(Data(try setup.work.bytes(try setup.image("whole.jpg", seed: 6)).prefix(1000)))
    watcher.waitFor("the placeholder") { $0.contains { $0.event == "placeholder" && $0.path == half } }
    unlink(half)
    handle.close()
    watcher.waitFor("the removal") { $0.contains { $0.event == "removed" && $0.path == half } }

    let text = setup.folder + "/notes.jpg"
    try Data("not a picture".utf8).write(to: URL(fileURLWithPath: text))
    watcher.waitFor("the rejection") { $0.contains { $0.event == "rejected" && $0.path == text } }
    #expect(FileManager.default.fileExists(atPath: text))
    #expect(try setup.items().isEmpty)
    #expect(watcher.stop() == 0)
    #expect(try Run.gallery(["check", setup.document]).status == 0)
  }

  @Test("--reject-to moves non-images aside; --then move:DIR moves committed files, the item follows")
  func moveAside() throws {
    let setup = try DropFolderSetup()
    let rejects = setup.work.path("rejects")
    let done = setup.work.path("done")
    let watcher = try setup.start(["--reject-to", rejects, "--then", "move:" + done])
    try Data("<html></html>".utf8).write(to: URL(fileURLWithPath: setup.folder + "/page.png"))
    #expect(try Run.program("cp", [try setup.image("keep.jpg", seed: 7), setup.folder + "/"]).status == 0)
    watcher.waitFor("both") { events in events.contains { $0.event == "rejected" } && events.contains { $0.event == "committed" }
    }
    #expect(FileManager.default.fileExists(atPath: rejects + "/page.png"))
    #expect(FileManager.default.fileExists(atPath: done + "/keep.jpg"))
    #expect(!FileManager.default.fileExists(atPath: setup.folder + "/keep.jpg"))
    #expect(try setup.items().map(\.source) == [URL(fileURLWithPath: done + "/keep.jpg").absoluteString])
    #expect(watcher.stop() == 0)
  }

  @Test("A burst of 300 files: all imported once, none lost, while gallery move edits the document")
  func burstWithConcurrentEdits() throws {
    let setup = try DropFolderSetup()
    let source = setup.work.path("burst")
    try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
    for index in 0..<300 {
      try FixtureImage.make(width: 64 + index % 7, height: 48, seed: 100 + index)
        .write(to: URL(fileURLWithPath: source + "/b\(index).jpg"))
    }
    let watcher = try setup.start()
    let copy = try Run.program("bash", ["-c", "cp '\(source)'/*.jpg '\(setup.folder)/'"])
    #expect(copy.status == 0)
    // Another writer reorders the document while the watcher imports.
    var moves = 0
    while watcher.count("committed") < 300 && moves < 40 {
      if (try? GalleryDocument.open(setup.document).model.items.count) ?? 0 > 1 {
        #expect(try Run.gallery(["move", setup.document, "1", "--to", "end"]).status == 0)
        moves += 1
      }
      usleep(20_000)
    }
    watcher.waitFor("300 commits", timeout: 120) { $0.filter { $0.event == "committed" }.count == 300 }
    let items = try setup.items()
    #expect(items.count == 300)
    #expect(Set(items.map(\.id)).count == 300)
    #expect(items.allSatisfy { $0.state == .ready })
    #expect(Set(items.map(\.source)).count == 300)
    #expect(moves > 0)
    #expect(watcher.count("placeholder") == 300)
    #expect(watcher.stop() == 0)
    // Saves were batched: far fewer revisions than files.
    #expect(try GalleryDocument.open(setup.document).model.revision < 300)
  }

  @Test("Folders created after start are watched with --recursive")
  func nestedFolders() throws {
    let setup = try DropFolderSetup()
    let watcher = try setup.start(["--recursive"])
    let image = try setup.image("deep.jpg", seed: 8)
    let script =
      "mkdir -p '\(setup.folder)/a/b/c' && cp '\(image)' '\(setup.folder)/a/b/c/' && mkdir '\(setup.folder)/d' && cp '\(image)' '\(setup.folder)/d/copy.jpg'"
    #expect(try Run.program("bash", ["-c", script]).status == 0)
    watcher.waitFor("a commit and a duplicate") { events in
      events.contains { $0.event == "committed" } && events.contains { $0.event == "duplicate" }
    }
    #expect(try setup.items().count == 1)
    #expect(watcher.stop() == 0)
  }

  @Test("--allow-duplicates keeps the same content twice")
  func allowDuplicates() throws {
    let setup = try DropFolderSetup()
    let watcher = try setup.start(["--allow-duplicates"])
    let image = try setup.image("same.jpg", seed: 9)
    #expect(try Run.program("cp", [image, setup.folder + "/one.jpg"]).status == 0)
    #expect(try Run.program("cp", [image, setup.folder + "/two.jpg"]).status == 0)
    watcher.waitFor("two commits") { $0.filter { $0.event == "committed" }.count == 2 }
    #expect(try setup.items().count == 2)
    #expect(watcher.stop() == 0)
  }

  @Test(
    "A running watcher sees what other processes did: content trashed and emptied is new again, content dropped beside it is a duplicate"
  )
  func sameContentAfterOtherEdits() throws {
    let setup = try DropFolderSetup()
    let watcher = try setup.start()
    let first = try setup.image("first.jpg", seed: 31)
    let second = try setup.image("second.jpg", seed: 32)
    #expect(try Run.program("cp", [first, setup.folder + "/a.jpg"]).status == 0)
    watcher.waitFor("a committed") { $0.contains { $0.event == "committed" } }
    // Another process takes that content out for good, and drops the other one.
    #expect(try Run.gallery(["trash", setup.document, "1"]).status == 0)
    #expect(try Run.gallery(["trash", setup.document, "--empty"]).status == 0)
    #expect(try Run.gallery(["drop", setup.document, second]).status == 0)
    #expect(try Run.program("cp", [first, setup.folder + "/a-again.jpg"]).status == 0)
    #expect(try Run.program("cp", [second, setup.folder + "/b.jpg"]).status == 0)
    watcher.waitFor("a-again committed and b a duplicate") { events in
      events.contains { $0.event == "committed" && $0.path.hasSuffix("a-again.jpg") }
        && events.contains { $0.event == "duplicate" && $0.path.hasSuffix("b.jpg") }
    }
    let sources = try setup.items().map(\.source)
    #expect(sources.count == 2 && sources.last?.hasSuffix("a-again.jpg") == true, "\(sources)")
    #expect(watcher.stop() == 0)
  }

  @Test("Restart: files added while stopped are imported, nothing twice; --once scans and exits")
  func restart() throws {
    let setup = try DropFolderSetup()
    var watcher = try setup.start()
    for seed in 10..<12 {
      #expect(try Run.program("cp", [try setup.image("first\(seed).jpg", seed: seed), setup.folder + "/"]).status == 0)
    }
    watcher.waitFor("two commits") { $0.filter { $0.event == "committed" }.count == 2 }
    #expect(watcher.stop() == 0)

    for seed in 12..<14 {
      #expect(try Run.program("cp", [try setup.image("later\(seed).jpg", seed: seed), setup.folder + "/"]).status == 0)
    }
    watcher = try setup.start()
    watcher.waitFor("the two new ones") { $0.filter { $0.event == "committed" }.count == 2 }
    usleep(500_000)
    #expect(watcher.events.allSatisfy { ($0.path as NSString).lastPathComponent.hasPrefix("later") })
    #expect(watcher.stop() == 0)
    #expect(try setup.items().count == 4)

    // Emptying the trash does not make the watcher import a file again: it remembers.
    #expect(try Run.gallery(["trash", setup.document, "1"]).status == 0)
    #expect(try Run.gallery(["trash", setup.document, "--empty"]).status == 0)
    try FixtureImage.make(width: 90, height: 60, seed: 15).write(to: URL(fileURLWithPath: setup.folder + "/offline.jpg"))
    let once = try Run.program(
      Run.galleryBinary, ["watch", setup.folder, "--into", setup.document, "--once"],
      environment: ["XDG_STATE_HOME": setup.state])
    #expect(once.status == 0, "\(once.stderr)")
    let sources = try setup.items().map { URL(string: $0.source)!.lastPathComponent }
    #expect(sources.count == 4)
    #expect(sources.last == "offline.jpg")
  }

  @Test("--once over a folder of 1,000 files: one ready item each, no placeholder left behind")
  func onceOverManyFiles() throws {
    let setup = try DropFolderSetup()
    // A real photograph made small, under 1,000 names (hard links). A scan's answer this
    // large once took longer to feed than the placeholder delay, and files got a
    // placeholder at each save: all but the last stayed stale.
    let photo = setup.work.path("garden.jpg")
    let made = try Run.program("vips", ["thumbnail", "/usr/share/backgrounds/mate/nature/Garden.jpg", photo, "96"])
    #expect(made.status == 0, "\(made.stderr)")
    for number in 0..<1000 {
      try FileManager.default.linkItem(atPath: photo, toPath: setup.folder + "/p\(1000 + number).jpg")
    }
    let once = try Run.program(
      Run.galleryBinary, ["watch", setup.folder, "--into", setup.document, "--once", "--allow-duplicates"],
      environment: ["XDG_STATE_HOME": setup.state])
    #expect(once.status == 0, "\(once.stderr)")
    let items = try setup.items()
    #expect(items.count == 1000)
    #expect(items.filter { $0.state != .ready }.count == 0)
    #expect(Set(items.map(\.source)).count == 1000)
    #expect(try Run.gallery(["check", setup.document]).status == 0)
  }

  @Test("A watcher killed while it imports: the next one imports those files into their placeholders")
  func resumeAfterKill() throws {
    let setup = try DropFolderSetup()
    try setup.killWhileImporting(5, seed: 700)
    let left = try setup.items()
    #expect(left.count == 5)
    #expect(left.allSatisfy { $0.displayState == .stale })

    let once = try Run.program(
      Run.galleryBinary, ["watch", setup.folder, "--into", setup.document, "--once"],
      environment: ["XDG_STATE_HOME": setup.state])
    #expect(once.status == 0, "\(once.stderr)")
    let items = try setup.items()
    #expect(items.map(\.id) == left.map(\.id))
    #expect(items.allSatisfy { $0.state == .ready })
    #expect(items.map(\.source) == left.map(\.source))
    #expect(try Run.gallery(["check", setup.document]).status == 0)
    // Remembered as imported: another start leaves them.
    let again = try Run.program(
      Run.galleryBinary, ["watch", setup.folder, "--into", setup.document, "--once"],
      environment: ["XDG_STATE_HOME": setup.state])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try setup.items().map(\.id) == left.map(\.id))
  }

  @Test(
    "A commit the disk has no room for waits: saved once there is room; asked to stop, the file back in the folder with its placeholder (exit 74), imported next time"
  )
  func fullDiskAtCommit() throws {
    let setup = try DropFolderSetup()
    let disk = try SmallDisk(in: setup.work, size: "1m")
    defer { disk.unmount() }
    let document = try disk.newDocument("full.gallery")
    let aside = setup.work.path("done")
    let arguments = [setup.folder, "--into", document, "--then", "move:" + aside]
    /// A watcher that has found the disk full at the commit of `name`: held open by its
    /// writer, its placeholder is saved before the disk fills; its load waits for the close.
    func waitingForRoom(_ name: String, seed: Int) throws -> WatcherProcess {
      let watcher = try WatcherProcess(arguments, stateHome: setup.state)
      let end = Date() + 10
      while Date() < end && !watcher.log.contains("watching") { usleep(5_000) }
      let writer = try FileHandleWriter(path: setup.folder + "/" + name)
      try writer.write(FixtureImage.make(width: 1600, height: 1200, seed: seed))
      watcher.waitFor("the placeholder of \(name)") { $0.contains { $0.event == "placeholder" } }
      try disk.fill(leaving: 1024)
      writer.close()
      let waiting = Date() + 60
      while Date() < waiting && watcher.process.isRunning && !watcher.log.contains("waiting for room") { usleep(10_000) }
      #expect(watcher.log.contains("No space left on device") && watcher.log.contains("waiting for room"), "\(watcher.log)")
      return watcher
    }

    // Room again: the commit is saved, and the watcher goes on.
    let first = try waitingForRoom("first.jpg", seed: 730)
    try FileManager.default.removeItem(atPath: disk.filler)
    first.waitFor("first.jpg committed") { $0.contains { $0.event == "committed" } }
    #expect(first.log.contains("with room on the disk again"), "\(first.log)")
    let said = first.events.map(\.event).filter { ["waiting", "resumed", "committed"].contains($0) }
    #expect(said == ["waiting", "resumed", "committed"], "\(first.events)")
    #expect(first.events.first { $0.event == "waiting" }?.reason?.contains("No space left on device") == true)
    #expect(first.stop() == 0, "\(first.log)")
    #expect(try Listing.of(document).items.map(\.display) == ["ready"])

    // Asked to stop while it waits: what could not be saved keeps its placeholder.
    let second = try waitingForRoom("second.jpg", seed: 731)
    #expect(second.stop() == 74, "\(second.log)")
    #expect(second.log.contains("1 file not committed"), "\(second.log)")
    #expect(FileManager.default.fileExists(atPath: setup.folder + "/second.jpg"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: aside) == ["first.jpg"])
    #expect(try Listing.of(document).items.map(\.display) == ["ready", "stale"])

    try FileManager.default.removeItem(atPath: disk.filler)
    let once = try Run.program(
      Run.galleryBinary, ["watch", "--once"] + arguments, environment: ["XDG_STATE_HOME": setup.state])
    #expect(once.status == 0, "\(once.stderr)")
    let items = try Listing.of(document).items
    #expect(items.map(\.state) == ["ready", "ready"])
    #expect(items.map(\.source) == ["first.jpg", "second.jpg"].map { URL(fileURLWithPath: aside + "/" + $0).absoluteString })
  }

  @Test("Under --then move:DIR a start forgets the files that left the folder; without --then it remembers them")
  func memoryOfFilesGone() throws {
    let setup = try DropFolderSetup()
    let gone = (0...ImportMemory.forgetFloor).map { setup.folder + "/IMG_\($0).jpg" }
    let pair = DropFolder(folder: setup.folder, document: setup.document)
    ImportMemory(for: pair, stateFolder: setup.state).remember(
      gone.map { ($0, ImportMemory.Record(size: 1, modified: 2, hash: "sha256:00")) })
    func once(_ extra: [String]) throws -> Int {
      let run = try Run.program(
        Run.galleryBinary, ["watch", "--once", setup.folder, "--into", setup.document] + extra,
        environment: ["XDG_STATE_HOME": setup.state])
      #expect(run.status == 0, "\(run.stderr)")
      return ImportMemory(for: pair, stateFolder: setup.state).lines
    }
    #expect(try once([]) == gone.count)
    #expect(try once(["--then", "move:" + setup.work.path("done")]) == 0)
  }

  @Test("--then move:DIR, killed between the move aside and its commit: the next start imports the file")
  func resumeMovedAside() throws {
    let setup = try DropFolderSetup()
    let aside = setup.work.path("done")
    try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
    // In DIR before: one file no item names, under the name the first file takes, and
    // one that an item names, under the name the second takes.
    let unnamed = aside + "/held0.jpg"
    let unnamedBytes = try FixtureImage.make(width: 50, height: 50, seed: 710)
    try unnamedBytes.write(to: URL(fileURLWithPath: unnamed))
    let named = aside + "/held1.jpg"
    try FixtureImage.make(width: 51, height: 50, seed: 711).write(to: URL(fileURLWithPath: named))
    #expect(try Run.gallery(["drop", setup.document, named]).status == 0)
    // Placeholders are made a second later: a file's time says it was in DIR before.
    usleep(1_100_000)
    try setup.killWhileImporting(3, seed: 720, ["--then", "move:" + aside])
    // Moved aside as `--then move:` does, just before the commit the kill prevented: under
    // the next free name.
    let movedTo = [aside + "/held0-2.jpg", aside + "/held1-2.jpg", aside + "/held2.jpg"]
    for (number, target) in movedTo.enumerated() {
      #expect(rename(setup.folder + "/held\(number).jpg", target) == 0)
    }
    let left = try setup.items()
    #expect(left.filter { $0.displayState == .stale }.count == 3)

    let once = try Run.program(
      Run.galleryBinary, ["watch", setup.folder, "--into", setup.document, "--once", "--then", "move:" + aside],
      environment: ["XDG_STATE_HOME": setup.state])
    #expect(once.status == 0, "\(once.stderr)")
    let items = try setup.items()
    #expect(items.map(\.id) == left.map(\.id))
    #expect(items.allSatisfy { $0.state == .ready })
    // Each the photo it was made for, in DIR again; the files that were there before are
    // left as they were.
    #expect(Set(items.dropFirst().map(\.width)) == [60, 61, 62])
    #expect(items.allSatisfy { $0.source.hasPrefix(URL(fileURLWithPath: aside + "/held").absoluteString) })
    #expect(try FileManager.default.contentsOfDirectory(atPath: setup.folder).isEmpty)
    #expect(FileManager.default.contents(atPath: unnamed) == unnamedBytes)
    #expect(try Run.gallery(["check", setup.document]).status == 0)
  }

  @Test("At start, a name imported before with other content is imported; one dropped by hand is not again")
  func recycledName() throws {
    let setup = try DropFolderSetup()
    func once() throws {
      let run = try Run.program(
        Run.galleryBinary, ["watch", setup.folder, "--into", setup.document, "--once"],
        environment: ["XDG_STATE_HOME": setup.state])
      #expect(run.status == 0, "\(run.stderr)")
    }
    let name = setup.folder + "/IMG_0001.jpg"
    try FixtureImage.make(width: 90, height: 60, seed: 31).write(to: URL(fileURLWithPath: name))
    try once()
    #expect(try setup.items().count == 1)
    // The card formatted, its numbering started again: another photo under the same name,
    // while no watcher ran.
    try FileManager.default.removeItem(atPath: name)
    try FixtureImage.make(width: 80, height: 60, seed: 32).write(to: URL(fileURLWithPath: name))
    try once()
    let items = try setup.items()
    #expect(items.count == 2)
    #expect(Set(items.map(\.source)).count == 1)
    #expect(Set(items.compactMap(\.hash)).count == 2)
    // A file of the folder dropped by hand (the watcher has no memory of it): held, not
    // imported a second time.
    let byHand = setup.folder + "/by-hand.jpg"
    try FixtureImage.make(width: 70, height: 60, seed: 33).write(to: URL(fileURLWithPath: byHand))
    #expect(try Run.gallery(["drop", setup.document, byHand]).status == 0)
    try once()
    try once()
    #expect(try setup.items().count == 3)
  }

  @Test("--embed --then delete at start: a file the document holds with its bytes goes, not imported again")
  func deleteWhatIsHeld() throws {
    let setup = try DropFolderSetup()
    // As a watcher killed between its commit and the delete leaves it: the file, and an
    // item of it keeping its bytes.
    let held = setup.folder + "/held.jpg"
    try FixtureImage.make(width: 90, height: 60, seed: 41).write(to: URL(fileURLWithPath: held))
    #expect(try Run.gallery(["drop", setup.document, "--embed", held]).status == 0)
    let other = setup.folder + "/other.jpg"
    try FixtureImage.make(width: 80, height: 60, seed: 42).write(to: URL(fileURLWithPath: other))
    #expect(try Run.gallery(["drop", setup.document, other]).status == 0)
    let run = try Run.program(
      Run.galleryBinary, ["watch", setup.folder, "--into", setup.document, "--once", "--embed", "--then", "delete"],
      environment: ["XDG_STATE_HOME": setup.state])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: held))
    // Held without its bytes: kept.
    #expect(FileManager.default.fileExists(atPath: other))
    #expect(try setup.items().count == 2)
  }

  @Test("SIGTERM with a file still being written: exit 0 and no placeholder left")
  func terminateCleanly() throws {
    let setup = try DropFolderSetup()
    let watcher = try setup.start()
    let half = setup.folder + "/unfinished.jpg"
    let handle = try FileHandleWriter(path: half)
    try handle.write(Data(repeating: 0xFF, count: 100))
    watcher.waitFor("the placeholder") { $0.contains { $0.event == "placeholder" } }
    #expect(try setup.items().count == 1)
    #expect(watcher.stop() == 0)
    handle.close()
    #expect(try setup.items().isEmpty)
    #expect(try Run.gallery(["check", setup.document]).status == 0)
  }

  @Test("The watched folder deleted: a clear error and a non-zero exit")
  func folderDeleted() throws {
    let setup = try DropFolderSetup()
    let watcher = try setup.start()
    #expect(try Run.program("rm", ["-rf", setup.folder]).status == 0)
    watcher.process.wait()
    #expect(watcher.process.terminationStatus != 0)
    #expect(watcher.log.contains("was deleted, moved or unmounted"))
  }

  @Test(
    "A document renamed while the watcher runs (gallery rename, then compacted and moved by mv): followed, nothing left undropped"
  )
  func documentRenamed() throws {
    let setup = try DropFolderSetup()
    let watcher = try setup.start()
    func arrive(_ name: String, seed: Int, commits: Int) throws {
      #expect(try Run.program("cp", [try setup.image(name, seed: seed), setup.folder + "/"]).status == 0)
      watcher.waitFor("\(name) committed") { $0.filter { $0.event == "committed" }.count == commits }
    }
    try arrive("a.jpg", seed: 41, commits: 1)
    let renamed = setup.work.path("renamed.gallery")
    #expect(try Run.gallery(["rename", setup.document, "renamed"]).status == 0)
    try arrive("b.jpg", seed: 42, commits: 2)
    // A compaction puts a new file under the name; the watcher holds on to that one.
    #expect(try Run.gallery(["compact", renamed]).status == 0)
    try arrive("c.jpg", seed: 43, commits: 3)
    let moved = setup.work.path("kept/moved.gallery")
    try FileManager.default.createDirectory(atPath: setup.work.path("kept"), withIntermediateDirectories: true)
    #expect(try Run.program("mv", [renamed, moved]).status == 0)
    try arrive("d.jpg", seed: 44, commits: 4)
    #expect(watcher.process.isRunning)
    let sources = try GalleryDocument.open(moved).model.items.map { URL(string: $0.source)!.lastPathComponent }
    #expect(sources == ["a.jpg", "b.jpg", "c.jpg", "d.jpg"])
    #expect(!FileManager.default.fileExists(atPath: setup.document) && !FileManager.default.fileExists(atPath: renamed))
    #expect(watcher.events.last { $0.event == "committed" }?.document == moved)
    #expect(watcher.log.contains("was renamed"), "\(watcher.log)")
    #expect(watcher.stop() == 0)
  }

  @Test("Usage: pairs, a config file, refusals")
  func usage() throws {
    let setup = try DropFolderSetup()
    #expect(try Run.gallery(["watch", setup.folder]).status == 64)
    #expect(try Run.gallery(["watch", setup.folder, "--into", setup.document, "--then", "delete"]).stderr.contains("embedded"))
    let missing = try Run.gallery(["watch", setup.work.path("nope"), "--into", setup.document, "--once"])
    #expect(missing.status != 0)
    let config = try setup.work.write("# inbox\n\(setup.folder):\(setup.document)\n", to: "watch.conf")
    try FixtureImage.make(width: 50, height: 40, seed: 20).write(to: URL(fileURLWithPath: setup.folder + "/c.jpg"))
    let once = try Run.program(
      Run.galleryBinary, ["watch", "--config", config, "--once"], environment: ["XDG_STATE_HOME": setup.state])
    #expect(once.status == 0, "\(once.stderr)")
    #expect(try setup.items().count == 1)
  }
}

/// An open file a test writes to in steps (a writer that has not finished).
final class FileHandleWriter {
  let fd: Int32
  init(path: String) throws {
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw POSIXError(.EIO) }
  }
  func write(_ data: Data) throws {
    let n = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    guard n == data.count else { throw POSIXError(.EIO) }
  }
  func close() { Glibc.close(fd) }
}

/// inotify limits, tuned through /proc for the length of a test (root only).
enum InotifyLimits {
  static let canTune = access("/proc/sys/fs/inotify/max_queued_events", W_OK) == 0

  /// Sets a limit while `body` runs, then restores it.
  static func with<T>(_ name: String, _ value: Int, _ body: () throws -> T) throws -> T {
    let path = "/proc/sys/fs/inotify/\(name)"
    let old = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    try "\(value)\n".write(toFile: path, atomically: false, encoding: .utf8)
    defer { try? "\(old)\n".write(toFile: path, atomically: false, encoding: .utf8) }
    return try body()
  }
}

extension DropFolderTests {
  @Test("A queue overflow triggers a rescan that imports everything once", .enabled(if: InotifyLimits.canTune))
  func queueOverflow() throws {
    let setup = try DropFolderSetup()
    let source = setup.work.path("many")
    try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
    for index in 0..<120 {
      try FixtureImage.make(width: 40 + index % 5, height: 30, seed: 500 + index)
        .write(to: URL(fileURLWithPath: source + "/m\(index).jpg"))
    }
    // The queue size is taken when the watcher's inotify instance is made. The watcher is
    // stopped (SIGSTOP) while the files arrive, so that the queue overflows for certain: a
    // running reader may keep up with four events at a time.
    let watcher = try InotifyLimits.with("max_queued_events", 4) { try setup.start() }
    kill(watcher.process.processIdentifier, SIGSTOP)
    let copied = try Run.program("bash", ["-c", "cp '\(source)'/*.jpg '\(setup.folder)/'"]).status
    kill(watcher.process.processIdentifier, SIGCONT)
    #expect(copied == 0)
    watcher.waitFor("120 commits", timeout: 60) { $0.filter { $0.event == "committed" }.count == 120 }
    #expect(watcher.log.contains("overflowed"))
    #expect(watcher.stop() == 0)
    let items = try setup.items()
    #expect(items.count == 120)
    #expect(Set(items.map(\.source)).count == 120)
  }

  @Test(
    "A new folder over the watch limit does not stop the watcher: it warns, watches the rest, and catches up",
    .enabled(if: InotifyLimits.canTune))
  func watchLimitAtRunTime() throws {
    let setup = try DropFolderSetup()
    let watcher = try setup.start(["--recursive"])
    #expect(watcher.log.contains("watching"))
    // Every watch this user has now, and not one more.
    let used = try Run.program("sh", ["-c", "cat /proc/[0-9]*/fdinfo/* 2>/dev/null | grep -c '^inotify wd:'"]).stdout
    let limit = Int(used.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 1
    try InotifyLimits.with("max_user_watches", max(1, limit)) {
      try FileManager.default.createDirectory(atPath: setup.folder + "/later", withIntermediateDirectories: true)
      watcher.waitFor("the folder reported unwatched", timeout: 10) { $0.contains { $0.event == "unwatched" } }
      try FileManager.default.copyItem(atPath: try setup.image("top.jpg", seed: 31), toPath: setup.folder + "/top.jpg")
      try FileManager.default.copyItem(atPath: try setup.image("deep.jpg", seed: 32), toPath: setup.folder + "/later/deep.jpg")
      watcher.waitFor("the top folder still watched", timeout: 20) {
        $0.contains { $0.event == "committed" && $0.path.hasSuffix("/top.jpg") }
      }
    }
    // The limit is back: the folder is watched again and scanned.
    watcher.waitFor("the new folder caught up", timeout: 30) {
      $0.contains { $0.event == "committed" && $0.path.hasSuffix("/later/deep.jpg") }
    }
    #expect(watcher.count("watched") == 1)
    #expect(watcher.log.contains("warning: cannot watch"))
    #expect(watcher.stop() == 0)
    #expect(watcher.count("stopped") == 1)
    #expect(try setup.items().count == 2)
  }

  @Test("Running out of inotify watches names the sysctl to raise", .enabled(if: InotifyLimits.canTune))
  func watchLimit() throws {
    let setup = try DropFolderSetup()
    for index in 0..<5 {
      try FileManager.default.createDirectory(atPath: setup.folder + "/sub\(index)", withIntermediateDirectories: true)
    }
    let result = try InotifyLimits.with("max_user_watches", 2) {
      try Run.program(
        Run.galleryBinary, ["watch", "--recursive", setup.folder, "--into", setup.document],
        environment: ["XDG_STATE_HOME": setup.state])
    }
    #expect(result.status != 0)
    #expect(result.stderr.contains("fs.inotify.max_user_watches"), "\(result.stderr)")
  }
}
