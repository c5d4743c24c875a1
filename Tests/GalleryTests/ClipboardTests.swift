import Foundation
import GalleryKit
import Testing

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
      stdout=subprocess.PIPE if "-o" in sys.argv else subprocess.DEVNULL, stderr=subprocess.DEVNULL)
      sys.stdout.buffer.write(r.stdout or b"")
      sys.exit(r.returncode)
      """
    return try Run.program("python3", ["-c", script] + arguments, stdin: input, environment: environment)
  }
}

@Suite("The clipboard: copy and paste through xclip on a real X server")
struct ClipboardTests {
  @Test("copy offers a text/uri-list; paste drops it into another gallery")
  func uriList() throws {
    let display = try VirtualDisplay()
    let work = try TestWorkspace()
    let source = try work.document("source.gallery")
    let images = try work.images(3)
    #expect(try Run.gallery(["drop", source] + images).status == 0)
    let copied = try Run.gallery(["copy", source, "3", "1"], environment: display.environment)
    #expect(copied.status == 0, "\(copied.stderr)")
    #expect(copied.stderr.contains("copied 2 item(s) to the clipboard (xclip)"))

    let offered = try display.xclip(["-t", "text/uri-list", "-o"])
    let uris = images.map { URL(fileURLWithPath: $0).absoluteString }
    #expect(offered.stdout == uris[2] + "\r\n" + uris[0] + "\r\n")

    let target = try work.document("target.gallery")
    let pasted = try Run.gallery(["paste", target], environment: display.environment)
    #expect(pasted.status == 0, "\(pasted.stderr)")
    let items = try Listing.of(target).items
    #expect(items.map(\.source) == [uris[2], uris[0]])
    #expect(items.allSatisfy { $0.state == "ready" })
  }

  @Test("copy --as gallery carries thumbnails: paste works with the original files gone")
  func galleryPayload() throws {
    let display = try VirtualDisplay()
    let work = try TestWorkspace()
    let source = try work.document("source.gallery")
    let images = try work.images(2)
    #expect(try Run.gallery(["drop", source] + images).status == 0)
    #expect(try Run.gallery(["copy", "--as", "gallery", source, "1", "2"], environment: display.environment).status == 0)
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

  @Test("No clipboard: exit 69 and why; an empty clipboard: exit 66")
  func unavailable() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document, try work.image("a.jpg")]).status == 0)
    let none = try Run.gallery(["copy", document, "1"], environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
    #expect(none.status == 69)
    #expect(none.stderr.contains("no graphical session"))
    let noTool = try Run.gallery(["paste", document], environment: ["DISPLAY": ":99", "WAYLAND_DISPLAY": "", "PATH": "/nonexistent"])
    #expect(noTool.status == 69)
    #expect(noTool.stderr.contains("install wl-clipboard (Wayland) or xclip (X11)"))

    let display = try VirtualDisplay()
    let empty = try Run.gallery(["paste", document], environment: display.environment)
    #expect(empty.status == 66)
    #expect(empty.stderr.contains("the clipboard is empty"))
    #expect(try Listing.of(document).items.count == 1)
  }
}
