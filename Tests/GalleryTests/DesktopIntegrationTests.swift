import Foundation
import Testing

@testable import GallerySystem

@Suite("Desktop integration: make install, MIME type, .desktop, thumbnailer")
struct DesktopIntegrationTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

  @Test("make install lays out every file; the files validate; make uninstall removes them")
  func installAndValidate() throws {
    let work = try TestWorkspace()
    let destination = work.path("root")
    // Another program's page beside ours must survive our uninstall.
    try FileManager.default.createDirectory(atPath: destination + "/usr/share/man/man1", withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: destination + "/usr/share/man/man1/gallery-dl.1", contents: Data(".TH X 1\n".utf8))
    let install = try Run.program(
      "make", ["-C", Self.root, "install-files", "DESTDIR=" + destination, "PREFIX=/usr", "BINARY=" + Run.galleryBinary])
    #expect(install.status == 0, "\(install.stderr)")
    #expect(!(install.stdout + install.stderr).contains("Error"), "\(install.stdout)\(install.stderr)")
    let share = destination + "/usr/share"
    let expected = [
      "/usr/bin/gallery", "/usr/share/man/man1/gallery.1", "/usr/share/man/man1/gallery-drop.1",
      "/usr/share/bash-completion/completions/gallery", "/usr/share/zsh/vendor-completions/_gallery",
      "/usr/share/fish/vendor_completions.d/gallery.fish", "/usr/share/mime/packages/gallery.xml",
      "/usr/share/applications/gallery.desktop", "/usr/share/thumbnailers/gallery.thumbnailer",
      "/usr/lib/systemd/user/gallery-watch@.service", "/usr/share/doc/gallery/LICENSE",
    ]
    for path in expected { #expect(FileManager.default.fileExists(atPath: destination + path), "\(path) not installed") }

    let desktop = try Run.program("desktop-file-validate", [share + "/applications/gallery.desktop"])
    #expect(desktop.status == 0 && desktop.stdout.isEmpty, "\(desktop.stdout)\(desktop.stderr)")
    let xml = try Run.program("xmllint", ["--noout", share + "/mime/packages/gallery.xml"])
    #expect(xml.status == 0, "\(xml.stderr)")
    let thumbnailer = try String(contentsOfFile: share + "/thumbnailers/gallery.thumbnailer", encoding: .utf8)
    #expect(thumbnailer.contains("Exec=gallery thumbnail %i %o %s"))

    // The MIME database built from our package recognises a gallery by its content alone.
    try FileManager.default.copyItem(
      atPath: "/usr/share/mime/packages/freedesktop.org.xml", toPath: share + "/mime/packages/freedesktop.org.xml")
    #expect(try Run.program("update-mime-database", [share + "/mime"]).status == 0)
    let document = try work.document()
    let disguised = work.path("no-extension.bin")
    try FileManager.default.copyItem(atPath: document, toPath: disguised)
    let environment = ["XDG_DATA_DIRS": share, "XDG_DATA_HOME": work.path("empty")]
    for path in [document, disguised] {
      let info = try Run.program("gio", ["info", "-a", "standard::content-type", path], environment: environment)
      #expect(info.stdout.contains("standard::content-type: application/x-gallery"), "\(path): \(info.stdout)\(info.stderr)")
    }

    let uninstall = try Run.program("make", ["-C", Self.root, "uninstall", "DESTDIR=" + destination, "PREFIX=/usr"])
    #expect(uninstall.status == 0, "\(uninstall.stderr)")
    #expect(!(uninstall.stdout + uninstall.stderr).contains("Error"), "\(uninstall.stdout)\(uninstall.stderr)")
    for path in expected { #expect(!FileManager.default.fileExists(atPath: destination + path), "\(path) left behind") }
    #expect(
      FileManager.default.fileExists(atPath: destination + "/usr/share/man/man1/gallery-dl.1"),
      "uninstall removed another program's page")
  }

  @Test("zsh finds the installed completion by its own fpath, for PREFIX=/usr and /usr/local", arguments: ["/usr", "/usr/local"])
  func zshCompletionAsInstalled(prefix: String) throws {
    let work = try TestWorkspace()
    let destination = work.path("root")
    let install = try Run.program(
      "make", ["-C", Self.root, "install-files", "DESTDIR=" + destination, "PREFIX=" + prefix, "BINARY=" + Run.galleryBinary])
    #expect(install.status == 0, "\(install.stderr)")
    // zsh's own fpath, with no hand-made entry: the installed file must be in one of its folders.
    let fpath = try Run.program("zsh", ["-f", "-c", "print -rl -- $fpath"]).stdout.split(separator: "\n").map(String.init)
    let found = fpath.filter { FileManager.default.fileExists(atPath: destination + $0 + "/_gallery") }
    #expect(found.count == 1, "\(prefix): _gallery in none of zsh's folders \(fpath)")
    // And zsh autoloads it from there as it would from the real folder.
    let probe =
      "fpath=(\(fpath.map { "'\(destination)\($0)'" }.joined(separator: " ")) $fpath); autoload -U compinit; compinit -u; "
      + "print -r -- ${_comps[gallery]}"
    let loaded = try Run.program("zsh", ["-f", "-c", probe])
    #expect(loaded.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "_gallery", "\(loaded.stdout)\(loaded.stderr)")
  }

  @Test("Documents used appear in the desktop's recent files as GTK writes them; others' entries are kept")
  func desktopRecentFiles() throws {
    let work = try TestWorkspace()
    let data = work.path("data")
    let xbel = data + "/recently-used.xbel"
    try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
    let others = """
      <?xml version="1.0" encoding="UTF-8"?>
      <xbel version="1.0" xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks" \
      xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info">
        <bookmark href="file:///home/ann/notes.txt" added="2026-01-01T00:00:00Z" modified="2026-01-01T00:00:00Z" \
      visited="2026-01-01T00:00:00Z"><info><metadata owner="http://freedesktop.org">\
      <mime:mime-type type="text/plain"/><bookmark:applications><bookmark:application name="gedit" \
      exec="&apos;gedit %u&apos;" modified="2026-01-01T00:00:00Z" count="1"/></bookmark:applications>\
      </metadata></info></bookmark>
      </xbel>
      """
    try others.write(toFile: xbel, atomically: true, encoding: .utf8)
    let environment = ["XDG_DATA_HOME": data, "XDG_STATE_HOME": work.path("state")]
    let document = try work.document("Summer trip.gallery")
    #expect(try Run.gallery(["show", document], environment: environment).status == 0)
    let text = try String(contentsOfFile: xbel, encoding: .utf8)
    let uri = "file://" + work.folder.path + "/Summer%20trip.gallery"
    #expect(text.contains("href=\"\(uri)\""), "\(text)")
    #expect(text.contains("<mime:mime-type type=\"application/x-gallery\"/>"))
    #expect(text.contains("name=\"gallery\" exec=\"&apos;gallery open %u&apos;\""))
    #expect(text.contains("file:///home/ann/notes.txt") && text.contains("name=\"gedit\""), "another program's entry went")
    // Python's XML parser reads it (what a desktop's reader needs first).
    #expect(try Run.program("python3", ["-c", "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])", xbel]).status == 0)
    // Deleted: gone from the recent files too.
    #expect(try Run.gallery(["delete", document], environment: environment).status == 0)
    #expect(try !String(contentsOfFile: xbel, encoding: .utf8).contains(uri))
    // A file that does not read is never written over.
    try "<xbel broken".write(toFile: xbel, atomically: true, encoding: .utf8)
    let other = try work.document("Other.gallery")
    #expect(try Run.gallery(["show", other], environment: environment).status == 0)
    #expect(try String(contentsOfFile: xbel, encoding: .utf8) == "<xbel broken")
  }

  @Test("make install builds and installs, and never installs system packages")
  func installInstallsNoPackages() throws {
    let plan = try Run.program("make", ["-C", Self.root, "-n", "install", "DESTDIR=/tmp/x", "PREFIX=/usr"])
    #expect(plan.status == 0, "\(plan.stderr)")
    #expect(!plan.stdout.contains("apt-get") && !plan.stdout.contains("install-debian-packages"), "\(plan.stdout)")
    #expect(plan.stdout.contains("--static-swift-stdlib"))
  }

  @Test("Double-clicking a .gallery (gio open, as GNOME Files does) opens it in the web browser, without a terminal")
  func doubleClickOpensTheBrowserView() throws {
    let desktop = try String(contentsOfFile: Self.root + "/share/applications/gallery.desktop", encoding: .utf8)
    let lines = desktop.split(separator: "\n")
    #expect(lines.contains("MimeType=application/x-gallery;") && lines.contains("Terminal=false"))
    #expect(lines.contains("Exec=gallery open %f"))

    let work = try TestWorkspace()
    let destination = work.path("root")
    let install = try Run.program(
      "make", ["-C", Self.root, "install-files", "DESTDIR=" + destination, "PREFIX=/usr", "BINARY=" + Run.galleryBinary])
    #expect(install.status == 0, "\(install.stderr)")
    let share = destination + "/usr/share"
    try FileManager.default.copyItem(
      atPath: "/usr/share/mime/packages/freedesktop.org.xml", toPath: share + "/mime/packages/freedesktop.org.xml")
    #expect(try Run.program("update-mime-database", [share + "/mime"]).status == 0)
    #expect(try Run.program("update-desktop-database", [share + "/applications"]).status == 0)
    // A "browser" that writes down the address it is given, and the VIPSHOME it inherits.
    let opened = work.path("opened")
    let browser = work.path("browser")
    try "#!/bin/sh\necho \"${VIPSHOME-unset}\" > \(opened).vipshome\necho \"$1\" > \(opened)\n".write(
      toFile: browser, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: browser)
    let runtime = work.path("runtime")
    try FileManager.default.createDirectory(
      atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let document = try work.document("Double click.gallery")
    let environment = [
      "HOME": work.path("home"), "PATH": destination + "/usr/bin:/usr/bin:/bin", "XDG_DATA_DIRS": share,
      "XDG_DATA_HOME": work.path("empty"), "XDG_STATE_HOME": work.path("state"), "XDG_RUNTIME_DIR": runtime,
      "BROWSER": browser,
      // What gallery sets for its own libvips, never for the programs it starts.
      "VIPSHOME": VipsRuntime.homeWithoutModules,
    ]
    let gio = try Run.program("gio", ["open", document], environment: environment)
    #expect(gio.status == 0, "\(gio.stderr)")
    var address = ""
    for _ in 0..<400 where address.isEmpty {
      address = (try? String(contentsOfFile: opened, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
      if address.isEmpty { Thread.sleep(forTimeInterval: 0.05) }
    }
    #expect(address.hasPrefix("http://127.0.0.1:") && address.contains("/d/") && address.contains("?token="), "\(address)")
    #expect(try String(contentsOfFile: opened + ".vipshome", encoding: .utf8) == "unset\n")
    // The server `open` started answers (the token becomes a cookie), and is stopped here.
    let answer = try Run.program("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", address])
    #expect(answer.stdout == "303", "\(answer.stdout)\(answer.stderr)")
    let record = try String(contentsOfFile: runtime + "/gallery/view.json", encoding: .utf8)
    let pid = record.split(separator: ",").first { $0.contains("\"pid\"") }?.split(separator: ":").last.map(String.init)
    #expect(pid != nil, "\(record)")
    // Waited for: a server still writing its state would keep the workspace from going.
    if let pid = pid.flatMap({ pid_t($0.trimmingCharacters(in: .whitespaces)) }) {
      // Named gallery for ps, pgrep and systemd-cgls (not "exe"), and in / (not the folder
      // it was opened from, which it would keep busy).
      let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)
      #expect(name == "gallery\n", "\(name ?? "")")
      #expect(FileSystem.resolvingLinks("/proc/\(pid)/cwd") == "/")
      kill(pid, SIGTERM)
      let end = Date() + 10
      // Gone, or a zombie that nobody reaped yet.
      func running() -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return !stat.contains(") Z ")
      }
      while Date() < end && running() { usleep(20_000) }
      #expect(!running(), "the view server \(pid) did not stop")
    }
  }

  @Test("The watch unit: hardened as systemd-analyze asks, no restart loop on a usage error, found in ~/.local/bin")
  func watchUnit() throws {
    let unit = Self.root + "/Samples/systemd/gallery-watch@.service"
    let text = try String(contentsOfFile: unit, encoding: .utf8)
    #expect(text.contains("RestartPreventExitStatus=64 65 66 73"))
    #expect(text.contains("%h/.local/bin"))
    // The configuration folder as systemd names it ($XDG_CONFIG_HOME for a user unit).
    #expect(text.contains("--config %E/gallery/%i.conf") && !text.contains("%h/.config"))
    let work = try TestWorkspace()
    let copy = work.path("gallery-watch@inbox.service")
    try FileManager.default.copyItem(atPath: unit, toPath: copy)
    let security = try Run.program("systemd-analyze", ["security", "--offline=true", copy])
    let exposure = security.stdout.split(separator: "\n").last { $0.contains("Overall exposure level") }
      .flatMap { line in line.split(separator: " ").compactMap { Double($0) }.first }
    #expect(exposure != nil && exposure! <= 2.0, "\(security.stdout.suffix(300))\(security.stderr)")
    let verify = try Run.program("systemd-analyze", ["verify", "--man=no", copy])
    #expect(!verify.stderr.contains("Unknown key") && !verify.stderr.contains("Failed to parse"), "\(verify.stderr)")
  }

  /// The binary `make install` installs (Swift's standard library linked in), built by
  /// `make test` before the tests run.
  static let staticBinary =
    ProcessInfo.processInfo.environment["GALLERY_STATIC_BINARY"]
    ?? (root + "/.build/static/release/gallery")

  @Test("make deb: a lintian-clean package that apt-get installs and removes; what it installs works")
  func debianPackage() throws {
    #expect(
      FileManager.default.isExecutableFile(atPath: Self.staticBinary), "build it with `make install-binary` (make test does)")
    let work = try TestWorkspace()
    let made = try Run.program(Self.root + "/scripts/make-deb", [Self.staticBinary, work.folder.path])
    #expect(made.status == 0, "\(made.stderr)")
    let deb = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(deb.hasSuffix("_amd64.deb") || deb.hasSuffix(".deb"))
    // Every remaining tag is overridden with its reason (share/debian/lintian-overrides).
    let lintian = try Run.program("lintian", ["--tag-display-limit", "0", deb])
    #expect(lintian.status == 0, "\(lintian.stdout)\(lintian.stderr)")
    #expect(
      !lintian.stdout.split(separator: "\n").contains { $0.hasPrefix("E:") || $0.hasPrefix("W:") }, "\(lintian.stdout)")
    let fields = try Run.program("dpkg-deb", ["-f", deb, "Depends"]).stdout
    for library in [
      "libvips42", "libarchive13", "libssl3", "libjpeg62-turbo", "libinotifytools0", "libglib2.0-0", "zlib1g",
    ] {
      #expect(fields.contains(library), "Depends lacks \(library): \(fields)")
    }
    let copyright = try Run.program(
      "bash", ["-c", "dpkg-deb --fsys-tarfile \"$0\" | tar -xO ./usr/share/doc/gallery/copyright", deb])
    #expect(copyright.stdout.contains("License: ISC and OpenSSL and SSLeay"), "\(copyright.stderr)")
    let check = try Run.program(Self.root + "/scripts/check-deb", [deb])
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    #expect(check.stdout.contains("removed: ok"), "\(check.stdout)")
  }

  @Test("Thunar's tumbler makes the cover thumbnail through its D-Bus service and our thumbnailer entry")
  func tumbler() throws {
    let work = try TestWorkspace()
    let log = work.path("tumbler.log")
    // The script starts its own session bus and tumbler; its output goes to a file, so that
    // nothing it starts can hold ours. (It needs SIGCHLD for D-Bus activation: children of
    // the tests start with no signal blocked, see TestProcess.)
    let result = try Run.program(
      "bash", ["-c", "\"$0\" \"$1\" >\"$2\" 2>&1", Self.root + "/scripts/check-tumbler", Run.galleryBinary, log])
    let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    #expect(result.status == 0, "\(output)")
    #expect(output.contains("128x128") && output.contains("tumbler made the thumbnail"), "\(output)")
  }

  @Test("The installed binary runs in GNOME's thumbnailer sandbox (bubblewrap, only /usr); a toolchain-linked one does not")
  func bubblewrap() throws {
    #expect(
      FileManager.default.isExecutableFile(atPath: Self.staticBinary), "build it with `make install-binary` (make test does)")
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document, try work.image("a.jpg")]).status == 0)
    let output = work.path("out")
    try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
    func sandboxed(_ binary: String) throws -> Run.Result {
      // The mounts gnome-desktop's thumbnailer script gives a thumbnailer.
      try Run.program(
        "bwrap",
        [
          "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache",
          "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
          "--symlink", "usr/sbin", "/sbin", "--proc", "/proc", "--dev", "/dev", "--chdir", "/",
          "--setenv", "GIO_USE_VFS", "local", "--unshare-all", "--die-with-parent",
          "--bind", output, "/tmp", "--ro-bind", document, document, "--ro-bind", binary, "/gallery-thumbnailer",
          "/gallery-thumbnailer", "thumbnail", document, "/tmp/thumbnail.png", "256",
        ])
    }
    let installed = try sandboxed(Self.staticBinary)
    #expect(installed.status == 0, "\(installed.stderr)")
    let header = try Run.program("vipsheader", [output + "/thumbnail.png"]).stdout
    #expect(header.contains("256x256"), "\(header)")
    let dynamic = try sandboxed(Run.galleryBinary)
    #expect(dynamic.status != 0 && dynamic.stderr.contains("libswift"), "the toolchain-linked binary ran: \(dynamic.stderr)")
    // Installed stripped (no debug information, no symbol table) and with no RUNPATH: it
    // loads nothing from beside itself.
    let sections = try Run.program("readelf", ["-S", "-W", Self.staticBinary]).stdout
    #expect(!sections.contains(".debug_info") && !sections.contains(".symtab"), "not stripped")
    let dynamicSection = try Run.program("readelf", ["-d", Self.staticBinary]).stdout
    #expect(!dynamicSection.contains("RUNPATH") && !dynamicSection.contains("RPATH"), "\(dynamicSection)")
  }
}
