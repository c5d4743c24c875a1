import Foundation
import GalleryModel
import GallerySystem

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// What photo managers wrote of a photo in XMP: embedded in the file, or in a sidecar beside
/// it (`photo.jpg.xmp` as darktable writes it, `photo.xmp` as digiKam and Lightroom do).
/// Tags from `dc:subject`, digiKam's `TagsList` and Lightroom's `hierarchicalSubject` (a
/// hierarchy as `a/b`), stars from `xmp:Rating`, the colour from `xmp:Label`, a caption from
/// `dc:description` or `dc:title` (and keywords and a caption from a JPEG's IPTC-IIM,
/// `PhotoIPTC`). XMP is untrusted XML: bounded in size, parsed without external entities,
/// and whatever breaks a rule of the model is left out.
public struct PhotoXMP: Sendable, Equatable {
  public var tags: [String] = []
  public var rating: Int?
  public var label: String?
  public var caption: String?

  /// The largest packet or sidecar read.
  public static let maxBytes = 1 << 20

  public init() {}

  /// What the image's bytes say: the XMP packet (between `<x:xmpmeta` and `</x:xmpmeta>`,
  /// as JPEG, PNG, TIFF, WebP and HEIF files carry it), with a JPEG's IPTC-IIM keywords
  /// added and its caption when the packet has none (`PhotoIPTC`).
  public static func embedded(in data: Data) -> PhotoXMP? {
    let packet = packet(in: data)
    guard let iptc = PhotoIPTC.read(from: data) else { return packet }
    guard var merged = packet else { return iptc }
    merged.tags = cleaned(merged.tags + iptc.tags)
    if merged.caption == nil { merged.caption = iptc.caption }
    return merged
  }

  /// The XMP packet embedded in an image's bytes, read.
  static func packet(in data: Data) -> PhotoXMP? {
    // Where files keep it: near their start (a JPEG's APP1, a PNG's iTXt before its pixels).
    let head = data.prefix(256 * 1024)
    guard let start = head.range(of: Data("<x:xmpmeta".utf8)),
      let end = data.range(of: Data("</x:xmpmeta>".utf8), in: start.upperBound..<min(data.endIndex, start.lowerBound + maxBytes))
    else { return nil }
    return parse(data[start.lowerBound..<end.upperBound])
  }

  /// The sidecar of a local file, when one lies beside it.
  public static func sidecar(of path: String) -> PhotoXMP? {
    let stem = (path as NSString).deletingPathExtension
    for candidate in [path + ".xmp", stem + ".xmp", stem + ".XMP"] {
      guard let data = try? FileSystem.read(candidate, limit: maxBytes, followLinks: false) else { continue }
      return parse(data)
    }
    return nil
  }

  /// What an item says of itself as a sidecar digiKam, darktable and Lightroom read: its
  /// tags as `dc:subject` (each tag's last level), digiKam's `TagsList` and Lightroom's
  /// `hierarchicalSubject`, its stars as `xmp:Rating`, its label as `xmp:Label`, its
  /// caption as `dc:description`. `parse` reads back what it writes.
  public static func sidecar(tags: [String], rating: Int?, label: String?, caption: String?) -> Data {
    func escaped(_ text: String) -> String {
      text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
    func list(_ kind: String, _ values: [String]) -> String {
      "<rdf:\(kind)>" + values.map { "<rdf:li>\(escaped($0))</rdf:li>" }.joined() + "</rdf:\(kind)>"
    }
    var properties: [String] = []
    if let rating { properties.append("<xmp:Rating>\(rating)</xmp:Rating>") }
    if let label { properties.append("<xmp:Label>\(escaped(label.prefix(1).uppercased() + label.dropFirst()))</xmp:Label>") }
    if let caption {
      properties.append(
        "<dc:description>\(list("Alt", [caption]).replacingOccurrences(of: "<rdf:li>", with: #"<rdf:li xml:lang="x-default">"#))</dc:description>"
      )
    }
    if !tags.isEmpty {
      let leaves = Array(Set(tags.map { String($0.split(separator: "/").last ?? Substring($0)) })).sorted()
      properties.append("<dc:subject>\(list("Bag", leaves))</dc:subject>")
      properties.append("<digiKam:TagsList>\(list("Seq", tags))</digiKam:TagsList>")
      properties.append(
        "<lr:hierarchicalSubject>\(list("Bag", tags.map { $0.replacingOccurrences(of: "/", with: "|") }))</lr:hierarchicalSubject>"
      )
    }
    let text = """
      <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
      <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Gallery">
       <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" \
      xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:digiKam="http://www.digikam.org/ns/1.0/" \
      xmlns:lr="http://ns.adobe.com/lightroom/1.0/">
         \(properties.joined(separator: "\n   "))
        </rdf:Description>
       </rdf:RDF>
      </x:xmpmeta>
      <?xpacket end="w"?>

      """
    return Data(text.utf8)
  }

  /// Reads an XMP packet; nil when it is not XML in UTF-8.
  public static func parse(_ data: Data) -> PhotoXMP? {
    // FoundationXML traps on a name that is not UTF-8 (libxml2 hands it such bytes): the
    // packet is checked whole first.
    guard data.count <= maxBytes, String(validating: data, as: UTF8.self) != nil else { return nil }
    let reader = Reader()
    let parser = XMLParser(data: Data(data))
    parser.shouldProcessNamespaces = true
    parser.shouldResolveExternalEntities = false
    parser.delegate = reader
    guard parser.parse() else { return nil }
    return reader.result()
  }

  /// The tags, as the model keeps them: valid ones (`a / b` taken as `a/b`), each once, as
  /// many as an item holds (the first in order); a flat tag that a hierarchical one ends
  /// with (digiKam writes both `b` and `a/b`) left out.
  static func cleaned(_ tags: [String]) -> [String] {
    let valid = Set(tags.compactMap(ModelValidation.newTag(from:)))
    // The last parts of the hierarchical ones, gathered once: a sidecar may list tens of
    // thousands, and comparing each tag with every other took minutes.
    let lastParts = Set(valid.compactMap { tag in tag.lastIndex(of: "/").map { String(tag[tag.index(after: $0)...]) } })
    let kept = valid.filter { tag in tag.contains("/") || !lastParts.contains(tag) }
    return Array(kept.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.prefix(ModelValidation.Limits.tags))
  }

  private final class Reader: NSObject, XMLParserDelegate {
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let dc = "http://purl.org/dc/elements/1.1/"
    static let xmp = "http://ns.adobe.com/xap/1.0/"
    static let digiKam = "http://www.digikam.org/ns/1.0/"
    static let lightroom = "http://ns.adobe.com/lightroom/1.0/"

    var stack: [(namespace: String, name: String)] = []
    var text = ""
    var subjects: [String] = []
    var hierarchical: [String] = []
    var rating: String?
    var label: String?
    var descriptionText: String?
    var title: String?

    func parser(
      _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      stack.append((namespaceURI ?? "", name))
      text = ""
      // xmp:Rating="4" and xmp:Label="Red" as attributes of rdf:Description.
      for (key, value) in attributes {
        if key == "xmp:Rating" || key.hasSuffix(":Rating") { rating = value }
        if key == "xmp:Label" { label = value }
      }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      if text.utf8.count < 64 * 1024 { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
      defer { stack.removeLast() }
      let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
      text = ""
      guard let current = stack.last else { return }
      // The property an rdf:li belongs to: two up (property / rdf:Bag / rdf:li).
      if current.namespace == Self.rdf && current.name == "li", stack.count >= 3 {
        let property = stack[stack.count - 3]
        switch (property.namespace, property.name) {
        case (Self.dc, "subject"): subjects.append(value)
        case (Self.digiKam, "TagsList"): hierarchical.append(value)
        case (Self.lightroom, "hierarchicalSubject"): hierarchical.append(value.replacingOccurrences(of: "|", with: "/"))
        case (Self.dc, "description"): if descriptionText == nil { descriptionText = value }
        case (Self.dc, "title"): if title == nil { title = value }
        default: break
        }
      } else if current.namespace == Self.xmp && current.name == "Rating" {
        rating = value
      } else if current.namespace == Self.xmp && current.name == "Label" {
        label = value
      }
    }

    func result() -> PhotoXMP {
      var xmp = PhotoXMP()
      xmp.tags = PhotoXMP.cleaned(subjects + hierarchical)
      xmp.rating = rating.flatMap { Int($0) }.flatMap { (1...5).contains($0) ? $0 : nil }
      xmp.label = label?.lowercased() == "gray" ? "grey" : label?.lowercased()
      let caption = (descriptionText?.isEmpty == false ? descriptionText : title)?
        .split(whereSeparator: \.isNewline).first.map { String($0).trimmingCharacters(in: .whitespaces) }
      // Kept only as the model keeps captions: one line, no control character, bounded.
      xmp.caption = caption.flatMap {
        !$0.isEmpty && ModelValidation.isLine($0, limit: ModelValidation.Limits.captionBytes) ? $0 : nil
      }
      return xmp
    }
  }
}
