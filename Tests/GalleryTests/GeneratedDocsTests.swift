import Foundation
import GalleryKit
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

@Suite("Man pages and shell completions")
struct GeneratedDocsTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test("The committed man/ and completions/ match what the command definitions generate")
  func docsAreCurrent() throws {
    let work = try TestWorkspace()
    let script = Self.root.appendingPathComponent("scripts/generate-docs").path
    let result = try Run.program(script, [Run.galleryBinary, work.folder.path])
    #expect(result.status == 0, "\(result.stderr)")
    for folder in ["man", "completions"] {
      let committed = Self.root.appendingPathComponent(folder).path
      let generated = work.path(folder)
      let names = try FileManager.default.contentsOfDirectory(atPath: generated).sorted()
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: committed).sorted() == names,
        "\(folder)/ lists other files than the generator makes: run `make docs`")
      for name in names {
        let fresh = try Data(contentsOf: URL(fileURLWithPath: generated + "/" + name))
        let old = try? Data(contentsOf: URL(fileURLWithPath: committed + "/" + name))
        #expect(fresh == old, "\(folder)/\(name) is stale: run `make docs`")
      }
    }
    let pages = try FileManager.default.contentsOfDirectory(atPath: work.path("man"))
    #expect(pages.contains("gallery-drop.1"))
    #expect(!pages.contains { $0.contains("clipboard-owner") }, "a hidden command got a page")
  }

  @Test("man finds `gallery-drop` and `gallery drop`; apropos and lexgrog read every page's name")
  func manLookups() throws {
    let work = try TestWorkspace()
    let manpath = work.path("man")
    try FileManager.default.createDirectory(atPath: manpath + "/man1", withIntermediateDirectories: true)
    let pages = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("man").path).filter {
      $0.hasSuffix(".1")
    }
    for page in pages {
      try FileManager.default.copyItem(
        atPath: Self.root.appendingPathComponent("man/" + page).path, toPath: manpath + "/man1/" + page)
    }
    for words in [["gallery-drop"], ["gallery", "drop"], ["gallery-watch"]] {
      let found = try Run.program("man", ["-M", manpath, "-w"] + words)
      #expect(
        found.status == 0 && found.stdout.contains("/man1/" + words.joined(separator: "-") + ".1"),
        "man \(words): \(found.stderr)")
    }
    for page in pages {
      let grog = try Run.program("lexgrog", [manpath + "/man1/" + page])
      #expect(grog.status == 0 && !grog.stdout.contains("parse failed"), "\(page): \(grog.stdout)")
      #expect(!grog.stdout.contains("\"\""), "\(page): \(grog.stdout)")
    }
    #expect(try Run.program("mandb", ["-q", "-c", manpath]).status == 0)
    let apropos = try Run.program("apropos", ["-M", manpath, "gallery"])
    #expect(
      apropos.stdout.contains("gallery-drop (1)") && apropos.stdout.contains("Drop images into a gallery"), "\(apropos.stdout)")
    #expect(!apropos.stdout.contains("unknown subject"))
  }

  @Test("The main page has ENVIRONMENT, FILES, EXIT STATUS as a table and EXAMPLES")
  func mainPageSections() throws {
    let page = try String(contentsOf: Self.root.appendingPathComponent("man/gallery.1"), encoding: .utf8)
    for section in [".Sh ENVIRONMENT", ".Sh FILES", ".Sh EXIT STATUS", ".Sh EXAMPLES"] {
      #expect(page.contains(section), "\(section) missing")
    }
    #expect(!page.contains(".Ex -std"), "the generic exit-status sentence is back")
    #expect(page.contains(".It Ev GALLERY_CACHE_SIZE") && page.contains(".It 65"))
  }

  @Test("bash completion offers the subcommands and the options of one")
  func bashCompletion() throws {
    let script = Self.root.appendingPathComponent("completions/gallery.bash").path
    let probe = """
      source '\(script)'
      complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _gallery "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"; printf '%s\\n' "${COMPREPLY[@]}"; }
      complete_words gallery ''
      echo ---
      complete_words gallery drop --
      """
    let result = try Run.program("bash", ["-c", probe])
    #expect(result.status == 0, "\(result.stderr)")
    let parts = result.stdout.components(separatedBy: "---\n")
    #expect(parts.count == 2)
    let subcommands = Set(parts[0].split(separator: "\n").map(String.init))
    #expect(
      subcommands.isSuperset(of: [
        "new", "show", "info", "drop", "move", "trash", "restore", "export", "uris", "compact", "check",
      ]))
    let options = Set(parts[1].split(separator: "\n").map(String.init))
    #expect(options.isSuperset(of: ["--at", "--recursive", "--keep-failed", "--max-pixels", "--jobs", "--json"]))
  }
}

extension GeneratedDocsTests {
  @Test("bash completion offers the ids and positions of the document named on the line")
  func dynamicItemCompletion() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(2)).status == 0)
    let ids = try GalleryDocument.open(document).model.items.map(\.id)
    let script = Self.root.appendingPathComponent("completions/gallery.bash").path
    let probe = """
      source '\(script)'
      COMP_WORDS=('\(Run.galleryBinary)' move '\(document)' ''); COMP_CWORD=3; COMPREPLY=()
      COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
      _gallery '\(Run.galleryBinary)' '' '\(document)'
      printf '%s\\n' "${COMPREPLY[@]}"
      """
    let result = try Run.program("bash", ["-c", probe])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Set(result.stdout.split(separator: "\n").map(String.init)) == Set(ids + ["1", "2"]))

    // The document's own tags, after + or - in `gallery tag`, and after tag: in a query.
    #expect(try Run.gallery(["tag", document, "1", "+holiday/alps", "+hiking"]).status == 0)
    #expect(try Run.gallery(["tag", document, "2", "+harbour"]).status == 0)
    func completed(_ words: [String]) throws -> [String] {
      let line = words.map { "'\($0)'" }.joined(separator: " ")
      let probe = """
        source '\(script)'
        COMP_WORDS=('\(Run.galleryBinary)' \(line)); COMP_CWORD=\(words.count); COMPREPLY=()
        COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
        _gallery '\(Run.galleryBinary)' '\(words.last!)' '\(words[words.count - 2])'
        printf '%s\\n' "${COMPREPLY[@]}"
        """
      let result = try Run.program("bash", ["-c", probe])
      #expect(result.status == 0, "\(result.stderr)")
      return result.stdout.split(separator: "\n").map(String.init).sorted()
    }
    #expect(try completed(["tag", document, "1", "+h"]) == ["+harbour", "+hiking", "+holiday/alps"])
    #expect(try completed(["tag", document, "1", "-ho"]) == ["-holiday/alps"])
    #expect(try completed(["find", document, "tag:hi"]) == ["tag:hiking"])
  }
}

extension GeneratedDocsTests {
  @Test("Man pages are lint-clean under mandoc (but for what it says of the system's manual database)")
  func manLint() throws {
    let man = Self.root.appendingPathComponent("man").path
    let pages = try FileManager.default.contentsOfDirectory(atPath: man).filter { $0.hasSuffix(".1") }.map { man + "/" + $0 }
    #expect(pages.count >= 15)
    let lint = try Run.program("mandoc", ["-Tlint"] + pages)
    // What mandoc says of the system's manual database is not about these pages: a page a
    // reference names is not installed yet, or the package another test installs meanwhile
    // made the database outdated.
    let remarks = (lint.stdout + lint.stderr).split(separator: "\n").filter {
      !$0.contains("referenced manual not found") && !$0.contains("outdated mandoc.db")
    }
    #expect(remarks.isEmpty, "\(remarks.joined(separator: "\n"))")
  }
}
