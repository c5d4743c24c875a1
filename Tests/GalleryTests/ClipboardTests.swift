import Foundation
import GalleryKit
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

/// A real X server (Xvfb) of the test's own, so xclip has a clipboard to work with.
final class VirtualDisplay {
  let display: String
  private let xvfb: BackgroundProgram

  init() throws {
    // -displayfd: Xvfb picks a free display and writes its number once it accepts clients.
    xvfb = try BackgroundProgram(["Xvfb", "-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "320x240x24"])
    display = ":\(xvfb.announced)"
  }

  var environment: [String: String] { ["DISPLAY": display, "WAYLAND_DISPLAY": ""] }

  /// Runs xclip on this display, through Python's subprocess, which closes every other
  /// descriptor: `xclip -i` forks a server that would otherwise keep the ones Foundation's
  /// `Process` watches, and the test would wait for it forever.
  func xclip(_ arguments: [String], input: Data = Data()) throws -> Run.Result {
    let script = """
      import subprocess, sys
      r = subprocess.run(["xclip", "-selection", "clipboard"] + sys.argv[1:], input=sys.stdin.buffer.read(), \
      stdout=subprocess.PIPE if "-o" in sys.argv else subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
      sys.stdout.buffer.write(r.stdout or b"")
      sys.exit(r.returncode)
      """
    return try Run.program("python3", ["-c", script] + arguments, stdin: input, environment: environment)
  }
}

@Suite("The clipboard: copy and paste on a real X server (Xvfb)", .serialized)
struct ClipboardTests {

  @Test("copy of one item offers image/png, the image itself; paste takes a clipboard that holds only an image")
  func imagesAsData() throws {
    let (display, work) = (try VirtualDisplay(), try TestWorkspace())
    let (source, _) = try Self.sourceGallery(in: work, images: 1)
    #expect(try Run.gallery(["copy", source, "1"], environment: display.environment).status == 0)
    let targets = try display.xclip(["-t", "TARGETS", "-o"]).stdout.split(separator: "\n").map(String.init)
    #expect(targets.contains("image/png"), "\(targets)")
    let png = try display.xclip(["-t", "image/png", "-o"]).stdoutData
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    // At the original's size (240x160 in `images`), not the thumbnail's.
    let file = work.path("pasted.png")
    try png.write(to: URL(fileURLWithPath: file))
    #expect(try Run.program("vipsheader", ["-f", "width", file]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "240")

    // A screenshot on the clipboard: image/png and nothing else.
    let screenshot = try work.image("screenshot.png", width: 320, height: 200, format: .png, seed: 9)
    #expect(try display.xclip(["-t", "image/png", "-i"], input: try work.bytes(screenshot)).status == 0)
    let target = try work.document("target.gallery")
    let pasted = try Run.gallery(["paste", target], environment: display.environment)
    #expect(pasted.status == 0, "\(pasted.stderr)")
    let items = try Listing.of(target).items
    #expect(items.count == 1 && items[0].state == "ready" && items[0].source.hasPrefix("urn:sha256:"), "\(items)")
    #expect(items[0].aspectRatio == 1.6)
  }

  /// A gallery of `images` new images, dropped.
  static func sourceGallery(in work: TestWorkspace, images count: Int) throws -> (String, [String]) {
    let source = try work.document("source.gallery")
    let images = try work.images(count)
    #expect(try Run.gallery(["drop", source] + images).status == 0)
    return (source, images)
  }

  @Test("copy offers a text/uri-list; paste drops it into another gallery")
  func uriList() throws {
    let (display, work) = (try VirtualDisplay(), try TestWorkspace())
    let (source, images) = try Self.sourceGallery(in: work, images: 3)
    let copied = try Run.gallery(["copy", "--as", "uri-list", source, "3", "1"], environment: display.environment)
    #expect(copied.status == 0, "\(copied.stderr)")
    #expect(copied.stderr.contains("copied 2 item(s) to the clipboard (X11: text/uri-list)"), "\(copied.stderr)")

    let offered = try display.xclip(["-t", "text/uri-list", "-o"])
    let uris = images.map { URL(fileURLWithPath: $0).absoluteString }
    #expect(offered.stdout == uris[2] + "\r\n" + uris[0] + "\r\n")
    #expect(try display.xclip(["-t", "TARGETS", "-o"]).stdout.split(separator: "\n") == ["TARGETS", "text/uri-list"])

    let target = try work.document("target.gallery")
    let pasted = try Run.gallery(["paste", target], environment: display.environment)
    #expect(pasted.status == 0, "\(pasted.stderr)")
    let items = try Listing.of(target).items
    #expect(items.map(\.source) == [uris[2], uris[0]])
    #expect(items.allSatisfy { $0.state == "ready" })
  }

  @Test("copy offers every type at once, until something else is copied")
  func everyType() throws {
    let (display, work) = (try VirtualDisplay(), try TestWorkspace())
    let (source, images) = try Self.sourceGallery(in: work, images: 2)
    let copied = try Run.gallery(["copy", source, "2", "1"], environment: display.environment)
    #expect(copied.status == 0, "\(copied.stderr)")
    let uris = images.reversed().map { URL(fileURLWithPath: $0).absoluteString }

    let targets = try display.xclip(["-t", "TARGETS", "-o"]).stdout.split(separator: "\n").map(String.init)
    #expect(
      Set(targets) == [
        "TARGETS", "text/uri-list", "x-special/gnome-copied-files", "application/x-gallery-items", "text/plain;charset=utf-8",
        "UTF8_STRING",
      ])
    #expect(try display.xclip(["-t", "text/uri-list", "-o"]).stdout == uris.map { $0 + "\r\n" }.joined())
    #expect(try display.xclip(["-t", "x-special/gnome-copied-files", "-o"]).stdout == "copy\n" + uris.joined(separator: "\n"))
    #expect(try display.xclip(["-t", "UTF8_STRING", "-o"]).stdout == uris.joined(separator: "\n"))
    let payload = try display.xclip(["-t", "application/x-gallery-items", "-o"]).stdoutData
    #expect(try DragPayload.decode(payload)?.items.map(\.item.source) == uris)
    #expect(owners(on: display).count == 1)

    // Another program copies: ours lets go of the clipboard, and its process ends.
    #expect(try display.xclip(["-t", "text/plain", "-i"], input: Data("other".utf8)).status == 0)
    ImageServer.waitUntil("the owner to end") { owners(on: display).isEmpty }
    #expect(try display.xclip(["-t", "TARGETS", "-o"]).stdout.contains("x-gallery-items") == false)
  }

  /// The `gallery clipboard-owner` processes serving this display.
  private func owners(on display: VirtualDisplay) -> [String] {
    let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return pids.filter { pid in
      guard Int(pid) != nil,
        let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
        String(decoding: command, as: UTF8.self).contains("clipboard-owner"),
        let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ")
      else { return false }
      return environment.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == "DISPLAY=\(display.display)" }
    }
  }

  @Test("A copy between galleries carries thumbnails: paste works with the original files gone")
  func galleryPayload() throws {
    let (display, work) = (try VirtualDisplay(), try TestWorkspace())
    let (source, images) = try Self.sourceGallery(in: work, images: 2)
    #expect(try Run.gallery(["copy", source, "1", "2"], environment: display.environment).status == 0)
    for image in images { try FileManager.default.removeItem(atPath: image) }

    let target = try work.document("target.gallery")
    let pasted = try Run.gallery(["paste", "--json", target], environment: display.environment)
    #expect(pasted.status == 0, "\(pasted.stderr)")
    let original = try GalleryDocument.open(source)
    let copy = try GalleryDocument.open(target)
    #expect(copy.model.items.map(\.source) == original.model.items.map(\.source))
    #expect(copy.model.items.allSatisfy { $0.state == .ready })
    for (a, b) in zip(original.model.items, copy.model.items) {
      #expect(try copy.thumbnail(of: b) == (try original.thumbnail(of: a)))
    }
  }

  @Test("Files copied in a file manager (x-special/gnome-copied-files) paste as drops; copy --as files offers them")
  func fileManagerFiles() throws {
    let display = try VirtualDisplay()
    let work = try TestWorkspace()
    let images = try work.images(2)
    let uris = images.map { URL(fileURLWithPath: $0).absoluteString }
    let offer = "copy\n" + uris.joined(separator: "\n")
    #expect(try display.xclip(["-t", "x-special/gnome-copied-files", "-i"], input: Data(offer.utf8)).status == 0)
    let document = try work.document()
    let pasted = try Run.gallery(["paste", "--at", "1", document], environment: display.environment)
    #expect(pasted.status == 0, "\(pasted.stderr)")
    #expect(try Listing.of(document).items.map(\.source) == uris)

    #expect(try Run.gallery(["copy", "--as", "files", document, "2"], environment: display.environment).status == 0)
    #expect(try display.xclip(["-t", "x-special/gnome-copied-files", "-o"]).stdout == "copy\n" + uris[1])
  }

  @Test("An owner that never answers: paste gives up after its timeout with 69, the document untouched")
  func ownerThatNeverAnswers() throws {
    let (display, work) = (try VirtualDisplay(), try TestWorkspace())
    let document = try work.document()
    let before = try work.bytes(document)
    // xclip in the foreground takes the selection, then is stopped: the X server still
    // names it the owner, and no request sent to it is ever answered.
    let script = """
      import os, signal, subprocess, time
      p = subprocess.Popen(["xclip", "-selection", "clipboard", "-i", "-quiet"], stdin=subprocess.PIPE, \
      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
      p.stdin.write(b"text"); p.stdin.close(); time.sleep(1); os.kill(p.pid, signal.SIGSTOP); print(p.pid)
      """
    let started = try Run.program("python3", ["-c", script], environment: display.environment)
    let owner = try #require(pid_t(started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    defer { kill(owner, SIGKILL) }

    let begun = Date()
    let pasted = try Run.gallery(["paste", document], environment: display.environment)
    #expect(pasted.status == 69)
    #expect(pasted.stderr.contains("gallery: the clipboard's owner did not answer within 10 s"), "\(pasted.stderr)")
    #expect(Date().timeIntervalSince(begun) < 60)
    #expect(try work.bytes(document) == before)
  }

  @Test("No clipboard: exit 69 and why; an empty clipboard: exit 66")
  func unavailable() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document, try work.image("a.jpg")]).status == 0)
    let none = try Run.gallery(["copy", document, "1"], environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
    #expect(none.status == 69)
    #expect(none.stderr.contains("no graphical session"))
    let noTool = try Run.gallery(
      ["paste", document], environment: ["DISPLAY": ":99", "WAYLAND_DISPLAY": "", "PATH": "/nonexistent"])
    #expect(noTool.status == 69)
    #expect(noTool.stderr.contains("install xclip to paste on X11"), "\(noTool.stderr)")
    let noWaylandTool = try Run.gallery(
      ["copy", document, "1"], environment: ["DISPLAY": "", "WAYLAND_DISPLAY": "wayland-9", "PATH": "/nonexistent"])
    #expect(noWaylandTool.status == 69)
    #expect(noWaylandTool.stderr.contains("install wl-clipboard (Wayland) or xclip (X11)"))
    let noServer = try Run.gallery(["copy", document, "1"], environment: ["DISPLAY": ":4321", "WAYLAND_DISPLAY": ""])
    #expect(noServer.status == 69)
    #expect(noServer.stderr.contains("cannot open display ':4321'"), "\(noServer.stderr)")

    let display = try VirtualDisplay()
    let empty = try Run.gallery(["paste", document], environment: display.environment)
    #expect(empty.status == 66)
    #expect(empty.stderr.contains("the clipboard is empty"))
    #expect(try Listing.of(document).items.count == 1)
  }
}
