import Foundation
import GalleryModel

/// What a page asks of the server, read from its JSON body with the model's codec; every
/// member bounded. One shape for every edit: each route reads the members it needs.
package struct EditRequest: Equatable {
  package var ids: [String] = []
  /// The item the moved or dropped items go before; nil: the end.
  package var before: String?
  /// Another document (by id): where `transfer` takes items from.
  package var from: String?
  package var move = false
  package var uris: [String] = []
  package var title: String?
  package var name: String?

  package static let maxBytes = 4 << 20
  package static let maxIDs = 100_000
  package static let maxURIs = 1000

  package init() {}

  package static func parse(_ bytes: [UInt8]) throws -> EditRequest {
    guard bytes.count <= maxBytes else { throw JSONReadError(message: "the request is too large", offset: 0) }
    var request = EditRequest()
    try bytes.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      try reader.object { r, key in
        if try r.isNull() { return }
        switch key {
        case "ids": request.ids = try r.strings(limit: maxIDs)
        case "before": request.before = try r.string()
        case "from": request.from = try r.string()
        case "move": request.move = try r.bool()
        case "uris": request.uris = try r.strings(limit: maxURIs)
        case "title": request.title = try r.string()
        case "name": request.name = try r.string()
        default: try r.skipValue()
        }
      }
      reader.skipSpace()
      guard reader.index == raw.count else { throw reader.fail("trailing data after the request") }
    }
    return request
  }
}

extension EditRequest {
  /// The `id` of a server's answer.
  package static func parseID(_ bytes: [UInt8]) throws -> String {
    var id: String?
    try bytes.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      try reader.object { r, key in
        switch key {
        case "id": id = try r.string()
        default: try r.skipValue()
        }
      }
    }
    guard let id else { throw JSONReadError(message: "no id in the answer", offset: 0) }
    return id
  }
}

extension JSONReader {
  fileprivate mutating func strings(limit: Int) throws -> [String] {
    var values: [String] = []
    try array { r in
      guard values.count < limit else { throw r.fail("more than \(limit) values") }
      values.append(try r.string())
    }
    return values
  }
}

/// Files a page uploads in one drop, in a frame of our own that the page builds from its
/// `File`s with no library: for each file, its name's length (4 bytes, big-endian), its
/// name (UTF-8), its length (4 bytes), its bytes. Read with every count and size bounded.
package enum UploadFrames {
  package struct File: Equatable {
    package var name: String
    package var data: Data
  }

  package struct Refusal: Error, CustomStringConvertible, Equatable {
    package var description: String
  }

  package static let mediaType = "application/x-gallery-upload"
  package static let maxFiles = 1000
  package static let maxNameBytes = 4096

  package static func parse(_ bytes: Data, maxFileBytes: Int) throws(Refusal) -> [File] {
    var files: [File] = []
    var offset = bytes.startIndex
    func number() throws(Refusal) -> Int {
      guard bytes.endIndex - offset >= 4 else { throw Refusal(description: "the upload ends inside a length") }
      let value = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
      offset += 4
      return value
    }
    while offset < bytes.endIndex {
      guard files.count < maxFiles else { throw Refusal(description: "more than \(maxFiles) files in one drop") }
      let nameLength = try number()
      guard nameLength <= maxNameBytes, bytes.endIndex - offset >= nameLength else {
        throw Refusal(description: "a file name in the upload is too long or cut short")
      }
      let name = String(decoding: bytes[offset..<offset + nameLength], as: UTF8.self)
      offset += nameLength
      let length = try number()
      guard length <= maxFileBytes else {
        throw Refusal(description: "\(name) is larger than \(maxFileBytes) bytes")
      }
      guard bytes.endIndex - offset >= length else { throw Refusal(description: "the upload of \(name) is cut short") }
      files.append(File(name: name, data: Data(bytes[offset..<offset + length])))
      offset += length
    }
    return files
  }
}
