import Foundation

/// File names are bytes: on Linux any bytes but `/` and NUL (Latin-1 from old cameras, zip
/// files made on Windows, Samba shares and FAT cards). A path is kept in a `String` in which
/// each byte that is not part of valid UTF-8 stands as one scalar of plane 16's private use
/// area, U+10FF80 + (byte - 0x80), so that it goes back to the file system byte for byte.
/// Valid UTF-8 that spells one of those scalars is kept the same way, byte by byte, so every
/// byte string comes back as it was. Names enter as bytes (argv, readdir, inotify) and
/// reach libc as bytes (`withCString`); `file:` URLs percent-encode the bytes (RFC 8089),
/// and messages show such a byte as `\xE9`.
package enum PathBytes {
  private static let first: UInt32 = 0x10_FF80

  /// The scalar that stands for a byte that is not UTF-8 (0x80 to 0xFF).
  @inline(__always)
  static func scalar(for byte: UInt8) -> Unicode.Scalar { Unicode.Scalar(first + UInt32(byte - 0x80))! }

  /// The byte a scalar stands for, if it is one of ours.
  @inline(__always)
  static func byte(for scalar: Unicode.Scalar) -> UInt8? {
    scalar.value >= first && scalar.value <= first + 0x7F ? UInt8(scalar.value - first + 0x80) : nil
  }

  /// A path from the bytes the system gave.
  package static func string(_ bytes: some Collection<UInt8>) -> String {
    // Most names are UTF-8 without our scalars (whose UTF-8 begins F4 8F BE or F4 8F BF).
    if !bytes.contains(0xF4), let text = String(validating: bytes, as: UTF8.self) { return text }
    let bytes = Array(bytes)
    var scalars = String.UnicodeScalarView()
    var index = 0
    while index < bytes.count {
      if let (scalar, length) = decodeOne(bytes, at: index), byte(for: scalar) == nil {
        scalars.append(scalar)
        index += length
      } else {
        scalars.append(scalar(for: bytes[index]))
        index += 1
      }
    }
    return String(scalars)
  }

  /// One well-formed UTF-8 sequence at `index` (RFC 3629: no overlong forms, no
  /// surrogates, nothing past U+10FFFF), or nil.
  private static func decodeOne(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
    let lead = bytes[index]
    if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
    let length: Int
    var value: UInt32
    var low: UInt8 = 0x80
    var high: UInt8 = 0xBF
    switch lead {
    case 0xC2...0xDF: (length, value) = (2, UInt32(lead & 0x1F))
    case 0xE0: (length, value, low) = (3, 0, 0xA0)
    case 0xE1...0xEC, 0xEE...0xEF: (length, value) = (3, UInt32(lead & 0x0F))
    case 0xED: (length, value, high) = (3, 0x0D, 0x9F)
    case 0xF0: (length, value, low) = (4, 0, 0x90)
    case 0xF1...0xF3: (length, value) = (4, UInt32(lead & 0x07))
    case 0xF4: (length, value, high) = (4, 4, 0x8F)
    default: return nil
    }
    guard index + length <= bytes.count else { return nil }
    for offset in 1..<length {
      let byte = bytes[index + offset]
      guard byte >= (offset == 1 ? low : 0x80), byte <= (offset == 1 ? high : 0xBF) else { return nil }
      value = value << 6 | UInt32(byte & 0x3F)
    }
    return Unicode.Scalar(value).map { ($0, length) }
  }

  /// The bytes of a path, as the system knows it (no NUL added).
  package static func bytes(_ path: String) -> [UInt8] {
    guard path.utf8.contains(0xF4) else { return Array(path.utf8) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(path.utf8.count)
    for scalar in path.unicodeScalars {
      if let byte = byte(for: scalar) { bytes.append(byte) } else { bytes.append(contentsOf: String(scalar).utf8) }
    }
    return bytes
  }

  /// Whether the path holds bytes that are not UTF-8.
  package static func hasRawBytes(_ path: String) -> Bool {
    path.utf8.contains(0xF4) && path.unicodeScalars.contains { byte(for: $0) != nil }
  }

  /// Calls `body` with the path as a C string of its bytes.
  package static func withCString<T>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
    guard path.utf8.contains(0xF4) else { return try path.withCString(body) }
    return try (bytes(path) + [0]).withUnsafeBufferPointer { buffer in
      try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
    }
  }

  /// The path as a person reads it: each byte that is not UTF-8 as `\xE9`.
  package static func displayed(_ path: String) -> String {
    guard hasRawBytes(path) else { return path }
    var text = ""
    for scalar in path.unicodeScalars {
      if let byte = byte(for: scalar) {
        text += "\\x" + String(byte, radix: 16, uppercase: true)
      } else {
        text.unicodeScalars.append(scalar)
      }
    }
    return text
  }

  /// Text for a person from a name: its bytes that are not UTF-8 read as Latin-1.
  package static func latin1Text(_ path: String) -> String {
    guard hasRawBytes(path) else { return path }
    var text = String.UnicodeScalarView()
    for scalar in path.unicodeScalars { text.append(byte(for: scalar).map { Unicode.Scalar($0) } ?? scalar) }
    return String(text)
  }

  /// A path taken from a `String` that holds text, not bytes from the system (a C string's
  /// bytes read as they are).
  package static func string(cString: UnsafePointer<CChar>) -> String {
    string(UnsafeRawBufferPointer(start: cString, count: strlen(cString)))
  }

  // MARK: - file: URLs

  /// The bytes a `file:` URL leaves as they are in its path: RFC 3986's unreserved
  /// characters, sub-delimiters, `:`, `@` and `/`, as Foundation's URLs leave them.
  private static let unescaped: Set<UInt8> = Set(
    Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/".utf8))

  /// `file:///...` for an absolute path, each byte percent-encoded that a URL's path may
  /// not hold as it is (RFC 8089): a Latin-1 `é` is `%E9`, a UTF-8 one `%C3%A9`.
  package static func fileURL(absolutePath path: String) -> String {
    var url = "file://"
    for byte in bytes(path) {
      if unescaped.contains(byte) {
        url.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        url += "%" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
      }
    }
    return url
  }

  /// The path of a `file:` URL (`file:///p`, `file://localhost/p`), its percent-escapes
  /// decoded to bytes; nil for any other URL, another host, or an escape that is not one.
  /// A query or fragment is not part of the path.
  package static func path(fromFileURL url: String) -> String? {
    let lowered = url.prefix(17).lowercased()
    let rest: Substring
    if lowered.hasPrefix("file:///") {
      rest = url.dropFirst(7)
    } else if lowered.hasPrefix("file://localhost/") {
      rest = url.dropFirst(16)
    } else {
      return nil
    }
    guard let bytes = percentDecoded(withoutQuery(rest), strict: true), !bytes.contains(0) else { return nil }
    return string(bytes)
  }

  /// The last segment of a URL's path, its percent-escapes decoded to bytes (a name that
  /// is not UTF-8 keeps them, see above); "" when there is none.
  package static func lastSegment(ofURL url: String) -> String {
    var path = withoutQuery(Substring(url))
    if let scheme = path.range(of: "://") { path = path[scheme.upperBound...] }
    guard let slash = path.lastIndex(of: "/") else { return "" }
    return string((percentDecoded(path[path.index(after: slash)...], strict: false) ?? []).filter { $0 != 0 })
  }

  /// A URL's text before its query or fragment.
  private static func withoutQuery(_ text: Substring) -> Substring {
    text.firstIndex { $0 == "?" || $0 == "#" }.map { text[..<$0] } ?? text
  }

  // MARK: - JSON

  /// A path as JSON gives it, whose strings are Unicode text: `text` as a person reads it
  /// (`displayed`), and `url`, its exact bytes as a `file:` URL (made absolute), for a path
  /// that is not UTF-8 only (the text of one that is is exact). The URL goes beside the text
  /// in a member named after it with `URL` (`pathURL`); every command that takes a document
  /// or folder takes it back.
  package static func forJSON(_ path: String) -> (text: String, url: String?) {
    hasRawBytes(path) ? (displayed(path), fileURL(of: path)) : (path, nil)
  }

  /// The `file:` URL of a path, a relative one taken from the current folder.
  package static func fileURL(of path: String) -> String {
    guard !path.hasPrefix("/") else { return fileURL(absolutePath: path) }
    var relative = Substring(path)
    while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
    return fileURL(absolutePath: FileSystem.currentDirectory() + "/" + relative)
  }

  /// The bytes of URL text, `%XX` decoded; an escape that is not one is refused
  /// (`strict`) or kept as it is.
  package static func percentDecoded(_ text: Substring, strict: Bool) -> [UInt8]? {
    var bytes: [UInt8] = []
    let utf8 = Array(text.utf8)
    var index = 0
    while index < utf8.count {
      if utf8[index] == UInt8(ascii: "%") {
        if index + 2 < utf8.count, let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2]) {
          bytes.append(high << 4 | low)
          index += 3
          continue
        }
        if strict { return nil }
      }
      bytes.append(utf8[index])
      index += 1
    }
    return bytes
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
  }
}

extension KeyedEncodingContainer {
  /// `path` under `key` and, when it is not UTF-8, its exact URL under `urlKey`, as JSON
  /// gives a path (see `PathBytes.forJSON`).
  package mutating func encodePath(_ path: String?, forKey key: Key, urlKey: Key) throws {
    guard let path else { return }
    let (text, url) = PathBytes.forJSON(path)
    try encode(text, forKey: key)
    try encodeIfPresent(url, forKey: urlKey)
  }
}
