import Foundation
import GalleryKit
import GalleryTestSupport
import Testing

/// Damage is never saved over; drag payloads, drop folders, command-line values and
/// images are hostile until checked.
@Suite("Damage, payloads, drop-folder entries, command-line values and images from others")
struct DamageAndHostileInputTests {
  /// A document of three revisions: a drop of two images, a move, a drop of a third.
  func threeRevisions(_ work: TestWorkspace) throws -> String {
    let document = try work.document()
    #expect(try Run.gallery(["drop", document, try work.image("a.jpg", seed: 1), try work.image("b.jpg", seed: 2)]).status == 0)
    #expect(try Run.gallery(["move", document, "2", "--to", "1"]).status == 0)
    #expect(try Run.gallery(["drop", document, try work.image("c.jpg", seed: 3)]).status == 0)
    return document
  }

  /// Offsets of the tar headers of a file, with their names (read by Python's tarfile).
  func headers(_ path: String) throws -> [(offset: Int, name: String)] {
    let result = try Run.program(
      "python3", ["-c", "import tarfile,sys\nfor m in tarfile.open(sys.argv[1]): print(m.offset, m.name)", path])
    return result.stdout.split(separator: "\n").map { line in
      let parts = line.split(separator: " ", maxSplits: 1)
      return (Int(parts[0])!, String(parts[1]))
    }
  }

  func flipByte(_ path: String, at offset: Int) throws {
    var data = try Data(contentsOf: URL(fileURLWithPath: path))
    data[offset] ^= 0x5A
    try data.write(to: URL(fileURLWithPath: path))
  }

  @Test("One damaged header byte: read-only with a warning, edits refused, the file never cut; check --fix rescues")
  func damagedHeader() throws {
    let work = try TestWorkspace()
    let document = try threeRevisions(work)
    let newest = try Listing.of(document).items.map(\.id)
    // The name of the first thumbnail of the first revision, well before the last revision.
    let target = try headers(document).first { $0.name.hasPrefix("thumbnails/") }!
    try flipByte(document, at: target.offset + 3)
    let damaged = try work.bytes(document)

    let show = try Run.gallery(["show", "--json", document])
    #expect(show.status == 0)
    #expect(show.stderr.contains("is damaged"), "\(show.stderr)")
    let shown = try JSONDecoder().decode(Listing.self, from: show.stdoutData)
    #expect(shown.items.map(\.id) == newest, "the newest revision past the damage is shown")

    for command in [
      ["drop", document, try work.image("d.jpg", seed: 4)], ["move", document, "1", "--to", "end"], ["compact", document],
      ["trash", document, "1"],
    ] {
      let result = try Run.gallery(command)
      #expect(result.status == 65, "\(command[0]): \(result.stderr)")
      #expect(result.stderr.contains("check --fix"))
      #expect(try work.bytes(document) == damaged, "\(command[0]) changed a damaged document")
    }
    let check = try Run.gallery(["check", document])
    #expect(check.status == 1)
    #expect(check.stdout.contains("damaged"))

    let fix = try Run.gallery(["check", "--fix", document])
    #expect(fix.stderr.contains("kept as"), "\(fix.stderr)")
    #expect(try work.bytes(document + ".damaged") == damaged)
    let rescued = try Listing.of(document)
    #expect(rescued.items.map(\.id) == newest)
    #expect(rescued.items.filter { $0.state == "ready" }.count >= 2)
    #expect(try Run.gallery(["drop", document, try work.image("e.jpg", seed: 5)]).status == 0)
    // An item whose thumbnail was lost is a failed item that retry loads again.
    #expect(try Run.gallery(["retry", document]).status == 0)
    #expect(try Listing.of(document).items.allSatisfy { $0.state == "ready" })
  }

  @Test("Saves never compact a document whose dead bytes a whole scan finds damaged, and leave nothing beside it")
  func noCompactionOverDamage() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(30, width: 100, height: 80)).status == 0)
    // Moves of the first item make each cover dead, until a delta is written after one:
    // opening through the index and that delta never reads its header again, a whole scan
    // does. Its header broken (a byte of its name: the checksum no longer matches).
    func deltaAfterFirstCover() throws -> Bool {
      let all = try headers(document)
      guard let cover = all.first(where: { $0.name == DocumentArchive.coverEntry }) else { return false }
      return all.contains { $0.name == ArchiveIndex.deltaName && $0.offset > cover.offset }
    }
    for _ in 0..<200 where try !deltaAfterFirstCover() {
      #expect(try Run.gallery(["move", document, "1", "--to", "end"]).status == 0)
    }
    try #require(try deltaAfterFirstCover())
    let first = try headers(document).first { $0.name == DocumentArchive.coverEntry }!
    try flipByte(document, at: first.offset + 1)
    #expect(try Run.gallery(["show", document]).status == 0)
    for _ in 0..<200 {
      let move = try Run.gallery(["move", document, "1", "--to", "end"])
      #expect(move.status == 0, "\(move.stderr)")
    }
    let statistics = try GalleryDocument.open(document).statistics
    #expect(statistics.deadBytes > statistics.fileBytes / 2, "compacted over the damage")
    #expect(statistics.revisions > 200)
    #expect(try FileManager.default.contentsOfDirectory(atPath: work.folder.path).filter { $0.hasPrefix(".") }.isEmpty)
    let check = try Run.gallery(["check", document])
    #expect(check.status == 1 && check.stdout.contains("damaged"), "\(check.stdout)")
  }

  @Test("A newest revision (journal record or checkpoint) that does not decode is damage, not an older state to save over")
  func damagedModel() throws {
    let work = try TestWorkspace()
    let document = try threeRevisions(work)
    let last = try headers(document).last { $0.name == "gallery.json" || $0.name.hasPrefix("journal/") }!
    try flipByte(document, at: last.offset + 512 + 1)  // inside the JSON text, after `{`
    let damaged = try work.bytes(document)
    let show = try Run.gallery(["show", document])
    #expect(show.status == 0)
    #expect(show.stderr.contains("is damaged"))
    #expect(try Run.gallery(["drop", document, try work.image("d.jpg", seed: 4)]).status == 65)
    #expect(try work.bytes(document) == damaged)
  }

  @Test(
    "A complete record is never a torn tail: one with its revision changed, or a copy of an old one appended, is damage",
    arguments: ["changed", "appended"])
  func completeRecordIsNotTorn(_ how: String) throws {
    let work = try TestWorkspace()
    let document = try threeRevisions(work)
    let records = try headers(document).filter { $0.name.hasPrefix("journal/") }
    // The last record: its number varies, as a drop is one save or two.
    let last = try #require(records.last)
    let revision = try #require(Int(last.name.dropFirst("journal/".count).prefix(10)))
    #expect(revision >= 3 && revision <= 9)
    let script =
      how == "changed"
      ? """
      import sys
      data = bytearray(open(sys.argv[1], 'rb').read())
      start = int(sys.argv[2]) + 512
      at = data.index(b'"revision":%d' % int(sys.argv[3]), start)
      data[at:at + 12] = b'"revision":%d' % (int(sys.argv[3]) - 1)
      open(sys.argv[1], 'wb').write(data)
      """
      : """
      import io, sys, tarfile
      data = open(sys.argv[1], 'rb').read()
      old = [m for m in tarfile.open(sys.argv[1]) if m.name == 'journal/0000000002.json'][0]
      record = tarfile.open(sys.argv[1]).extractfile(old).read()
      out = io.BytesIO()
      writer = tarfile.open(fileobj=out, mode='w', format=tarfile.PAX_FORMAT)
      info = tarfile.TarInfo(old.name)
      info.size = len(record)
      writer.addfile(info, io.BytesIO(record))
      writer.close()
      open(sys.argv[1], 'wb').write(data[:-1024] + out.getvalue())
      """
    #expect(try Run.program("python3", ["-c", script, document, String(last.offset), String(revision)]).status == 0)
    let damaged = try work.bytes(document)
    let show = try Run.gallery(["show", document])
    #expect(show.status == 0)
    #expect(show.stderr.contains("is damaged"), "\(show.stderr)")
    let check = try Run.gallery(["check", document])
    #expect(check.status == 1)
    #expect(check.stdout.contains("damaged") && !check.stdout.contains("interrupted"), "\(check.stdout)")
    let move = try Run.gallery(["move", document, "1", "--to", "end"])
    #expect(move.status == 65, "\(move.stderr)")
    #expect(try work.bytes(document) == damaged, "an edit cut a complete record")
    #expect(try Run.gallery(["check", "--fix", document]).status == 0)
    #expect(try work.bytes(document + ".damaged") == damaged)
  }

  @Test("A save never writes what its reader would refuse: a rule broken or an id used twice fails it, nothing written")
  func saveRefusesWhatBreaksARule() throws {
    let work = try TestWorkspace()
    let document = try threeRevisions(work)
    let before = try work.bytes(document)
    let tooLong = "file:///" + String(repeating: "a", count: ModelValidation.Limits.urlBytes)
    #expect {
      try GalleryDocument.edit(document) { edit in
        edit.insert([Item.placeholder(id: "toolong", source: tooLong)], at: nil)
      }
    } throws: { error in
      guard case DocumentError.saveFailed(_, let cause) = error else { return false }
      return "\(cause)".contains("its source is not a URL of at most 16384 bytes")
    }
    #expect(try work.bytes(document) == before)
    #expect(try Run.gallery(["check", document]).status == 0)
    // An id the document holds, or one given twice: the reader's replay would refuse either.
    let held = try GalleryDocument.open(document).model.items[0].id
    for ids in [[held], ["twice", "twice"]] {
      #expect {
        try GalleryDocument.edit(document) { edit in
          edit.insert(ids.map { Item.placeholder(id: $0, source: "file:///x.jpg") }, at: nil)
        }
      } throws: { error in
        guard case DocumentError.saveFailed(_, let cause) = error else { return false }
        return "\(cause)" == "id \(ids[0]) would be used twice"
      }
      #expect(try work.bytes(document) == before)
    }
    // Taken out and put back in one edit is no second use.
    try GalleryDocument.edit(document) { edit in
      let item = try edit.item(at: 0)
      edit.remove(items: [held])
      edit.insert([item], at: nil)
    }
    #expect(try Run.gallery(["check", document]).status == 0)
    #expect(try GalleryDocument.open(document).model.items.last?.id == held)
  }

  @Test("A trailer that claims a billion blocks is named by check, and the document still opens")
  func lyingTrailerBlocks() throws {
    let work = try TestWorkspace()
    let document = try threeRevisions(work)
    let script = """
      import sys
      data = bytearray(open(sys.argv[1], 'rb').read())
      end = len(data) - 1024
      at = data.rindex(b',"blocks":', end - 512, end)
      claim = b',"blocks":1000000000}'
      assert data[end - len(claim):at] == b' ' * (at - end + len(claim)), 'no padding to write over'
      data[end - len(claim):end] = claim
      open(sys.argv[1], 'wb').write(data)
      """
    let edited = try Run.program("python3", ["-c", script, document])
    try #require(edited.status == 0, "\(edited.stderr)")
    #expect(try Run.gallery(["show", document]).status == 0)
    let check = try Run.gallery(["check", document])
    #expect(check.status == 1)
    #expect(check.stdout.contains("trailer") || check.stdout.contains("index"), "\(check.stdout)")
    #expect(try Run.gallery(["check", "--fix", document]).status == 0)
    #expect(try Run.gallery(["check", document]).status == 0)
    // A save killed after it cut the end marker, before it wrote: no trailer's fault.
    let cut = try work.bytes(document).dropLast(1024)
    try Data(cut).write(to: URL(fileURLWithPath: document))
    let interrupted = try Run.gallery(["check", document])
    #expect(interrupted.status == 0 && !interrupted.stdout.contains("trailer"), "\(interrupted.stdout)")
  }

  @Test("Zero padding after the end marker (GNU tar's blocking) is clean, and a refused drop keeps it")
  func gnuPadding() throws {
    let work = try TestWorkspace()
    let document = try threeRevisions(work)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: document))
    handle.seekToEndOfFile()
    handle.write(Data(count: 9216))
    try handle.close()
    let before = try work.bytes(document)
    #expect(try Run.gallery(["check", document]).stderr.isEmpty)
    let refused = try Run.gallery(["drop", document, try work.write("not an image", to: "fake.jpg")])
    #expect(refused.status == 1)
    #expect(try work.bytes(document) == before)
  }

  @Test("A crafted payload never takes items out of a document; a real move takes them to the trash")
  func payloadMoves() throws {
    let work = try TestWorkspace()
    let victim = try work.document("victim.gallery")
    #expect(try Run.gallery(["drop", victim, try work.image("a.jpg", seed: 1), try work.image("b.jpg", seed: 2)]).status == 0)
    let ids = try Listing.of(victim).items.map(\.id)
    let destination = try work.document("destination.gallery")
    // A copy payload, rewritten to claim a move, with and without a made-up token.
    let copy = try Run.gallery(["drag", "--type", "gallery", victim, "1", "2"]).stdoutData
    var payload = try JSONSerialization.jsonObject(with: copy) as! [String: Any]
    payload["move"] = true
    for token in [nil, String(repeating: "ab", count: 16)] {
      payload["moveToken"] = token
      let forged = try JSONSerialization.data(withJSONObject: payload)
      let result = try Run.gallery(["drop", destination, "-"], stdin: forged)
      #expect(result.status == 1)
      #expect(result.stderr.contains("not moved"))
      #expect(try Listing.of(victim).items.map(\.id) == ids)
    }
    // A real move: the source consents once; the items go to its trash, not away.
    let move = try Run.gallery(["drag", "--type", "gallery", "--move", victim, "1"]).stdoutData
    #expect(try Run.gallery(["drop", destination, "-"], stdin: move).status == 0)
    #expect(try Listing.of(victim).items.map(\.id) == [ids[1]])
    #expect(try Run.gallery(["trash", "--list", "--json", victim]).stdout.contains(ids[0]))
    // The same payload again copies, and takes nothing more.
    #expect(try Run.gallery(["drop", destination, "-"], stdin: move).status == 1)
    #expect(try Listing.of(victim).items.map(\.id) == [ids[1]])
  }

  @Test("A payload whose items break the rules, or whose original is not what it claims, is refused")
  func hostilePayloads() throws {
    let work = try TestWorkspace()
    let source = try work.document("source.gallery")
    #expect(try Run.gallery(["drop", "--embed", source, try work.image("a.jpg", seed: 1)]).status == 0)
    let destination = try work.document("destination.gallery")
    let before = try work.bytes(destination)
    let good =
      try JSONSerialization.jsonObject(with: try Run.gallery(["drag", "--type", "gallery", source, "1"]).stdoutData)
      as! [String: Any]
    let changes: [(String, (inout [String: Any]) -> Void)] = [
      ("an id that is a path", { $0["id"] = "../../x" }),
      ("a hash that is a path", { $0["hash"] = "sha256:../../../../tmp/x" }),
      ("an aspect ratio of infinity's neighbour", { $0["aspectRatio"] = 1e308 }),
    ]
    for (label, change) in changes {
      var payload = good
      var entries = payload["items"] as! [[String: Any]]
      var item = entries[0]["item"] as! [String: Any]
      change(&item)
      entries[0]["item"] = item
      payload["items"] = entries
      let result = try Run.gallery(["drop", destination, "-"], stdin: try JSONSerialization.data(withJSONObject: payload))
      #expect(result.status == 65, "\(label): \(result.stderr)")
      #expect(try work.bytes(destination) == before, "\(label)")
    }
    var payload = good
    var entries = payload["items"] as! [[String: Any]]
    entries[0]["original"] = Data("not the image".utf8).base64EncodedString()
    payload["items"] = entries
    let lying = try Run.gallery(["drop", destination, "-"], stdin: try JSONSerialization.data(withJSONObject: payload))
    #expect(lying.status == 65)
    #expect(lying.stderr.contains("does not have the hash it claims"))
    let deep = Data((String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)).utf8)
    let nested = try Run.gallery(["drop", destination, "-"], stdin: Data("{\"a\":".utf8) + deep + Data("}".utf8))
    #expect(!crashed(nested))
    #expect(nested.status == 65)
    #expect(try work.bytes(destination) == before)
  }

  @Test("Compaction through a symlink keeps the link and the document's private mode")
  func symlinkCompaction() throws {
    let work = try TestWorkspace()
    let real = try threeRevisions(work)
    chmod(real, 0o600)
    let link = work.path("link.gallery")
    #expect(symlink(real, link) == 0)
    #expect(try Run.gallery(["compact", link]).status == 0)
    #expect(try Run.gallery(["trash", link, "1"]).status == 0)
    var info = stat()
    #expect(lstat(link, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK, "the link was replaced")
    #expect(stat(real, &info) == 0 && info.st_mode & 0o777 == 0o600)
    #expect(try Listing.of(real).items.count == 2)
  }

  @Test("Symlinks and FIFOs in a drop folder get no placeholder; regular files are imported")
  func dropFolderSpecialFiles() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let folder = work.path("drop")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: try work.image("real.jpg", seed: 1), toPath: folder + "/real.jpg")
    #expect(symlink(try work.image("elsewhere.jpg", seed: 2), folder + "/link.jpg") == 0)
    #expect(symlink("/proc/self/pagemap", folder + "/pagemap.jpg") == 0)
    #expect(mkfifo(folder + "/pipe.jpg", 0o644) == 0)
    let started = Date()
    let once = try Run.gallery(["watch", "--once", folder, "--into", document])
    #expect(once.status == 0, "\(once.stderr)")
    #expect(Date().timeIntervalSince(started) < 20)
    let items = try Listing.of(document).items
    #expect(items.map { URL(string: $0.source)!.lastPathComponent } == ["real.jpg"])
    #expect(items.allSatisfy { $0.state == "ready" })
  }

  @Test(
    "Numbers from the command line and the environment are bounded: usage errors, never a crash",
    arguments: [
      (["--timeout", "inf"], [String: String]()), (["--timeout", "nan"], [:]), (["--max-download-size", "1e300G"], [:]),
      (["--max-download-size", "infG"], [:]), (["--max-download-size", "999999999999999999999"], [:]),
    ])
  func numbers(_ options: [String], _ environment: [String: String]) throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let before = try work.bytes(document)
    let result = try Run.gallery(["drop", document, "http://127.0.0.1:9/a.jpg"] + options, environment: environment)
    #expect(!crashed(result))
    #expect(result.status == 64, "\(options): \(result.stderr)")
    #expect(try work.bytes(document) == before)
  }

  @Test("GALLERY_CACHE_SIZE that is not a size is ignored, not a crash")
  func cacheSizeEnvironment() throws {
    for value in ["infG", "1e300G", "-5M", "nan"] {
      let result = try Run.gallery(["cache", "--info"], environment: ["GALLERY_CACHE_SIZE": value])
      #expect(!crashed(result), "\(value)")
      #expect(result.status == 0, "\(value): \(result.stderr)")
    }
  }

  @Test("Output that cannot be written is an error (exit 74), not a silent success")
  func fullOutput() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let result = try Run.program("sh", ["-c", "\"$0\" show \"$1\" > /dev/full", Run.galleryBinary, document])
    #expect(result.status == 74)
    #expect(result.stderr.contains("cannot write to standard output"))
  }

  @Test("rename refuses names that name no file", arguments: ["", ".", "..", "/", "x/", ".gallery"])
  func renameNames(_ name: String) throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let result = try Run.gallery(["rename", document, name])
    #expect(result.status == 64, "'\(name)': \(result.status) \(result.stderr)")
    #expect(FileManager.default.fileExists(atPath: document))
  }

  @Test("Temporary files a killed command left in the state folder are removed by the next one")
  func staleTemporaries() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let state = Run.isolatedHome["XDG_STATE_HOME"]! + "/gallery"
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    // A pid that cannot be running (above pid_max's default), and one that is (ours).
    let stale = state + "/.recent.tmp-4194999-1"
    let live = state + "/.recent.tmp-\(getpid())-1"
    _ = FileManager.default.createFile(atPath: stale, contents: Data("x".utf8))
    _ = FileManager.default.createFile(atPath: live, contents: Data("x".utf8))
    defer { unlink(live) }
    // And beside the document: what a killed compaction left goes at the next edit.
    let folder = (document as NSString).deletingLastPathComponent
    let name = (document as NSString).lastPathComponent
    let staleCopy = folder + "/.\(name).tmp-4194999-7"
    let liveCopy = folder + "/.\(name).tmp-\(getpid())-7"
    _ = FileManager.default.createFile(atPath: staleCopy, contents: Data(count: 4096))
    _ = FileManager.default.createFile(atPath: liveCopy, contents: Data(count: 4096))
    #expect(try Run.gallery(["drop", document, try work.image("a.jpg")]).status == 0)
    #expect(!FileManager.default.fileExists(atPath: stale))
    #expect(FileManager.default.fileExists(atPath: live))
    #expect(!FileManager.default.fileExists(atPath: staleCopy))
    #expect(FileManager.default.fileExists(atPath: liveCopy))
  }

  @Test("Export names are cut in bytes, between characters, and keep their extension")
  func longNames() throws {
    let work = try TestWorkspace()
    let source = try work.document("source.gallery")
    #expect(try Run.gallery(["drop", "--embed", source, try work.image("a.jpg")]).status == 0)
    // 150 three-byte characters: 200 characters would be 454 bytes, over NAME_MAX (255).
    let long = String(repeating: "日", count: 150) + ".jpg"
    let document = work.path("long.gallery")
    try HostileDocument.make(from: source, to: document) { model in
      HostileDocument.items(&model) {
        $0[0]["source"] = "file:///nowhere/" + long.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!
      }
    }
    let export = try Run.gallery(["export", document, "--to", work.path("out")])
    #expect(export.status == 0, "\(export.stderr)")
    let exported = try FileManager.default.contentsOfDirectory(atPath: work.path("out"))
    #expect(exported.count == 1)
    #expect(exported.first.map { $0.hasSuffix(".jpg") && $0.utf8.count <= 200 && $0.hasPrefix("日日") } == true)
  }
}

@Suite("Images that cost more than they look: bounded in memory")
struct DecodeBudgetTests {
  @Test("An interlaced 16-bit PNG under the pixel limit is refused for the memory it would take")
  func interlacedPNG() throws {
    let work = try TestWorkspace()
    let png = work.path("bomb.png")
    try writeInterlacedPNG(png, width: 7500, height: 7500)
    #expect((try FileManager.default.attributesOfItem(atPath: png)[.size] as! Int) < 4 << 20)
    let document = try work.document()
    let (result, bytes) = try peakMemory(["drop", document, png])
    #expect(result.status == 1)
    #expect(result.stderr.contains("decoding it would take"), "\(result.stderr)")
    #expect(bytes < 500 << 20, "drop used \(bytes >> 20) MiB")
  }

  @Test("A 6 GB sparse file that starts like a JPEG is refused by its size, without reading it")
  func hugeLocalFile() throws {
    let work = try TestWorkspace()
    let path = work.path("huge.jpg")
    try FileManager.default.copyItem(atPath: try work.image("a.jpg"), toPath: path)
    #expect(truncate(path, 6 << 30) == 0)
    let document = try work.document()
    let (result, bytes) = try peakMemory(["drop", document, path])
    #expect(result.status == 1)
    #expect(result.stderr.contains("larger than the limit"), "\(result.stderr)")
    #expect(bytes < 200 << 20)
  }

  @Test("A 3,000,000x1 image makes a sheet of the width asked for, in bounded memory")
  func extremeAspectSheet() throws {
    let work = try TestWorkspace()
    let strip = work.path("strip.png")
    #expect(try Run.program("vips", ["black", strip, "3000000", "1"]).status == 0)
    let document = try work.document()
    let drop = try Run.gallery(["drop", document, strip, try work.image("a.jpg")])
    #expect(drop.status == 0, "\(drop.stderr)")
    let (result, bytes) = try peakMemory(["sheet", document, "-o", work.path("sheet.png")])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(bytes < 300 << 20, "sheet used \(bytes >> 20) MiB")
    let width = try Run.program("vipsheader", ["-f", "width", work.path("sheet.png")]).stdout
    #expect(width.trimmingCharacters(in: .whitespacesAndNewlines) == "1200")
  }

  @Test("A corrupt stored thumbnail is found by check and does not stop cover-changing edits")
  func corruptThumbnail() throws {
    let work = try TestWorkspace()
    let source = try work.document("source.gallery")
    #expect(try Run.gallery(["drop", source, try work.image("a.jpg", seed: 1), try work.image("b.jpg", seed: 2)]).status == 0)
    let id = try Listing.of(source).items[0].id
    let broken = work.path("broken.jpg")
    let jpeg = try work.bytes(try work.image("c.jpg", seed: 3))
    try jpeg.prefix(jpeg.count / 3).write(to: URL(fileURLWithPath: broken))
    let hostile = work.path("hostile.gallery")
    try HostileDocument.make(from: source, to: hostile, extra: ["file:thumbnails/\(id).jpg:\(broken)"])
    let check = try Run.gallery(["check", hostile])
    #expect(check.status == 1)
    #expect(check.stdout.contains("thumbnail thumbnails/\(id).jpg"), "\(check.stdout)")
    #expect(try Run.gallery(["move", hostile, "2", "--to", "1"]).status == 0)
    #expect(try Run.gallery(["drop", hostile, "--at", "1", try work.image("d.jpg", seed: 4)]).status == 0)
  }
}
