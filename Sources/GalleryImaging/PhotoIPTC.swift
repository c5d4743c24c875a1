import Foundation
import GalleryModel

/// What photo tools wrote of an image as IPTC-IIM, the older form of the words XMP now
/// carries (Picasa writes only it; digiKam, Photoshop and Lightroom write both): its
/// keywords (dataset 2:25) and caption (2:120, else the object name 2:05). A JPEG keeps
/// them in Photoshop's image resource 0x0404 of its APP13 segments; a TIFF (and a camera
/// RAW file built as one) in its first directory's tag 33723, or in the resources of its
/// tag 34377. Untrusted bytes: every length and offset is checked against what is there,
/// and only a JPEG's segments before the image data are read.
enum PhotoIPTC {
  /// The keywords and caption as `PhotoXMP` carries them; nil when the file has none.
  static func read(from data: Data) -> PhotoXMP? {
    guard let block = iimBlock(in: data) else { return nil }
    var keywords: [[UInt8]] = []
    var caption: [UInt8]?
    var objectName: [UInt8]?
    var utf8 = false
    var position = 0
    // Datasets: 0x1C, record, dataset, a two-byte length (an extended length is not one
    // of these fields: the reading stops there), the value.
    while position + 5 <= block.count, block[position] == 0x1C {
      let (record, dataset) = (block[position + 1], block[position + 2])
      let length = Int(block[position + 3]) << 8 | Int(block[position + 4])
      guard length & 0x8000 == 0, position + 5 + length <= block.count else { break }
      let value = Array(block[position + 5..<position + 5 + length])
      switch (record, dataset) {
      case (1, 90): utf8 = value == [0x1B, 0x25, 0x47]  // ESC % G: UTF-8
      case (2, 25): if keywords.count < ModelValidation.Limits.tags { keywords.append(value) }
      case (2, 120): caption = value
      case (2, 5): objectName = value
      default: break
      }
      position += 5 + length
    }
    // Text is UTF-8 when the file says so or when it reads as UTF-8, else Latin-1 (what
    // tools wrote before UTF-8, and IIM's most common other set).
    func text(_ bytes: [UInt8]) -> String {
      if utf8, let text = String(validating: bytes, as: UTF8.self) { return text }
      return String(validating: bytes, as: UTF8.self) ?? String(bytes.map { Character(Unicode.Scalar($0)) })
    }
    var found = PhotoXMP()
    found.tags = PhotoXMP.cleaned(keywords.map(text))
    let written = caption.map(text).flatMap { $0.isEmpty ? nil : $0 } ?? objectName.map(text)
    let line = written?.split(whereSeparator: \.isNewline).first.map { String($0).trimmingCharacters(in: .whitespaces) }
    found.caption = line.flatMap {
      !$0.isEmpty && ModelValidation.isLine($0, limit: ModelValidation.Limits.captionBytes) ? $0 : nil
    }
    return found.tags.isEmpty && found.caption == nil ? nil : found
  }

  /// The IIM data of a JPEG or a TIFF.
  static func iimBlock(in data: Data) -> [UInt8]? {
    if let directory = TIFFDirectory(data) { return tiffBlock(in: directory) }
    return resourceBlock(in: jpegResources(in: data))
  }

  /// Tag 33723 of a TIFF's first directory (IPTC-NAA: the datasets themselves), else the
  /// IIM resource in the Photoshop resources of its tag 34377.
  static func tiffBlock(in directory: TIFFDirectory) -> [UInt8]? {
    var found: [Int: [UInt8]] = [:]
    for entry in directory.entries where entry.tag == 33723 || entry.tag == 34377 {
      // Bytes (UNDEFINED, BYTE) or, as some writers give IPTC-NAA, LONGs: the same bytes.
      let unit = [1: 1, 7: 1, 4: 4][entry.type] ?? 0
      if let value = directory.bytes(of: entry, unit: unit, limit: 1 << 20) { found[entry.tag] = value }
    }
    return found[33723] ?? found[34377].flatMap(resourceBlock(in:))
  }

  /// The Photoshop resources of a JPEG's APP13 segments (one after another when they were
  /// split).
  static func jpegResources(in data: Data) -> [UInt8] {
    let signature = Array("Photoshop 3.0\0".utf8)
    // The segments' headers are read where they lie; only APP13's are copied.
    return data.prefix(1 << 20).withUnsafeBytes { bytes -> [UInt8] in
      guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return [] }
      var resources: [UInt8] = []
      var position = 2
      while position + 4 <= bytes.count, bytes[position] == 0xFF {
        let marker = bytes[position + 1]
        // Start of scan or end of image: the segments are over.
        if marker == 0xDA || marker == 0xD9 { break }
        if marker == 0xFF {
          position += 1
          continue
        }
        let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
        guard length >= 2, position + 2 + length <= bytes.count else { break }
        let payload = bytes[(position + 4)..<(position + 2 + length)]
        if marker == 0xED, payload.starts(with: signature) { resources += payload.dropFirst(signature.count) }
        position += 2 + length
      }
      return resources
    }
  }

  /// Resource 0x0404, IIM, among Photoshop resources: "8BIM", an id, a name (a length byte
  /// and the name, padded to even), a four-byte size, the data (padded to even).
  static func resourceBlock(in resources: [UInt8]) -> [UInt8]? {
    var at = 0
    while at + 12 <= resources.count, resources[at..<at + 4].elementsEqual("8BIM".utf8) {
      let id = Int(resources[at + 4]) << 8 | Int(resources[at + 5])
      let nameLength = Int(resources[at + 6])
      let sizeAt = at + 6 + ((nameLength + 2) & ~1)
      guard sizeAt + 4 <= resources.count else { return nil }
      let size = resources[sizeAt..<sizeAt + 4].reduce(0) { $0 << 8 | Int($1) }
      let start = sizeAt + 4
      guard size >= 0, start + size <= resources.count else { return nil }
      if id == 0x0404 { return Array(resources[start..<start + size]) }
      at = start + ((size + 1) & ~1)
    }
    return nil
  }
}
