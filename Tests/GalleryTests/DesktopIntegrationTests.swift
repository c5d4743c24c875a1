import Foundation
import Testing

@Suite("Desktop integration: make install, MIME type, .desktop, thumbnailer")
struct DesktopIntegrationTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

  @Test("make install lays out every file; the files validate; make uninstall removes them")
  func installAndValidate() throws {
    let work = try TestWorkspace()
    let destination = work.path("root")
    let install = try Run.program("make", ["-C", Self.root, "install-files", "DESTDIR=" + destination, "PREFIX=/usr", "BINARY=" + Run.galleryBinary])
    #expect(install.status == 0, "\(install.stderr)")
    let share = destination + "/usr/share"
    let expected = [
      "/usr/bin/gallery", "/usr/share/man/man1/gallery.1", "/usr/share/man/man1/gallery.drop.1",
      "/usr/share/bash-completion/completions/gallery", "/usr/share/zsh/site-functions/_gallery",
      "/usr/share/fish/vendor_completions.d/gallery.fish", "/usr/share/mime/packages/gallery.xml",
      "/usr/share/applications/gallery.desktop", "/usr/share/thumbnailers/gallery.thumbnailer",
    ]
    for path in expected { #expect(FileManager.default.fileExists(atPath: destination + path), "\(path) not installed") }

    let desktop = try Run.program("desktop-file-validate", [share + "/applications/gallery.desktop"])
    #expect(desktop.status == 0 && desktop.stdout.isEmpty, "\(desktop.stdout)\(desktop.stderr)")
    let xml = try Run.program("xmllint", ["--noout", share + "/mime/packages/gallery.xml"])
    #expect(xml.status == 0, "\(xml.stderr)")
    let thumbnailer = try String(contentsOfFile: share + "/thumbnailers/gallery.thumbnailer", encoding: .utf8)
    #expect(thumbnailer.contains("Exec=gallery thumbnail %i %o %s"))

    // The MIME database built from our package recognises a gallery by its content alone.
    try FileManager.default.copyItem(atPath: "/usr/share/mime/packages/freedesktop.org.xml", toPath: share + "/mime/packages/freedesktop.org.xml")
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
    for path in expected { #expect(!FileManager.default.fileExists(atPath: destination + path), "\(path) left behind") }
  }
}
