import Foundation
import GalleryKit
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

@Suite("The document browser: new, browse, rename, duplicate, delete, thumbnail")
struct DocumentBrowserTests {
  @Test("new without a name makes Untitled, Untitled 2, ...")
  func untitled() throws {
    let work = try TestWorkspace()
    let first = try Run.gallery(["new"], in: work.folder.path)
    let second = try Run.gallery(["new"], in: work.folder.path)
    #expect(first.status == 0 && second.status == 0)
    #expect(first.stdout == "./Untitled.gallery\n")
    #expect(second.stdout == "./Untitled 2.gallery\n")
    #expect(try GalleryDocument.open(work.path("Untitled 2.gallery")).model.title == "Untitled 2")
  }

  @Test("rename changes the file and the title, never over another file")
  func rename() throws {
    let work = try TestWorkspace()
    let document = try work.document("Old.gallery")
    #expect(try Run.gallery(["drop", document, try work.image("a.jpg", seed: 1)]).status == 0)
    let result = try Run.gallery(["rename", document, "New Name"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: document))
    let renamed = work.path("New Name.gallery")
    #expect(result.stdout == renamed + "\n")
    let model = try GalleryDocument.open(renamed).model
    #expect(model.title == "New Name")
    #expect(model.items.count == 1)

    let other = try work.document("Other.gallery")
    let before = try work.bytes(other)
    #expect(try Run.gallery(["rename", renamed, "Other"]).status == 73)
    #expect(try work.bytes(other) == before)
    #expect(FileManager.default.fileExists(atPath: renamed))
  }

  @Test("duplicate makes NAME copy, NAME copy 2, with the items and without dead bytes")
  func duplicate() throws {
    let work = try TestWorkspace()
    let document = try work.document("Trip.gallery")
    #expect(try Run.gallery(["drop", document] + work.images(3)).status == 0)
    for _ in 0..<3 { #expect(try Run.gallery(["move", document, "1", "--to", "end"]).status == 0) }
    let first = try Run.gallery(["duplicate", document])
    let second = try Run.gallery(["duplicate", document])
    #expect(first.stdout == work.path("Trip copy.gallery") + "\n")
    #expect(second.stdout == work.path("Trip copy 2.gallery") + "\n")
    let original = try GalleryDocument.open(document)
    let copy = try GalleryDocument.open(work.path("Trip copy.gallery"))
    #expect(copy.model.title == "Trip copy")
    #expect(copy.model.items == original.model.items)
    #expect(copy.statistics.deadBytes == 0)
    #expect(try Run.gallery(["check", work.path("Trip copy.gallery")]).status == 0)
    #expect(try Run.gallery(["duplicate", document, "Trip copy"]).status == 73)
  }

  @Test("delete moves to the freedesktop Trash with a .trashinfo; --permanently deletes")
  func delete() throws {
    let work = try TestWorkspace()
    let document = try work.document("Gone.gallery")
    let bytes = try work.bytes(document)
    let result = try Run.gallery(["delete", document])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: document))
    let trash = Run.isolatedHome["XDG_DATA_HOME"]! + "/Trash"
    let trashed = result.stderr.components(separatedBy: "(").last!.dropLast(2)
    #expect(try Data(contentsOf: URL(fileURLWithPath: String(trashed))) == bytes)
    let name = (String(trashed) as NSString).lastPathComponent
    let info = try String(contentsOfFile: trash + "/info/" + name + ".trashinfo", encoding: .utf8)
    #expect(
      info.hasPrefix(
        "[Trash Info]\nPath=\(document.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!)\nDeletionDate="))

    let other = try work.document("Other.gallery")
    #expect(try Run.gallery(["delete", "--permanently", other]).status == 0)
    #expect(!FileManager.default.fileExists(atPath: other))
    let text = try work.write("not a gallery", to: "text.gallery")
    #expect(try Run.gallery(["delete", text]).status == 65)
    #expect(FileManager.default.fileExists(atPath: text))
  }

  @Test("browse lists documents with counts; --json; damaged files say why; --recent")
  func browse() throws {
    let work = try TestWorkspace()
    let one = try work.document("One.gallery")
    _ = try work.document("Two.gallery")
    #expect(try Run.gallery(["drop", one] + work.images(2)).status == 0)
    _ = try work.write("junk", to: "Broken.gallery")
    let result = try Run.gallery(["browse", "--json", work.folder.path])
    #expect(result.status == 0)
    let entries = try JSONSerialization.jsonObject(with: result.stdoutData) as! [[String: Any]]
    #expect(entries.map { ($0["path"] as! NSString).lastPathComponent } == ["Broken.gallery", "One.gallery", "Two.gallery"])
    #expect(entries[1]["items"] as? Int == 2)
    #expect(entries[2]["items"] as? Int == 0)
    #expect((entries[0]["error"] as? String)?.contains("not a gallery") == true)
    let text = try Run.gallery(["browse", work.folder.path])
    #expect(text.stdout.contains("2 items"))

    // A state folder of its own: other tests note their documents as recent meanwhile.
    let own = ["XDG_STATE_HOME": work.path("state")]
    #expect(try Run.program(Run.galleryBinary, ["show", one], environment: own).status == 0)
    let recent = try Run.program(Run.galleryBinary, ["browse", "--recent", "--json"], environment: own)
    let recentPaths = (try JSONSerialization.jsonObject(with: recent.stdoutData) as! [[String: Any]]).map {
      $0["path"] as! String
    }
    #expect(recentPaths.first == URL(fileURLWithPath: one).standardizedFileURL.path)
  }

  @Test("thumbnail writes the cover at the size asked, as PNG")
  func thumbnail() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + work.images(5)).status == 0)
    let out = work.path("cover.png")
    #expect(try Run.gallery(["thumbnail", document, out, "128"]).status == 0)
    let image = try ImageProcessor.process(try work.bytes(out), options: ImageOptions(thumbnailSize: 1024))
    #expect(image.format == "png")
    #expect(image.width == 128 && image.height == 128)
  }
}
