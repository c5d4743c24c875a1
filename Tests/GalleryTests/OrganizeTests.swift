import Foundation
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryKit
@testable import GalleryModel
@testable import GallerySystem

@Suite("Organize and find: tags, captions, notes, stars, labels, and the query language")
struct OrganizeTests {
  static func item(
    _ id: String, source: String = "file:///photos/beach.jpg", tags: [String]? = nil, caption: String? = nil,
    note: String? = nil, rating: Int? = nil, label: Item.Label? = nil, format: String = "jpeg"
  ) -> Item {
    var item = Item(
      id: id, source: source, page: nil, state: .ready, aspectRatio: 1.5, width: 1500, height: 1000, orientation: 1,
      format: format, bytes: 1, hash: "sha256:" + String(repeating: "a", count: 64), thumbnail: "thumbnails/\(id).jpg",
      original: nil, added: Date(timeIntervalSince1970: 0), placeholder: nil, failure: nil)
    item.tags = tags
    item.caption = caption
    item.note = note
    item.rating = rating
    item.label = label
    return item
  }

  static let items = [
    item(
      "a1", source: "file:///photos/Beach%20Day.jpg", tags: ["holiday/italy", "sea"], caption: "Sunset at the pier", rating: 5),
    item(
      "b2", source: "https://example.org/old-town.webp", tags: ["holiday"], note: "Taken from the\ntower", rating: 3,
      label: .red, format: "webp"),
    item("c3", source: "file:///photos/cat.heic", tags: ["pets"], caption: "Café cat", format: "heif"),
  ]

  func ids(_ query: String) throws -> [String] {
    let parsed = try ItemQuery(query)
    return Self.items.filter { parsed.matches($0) }.map(\.id)
  }

  @Test("Words match captions, notes, tags and file names, in any case and with any accents")
  func words() throws {
    #expect(try ids("sunset") == ["a1"])
    #expect(try ids("beach") == ["a1"])  // the file name, decoded
    #expect(try ids("TOWER") == ["b2"])  // a note's second line
    #expect(try ids("cafe") == ["c3"])
    #expect(try ids("\"old town\"") == [])  // no caption says it; the name has a dash
    #expect(try ids("old-town") == ["b2"])
  }

  @Test("Fields, comparisons, AND, OR, NOT and parentheses")
  func fields() throws {
    #expect(try ids("tag:holiday") == ["a1", "b2"])  // a tag, or one under it
    #expect(try ids("tag:italy") == [])
    #expect(try ids("tag:holiday/italy") == ["a1"])
    #expect(try ids("rating>=4") == ["a1"])
    #expect(try ids("rating<1") == ["c3"])
    #expect(try ids("rating:3") == ["b2"])
    #expect(try ids("format:heif OR format:webp") == ["b2", "c3"])
    #expect(try ids("tag:holiday -label:red") == ["a1"])
    #expect(try ids("tag:holiday AND rating>=3 AND -sea") == ["b2"])
    #expect(try ids("(tag:pets OR rating=5) -caption:sunset") == ["c3"])
    #expect(try ids("name:cat.heic") == ["c3"])
    #expect(try ids("source:example.org") == ["b2"])
    #expect(try ids("state:ready width>1000 pages=1") == ["a1", "b2", "c3"])
    #expect(try ids("caption:\"at the\"") == ["a1"])
  }

  @Test("The photo's own facts: its camera, and when it was taken (a year, a month, a day, a range)")
  func photoFacts() throws {
    var a = Self.items[0]
    a.camera = "Canon EOS 5D Mark IV"
    a.taken = "2024-06-01T14:03:22+02:00"
    var b = Self.items[1]
    b.taken = "2023-12-31T23:59:59"
    func matching(_ query: String) throws -> [String] {
      let parsed = try ItemQuery(query)
      return [a, b, Self.items[2]].filter { parsed.matches($0) }.map(\.id)
    }
    #expect(try matching("camera:canon") == ["a1"])
    #expect(try matching("taken:2024") == ["a1"])
    #expect(try matching("taken:2024-06") == ["a1"])
    #expect(try matching("taken:2024-06-01") == ["a1"])
    #expect(try matching("taken:2023-12..2024-06") == ["a1", "b2"])
    #expect(try matching("taken:2023-12-31..2023-12-31") == ["b2"])
    #expect(try matching("-taken:2020..2030") == ["c3"])
    for bad in ["taken:june", "taken:2024-6", "taken:2024..", "taken:..2024"] {
      #expect(throws: ItemQuery.Failure.self, "\(bad)") { _ = try ItemQuery(bad) }
    }
  }

  @Test("Read from the photo's EXIF block at the drop, on libjpeg's path and on libvips'")
  func exifAtTheDrop() throws {
    let work = try TestWorkspace()
    let jpeg = try work.image("camera.jpg", width: 600, height: 400)
    let png = try work.image("phone.png", width: 400, height: 300, format: .png)
    let bare = try work.image("bare.jpg", width: 300, height: 200, seed: 9)
    #expect(
      try Run.program(
        "/usr/bin/exiftool",
        [
          "-q", "-overwrite_original", "-Make=Canon", "-Model=Canon EOS 5D Mark IV", "-DateTimeOriginal=2024:06:01 14:03:22",
          "-OffsetTimeOriginal=+02:00", jpeg,
        ]
      ).status == 0)
    #expect(
      try Run.program(
        "/usr/bin/exiftool",
        ["-q", "-overwrite_original", "-Make=Apple", "-Model=iPhone 14 Pro", "-DateTimeOriginal=2023:12:31 23:59:59", png]
      ).status == 0)
    let document = try work.document()
    #expect(try Run.gallery(["drop", document, jpeg, png, bare]).status == 0)
    let items = try GalleryDocument.open(document).model.items
    #expect(items.map(\.camera) == ["Canon EOS 5D Mark IV", "Apple iPhone 14 Pro", nil])
    #expect(items.map(\.taken) == ["2024-06-01T14:03:22+02:00", "2023-12-31T23:59:59", nil])
    let found = try Run.gallery(["find", document, "taken:2024-06 camera:canon", "--uris"])
    #expect(found.stdout == PathBytes.fileURL(absolutePath: jpeg) + "\r\n")
  }

  @Test("A real photo's lens, exposure and place are read at the drop, on libjpeg's path and on libvips', and near: finds it")
  func lensExposureAndPlace() throws {
    let work = try TestWorkspace()
    // Real photographs (mate-backgrounds), one plain JPEG and one PNG (libvips reads it).
    let jpeg = work.path("alps.jpg")
    try FileManager.default.copyItem(atPath: "/usr/share/backgrounds/mate/nature/Garden.jpg", toPath: jpeg)
    let png = work.path("rio.png")
    #expect(try Run.program("vips", ["copy", "/usr/share/backgrounds/mate/nature/Aqua.jpg", png + "[strip]"]).status == 0)
    let tags: [(String, [String])] = [
      (
        jpeg,
        [
          "-LensModel=EF24-70mm f/2.8L II USM", "-ExposureTime=1/250", "-FNumber=8", "-ISO=100", "-FocalLength=35",
          "-GPSLatitude=46.5475", "-GPSLatitudeRef=N", "-GPSLongitude=7.9853", "-GPSLongitudeRef=E",
        ]
      ),
      (png, ["-ExposureTime=2.5", "-GPSLatitude=22.9519", "-GPSLatitudeRef=S", "-GPSLongitude=43.2105", "-GPSLongitudeRef=W"]),
    ]
    for (file, arguments) in tags {
      let tagged = try Run.program("/usr/bin/exiftool", ["-q", "-overwrite_original"] + arguments + [file])
      #expect(tagged.status == 0, "\(tagged.stderr)")
    }
    let document = try work.document()
    #expect(try Run.gallery(["drop", document, jpeg, png]).status == 0)
    let items = try GalleryDocument.open(document).model.items
    #expect(items.map(\.lens) == ["EF24-70mm f/2.8L II USM", nil])
    #expect(items.map(\.exposure) == ["1/250 s, f/8, ISO 100, 35 mm", "2.5 s"])
    let places = items.map(\.location)
    #expect(abs((places[0]?.latitude ?? 0) - 46.5475) < 1e-4 && abs((places[0]?.longitude ?? 0) - 7.9853) < 1e-4)
    #expect(abs((places[1]?.latitude ?? 0) + 22.9519) < 1e-4 && abs((places[1]?.longitude ?? 0) + 43.2105) < 1e-4)
    // Interlaken is 16 km from the first; Rio is not near it.
    let near = try Run.gallery(["find", document, "near:46.6863,7.8632,20", "--uris"])
    #expect(near.stdout == PathBytes.fileURL(absolutePath: jpeg) + "\r\n", "\(near.stderr)")
    #expect(try Run.gallery(["find", document, "near:46.6863,7.8632,10", "--uris"]).stdout.isEmpty)
    #expect(try Run.gallery(["find", document, "lens:24-70", "--uris"]).stdout.contains("alps.jpg"))
    let refused = try Run.gallery(["find", document, "near:91,0,5"])
    #expect(refused.status == 64 && refused.stderr.contains("near:"))
  }

  @Test("refresh-metadata reads the facts and the sidecar again, keeps what a person wrote, and skips changed files")
  func refreshMetadata() throws {
    let work = try TestWorkspace()
    let photo = work.path("alps.jpg")
    try FileManager.default.copyItem(atPath: "/usr/share/backgrounds/mate/nature/Garden.jpg", toPath: photo)
    let tagged = try Run.program(
      "/usr/bin/exiftool",
      [
        "-q", "-overwrite_original", "-LensModel=EF 50mm f/1.8", "-GPSLatitude=46.5", "-GPSLatitudeRef=N",
        "-GPSLongitude=8", "-GPSLongitudeRef=E", photo,
      ])
    #expect(tagged.status == 0)
    let other = try work.image("other.jpg", width: 300, height: 200, seed: 4)
    let document = try work.document()
    #expect(try Run.gallery(["drop", document, photo, other]).status == 0)
    // As an older version left them: no lens, no place; a caption a person wrote.
    let (id, otherID) = try { () throws -> (String, String) in
      let items = try GalleryDocument.open(document).model.items
      return (items[0].id, items[1].id)
    }()
    try GalleryDocument.edit(document) { edit in
      try edit.update([id]) { item in
        (item.lens, item.location, item.caption) = (nil, nil, "Mine")
      }
    }
    // A digiKam sidecar written since, and the other file changed since its drop.
    try Data(Self.digiKamSidecar.utf8).write(to: URL(fileURLWithPath: work.path("alps.xmp")))
    try Data("changed".utf8).write(to: URL(fileURLWithPath: other))
    let refreshed = try Run.gallery(["refresh-metadata", document, "--json"])
    #expect(refreshed.status == 0, "\(refreshed.stderr)")
    let report = try #require(try JSONSerialization.jsonObject(with: Data(refreshed.stdout.utf8)) as? [String: [String]])
    #expect(report["refreshed"] == [id] && report["unreadable"] == [otherID] && report["unchanged"] == [])
    let item = try GalleryDocument.open(document).model.items[0]
    #expect(item.lens == "EF 50mm f/1.8" && item.location == Item.Location(latitude: 46.5, longitude: 8))
    #expect(item.caption == "Mine", "what a person wrote stays")
    #expect(item.tags?.contains("Places/Italy/Rome") == true, "\(item.tags ?? [])")
    #expect(try Run.gallery(["history", document, "--limit", "1"]).stdout.contains("refresh-metadata: 1 item"))
    // Again: nothing left to change, so no revision.
    let before = try GalleryDocument.open(document).model.revision
    let again = try Run.gallery(["refresh-metadata", document, "1"])
    #expect(again.status == 0 && again.stderr.contains("refreshed 0 items, 1 unchanged"), "\(again.stderr)")
    #expect(try GalleryDocument.open(document).model.revision == before)
    #expect(try Run.gallery(["undo", document]).status == 0)
    #expect(try GalleryDocument.open(document).model.items[0].lens == nil)
  }

  @Test("export --xmp writes sidecars digiKam and exiftool read, and a drop of the exported folder gets every word back")
  func exportSidecars() throws {
    let work = try TestWorkspace()
    let photo = work.path("garden.jpg")
    try FileManager.default.copyItem(atPath: "/usr/share/backgrounds/mate/nature/Garden.jpg", toPath: photo)
    let document = try work.document()
    #expect(try Run.gallery(["drop", document, photo, try work.image("plain.jpg", seed: 3)]).status == 0)
    #expect(try Run.gallery(["tag", document, "1", "+places/italy/rome", "+sun & <sea>"]).status == 0)
    #expect(try Run.gallery(["rate", document, "1", "--stars", "4"]).status == 0)
    #expect(try Run.gallery(["label", document, "1", "--colour", "green"]).status == 0)
    #expect(try Run.gallery(["caption", document, "1", "--text", "Evening \"at\" the Forum"]).status == 0)
    let folder = work.path("out")
    let exported = try Run.gallery(["export", document, "--to", folder, "--xmp"])
    #expect(exported.status == 0, "\(exported.stderr)")
    #expect(exported.stdout.contains("garden.jpg.xmp") && exported.stdout.contains("plain.jpg.xmp"))
    let sidecar = try Data(contentsOf: URL(fileURLWithPath: folder + "/garden.jpg.xmp"))
    let read = try #require(PhotoXMP.parse(sidecar))
    #expect(read.tags == ["places/italy/rome", "sun & <sea>"] && read.rating == 4 && read.label == "green")
    #expect(read.caption == "Evening \"at\" the Forum")
    // What digiKam and darktable read, as exiftool reads it.
    let listed = try Run.program(
      "/usr/bin/exiftool", ["-s", "-s", "-s", "-XMP-digiKam:TagsList", "-XMP-xmp:Rating", folder + "/garden.jpg.xmp"])
    #expect(listed.stdout.contains("places/italy/rome, sun & <sea>") && listed.stdout.contains("4"), "\(listed.stdout)")
    // Never over an existing sidecar: the file is exported again under a new name, and its
    // sidecar beside it.
    let again = try Run.gallery(["export", document, "1", "--to", folder, "--xmp"])
    #expect(again.status == 0 && again.stdout.contains("garden-2.jpg.xmp"), "\(again.stdout)")
    // A drop of the exported photo reads its sidecar: every word comes back.
    let copy = try work.document("copy.gallery")
    #expect(try Run.gallery(["drop", copy, folder + "/garden.jpg"]).status == 0)
    let item = try GalleryDocument.open(copy).model.items[0]
    #expect(item.tags == ["places/italy/rome", "sun & <sea>"] && item.rating == 4 && item.label == .green)
    #expect(item.caption == "Evening \"at\" the Forum")
  }

  @Test("ASCII comparisons in any case agree with Foundation's, and leave text beyond ASCII to it")
  func asciiComparisons() {
    var random = SplitMix(state: 7)
    let alphabet = Array("aAbBzZ09 -/_@[`{~")
    func text(_ length: Int) -> String { String((0..<length).map { _ in alphabet.randomElement(using: &random)! }) }
    for _ in 0..<3000 {
      let (a, b) = (text(Int.random(in: 0...8, using: &random)), text(Int.random(in: 0...3, using: &random)))
      #expect(ASCIIText.contains(a, b) == (a.range(of: b, options: .caseInsensitive) != nil), "\(a) \(b)")
      #expect(ASCIIText.equal(a, b) == (a.compare(b, options: .caseInsensitive) == .orderedSame), "\(a) \(b)")
      #expect(ASCIIText.starts(a, with: b) == (a.range(of: b, options: [.caseInsensitive, .anchored]) != nil))
    }
    #expect(ASCIIText.contains("Café", "cafe") == nil && ItemQuery.contains("Café", "CAFE"))
    // The date checks, against the regular expressions they replace.
    let pieces = ["2024", "-", "06", "T", "12", ":", "+", "0", "1", "x", "..", "2024-06-01", "T12:00:00", "+02:00"]
    for _ in 0..<3000 {
      let text = (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
      let taken = /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([+-][0-9]{2}:[0-9]{2})?/
      #expect(ModelValidation.isTakenTime(text) == (text.wholeMatch(of: taken) != nil), "\(text)")
      let day = /[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?/
      let parts = text.split(separator: "..", maxSplits: 1, omittingEmptySubsequences: false)
      #expect((ItemQuery.dateRange(text) != nil) == parts.allSatisfy { $0.wholeMatch(of: day) != nil }, "\(text)")
    }
    #expect(ItemQuery.same("Straße", "STRASSE") == ("Straße".compare("STRASSE", options: .caseInsensitive) == .orderedSame))
  }

  @Test("Tags a sidecar adds stop at the model's limit")
  func refreshKeepsTheTagLimit() {
    var item = Self.item("a1", tags: (0..<499).map { "t\($0)" })
    var xmp = PhotoXMP()
    xmp.tags = ["new1", "new2", "t3"]
    MetadataRefresh.apply(.init(id: "a1", hash: item.hash, facts: PhotoFacts(), xmp: xmp), to: &item)
    #expect(item.tags?.count == 500 && item.tags?.contains("new1") == true && item.tags?.contains("new2") == false)
    #expect(ModelValidation.problems(of: item).isEmpty)
    // A caption with a control character is not one the model keeps: left out.
    let tabbed =
      #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:description><rdf:Alt><rdf:li>a&#9;b</rdf:li></rdf:Alt></dc:description></rdf:Description></rdf:RDF></x:xmpmeta>"#
    #expect(PhotoXMP.parse(Data(tabbed.utf8))?.caption == nil)
    #expect(PhotoXMP.parse(Data(tabbed.utf8.map { $0 }).replacing(Data("&#9;".utf8), with: Data(" ".utf8)))?.caption == "a b")
  }

  @Test("A photo with more keywords than an item holds, and a tag edit past the limit: the document stays sound")
  func tagLimitAtTheDropAndTheEdit() throws {
    let work = try TestWorkspace()
    let photo = try work.image("keywords.jpg", width: 300, height: 200, seed: 8)
    // Before, the drop saved an item of 601 tags, and the record it made damaged the document.
    let keywords = (1...601).map { "-XMP-dc:Subject+=k\($0)" }
    #expect(try Run.program("/usr/bin/exiftool", ["-q", "-overwrite_original"] + keywords + [photo]).status == 0)
    let document = try work.document()
    let dropped = try Run.gallery(["drop", document, photo])
    #expect(dropped.status == 0, "\(dropped.stderr)")
    let tags = try GalleryDocument.open(document).model.items.first?.tags ?? []
    #expect(tags.count == ModelValidation.Limits.tags && tags.first == "k1" && tags.contains("k100"))
    // A sidecar of 45,000 keywords (what fits in the 1 MiB read of one): each was compared
    // with every other, minutes for one image; now the same 500.
    let listed = try work.image("sidecar.jpg", width: 300, height: 200, seed: 9)
    let subjects = (0..<45_000).map { "<rdf:li>k\($0)</rdf:li>" }.joined()
    _ = try work.write(
      "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
        + "<rdf:Description xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:subject><rdf:Bag>\(subjects)</rdf:Bag>"
        + "</dc:subject></rdf:Description></rdf:RDF></x:xmpmeta>", to: "sidecar.xmp")
    #expect(try Run.gallery(["drop", document, listed]).status == 0)
    #expect(try GalleryDocument.open(document).model.items.last?.tags?.count == ModelValidation.Limits.tags)
    // An edit that would pass the limit is refused, with the count, the document as it was.
    let before = try work.bytes(document)
    let tagged = try Run.gallery(["tag", document, "1", "+extra1", "+extra2"])
    #expect(tagged.status == 64 && tagged.stderr.contains("would have 502 tags: an item holds at most 500"), "\(tagged.stderr)")
    #expect(try work.bytes(document) == before)
    #expect(try Run.gallery(["check", document]).status == 0)
  }

  @Test("near: takes degrees and kilometres, measures on the sphere, and refuses what is not a place")
  func nearQuery() throws {
    var item = Self.item("a1")
    item.location = Item.Location(latitude: 48.8566, longitude: 2.3522)  // Paris
    let london = Item.Location(latitude: 51.5074, longitude: -0.1278)
    #expect(abs(item.location!.kilometres(to: london) - 343.5) < 2)
    #expect(try ItemQuery("near:51.5074,-0.1278,350").matches(item))
    #expect(try !ItemQuery("near:51.5074,-0.1278,330").matches(item))
    #expect(try !ItemQuery("near:51.5,-0.1,5000").matches(Self.item("b2")), "no location, never near")
    #expect(try ItemQuery("-near:0,0,100 near:48.85,2.35,1").matches(item))
    for bad in [
      "near:", "near:1,2", "near:1,2,3,4", "near:91,0,1", "near:0,181,1", "near:0,0,0", "near:0,0,-5", "near:nan,0,1",
      "near:0,0,inf", "near:a,b,c", "near:" + String(repeating: "9", count: 40) + ",0,1",
    ] {
      #expect(throws: ItemQuery.Failure.self, "\(bad)") { try ItemQuery(bad) }
    }
  }

  static let digiKamSidecar = """
    <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
    <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0-Exiv2">
     <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
      <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
        xmlns:digiKam="http://www.digikam.org/ns/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
        xmp:Rating="4">
       <digiKam:TagsList><rdf:Seq><rdf:li>Places/Italy/Rome</rdf:li><rdf:li>People/Ann</rdf:li></rdf:Seq></digiKam:TagsList>
       <dc:subject><rdf:Bag><rdf:li>Rome</rdf:li><rdf:li>Ann</rdf:li><rdf:li>sunset</rdf:li></rdf:Bag></dc:subject>
       <dc:description><rdf:Alt><rdf:li xml:lang="x-default">Evening at the Forum</rdf:li></rdf:Alt></dc:description>
      </rdf:Description>
     </rdf:RDF>
    </x:xmpmeta>
    <?xpacket end="w"?>
    """

  static let darktableSidecar = """
    <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0-Exiv2">
     <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
      <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
        xmlns:lr="http://ns.adobe.com/lightroom/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
        xmp:Rating="2" xmp:Label="Green">
       <lr:hierarchicalSubject><rdf:Bag><rdf:li>trips|alps</rdf:li></rdf:Bag></lr:hierarchicalSubject>
       <dc:subject><rdf:Bag><rdf:li>alps</rdf:li><rdf:li>snow</rdf:li></rdf:Bag></dc:subject>
      </rdf:Description>
     </rdf:RDF>
    </x:xmpmeta>
    """

  @Test("XMP as digiKam and darktable write it: hierarchical tags, stars, label, caption")
  func xmpReading() throws {
    let digiKam = try #require(PhotoXMP.parse(Data(Self.digiKamSidecar.utf8)))
    #expect(digiKam.tags == ["People/Ann", "Places/Italy/Rome", "sunset"])
    #expect(digiKam.rating == 4 && digiKam.caption == "Evening at the Forum" && digiKam.label == nil)
    // A hierarchy with spaces or an empty part, as hand-edited sidecars have them.
    let untidy = Self.digiKamSidecar.replacingOccurrences(of: ">Places/Italy/Rome<", with: "> Places / Italy//Rome <")
    #expect(try #require(PhotoXMP.parse(Data(untidy.utf8))).tags == digiKam.tags)
    let darktable = try #require(PhotoXMP.parse(Data(Self.darktableSidecar.utf8)))
    #expect(darktable.tags == ["snow", "trips/alps"])
    #expect(darktable.rating == 2 && darktable.label == "green")
    #expect(PhotoXMP.parse(Data("not xml".utf8)) == nil)
  }

  @Test("A photo tagged in digiKam arrives tagged: its sidecar, or the XMP in the file; a hostile one costs nothing")
  func xmpAtTheDrop() throws {
    let work = try TestWorkspace()
    let sidecarred = try work.image("rome.jpg", width: 400, height: 300)
    _ = try work.write(Self.digiKamSidecar, to: "rome.xmp")
    let darktable = try work.image("alps.png", width: 400, height: 300, format: .png)
    _ = try work.write(Self.darktableSidecar, to: "alps.png.xmp")
    let embedded = try work.image("beach.jpg", width: 400, height: 300, seed: 5)
    #expect(
      try Run.program(
        "/usr/bin/exiftool",
        ["-q", "-overwrite_original", "-XMP-dc:Subject=beach", "-XMP-xmp:Rating=5", "-XMP-xmp:Label=Red", embedded]
      ).status == 0)
    let hostile = try work.image("bomb.jpg", width: 300, height: 200, seed: 6)
    let entities = (1...9).map { "<!ENTITY e\($0) \"" + String(repeating: $0 == 1 ? "xx" : "&e\($0 - 1);", count: 10) + "\">" }
    _ = try work.write(
      "<?xml version=\"1.0\"?><!DOCTYPE x [\(entities.joined())]><x:xmpmeta xmlns:x=\"adobe:ns:meta/\">&e9;</x:xmpmeta>",
      to: "bomb.xmp")
    // A name that is not UTF-8 (FoundationXML traps on one; the fuzz target found it).
    let misnamed = try work.image("misnamed.jpg", width: 300, height: 200, seed: 7)
    try Data(
      Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>".utf8)
        + Array("<rdf:Description rdf:".utf8) + [0xFE, 0xFF] + Array("about=''/></rdf:RDF></x:xmpmeta>".utf8)
    ).write(to: URL(fileURLWithPath: work.path("misnamed.xmp")))
    let document = try work.document()
    let dropped = try Run.gallery(["drop", document, sidecarred, darktable, embedded, hostile, misnamed])
    #expect(dropped.status == 0, "\(dropped.stderr)")
    let items = try GalleryDocument.open(document).model.items
    #expect(items.map(\.tags) == [["People/Ann", "Places/Italy/Rome", "sunset"], ["snow", "trips/alps"], ["beach"], nil, nil])
    #expect(items.map(\.rating) == [4, 2, 5, nil, nil])
    #expect(items.map(\.label) == [nil, .green, .red, nil, nil])
    #expect(items[0].caption == "Evening at the Forum")
    #expect(try Run.gallery(["find", document, "tag:Places"]).stdout.contains("rome.jpg"))
  }

  @Test("IPTC-IIM as Picasa and older tools write it: keywords and caption arrive, in UTF-8 or Latin-1, beside XMP")
  func iptcAtTheDrop() throws {
    let work = try TestWorkspace()
    let photos = try ["Aqua.jpg", "Dune.jpg", "Storm.jpg"].map { name in
      let path = work.path(name)
      try FileManager.default.copyItem(atPath: "/usr/share/backgrounds/mate/nature/" + name, toPath: path)
      return path
    }
    func exiftool(_ arguments: [String]) throws {
      #expect(try Run.program("/usr/bin/exiftool", ["-q", "-overwrite_original"] + arguments).status == 0)
    }
    try exiftool([
      "-IPTC:CodedCharacterSet=UTF8", "-IPTC:Keywords=beach", "-IPTC:Keywords=Café",
      "-IPTC:Caption-Abstract=Old harbour at dusk", photos[0],
    ])
    // Latin-1, as tools wrote it before UTF-8; the object name stands for a missing caption.
    try exiftool(["-charset", "iptc=Latin", "-IPTC:Keywords=Mühle", "-IPTC:ObjectName=Düne", photos[1]])
    // Both, as digiKam writes them: one set of tags, the XMP caption first.
    try exiftool([
      "-IPTC:Keywords=storm", "-XMP-dc:Subject=storm", "-XMP-dc:Subject=sky", "-IPTC:Caption-Abstract=IIM words",
      "-XMP-dc:Description=XMP words", photos[2],
    ])
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + photos).status == 0)
    let items = try GalleryDocument.open(document).model.items
    #expect(items.map(\.tags) == [["Café", "beach"], ["Mühle"], ["sky", "storm"]])
    #expect(items.map(\.caption) == ["Old harbour at dusk", "Düne", "XMP words"])

    // Hostile segments: lengths past the end, a resource larger than its segment, a dataset
    // cut short. Each reads as nothing, or as what it holds whole.
    let iim: [UInt8] = [0x1C, 2, 25, 0, 5] + Array("beach".utf8) + [0x1C, 2, 25, 0x7F, 0xFF, 0x41]
    func jpeg(_ resource: [UInt8], declaredSize: Int? = nil) -> Data {
      let size = declaredSize ?? resource.count
      var block = Array("Photoshop 3.0\0".utf8) + Array("8BIM".utf8) + [0x04, 0x04, 0, 0]
      block += [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + resource
      let length = block.count + 2
      return Data([0xFF, 0xD8, 0xFF, 0xED, UInt8(length >> 8), UInt8(length & 0xFF)] + block + [0xFF, 0xDA])
    }
    #expect(PhotoIPTC.read(from: jpeg(iim))?.tags == ["beach"])
    #expect(PhotoIPTC.read(from: jpeg(iim, declaredSize: 1 << 30)) == nil)
    #expect(PhotoIPTC.read(from: Data([0xFF, 0xD8, 0xFF, 0xED, 0xFF, 0xFF, 0x50])) == nil)
    // A TIFF: big-endian, the datasets in tag 33723 as LONGs (as some writers give them),
    // or Photoshop's resources in tag 34377 as bytes.
    func tiff(_ datasets: [UInt8], count: UInt32? = nil, offset: UInt32 = 26, photoshop: Bool = false) -> Data {
      let padded = datasets + [UInt8](repeating: 0, count: (4 - datasets.count % 4) % 4)
      func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(value >> $0 & 0xFF) } }
      let entry: [UInt8] =
        photoshop
        ? [0x86, 0x49, 0, 7] + be32(count ?? UInt32(datasets.count)) + be32(offset)
        : [0x83, 0xBB, 0, 4] + be32(count ?? UInt32(padded.count / 4)) + be32(offset)
      return Data([0x4D, 0x4D, 0, 0x2A] + be32(8) + [0, 1] + entry + be32(0) + padded)
    }
    #expect(PhotoIPTC.read(from: tiff(iim))?.tags == ["beach"])
    let resources = [UInt8](jpeg(iim).dropFirst(6 + 14).dropLast(2))
    #expect(PhotoIPTC.read(from: tiff(resources, photoshop: true))?.tags == ["beach"])
    #expect(PhotoIPTC.read(from: tiff(iim, count: 1 << 30)) == nil)
    #expect(PhotoIPTC.read(from: tiff(iim, offset: 0xFFFF_FFF0)) == nil)
    var random = SplitMix(state: 11)
    for _ in 0..<2000 {
      for image in [jpeg(iim), tiff(iim)] {
        var bytes = [UInt8](image)
        for _ in 0..<3 { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next()) }
        _ = PhotoIPTC.read(from: Data(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1)))))
      }
    }
  }

  @Test("IPTC-IIM in a TIFF, as exiftool writes it: keywords and caption arrive")
  func iptcInTIFF() throws {
    let work = try TestWorkspace()
    let photos = [work.path("aqua.tif"), work.path("dune.tif")]
    let nature = "/usr/share/backgrounds/mate/nature/"
    #expect(try Run.program("/usr/bin/vips", ["copy", nature + "Aqua.jpg[shrink=4]", photos[0]]).status == 0)
    #expect(
      try Run.program("/usr/bin/vips", ["copy", nature + "Dune.jpg[shrink=4]", photos[1] + "[compression=jpeg]"]).status == 0)
    func exiftool(_ arguments: [String]) throws {
      #expect(try Run.program("/usr/bin/exiftool", ["-q", "-overwrite_original"] + arguments).status == 0)
    }
    try exiftool([
      "-IPTC:CodedCharacterSet=UTF8", "-IPTC:Keywords=beach", "-IPTC:Keywords=Café", "-IPTC:Caption-Abstract=Tide out",
      photos[0],
    ])
    try exiftool(["-charset", "iptc=Latin", "-IPTC:Keywords=Mühle", photos[1]])
    let document = try work.document()
    #expect(try Run.gallery(["drop", document] + photos).status == 0)
    let items = try GalleryDocument.open(document).model.items
    #expect(items.map(\.format) == ["tiff", "tiff"])
    #expect(items.map(\.tags) == [["Café", "beach"], ["Mühle"]])
    #expect(items.map(\.caption) == ["Tide out", nil])
  }

  @Test("sort: by stars, name, size or date taken, one undoable operation; items without the key last")
  func sorting() throws {
    var model = GalleryModel(title: "t", now: Date(timeIntervalSince1970: 0))
    model.items = Self.items
    model.items[2].rating = 1
    model.sort(by: .rating)
    #expect(model.items.map(\.id) == ["c3", "b2", "a1"])
    model.sort(by: .rating, reversed: true)
    #expect(model.items.map(\.id) == ["a1", "b2", "c3"])
    model.sort(by: .name)
    #expect(model.items.map(\.id) == ["a1", "c3", "b2"])  // Beach Day, cat, old-town
    model.items[1].taken = "2024-01-01T10:00:00"
    model.sort(by: .taken)
    #expect(model.items.map(\.id).first == "c3")  // the one with a date; the others keep their order after it

    let work = try TestWorkspace()
    let document = try work.document()
    let images = [
      try work.image("small.jpg", width: 100, height: 80), try work.image("large.jpg", width: 900, height: 600),
      try work.image("middle.jpg", width: 400, height: 300),
    ]
    #expect(try Run.gallery(["drop", document] + images).status == 0)
    let dropped = try GalleryDocument.open(document).model.items.map(\.id)
    #expect(try Run.gallery(["sort", document, "--by", "size", "--reverse"]).status == 0)
    #expect(try GalleryDocument.open(document).model.items.map(\.id) == [dropped[1], dropped[2], dropped[0]])
    #expect(try Run.gallery(["history", document, "--limit", "1"]).stdout.contains("sort: by size, reversed"))
    #expect(try Run.gallery(["undo", document]).status == 0)
    #expect(try GalleryDocument.open(document).model.items.map(\.id) == dropped)
    #expect(try Run.gallery(["sort", document, "--by", "colour"]).status == 64)
  }

  @Test("A search's look at an item's stored JSON never passes by an item the query matches")
  func prefilterNeverMissesAMatch() {
    // Random items and queries over a small vocabulary, in any case, with accents, escapes
    // and percent signs: whenever the JSON says "surely not", the item must not match.
    var random = SplitMix(state: 7)
    let words = ["beach", "Beach", "BEACH", "café", "cafe", "sea", "holiday", "holiday/italy", "a b", "x%20y", "tab\there"]
    func pick<T>(_ list: [T]) -> T { list[Int(random.next() % UInt64(list.count))] }
    func maybe(_ text: String) -> String? { random.next() % 3 == 0 ? nil : text }
    let fields = ["tag:", "caption:", "note:", "name:", "source:", "format:", "camera:", "lens:", "label:"]
    var sure = 0
    for round in 0..<3000 {
      var item = Self.item(
        "r\(round)", source: "file:///photos/" + pick(["beach.jpg", "Caf%C3%A9.jpg", "sea%20view.png", "plain.jpg"]),
        tags: random.next() % 2 == 0 ? [pick(words), pick(words)] : nil, caption: maybe(pick(words)),
        note: maybe(pick(words) + "\n" + pick(words)), rating: Int(random.next() % 6) == 0 ? nil : Int(random.next() % 5) + 1,
        label: random.next() % 4 == 0 ? .red : nil, format: pick(["jpeg", "webp", "heif"]))
      item.tags = item.tags.flatMap { Item.tagSet($0) }
      if random.next() % 3 == 0 { item.camera = pick(["Canon EOS", "café cam"]) }
      if random.next() % 4 == 0 { item.taken = "2024-06-01T10:00:00" }
      var writer = JSONWriter()
      writer.item(item)
      let term = { pick(fields) + pick(words + ["red", "jpeg", "italy"]) }
      let text = pick([
        pick(words), term(), "\(term()) \(pick(words))", "\(term()) OR \(pick(words))", "-\(pick(words))",
        "taken:2024", "rating>=3 \(pick(words))", "(\(term()) OR \(term())) \(pick(words))",
      ])
      // Some mixes do not parse (a label that is none): those ask nothing.
      guard let query = try? ItemQuery(text.contains(" ") || text.hasPrefix("-") ? text : "\"\(text)\"") else { continue }
      let may = writer.bytes.withUnsafeBytes { query.mayMatch(json: $0) }
      if !may {
        sure += 1
        #expect(!query.matches(item), "\(text) against \(String(decoding: writer.bytes, as: UTF8.self))")
      }
    }
    #expect(sure > 100, "the look is sure often enough to be tested")

    // Its search, 16 bytes at a time, against the plain one: at every offset and length.
    let alphabet = Array("aAbB\"/@`1")
    for _ in 0..<20000 {
      let text = String((0..<Int(random.next() % 70)).map { _ in pick(alphabet) })
      let part = String((0..<Int(random.next() % 4) + 1).map { _ in pick(alphabet) })
      let plain = text.lowercased().contains(part.lowercased())
      #expect(Array(text.utf8).withUnsafeBytes { ASCIIText.occurs(part, in: $0) } == plain, "\(part) in \(text)")
    }
  }

  @Test("Hostile queries get a clear error, never a crash")
  func hostile() {
    let refused = [
      "", "   ", "(", ")", "a )", "(a", "a OR", "OR", "-", "\"unterminated", "tag:\"open",
      "rating>=99999999999999999999", "rating>=x", "state:sleeping", "label:pink", "tag:",
      String(repeating: "(", count: 40) + "a" + String(repeating: ")", count: 40),
      String(repeating: "-", count: 40) + "a", String(repeating: "a ", count: 3000),
      // Dates of the right form that the calendar does not have, or a range backwards.
      "taken:2024-13", "taken:2024-00", "taken:2024-06-31", "taken:2023-02-29", "taken:2024-06-00",
      "taken:2024-07..2024-06-30", "taken:2025..2024",
    ]
    for query in refused {
      #expect(throws: ItemQuery.Failure.self, "\(query.prefix(40))") { _ = try ItemQuery(query) }
    }
    for query in ["taken:2024-02-29", "taken:2000-02-29", "taken:2024-06..2024-06-30", "taken:2024-06-30..2024-06", "state:note"]
    {
      #expect(throws: Never.self, "\(query)") { _ = try ItemQuery(query) }
    }
    #expect(throws: ItemQuery.Failure(description: "taken:1900-02-29: 1900-02-29 is not a day of the calendar")) {
      _ = try ItemQuery("taken:1900-02-29")
    }
    // Deep but within the bound: fine.
    #expect(throws: Never.self) { _ = try ItemQuery(String(repeating: "(", count: 20) + "a" + String(repeating: ")", count: 20)) }
  }

  @Test("Tags, caption, note, stars and label: each one undoable edit, kept as the document's own")
  func commands() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    let photos = try work.images(3)
    #expect(try Run.gallery(["drop", document] + photos).status == 0)
    #expect(try Run.gallery(["tag", document, "1", "2", "+holiday/italy", "+sea"]).status == 0)
    #expect(try Run.gallery(["tag", document, "2", "-sea", "+boat"]).status == 0)
    #expect(try Run.gallery(["caption", document, "1", "--text", "Sunset at the pier"]).status == 0)
    #expect(try Run.gallery(["note", document, "3", "-"], stdin: Data("Two lines\nof note".utf8)).status == 0)
    #expect(try Run.gallery(["rate", document, "1", "3", "--stars", "4"]).status == 0)
    #expect(try Run.gallery(["label", document, "2", "--colour", "green"]).status == 0)
    let items = try GalleryDocument.open(document).model.items
    #expect(items[0].tags == ["holiday/italy", "sea"] && items[1].tags == ["boat", "holiday/italy"])
    #expect(items[0].caption == "Sunset at the pier" && items[2].note == "Two lines\nof note")
    #expect(items.map(\.rating) == [4, nil, 4] && items[1].label == .green)
    // Bad values are refused before anything is saved.
    #expect(try Run.gallery(["tag", document, "1", "+ spaced "]).status == 64)
    #expect(try Run.gallery(["rate", document, "1", "--stars", "6"]).status == 64)
    #expect(try Run.gallery(["label", document, "1", "--colour", "pink"]).status == 64)
    #expect(try Run.gallery(["caption", document, "1", "--text", "two\nlines"]).status == 64)

    let history = try Run.gallery(["history", document, "--limit", "6"]).stdout
    #expect(history.contains("label: green, 1 item"))
    #expect(history.contains("tag: +boat -sea, 1 item"))
    #expect(try Run.gallery(["undo", document]).status == 0)
    #expect(try GalleryDocument.open(document).model.items[1].label == nil)
    #expect(try Run.gallery(["check", document]).status == 0)

    // find over the folder, show --where, uri-lists.
    let found = try Run.gallery(["find", work.folder.path, "tag:holiday rating>=4"])
    #expect(found.status == 0)
    #expect(found.stdout.hasPrefix(work.folder.appendingPathComponent("test.gallery").path + "\n"))
    #expect(found.stdout.split(separator: "\n").count == 2)
    let uris = try Run.gallery(["find", document, "sunset OR boat", "--uris"]).stdout
    #expect(uris.split(separator: "\r\n").count == 2 && uris.hasPrefix("file://"))
    let json = try JSONSerialization.jsonObject(with: try Run.gallery(["find", document, "tag:sea", "--json"]).stdoutData)
    let documents = (json as? [String: Any])?["documents"] as? [[String: Any]] ?? []
    #expect((documents.first?["items"] as? [[String: Any]])?.compactMap { $0["position"] as? Int } == [1])
    let shown = try Run.gallery(["show", document, "--where", "note:lines"]).stdout
    #expect(shown.split(separator: "\n").count == 2 && shown.contains("\n   3  "))
    // The JSON listing keeps the gallery's positions too.
    let listed = try JSONSerialization.jsonObject(
      with: try Run.gallery(["show", document, "--where", "note:lines", "--json"]).stdoutData)
    #expect(((listed as? [String: Any])?["items"] as? [[String: Any]])?.compactMap { $0["position"] as? Int } == [3])
    let refused = try Run.gallery(["find", document, "(tag:sea"])
    #expect(refused.status == 64 && refused.stderr.contains("parenthesis"))
  }

  @Test("Members a later version wrote are kept through edits, undo, show --json and compaction")
  func unknownMembersKept() throws {
    let work = try TestWorkspace()
    let document = try work.document()
    #expect(try Run.gallery(["drop", document, try work.image("a.jpg", seed: 1), try work.image("b.jpg", seed: 2)]).status == 0)
    #expect(try Run.gallery(["compact", document]).status == 0)
    // The document as a later version might write it: new members in the model, its
    // settings and an item (written in any order: readers take members as they come).
    let folder = work.path("extracted")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    #expect(try Run.program("bsdtar", ["-xf", document, "-C", folder]).status == 0)
    let json = URL(fileURLWithPath: folder + "/gallery.json")
    var model = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
    var items = try #require(model["items"] as? [[String: Any]])
    let id = try #require(items[1]["id"] as? String)
    items[1]["zFaces"] = [["x": 0.25, "name": "Ann"]]
    items[1]["albumsV3"] = ["summer", "été"]
    model["items"] = items
    var settings = try #require(model["settings"] as? [String: Any])
    settings["sharpen"] = true
    model["settings"] = settings
    model["albums"] = [["name": "Summer", "ids": [id]]]
    try JSONSerialization.data(withJSONObject: model).write(to: json)
    let later = work.path("later.gallery")
    let thumbnails = try FileManager.default.contentsOfDirectory(atPath: folder + "/thumbnails").map { "thumbnails/" + $0 }
    let tar = try Run.program("bsdtar", ["-cf", later, "-C", folder, "mimetype", "cover.jpg"] + thumbnails + ["gallery.json"])
    #expect(tar.status == 0, "\(tar.stderr)")

    // Edits that copy the item, change it and take the change back; then a rewrite of all.
    #expect(try Run.gallery(["move", later, "2", "--to", "1"]).status == 0)
    #expect(try Run.gallery(["caption", later, id, "--text", "kept"]).status == 0)
    #expect(try Run.gallery(["tag", later, id, "+beach"]).status == 0)
    #expect(try Run.gallery(["undo", later]).status == 0)
    let shown = try Run.gallery(["show", "--json", later])
    let listed = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
    let listedItem = (listed["items"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    #expect(listedItem?["albumsV3"] as? [String] == ["summer", "été"], "\(shown.stdout)")
    #expect(try Run.gallery(["compact", later]).status == 0)
    let rewritten = try Run.program("bsdtar", ["-xOf", later, "gallery.json"]).stdout
    let after = try #require(try JSONSerialization.jsonObject(with: Data(rewritten.utf8)) as? [String: Any])
    let item = try #require((after["items"] as? [[String: Any]])?.first { $0["id"] as? String == id })
    #expect(item["caption"] as? String == "kept" && item["tags"] == nil)
    #expect((item["zFaces"] as? [[String: Any]])?.first?["name"] as? String == "Ann")
    #expect(item["albumsV3"] as? [String] == ["summer", "été"])
    #expect((after["settings"] as? [String: Any])?["sharpen"] as? Bool == true)
    #expect((after["albums"] as? [[String: Any]])?.first?["ids"] as? [String] == [id])
    // Written where they sort, as every member.
    #expect(rewritten.range(of: #""albumsV3":\[[^\]]*\],"aspectRatio""#, options: .regularExpression) != nil)
  }

  @Test("A metadata edit sets what it gives, clears with empty values, says itself as the commands do, and refuses bad values")
  func metadataEdit() {
    var item = Self.item("a1", tags: ["sea"], caption: "old", rating: 3, label: .red)
    var change = MetadataEdit()
    #expect(change.isEmpty && change.problem == nil)
    change.caption = ""
    change.rating = 5
    change.addTags = ["beach", "sea"]
    change.removeTags = ["sea"]
    change.apply(to: &item)
    #expect(item.caption == nil && item.rating == 5 && item.tags == ["beach"] && item.label == .red)
    #expect(change.summary(count: 2) == "caption; rate: 5 stars; tag: +beach +sea -sea, 2 items")
    var clear = MetadataEdit()
    clear.clearLabel = true
    clear.rating = 0
    clear.apply(to: &item)
    #expect(item.label == nil && item.rating == nil && item.tags == ["beach"])
    var caption = MetadataEdit()
    caption.caption = "x"
    #expect(caption.summary(count: 1) == "caption: 1 item")
    var tags = MetadataEdit()
    tags.addTags = ["beach"]
    #expect(tags.summary(count: 3) == "tag: +beach, 3 items")
    for bad in [
      { (edit: inout MetadataEdit) in edit.caption = "two\nlines" }, { $0.rating = 6 }, { $0.addTags = [" lead"] },
      { $0.removeTags = ["a/"] }, { $0.addTags = ["a//b"] }, { $0.addTags = ["a/ b"] }, { $0.addTags = ["a /b"] },
      { $0.note = "nul\u{0}" },
      {
        $0.label = .red
        $0.clearLabel = true
      },
      { $0.addTags = (0...500).map { "t\($0)" } },
    ] {
      var edit = MetadataEdit()
      bad(&edit)
      #expect(edit.problem != nil, "\(edit)")
    }
    // A tag an older version let in can still be taken off.
    var old = Self.item("a2", tags: ["a//b", "sea"], caption: nil, rating: nil, label: nil)
    var untag = MetadataEdit()
    untag.removeTags = ["a//b"]
    #expect(untag.problem == nil)
    untag.apply(to: &old)
    #expect(old.tags == ["sea"])
    #expect(ModelValidation.newTag(from: " Places / Italy//Rome ") == "Places/Italy/Rome")
    #expect(ModelValidation.newTag(from: " / ") == nil && ModelValidation.newTag(from: "a\nb") == nil)
  }
}
