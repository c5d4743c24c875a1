import Foundation
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryKit
@testable import GallerySystem

/// Drop folders' configuration files follow a renamed document (`WatchConfig`).
struct WatchConfigTests {
  @Test("A rename rewrites the pairs naming the document, and no other byte")
  func renaming() throws {
    let home = XDGDirectory.home
    let text = """
      # /srv/a.gallery is the inbox
        /srv/drop:/srv/a.gallery
      /srv/other:/srv/b.gallery
      /srv/time 10:30:/srv/x/../a.gallery
      ~/camera:~/a.gallery
      /srv/drop:\(home)/a.gallery\t
      """
    let renamed = WatchConfig.renaming("/srv/a.gallery", to: "/srv/new.gallery", in: text)
    #expect(
      renamed == """
        # /srv/a.gallery is the inbox
          /srv/drop:/srv/new.gallery
        /srv/other:/srv/b.gallery
        /srv/time 10:30:/srv/new.gallery
        ~/camera:~/a.gallery
        /srv/drop:\(home)/a.gallery\t
        """)
    // `~` is the home folder, as the watcher reads it; the line's end stays (none here).
    let fromHome = WatchConfig.renaming(home + "/a.gallery", to: home + "/b.gallery", in: text)
    #expect(fromHome?.hasSuffix("~/camera:\(home)/b.gallery\n/srv/drop:\(home)/b.gallery") == true)
    #expect(fromHome?.hasPrefix("# /srv/a.gallery is the inbox\n") == true)
    #expect(WatchConfig.renaming("/srv/c.gallery", to: "/srv/d.gallery", in: text) == nil)
    // A name with a line break would end the line: not written.
    #expect(WatchConfig.renaming("/srv/a.gallery", to: "/srv/new\nx.gallery", in: text) == nil)
    // A folder renamed: the part before the last colon (a folder may hold colons), the
    // line's indent kept; a document may not take a colon, a folder may.
    #expect(
      WatchConfig.renaming(.folder, "/srv/drop", to: "/srv/in: box", in: text)?.split(separator: "\n")[1]
        == "  /srv/in: box:/srv/a.gallery")
    #expect(WatchConfig.renaming(.folder, "/srv/time 10:30", to: "/t", in: text)?.contains("\n/t:/srv/x/../a.gallery\n") == true)
    #expect(WatchConfig.renaming(.folder, "/srv/none", to: "/t", in: text) == nil)
    #expect(WatchConfig.renaming("/srv/a.gallery", to: "/srv/a:b.gallery", in: text) == nil)
    // A name that is not UTF-8 (a byte rides as a private-use scalar) is written as it is.
    let latin1 = PathBytes.string([UInt8]("/srv/caf".utf8) + [0xE9] + [UInt8](".gallery".utf8))
    let bytes = WatchConfig.renaming("/srv/a.gallery", to: latin1, in: "/srv/drop:/srv/a.gallery\n").map(PathBytes.bytes)
    #expect(bytes == [UInt8]("/srv/drop:/srv/caf".utf8) + [0xE9] + [UInt8](".gallery\n".utf8))
  }

  @Test("gallery rename: the configuration files that name it follow (a link stays a link), and the next watcher finds it")
  func renameCommand() throws {
    let work = try TestWorkspace()
    let config = work.path("config")
    let folder = work.path("drop")
    let elsewhere = work.path("dotfiles")
    for path in [config + "/gallery", folder, elsewhere] {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    let document = try work.document("inbox.gallery")
    let watchConf = config + "/gallery/watch.conf"
    try "# inbox\n\(folder):\(document)\n".write(toFile: watchConf, atomically: false, encoding: .utf8)
    #expect(chmod(watchConf, 0o600) == 0)
    try "\(folder):\(document)\n".write(toFile: elsewhere + "/camera.conf", atomically: false, encoding: .utf8)
    try FileManager.default.createSymbolicLink(
      atPath: config + "/gallery/camera.conf", withDestinationPath: elsewhere + "/camera.conf")
    let untouched = "\(folder):\(work.path("other.gallery"))\n"
    try untouched.write(toFile: config + "/gallery/other.conf", atomically: false, encoding: .utf8)
    let environment = ["XDG_CONFIG_HOME": config, "XDG_STATE_HOME": work.path("state")]

    let rename = try Run.gallery(["rename", document, "renamed"], environment: environment)
    let renamed = work.path("renamed.gallery")
    #expect(rename.status == 0, "\(rename.stderr)")
    #expect(rename.stdout == renamed + "\n")
    #expect(rename.stderr.contains("watch.conf now names \(renamed)") && rename.stderr.contains("camera.conf now names"))
    #expect(try String(contentsOfFile: watchConf, encoding: .utf8) == "# inbox\n\(folder):\(renamed)\n")
    #expect(FileSystem.status(of: watchConf).map { $0.st_mode & 0o777 } == 0o600)
    #expect(try String(contentsOfFile: elsewhere + "/camera.conf", encoding: .utf8) == "\(folder):\(renamed)\n")
    #expect(FileSystem.linkStatus(of: config + "/gallery/camera.conf").map { $0.st_mode & S_IFMT } == S_IFLNK)
    #expect(try String(contentsOfFile: config + "/gallery/other.conf", encoding: .utf8) == untouched)

    // The watcher started from watch.conf (as its unit would be) finds the document.
    try FileManager.default.removeItem(atPath: config + "/gallery/camera.conf")
    try FileManager.default.removeItem(atPath: config + "/gallery/other.conf")
    _ = try work.image("arrived.jpg", seed: 7)
    #expect(try Run.program("mv", [work.path("arrived.jpg"), folder + "/"]).status == 0)
    let once = try Run.gallery(["watch", "--once"], environment: environment)
    #expect(once.status == 0, "\(once.stderr)")
    #expect(try GalleryDocument.open(renamed).model.items.map { URL(string: $0.source)!.lastPathComponent } == ["arrived.jpg"])
  }

  @Test(
    "A document renamed while no watcher ran: the next start finds it by its history (not a copy, not a stranger), and what it remembers follows every rename"
  )
  func renamedWhileNoWatcherRan() throws {
    let setup = try DropFolderSetup()
    let config = setup.work.path("config/gallery/inbox.conf")
    try FileManager.default.createDirectory(atPath: setup.work.path("config/gallery"), withIntermediateDirectories: true)
    try "\(setup.folder):\(setup.document)\n".write(toFile: config, atomically: false, encoding: .utf8)
    let environment = ["XDG_CONFIG_HOME": setup.work.path("config"), "XDG_STATE_HOME": setup.state]
    func once() throws -> Run.Result { try Run.gallery(["watch", "--once", "--config", config], environment: environment) }
    func arrive(_ name: String, seed: Int) throws {
      #expect(try Run.program("cp", [try setup.image(name, seed: seed), setup.folder + "/"]).status == 0)
    }
    func names(_ document: String) throws -> [String] {
      try GalleryDocument.open(document).model.items.map { URL(string: $0.source)!.lastPathComponent }
    }
    func memory(_ document: String) -> ImportMemory {
      ImportMemory(for: DropFolder(folder: setup.folder, document: document), stateFolder: setup.state)
    }
    func configured() throws -> String { try String(contentsOfFile: config, encoding: .utf8) }

    try arrive("a.jpg", seed: 1)
    #expect(try once().status == 0)
    // `gallery rename`: the configuration and the memory follow.
    let named = setup.work.path("named.gallery")
    #expect(try Run.gallery(["rename", setup.document, "named"], environment: environment).status == 0)
    #expect(try configured() == "\(setup.folder):\(named)\n")
    #expect(FileSystem.status(of: memory(setup.document).file) == nil && memory(named).records.count == 1)

    // A file manager renames it (rename(2), as mv does) while no watcher runs.
    let photos = setup.work.path("photos.gallery")
    #expect(try Run.program("mv", [named, photos]).status == 0)
    try arrive("b.jpg", seed: 2)
    let found = try once()
    #expect(found.status == 0, "\(found.stderr)")
    #expect(found.stderr.contains("\(named) was renamed to \(photos)") && found.stderr.contains("inbox.conf now names it"))
    #expect(try configured() == "\(setup.folder):\(photos)\n")
    #expect(try names(photos) == ["a.jpg", "b.jpg"])
    #expect(FileSystem.status(of: memory(named).file) == nil && Set(memory(photos).records.keys).count == 2)
    // A command line that still names it as before finds it too.
    let byName = try Run.gallery(["watch", "--once", setup.folder, "--into", named], environment: environment)
    #expect(byName.status == 0 && byName.stderr.contains("\(named) was renamed to \(photos)"), "\(byName.stderr)")

    // A copy beside it, and the document renamed again: the file itself is followed.
    let copy = setup.work.path("copy.gallery")
    let moved = setup.work.path("moved.gallery")
    #expect(try Run.program("cp", [photos, copy]).status == 0)
    #expect(try Run.program("mv", [photos, moved]).status == 0)
    try arrive("c.jpg", seed: 3)
    let again = try once()
    #expect(again.status == 0 && again.stderr.contains("was renamed to \(moved)"), "\(again.stderr)")
    #expect(try names(moved) == ["a.jpg", "b.jpg", "c.jpg"] && names(copy) == ["a.jpg", "b.jpg"])

    // Two copies of it and it gone: which one is not guessed.
    for name in ["x.gallery", "y.gallery"] {
      #expect(try Run.program("cp", [moved, setup.work.path(name)]).status == 0)
    }
    #expect(try Run.program("rm", [moved]).status == 0)
    let ambiguous = try once()
    #expect(ambiguous.status == 66 && ambiguous.stderr.contains("each continue it"), "\(ambiguous.stderr)")
    #expect(try configured() == "\(setup.folder):\(moved)\n")
    // Only an older copy and a stranger beside it: nothing continues it.
    for name in ["x.gallery", "y.gallery"] { try FileManager.default.removeItem(atPath: setup.work.path(name)) }
    _ = try setup.work.document("stranger.gallery")
    let gone = try once()
    #expect(gone.status == 66 && !gone.stderr.contains("renamed"), "\(gone.stderr)")
    #expect(try configured() == "\(setup.folder):\(moved)\n")
  }

  @Test(
    "A drop folder renamed while no watcher ran, or while one runs: watched under its new name, its configuration and memory following; one deleted ends the watcher"
  )
  func folderRenamed() throws {
    let setup = try DropFolderSetup()
    let config = setup.work.path("inbox.conf")
    try "\(setup.folder):\(setup.document)\n".write(toFile: config, atomically: false, encoding: .utf8)
    let environment = ["XDG_STATE_HOME": setup.state]
    func arrive(_ name: String, seed: Int, in folder: String) throws {
      #expect(try Run.program("cp", [try setup.image(name, seed: seed), folder + "/"]).status == 0)
    }
    func configured() throws -> String { try String(contentsOfFile: config, encoding: .utf8) }
    func names() throws -> [String] {
      try GalleryDocument.open(setup.document).model.items.map { URL(string: $0.source)!.path }
    }

    try arrive("a.jpg", seed: 1, in: setup.folder)
    #expect(try Run.gallery(["watch", "--once", "--config", config], environment: environment).status == 0)
    // Renamed (a file manager) while no watcher runs.
    let renamed = setup.work.path("camera")
    #expect(try Run.program("mv", [setup.folder, renamed]).status == 0)
    try arrive("b.jpg", seed: 2, in: renamed)
    let found = try Run.gallery(["watch", "--once", "--config", config], environment: environment)
    #expect(
      found.status == 0 && found.stderr.contains("the drop folder \(setup.folder) was renamed to \(renamed)"), "\(found.stderr)")
    #expect(try configured() == "\(renamed):\(setup.document)\n")
    #expect(try names() == [setup.folder + "/a.jpg", renamed + "/b.jpg"])
    // What it imported is remembered where it is now: a.jpg is not looked at again.
    let memory = ImportMemory(for: DropFolder(folder: renamed, document: setup.document), stateFolder: setup.state)
    #expect(Set(memory.records.keys) == [renamed + "/a.jpg", renamed + "/b.jpg"])

    // Renamed while the watcher runs: it watches it again under its new name.
    let watcher = try WatcherProcess(["--config", config], stateHome: setup.state)
    let end = Date() + 10
    while Date() < end && !watcher.log.contains("watching") { usleep(5_000) }
    let moved = setup.work.path("moved")
    #expect(try Run.program("mv", [renamed, moved]).status == 0)
    let again = Date() + 10
    while Date() < again && !watcher.log.contains("watching \(moved)") { usleep(10_000) }
    try arrive("c.jpg", seed: 3, in: moved)
    watcher.waitFor("c.jpg committed") { $0.contains { $0.event == "committed" && $0.path == moved + "/c.jpg" } }
    // Said as one watcher going on: no `stopped` until it stops.
    #expect(
      !watcher.events.contains { $0.event == "stopped" } && watcher.events.contains { $0.event == "watched" && $0.path == moved })
    #expect(try configured() == "\(moved):\(setup.document)\n")
    #expect(watcher.stop() == 0, "\(watcher.log)")
    #expect(try names() == [setup.folder + "/a.jpg", renamed + "/b.jpg", moved + "/c.jpg"])

    // Deleted while it runs: the watcher ends, as before.
    let ending = try WatcherProcess(["--config", config], stateHome: setup.state)
    let started = Date() + 10
    while Date() < started && !ending.log.contains("watching") { usleep(5_000) }
    try FileManager.default.removeItem(atPath: moved)
    ending.process.wait(upTo: 20)
    #expect(ending.process.terminationStatus == 66 && ending.log.contains("deleted, moved or unmounted"), "\(ending.log)")
    #expect(ending.events.last?.event == "stopped")
  }

  @Test("A document moved by a file manager while the watcher runs: its --config file follows")
  func watcherRewritesItsConfig() throws {
    let setup = try DropFolderSetup()
    let config = setup.work.path("inbox.conf")
    try "# the inbox\n\(setup.folder):\(setup.document)\n".write(toFile: config, atomically: false, encoding: .utf8)
    let watcher = try WatcherProcess(["--config", config], stateHome: setup.state)
    let end = Date() + 10
    while Date() < end && !watcher.log.contains("watching") { usleep(5_000) }
    let moved = setup.work.path("moved.gallery")
    #expect(try Run.program("mv", [setup.document, moved]).status == 0)
    #expect(try Run.program("cp", [try setup.image("a.jpg", seed: 3), setup.folder + "/"]).status == 0)
    watcher.waitFor("a.jpg committed") { $0.contains { $0.event == "committed" } }
    #expect(watcher.events.last { $0.event == "committed" }?.document == moved)
    // The watcher rewrites it off the thread that noticed, then says so.
    let said = Date() + 10
    while Date() < said && !watcher.log.contains("inbox.conf now names it") { usleep(10_000) }
    #expect(watcher.log.contains("inbox.conf now names it"), "\(watcher.log)")
    #expect(try String(contentsOfFile: config, encoding: .utf8) == "# the inbox\n\(setup.folder):\(moved)\n")
    #expect(watcher.stop() == 0)
  }
}
