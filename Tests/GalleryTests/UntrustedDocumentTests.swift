import Foundation
import GalleryKit
import GalleryTestSupport
import Testing

/// Documents come from other people: every case here is a document made as an attacker
/// would make it, run through the real binary.
@Suite("Untrusted documents: refused with a clear message, nothing written outside, no crash")
struct UntrustedDocumentTests {
  /// A real document with two ready items.
  func genuine(_ work: TestWorkspace, name: String = "genuine.gallery") throws -> String {
    let document = try work.document(name)
    let result = try Run.gallery([
      "drop", document, try work.image("a.jpg", seed: 3), try work.image("b.png", format: .png, seed: 4),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    // Compacted, so that its last gallery.json is the current model that tests change.
    #expect(try Run.gallery(["compact", document]).status == 0)
    return document
  }

  @Test("An id that is a path is refused on read: export, merge and check write nothing outside")
  func pathID() throws {
    let work = try TestWorkspace()
    let source = try genuine(work)
    let hostile = work.path("hostile.gallery")
    let escape = "../../../../../../../tmp/gallery-escape-\(UUID().uuidString.prefix(8))"
    try HostileDocument.make(from: source, to: hostile) { model in
      HostileDocument.items(&model) { items in
        items[0]["id"] = escape
        items[0]["thumbnail"] = "thumbnails/" + escape + ".jpg"
      }
    }
    let out = work.path("out")
    for arguments in [["show", hostile], ["export", hostile, "--to", out], ["export", hostile, "--thumbnails", "--to", out]] {
      let result = try Run.gallery(arguments)
      #expect(result.status == 65, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("not a valid id"), "\(result.stderr)")
    }
    let merge = try Run.gallery(["merge", hostile, source, "-o", work.path("merged.gallery")])
    #expect(merge.status == 65)
    #expect(!FileManager.default.fileExists(atPath: work.path("merged.gallery")))
    let check = try Run.gallery(["check", hostile])
    #expect(check.status == 65)
    #expect(check.stdout.contains("problem: item id"))
    #expect(!FileManager.default.fileExists(atPath: "/tmp/" + escape.split(separator: "/").last! + ".jpg"))
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).isEmpty)
  }

  @Test(
    "Every rule of the model is checked on read, with exit status 65 naming the problem",
    arguments: [
      ("duplicate id", "used more than once"),
      ("aspect ratio 1e300", "aspect ratio"),
      ("trash position -2^63", "position"),
      ("revision 2^63-1", "revision"),
      ("thumbnail size 2^63-1", "thumbnail size"),
      ("year 0", "date"),
      ("leap second", "date"),
      ("thumbnail entry outside thumbnails/", "thumbnail entry"),
      ("source with CR LF", "source"),
      ("hash that is a path", "hash"),
    ])
  func rules(_ case: String, _ expected: String) throws {
    let work = try TestWorkspace()
    let source = try genuine(work)
    let hostile = work.path("hostile.gallery")
    try HostileDocument.make(
      from: source, to: hostile,
      change: { model in
        switch `case` {
        case "duplicate id": HostileDocument.items(&model) { $0[1]["id"] = $0[0]["id"] }
        case "aspect ratio 1e300": HostileDocument.items(&model) { $0[0]["aspectRatio"] = 1e300 }
        case "trash position -2^63":
          var items = model["items"] as! [[String: Any]]
          model["trash"] = [["item": items.removeLast(), "trashed": "2026-01-01T00:00:00Z", "position": Int.min]]
          model["items"] = items
        case "revision 2^63-1": model["revision"] = Int.max
        case "thumbnail size 2^63-1": model["settings"] = ["thumbnailSize": Int.max]
        case "year 0": HostileDocument.items(&model) { $0[0]["added"] = "0000-01-01T00:00:00+01:00" }
        case "leap second": model["created"] = "2016-12-31T23:59:60Z"
        case "thumbnail entry outside thumbnails/":
          HostileDocument.items(&model) { $0[0]["thumbnail"] = "thumbnails/../../x.jpg" }
        case "source with CR LF": HostileDocument.items(&model) { $0[0]["source"] = "file:///a.jpg\r\nfile:///etc/passwd" }
        case "hash that is a path": HostileDocument.items(&model) { $0[0]["hash"] = "sha256:../../../etc" }
        default: Issue.record("unknown case")
        }
      })
    for command in [
      ["show", hostile], ["restore", hostile, "1"], ["drop", hostile, try work.image("c.jpg", seed: 9)],
      ["sheet", hostile, "-o", work.path("s.png")], ["compact", hostile],
    ] {
      let result = try Run.gallery(command)
      #expect(!crashed(result), "\(`case`): \(command[0]) crashed")
      #expect(result.status == 65, "\(`case`): \(command[0]) exited \(result.status): \(result.stderr)")
      #expect(result.stderr.contains(expected), "\(`case`): \(result.stderr)")
    }
  }

  @Test("gallery.json nested 300,000 arrays deep is an error, not a stack overflow")
  func deepNesting() throws {
    let work = try TestWorkspace()
    let source = try genuine(work)
    let hostile = work.path("deep.gallery")
    try HostileDocument.make(
      from: source, to: hostile,
      text: { text in
        text.replacingOccurrences(
          of: "\"items\":",
          with: "\"deep\":" + String(repeating: "[", count: 300_000) + String(repeating: "]", count: 300_000) + ",\"items\":")
      })
    let result = try Run.gallery(["show", hostile])
    #expect(!crashed(result))
    #expect(result.status == 65)
    #expect(result.stderr.contains("nested more than"))
  }

  @Test("Link, FIFO and sparse entries are damage, never followed or expanded")
  func specialEntries() throws {
    let work = try TestWorkspace()
    let source = try genuine(work)
    let id = try Listing.of(source).items[0].id
    let linked = work.path("linked.gallery")
    // The model's own thumbnail name, as a symlink entry to /etc/passwd, after the real one.
    try HostileDocument.make(from: source, to: linked, extra: ["symlink:thumbnails/\(id).jpg:/etc/passwd", "fifo:cover.jpg"])
    let show = try Run.gallery(["show", linked])
    #expect(show.status == 0)
    #expect(show.stderr.contains("damaged"), "\(show.stderr)")
    let export = try Run.gallery(["export", linked, "--thumbnails", "--to", work.path("out")])
    let exported = (try? FileManager.default.contentsOfDirectory(atPath: work.path("out"))) ?? []
    for name in exported {
      #expect(try work.bytes(work.path("out/" + name)) != (try Data(contentsOf: URL(fileURLWithPath: "/etc/passwd"))))
    }
    _ = export
    let drop = try Run.gallery(["drop", linked, try work.image("c.jpg", seed: 9)])
    #expect(drop.status == 65)

    // A GNU sparse thumbnail of 1 GiB in a small file: refused, with memory bounded.
    let folder = work.path("sparse")
    try FileManager.default.createDirectory(atPath: folder + "/thumbnails", withIntermediateDirectories: true)
    try Data("application/x-gallery".utf8).write(to: URL(fileURLWithPath: folder + "/mimetype"))
    _ = try Run.program("bsdtar", ["-xf", source, "-C", folder, "gallery.json"])
    _ = try Run.program("truncate", ["-s", "1G", folder + "/thumbnails/\(id).jpg"])
    _ = try Run.program("truncate", ["-s", "1G", folder + "/cover.jpg"])
    let sparse = work.path("sparse.gallery")
    let tar = try Run.program(
      "tar",
      ["--sparse", "--format=pax", "-cf", sparse, "-C", folder, "mimetype", "thumbnails/\(id).jpg", "cover.jpg", "gallery.json"])
    #expect(tar.status == 0, "\(tar.stderr)")
    #expect((try FileManager.default.attributesOfItem(atPath: sparse)[.size] as! Int) <= 1 << 20)
    for arguments in [["thumbnail", sparse, work.path("t.png"), "128"], ["compact", sparse], ["check", sparse]] {
      let (result, bytes) = try peakMemory(arguments)
      #expect(!crashed(result))
      #expect(result.status != 0, "\(arguments[0]) accepted a sparse entry")
      #expect(bytes < 200 << 20, "\(arguments[0]) used \(bytes >> 20) MiB")
    }
    #expect((try FileManager.default.attributesOfItem(atPath: sparse)[.size] as! Int) <= 1 << 20)
  }

  @Test("A FIFO named *.gallery never blocks a command")
  func fifo() throws {
    let work = try TestWorkspace()
    let fifo = work.path("trap.gallery")
    #expect(mkfifo(fifo, 0o644) == 0)
    let commands: [[String]] = [
      ["show", fifo], ["info", fifo], ["check", fifo], ["drop", fifo, try work.image("a.jpg")],
      ["thumbnail", fifo, work.path("t.png"), "64"], ["export", fifo, "--to", work.path("out")],
      ["rename", fifo, "other"], ["delete", fifo], ["browse", work.folder.path],
    ]
    for command in commands {
      let started = Date()
      let result = try Run.gallery(command)
      #expect(Date().timeIntervalSince(started) < 10, "\(command[0]) blocked")
      #expect(!crashed(result))
      if command[0] != "browse" { #expect(result.status == 65, "\(command[0]): \(result.status) \(result.stderr)") }
    }
  }

  @Test("Titles and failure reasons cannot drive the terminal; --json stays exact")
  func terminalEscapes() throws {
    let work = try TestWorkspace()
    let source = try genuine(work)
    let hostile = work.path("title.gallery")
    let title = "Trip\u{1b}]0;pwned\u{07}\u{1b}[2J\r\nforged line"
    try HostileDocument.make(from: source, to: hostile) { model in
      model["title"] = title
      HostileDocument.items(&model) { items in
        items[1]["state"] = "failed"
        items[1]["failure"] = "\u{1b}[31mred\u{1b}[0m"
      }
    }
    for command in [["show", hostile], ["browse", work.folder.path], ["info", hostile], ["check", hostile]] {
      let result = try Run.gallery(command)
      #expect(
        !result.stdout.unicodeScalars.contains { $0.value == 0x1b || $0 == "\r" || $0.value == 0x07 },
        "\(command[0]) printed controls")
      #expect(!result.stderr.unicodeScalars.contains { $0.value == 0x1b || $0.value == 0x07 }, "\(command[0]) printed controls")
    }
    #expect(try Run.gallery(["show", hostile]).stdout.contains("Trip\\x1B]0;pwned\\x07"))
    #expect(try Listing.of(hostile).title == title)
  }

  @Test("A file that is not the dropped image is never exported: no hash, or another hash")
  func exportChecksContent() throws {
    let work = try TestWorkspace()
    let source = try genuine(work)
    let hostile = work.path("shadow.gallery")
    try HostileDocument.make(from: source, to: hostile) { model in
      HostileDocument.items(&model) { $0[0]["source"] = "file:///etc/passwd" }
    }
    let out = work.path("out")
    let export = try Run.gallery(["export", hostile, "1", "--to", out])
    #expect(export.status == 1)
    #expect(export.stderr.contains("changed since it was dropped"), "\(export.stderr)")
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).isEmpty)

    let unhashed = work.path("unhashed.gallery")
    try HostileDocument.make(from: source, to: unhashed) { model in
      HostileDocument.items(&model) { items in
        items[0]["source"] = "file:///etc/passwd"
        items[0]["hash"] = nil
      }
    }
    #expect(try Run.gallery(["export", unhashed, "--to", out]).status == 65)
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).isEmpty)
  }

  @Test("A source that never ends (/proc/self/pagemap) is read only up to the size limit")
  func endlessSource() throws {
    let work = try TestWorkspace()
    let source = try genuine(work)
    let hostile = work.path("proc.gallery")
    try HostileDocument.make(from: source, to: hostile) { model in
      HostileDocument.items(&model) { items in
        items[0]["source"] = "file:///proc/self/pagemap"
        items[1]["source"] = "file:///proc/self/pagemap"
        items[1]["state"] = "failed"
      }
    }
    let (export, exportMemory) = try peakMemory(["export", hostile, "1", "--to", work.path("out")])
    #expect(export.status == 1)
    // Bounded either way: pagemap refuses reads that are not 8-byte records, and anything
    // that reads on is cut at the size limit.
    #expect(export.stderr.contains("larger than the limit") || export.stderr.contains("cannot be read"), "\(export.stderr)")
    #expect(exportMemory < 200 << 20)
    let (retry, retryMemory) = try peakMemory(["retry", hostile, "2"])
    #expect(!crashed(retry))
    #expect(retryMemory < 200 << 20)
    let items = try Listing.of(hostile).items
    #expect(items[1].state == "failed")
  }

  @Test("Placeholders owned by pid 0 or -1 are stale, not pending forever")
  func groupPIDs() throws {
    let work = try TestWorkspace()
    let source = try genuine(work)
    let hostile = work.path("pids.gallery")
    let host = ProcessInfo.processInfo.hostName
    try HostileDocument.make(from: source, to: hostile) { model in
      HostileDocument.items(&model) { items in
        for (index, pid) in [0, -1].enumerated() {
          items[index]["state"] = "placeholder"
          items[index]["placeholder"] = [
            "from": items[index]["source"]!, "since": "2026-01-01T00:00:00Z",
            "owner": ["pid": pid, "host": host, "started": "2026-01-01T00:00:00Z"],
          ]
        }
      }
    }
    #expect(try Listing.of(hostile).items.map(\.display) == ["stale", "stale"])
  }
}
