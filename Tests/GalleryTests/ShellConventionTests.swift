import Foundation
import GalleryDocument
import GalleryKit
import GalleryTestSupport
import Logging
import Testing

@testable import GalleryCommands
@testable import GalleryModel
@testable import GallerySystem

/// One message style, exit statuses that say what happened, files where the user's
/// environment says, and output that fits the terminal.
@Suite("Shell conventions: messages, statuses, $HOME and XDG, progress, logs")
struct ShellConventionTests {
  @Test("A bare `gallery` is a usage error with a short hint, not the whole help")
  func bareCommand() throws {
    let result = try Run.gallery([])
    #expect(result.status == 64)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.hasPrefix("gallery: ") && result.stderr.contains("--help"))
    #expect(result.stderr.split(separator: "\n").count == 1)
  }

  @Test("Every error starts `gallery:`, usage errors too; --help and --version go to stdout with 0")
  func messageStyle() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    for arguments in [
      ["drop", document, "--jobs", "0", "x.jpg"], ["frobnicate"], ["show"], ["drop", document, "--timeout", "inf", "x.jpg"],
    ] {
      let result = try Run.gallery(arguments)
      #expect(result.status == 64, "\(arguments)")
      #expect(result.stderr.hasPrefix("gallery: "), "\(arguments): \(result.stderr)")
      #expect(!result.stderr.contains("Error:"))
    }
    let help = try Run.gallery(["show", "--help"])
    #expect(help.status == 0 && help.stdout.contains("USAGE") && help.stderr.isEmpty)
    #expect(try Run.gallery(["--version"]).stdout.hasPrefix(GalleryVersion.current))
  }

  @Test("watch: a missing config is 66 without the top-level usage; --then delete without --embed is 64")
  func watchErrors() throws {
    let work = try TestWorkspace()
    let missing = try Run.gallery(["watch", "--config", work.path("missing.conf")])
    #expect(missing.status == 66)
    #expect(missing.stderr.hasPrefix("gallery: nothing to watch"))
    #expect(!missing.stderr.contains("Usage: gallery <subcommand>"))
    let document = try work.document()
    let folder = work.path("drop")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let delete = try Run.gallery(["watch", "--once", folder, "--into", document, "--then", "delete"])
    #expect(delete.status == 64, "\(delete.stderr)")
  }

  @Test("Each failure exits with its own status and names the user's path, never a temporary or Foundation's words")
  func statusesByKind() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document, try work.image("a.jpg")]).status == 0)
    // A line of the file is quoted in the message: its escape sequence must not reach the terminal.
    let badConfig = try work.write("a b\u{1B}]0;pwned\u{7} c\n", to: "watch.conf")
    let cases: [(arguments: [String], status: Int32, says: String)] = [
      (["watch", "--config", badConfig], 64, "watch.conf: line 1: expected DIR:DOC"),
      (
        ["new", work.path("no/such/folder/a.gallery")], 73,
        "cannot write \(work.path("no/such/folder/a.gallery")): No such file or directory"
      ),
      (["export", document, "--to", "/proc/1/x", "1"], 73, "cannot write /proc/1/x"),
      (["sheet", document, "-o", work.folder.path], 73, "cannot write \(work.folder.path): Is a directory"),
      (["browse", work.path("missing")], 66, "\(work.path("missing")): No such file or directory"),
      (["drop", document, "-"], 65, "not a valid application/x-gallery-items payload"),
      (["show", work.path("missing.gallery")], 66, "no such gallery document"),
      (["paste", document], 69, "no graphical session"),
    ]
    for (arguments, status, says) in cases {
      let stdin = arguments.last == "-" ? Data("{\"format\": \"gallery-items\", \"items\": [".utf8) : nil
      let result = try Run.gallery(arguments, stdin: stdin, environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
      #expect(result.status == status, "\(arguments): \(result.stderr)")
      #expect(result.stderr.hasPrefix("gallery: ") && result.stderr.contains(says), "\(arguments): \(result.stderr)")
      #expect(!result.stderr.contains(".tmp-") && !result.stderr.contains("operation could not be completed"), "\(result.stderr)")
      #expect(!result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" }, "\(result.stderr)")
    }
  }

  @Test("An output that is a FIFO or a device is written to, never replaced by a file")
  func specialOutputs() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document, try work.image("a.jpg")]).status == 0)
    let fifo = work.path("fifo.png")
    #expect(mkfifo(fifo, 0o600) == 0)
    let received = work.path("received.png")
    let reader = try TestProcess("sh", ["-c", "timeout 30 cat \"$0\" > \"$1\"", fifo, received])
    #expect(try Run.gallery(["sheet", document, "-o", fifo]).status == 0)
    reader.wait()
    var info = stat()
    #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    #expect(try work.bytes(received).starts(with: [0x89, 0x50, 0x4E, 0x47]))
  }

  @Test("--json is one line in a pipe and pretty on a terminal, for every read command")
  func jsonRule() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document, try work.image("a.jpg")]).status == 0)
    let commands = [
      ["show", "--json", document], ["info", "--json", document], ["check", "--json", document],
      ["trash", "--list", "--json", document], ["browse", "--json", work.folder.path], ["cache", "--info", "--json"],
      ["uris", "--json", document], ["history", "--json", document],
    ]
    for command in commands {
      let piped = try Run.gallery(command)
      #expect(piped.status == 0, "\(command): \(piped.stderr)")
      #expect(piped.stdout.split(separator: "\n").count == 1, "\(command) is not one line in a pipe")
      #expect((try? JSONSerialization.jsonObject(with: piped.stdoutData)) != nil)
      // On a terminal (script(1) gives it one), indented.
      let line = ([Run.galleryBinary] + command).map { "'\($0)'" }.joined(separator: " ")
      let tty = try Run.program("script", ["-qec", line, "/dev/null"], environment: Run.isolatedHome)
      // (The terminal ends its lines with CR LF.)
      #expect(tty.stdout.unicodeScalars.filter { $0 == "\n" }.count > 2, "\(command) is not indented on a terminal")
    }
  }

  @Test("Edit commands with --json say the revision made, its summary and where the named items stand now")
  func editReports() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let images = try work.images(3)
    #expect(try Run.gallery(["drop", document] + images).status == 0)
    let ids = try GalleryDocument.open(document).model.items.map(\.id)
    func report(_ arguments: [String]) throws -> EditReport.Decoded {
      let run = try Run.gallery(arguments)
      #expect(run.status == 0, "\(arguments): \(run.stderr)")
      #expect(run.stdout.split(separator: "\n").count == 1, "\(arguments) is not one line in a pipe")
      return try JSONDecoder().decode(EditReport.Decoded.self, from: run.stdoutData)
    }
    let before = try GalleryDocument.open(document).model.revision
    let moved = try report(["move", document, "3", "--to", "1", "--json"])
    #expect(moved.revision == before + 1 && moved.summary == "move: 1 item")
    #expect(moved.items == [.init(id: ids[2], position: 1)])
    let trashed = try report(["trash", document, ids[0], "--json"])
    #expect(trashed.summary == "trash: 1 item" && trashed.items == [.init(id: ids[0], position: nil)])
    #expect(try report(["restore", document, ids[0], "--json"]).items == [.init(id: ids[0], position: 2)])
    let tagged = try report(["tag", document, "1", ids[1], "+sea", "--json"])
    #expect(tagged.summary == "tag: +sea, 2 items" && tagged.items?.map(\.position) == [1, 3])
    // The same again changes nothing: no revision, nothing saved; in words, on standard error.
    let again = try report(["tag", document, "1", ids[1], "+sea", "--json"])
    #expect(again.revision == nil && again.summary == nil && again.items?.count == 2)
    #expect(try GalleryDocument.open(document).model.revision == tagged.revision)
    let unchanged = try Run.gallery(["move", document, "1", "--to", "1"])
    #expect(unchanged.status == 0 && unchanged.stdout.isEmpty && unchanged.stderr.contains("nothing changed"))
    // A sort names every item: the report leaves them out.
    let sorted = try report(["sort", document, "--by", "name", "--reverse", "--json"])
    #expect(sorted.summary?.hasPrefix("sort") == true && sorted.items == nil)
    #expect(try report(["rate", document, "1", "--stars", "4", "--json"]).summary == "rate: 4 stars, 1 item")
  }

  @Test("Columns stay aligned: show at position 100,000, browse beside a document that does not open")
  func alignedColumns() throws {
    var item = Item.placeholder(id: "abcdef", source: "file:///a.jpg")
    item.state = .ready
    let width = ItemLine.positionWidth(count: 100_000)
    let first = ItemLine.format(position: 1, item: item, width: width)
    let last = ItemLine.format(position: 100_000, item: item, width: width)
    #expect(
      first.range(of: "abcdef")?.lowerBound.utf16Offset(in: first) == last.range(of: "abcdef")?.lowerBound.utf16Offset(in: last))
    #expect(first.count == last.count)

    let work = try TestWorkspace()
    _ = try work.document("good.gallery")
    _ = try work.write("not a tar at all", to: "bad.gallery")
    let lines = try Run.gallery(["browse", work.folder.path]).stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 2, "\(lines)")
    let columns = lines.map { $0.range(of: work.folder.path)?.lowerBound.utf16Offset(in: $0) }
    #expect(columns[0] != nil && columns[0] == columns[1], "\(lines)")
    #expect(lines.contains { $0.contains("(does not open)") && $0.hasSuffix(")") && $0.contains("not a gallery") }, "\(lines)")
  }

  @Test("thumbnail DOC - SIZE writes a PNG to standard output")
  func thumbnailToStandardOutput() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document, try work.image("a.jpg")]).status == 0)
    let result = try Run.gallery(["thumbnail", document, "-", "128"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdoutData.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    let file = work.path("cover.png")
    try result.stdoutData.write(to: URL(fileURLWithPath: file))
    #expect(try Run.program("vipsheader", [file]).stdout.contains("128x128"))
    #expect(FileSystem.linkStatus(of: work.path("-")) == nil)
  }

  @Test("A long run of operands is appended after parsing: never an option, its value, or what follows it")
  func manyOperandsSplit() throws {
    let files = (0..<100).map { "f\($0).jpg" }
    let drop = ManyOperands.Shape(of: DropCommand.self)
    #expect(drop.valued.isSuperset(of: ["--at", "--jobs"]) && drop.flags.isSuperset(of: ["--json", "-0", "--null"]))
    #expect(!drop.dashedOperands)
    func split(_ arguments: [String], _ shape: ManyOperands.Shape = drop) -> (parsed: [String], appended: [String]) {
      ManyOperands.split(arguments) { shape }
    }
    var cut = split(["drop", "doc.gallery"] + files)
    #expect(cut.parsed == ["drop", "doc.gallery", "f0.jpg", "f1.jpg"] && cut.appended == Array(files[2...]))
    // An option's value may start the run: it stays with the option.
    cut = split(["drop", "--at", "3", "doc.gallery"] + files)
    #expect(cut.parsed == ["drop", "--at", "3", "doc.gallery", "f0.jpg"] && cut.appended == Array(files[1...]))
    // Flags and options with their values after the run stay with the parser, after it.
    cut = split(["drop", "doc.gallery"] + files + ["--json", "--at", "7", "--jobs=2"])
    #expect(cut.parsed == ["drop", "doc.gallery", "f0.jpg", "f1.jpg", "--json", "--at", "7", "--jobs=2"])
    #expect(cut.appended == Array(files[2...]))
    // An operand after the run, an option the command does not know, or `--`: left whole.
    for tail in [["--at", "7", "f100.jpg"], ["--bogus"], ["--at"]] {
      cut = split(["drop", "doc.gallery"] + files + tail)
      #expect(cut.appended.isEmpty && cut.parsed.count == files.count + 2 + tail.count, "\(tail)")
    }
    #expect(split(["drop", "--", "doc.gallery"] + files).appended.isEmpty)
    #expect(split(["drop", "doc.gallery"] + files.prefix(20)).appended.isEmpty)

    // Items with options after them, as `rate`, `move` and `export` are written.
    let items = (1...100).map(String.init)
    let rate = ManyOperands.Shape(of: RateCommand.self)
    #expect(rate.valued == ["--stars"] && rate.flags.contains("--json"))
    cut = split(["rate", "doc.gallery"] + items + ["--stars", "4"], rate)
    #expect(cut.parsed == ["rate", "doc.gallery", "1", "2", "--stars", "4"] && cut.appended == Array(items[2...]))
    cut = split(["rate", "--stars", "4", "doc.gallery"] + items, rate)
    #expect(cut.parsed == ["rate", "--stars", "4", "doc.gallery", "1"] && cut.appended == Array(items[1...]))
    // Tags are words that may start with a dash; the command's own flags are not.
    let tag = ManyOperands.Shape(of: TagCommand.self)
    #expect(tag.dashedOperands)
    cut = split(["tag", "doc.gallery"] + items + ["+beach", "sand", "-sea", "--json"], tag)
    #expect(
      cut.parsed == ["tag", "doc.gallery", "1", "2", "+beach", "sand", "-sea", "--json"] && cut.appended == Array(items[2...]))
    var command = try #require(try TagCommand.parseAsRoot(Array(cut.parsed.dropFirst())) as? TagCommand)
    command.append(operands: cut.appended)
    #expect(command.words == items + ["+beach", "sand", "-sea"])
    // Changes among the first words: left to the parser, which keeps their order.
    #expect(split(["tag", "doc.gallery", "-sea"] + items, tag).appended.isEmpty)
    // Commands whose list it is, by name.
    let commands = GalleryCommand.configuration.subcommands
    for name in [
      "drop", "trash", "restore", "export", "uris", "drag", "copy", "retry", "move", "tag", "caption", "rate", "label",
      "refresh-metadata",
    ] {
      #expect(ManyOperands.command([name], among: commands) != nil, "\(name)")
    }
    #expect(ManyOperands.command(["show"], among: commands) == nil && ManyOperands.command(["note"], among: commands) == nil)
  }

  @Test("Hundreds of items with options after them: each command takes them all, in order, refusing a bad one")
  func manyItems() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.links(200)).status == 0)
    let ids = try GalleryDocument.open(document).model.items.map(\.id)
    let all = (1...200).map(String.init)

    #expect(try Run.gallery(["rate", document] + all + ["--stars", "4"]).status == 0)
    #expect(try Run.gallery(["label", document, "--colour", "red"] + all).status == 0)
    #expect(try Run.gallery(["tag", document] + all + ["+beach", "+sea"]).status == 0)
    #expect(try Run.gallery(["tag", document] + all.prefix(150) + ["-sea", "--json"]).status == 0)
    var items = try GalleryDocument.open(document).model.items
    #expect(items.allSatisfy { $0.rating == 4 && $0.label == .red })
    #expect(items.prefix(150).allSatisfy { $0.tags == ["beach"] } && items.suffix(50).allSatisfy { $0.tags == ["beach", "sea"] })

    // The last hundred to the front, keeping their order.
    #expect(try Run.gallery(["move", document] + ids.suffix(100) + ["--to", "1"]).status == 0)
    items = try GalleryDocument.open(document).model.items
    #expect(items.map(\.id) == Array(ids.suffix(100) + ids.prefix(100)))

    // A bad item among the appended ones is refused as the parser refuses one: nothing done.
    let before = try work.bytes(document)
    let bad = try Run.gallery(["rate", document] + all.prefix(100) + ["0"] + ["--stars", "2"])
    #expect(bad.status == 64 && bad.stderr.contains("0: not an item position or id"), "\(bad.stderr)")
    #expect(try work.bytes(document) == before)
  }

  @Test("Thousands of files on the command line drop, in their order")
  func thousandsOfOperands() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    // Links to one image, named in an order the drop must keep.
    let files = try work.links(3000, reversed: true)
    let started = ContinuousClock.now
    let run = try Run.gallery(["drop", "--json", document] + files)
    #expect(run.status == 0, "\(run.stderr)")
    let sources = try GalleryDocument.open(document).model.items.map(\.source)
    #expect(sources == files.map { URL(fileURLWithPath: $0).absoluteString })
    // Not a timed assertion: the figure goes to the log, where a quadratic parse shows.
    print("a drop of \(files.count) operands took \(ContinuousClock.now - started)")
  }

  @Test("A mistyped command is answered with the one meant, and exits 64")
  func mistypedCommand() throws {
    #expect(CommandSuggestion.suggestion(for: "show") == nil)
    #expect(CommandSuggestion.suggestion(for: "shwo") == "unknown command 'shwo'. Did you mean 'show'?")
    #expect(CommandSuggestion.suggestion(for: "dorp")?.hasSuffix("'drop'?") == true)
    #expect(CommandSuggestion.suggestion(for: "hepl")?.hasSuffix("'help'?") == true)
    #expect(CommandSuggestion.suggestion(for: "frobnicate") == "unknown command 'frobnicate' (`gallery --help` lists them)")
    #expect(CommandSuggestion.distance("export", "exprot") == 1 && CommandSuggestion.distance("", "ab") == 2)
    let run = try Run.gallery(["trahs", "x.gallery"])
    #expect(run.status == 64 && run.stderr == "gallery: unknown command 'trahs'. Did you mean 'trash'?\n", "\(run.stderr)")
    #expect(try Run.gallery(["a.gallery"]).stderr.contains("gallery show a.gallery"))
  }

  @Test("Logs: `gallery:` lines on a terminal or pipe; `<N>` priorities and no time under journald")
  func logLines() {
    let plain = MessageLogHandler(level: .info, environment: [:])
    #expect(plain.line(level: .info, message: "committed /a.jpg") == "gallery: committed /a.jpg")
    #expect(plain.line(level: .warning, message: "x\u{1b}[2J") == "gallery: warning: x\\x1B[2J")
    // Only when JOURNAL_STREAM names standard error itself (a child of a unit whose own
    // output goes elsewhere inherits the variable): as systemd.exec says to check.
    var info = stat()
    #expect(fstat(2, &info) == 0)
    let inherited = MessageLogHandler(level: .info, environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"])
    #expect(inherited.line(level: .info, message: "x") == "gallery: x")
    let journal = MessageLogHandler(level: .info, environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"])
    #expect(journal.line(level: .info, message: "committed /a.jpg") == "<6>committed /a.jpg")
    #expect(journal.line(level: .warning, message: "overflow") == "<4>overflow")
    #expect(journal.line(level: .error, message: "gone") == "<3>gone")
  }

  @Test("The progress bar never outgrows the terminal: it shrinks, then goes, then the label is cut")
  func progressWidth() {
    for columns in [10, 20, 30, 40, 60, 80, 200] {
      for (done, total) in [(0, 1000), (500, 1000), (1000, 1000), (7, 7)] {
        let line = ProgressBar.line(label: "dropping", done: done, total: total, columns: columns)
        #expect(line.count <= columns - 1, "\(columns) columns: \(line)")
      }
    }
    #expect(
      ProgressBar.line(label: "dropping", done: 5, total: 10, columns: 80) == "dropping [###############               ] 5/10")
    #expect(!ProgressBar.line(label: "dropping", done: 5, total: 10, columns: 20).contains("["))
  }

  @Test("$HOME is honoured and relative XDG values are ignored, as the spec says")
  func homeAndXDG() throws {
    let work = try TestWorkspace()
    let home = work.path("home")
    let environment = ["HOME": home, "XDG_CACHE_HOME": "relative/cache", "XDG_STATE_HOME": "", "XDG_DATA_HOME": ""]
    let result = try Run.program(Run.galleryBinary, ["cache", "--info", "--json"], environment: environment)
    #expect(result.status == 0, "\(result.stderr)")
    let info = try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any]
    #expect((info?["folder"] as? String)?.hasPrefix(home + "/.cache/gallery") == true, "\(result.stdout)")
  }

  @Test("The Trash made for a deleted document is private (0700), as GIO makes it")
  func privateTrash() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let data = work.path("data")
    #expect(try Run.gallery(["delete", document], environment: ["XDG_DATA_HOME": data]).status == 0)
    for folder in ["/Trash", "/Trash/files", "/Trash/info"] {
      let mode = (try FileManager.default.attributesOfItem(atPath: data + folder)[.posixPermissions] as? Int) ?? 0
      #expect(mode == 0o700, "\(folder): \(String(mode, radix: 8))")
    }
  }

  @Test("Commands run at once lose no entry of the recent list")
  func recentUnderConcurrency() throws {
    let work = try TestWorkspace()
    let state = work.path("state")
    let documents = try (0..<6).map { try work.document("r\($0).gallery") }
    let image = try work.image("a.jpg")
    let processes = try documents.map { document in
      try Run.start(["drop", document, image], environment: ["XDG_STATE_HOME": state])
    }
    for process in processes { process.wait() }
    let recent = try Run.gallery(["browse", "--recent", "--json"], environment: ["XDG_STATE_HOME": state])
    for document in documents { #expect(recent.stdout.contains((document as NSString).lastPathComponent), "\(document) lost") }
  }
}

@Suite("What users stumbled on: keep-failed, numbered exports, sheets, thumbnails in place")
struct StumblingBlockTests {
  @Test("--keep-failed keeps failed items for local sources too, reported as kept, not as not dropped")
  func keepFailedLocal() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let good = try work.image("good.jpg")
    let text = try work.write("not an image", to: "fake.jpg")
    let result = try Run.gallery(["drop", "--keep-failed", document, good, text, work.path("missing.jpg")])
    #expect(result.status == 1)
    #expect(!result.stderr.contains("not dropped"), "\(result.stderr)")
    #expect(result.stderr.components(separatedBy: "kept as a failed item").count == 3, "\(result.stderr)")
    let items = try Listing.of(document).items
    #expect(items.map(\.state) == ["ready", "failed", "failed"])
    #expect(try Run.gallery(["show", document]).stdout.contains("not an image"))
  }

  @Test("export --numbered keeps the gallery order in the names")
  func numberedExport() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(
      try Run.gallery(["drop", document, try work.image("beach.jpg", seed: 1), try work.image("dunes.jpg", seed: 2)]).status == 0)
    #expect(try Run.gallery(["move", document, "2", "--to", "1"]).status == 0)
    #expect(try Run.gallery(["export", "--numbered", document, "--to", work.path("out")]).status == 0)
    #expect(try FileManager.default.contentsOfDirectory(atPath: work.path("out")).sorted() == ["001-dunes.jpg", "002-beach.jpg"])
  }

  @Test("sheet refuses formats it cannot write; a lone last item keeps the row height; white images get a frame")
  func sheetDetails() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let white = work.path("white.png")
    #expect(try Run.program("vips", ["black", white + ".v", "300", "200", "--bands", "3"]).status == 0)
    #expect(try Run.program("vips", ["linear", white + ".v", white, "1", "255"]).status == 0)
    #expect(
      try Run.gallery(["drop", document, white, try work.image("a.jpg", seed: 1), try work.image("b.jpg", seed: 2)]).status == 0)
    let gif = try Run.gallery(["sheet", document, "-o", work.path("sheet.gif")])
    #expect(gif.status == 64 && gif.stderr.contains(".gif"))
    #expect(!FileManager.default.fileExists(atPath: work.path("sheet.gif")))
    let sheet = work.path("sheet.png")
    #expect(try Run.gallery(["sheet", document, "--columns", "2", "-o", sheet]).status == 0)
    let height =
      Int(try Run.program("vipsheader", ["-f", "height", sheet]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    // Two rows of items 1.5 wide, two a row across 1200 px: each row about 390 px, not 780.
    #expect(height < 900, "sheet is \(height) px tall")
    // The first tile's top-left pixel is its grey frame, not the white of the image or page.
    let pixel = try Run.program("vips", ["getpoint", sheet, "8", "8"]).stdout
    #expect(
      pixel.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }.first.map { $0 < 250 }
        == true, "\(pixel)")
  }

  @Test("sheet --captions writes each image's position, id or name under it; markup in names is text")
  func sheetCaptions() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let odd = work.path("<b>tom & jerry<i>.jpg")
    try FileManager.default.copyItem(atPath: try work.image("a.jpg", seed: 1), toPath: odd)
    #expect(try Run.gallery(["drop", document, odd, try work.image("b.jpg", seed: 2)]).status == 0)
    func height(_ path: String) throws -> Int {
      Int(try Run.program("vipsheader", ["-f", "height", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
    let plain = work.path("plain.png")
    #expect(try Run.gallery(["sheet", document, "-o", plain]).status == 0)
    for caption in ["position", "id", "name"] {
      let sheet = work.path("\(caption).png")
      let result = try Run.gallery(["sheet", document, "--captions", caption, "-o", sheet])
      #expect(result.status == 0, "\(caption): \(result.stderr)")
      #expect(try height(sheet) == (try height(plain)) + 16, "\(caption)")
      // Dark text in the strip under the first tile (its left part).
      let strip = try Run.program(
        "vips", ["extract_area", sheet, work.path("strip-\(caption).png"), "8", String(try height(sheet) - 8 - 14), "40", "14"])
      #expect(strip.status == 0)
      let minimum = try Run.program("vips", ["min", work.path("strip-\(caption).png")]).stdout
      #expect((Double(minimum.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 255) < 128, "\(caption): no text drawn")
    }
    #expect(try Run.gallery(["sheet", document, "--captions", "title", "-o", work.path("x.png")]).status == 64)
  }

  @Test("thumbnail writes into an OUT that exists, so tumbler reads it through the descriptor it holds")
  func thumbnailInPlace() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document, try work.image("a.jpg")]).status == 0)
    let output = work.path("out.png")
    _ = FileManager.default.createFile(atPath: output, contents: Data())
    let held = try FileHandle(forReadingFrom: URL(fileURLWithPath: output))
    #expect(try Run.gallery(["thumbnail", document, output, "128"]).status == 0)
    let bytes = try held.readToEnd() ?? Data()
    #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "the held descriptor reads \(bytes.count) bytes")
  }
}

extension EditReport {
  /// A report as a program reads it back.
  struct Decoded: Decodable {
    struct Placed: Decodable, Equatable {
      var id: String
      var position: Int?
    }
    var revision: Int?
    var summary: String?
    var items: [Placed]?
  }
}
