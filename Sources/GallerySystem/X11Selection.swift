import CX11Selection
import Foundation

/// The X11 CLIPBOARD selection, owned by this process and served in several types at once
/// (see `CX11Selection.h`).
package enum X11Selection {
  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  /// One type the selection is offered in.
  package struct Offer: Sendable, Equatable {
    package var type: String
    package var data: Data

    package init(type: String, data: Data) {
      self.type = type
      self.data = data
    }
  }

  /// Serves `offers` until another client takes the clipboard. "ok" or "error: ..." goes to
  /// `readyDescriptor` (then closed) once the selection is ours or cannot be.
  package static func serve(_ offers: [Offer], readyDescriptor: Int32) throws {
    let types = offers.map { strdup($0.type) }
    defer { for type in types { free(type) } }
    let buffers = offers.map { offer -> UnsafeMutablePointer<UInt8> in
      let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, offer.data.count))
      offer.data.copyBytes(to: buffer, count: offer.data.count)
      return buffer
    }
    defer { for buffer in buffers { buffer.deallocate() } }
    let typePointers: [UnsafePointer<CChar>?] = types.map { UnsafePointer($0) }
    let dataPointers: [UnsafePointer<UInt8>?] = buffers.map { UnsafePointer($0) }
    let lengths = offers.map(\.data.count)
    let status = typePointers.withUnsafeBufferPointer { names in
      dataPointers.withUnsafeBufferPointer { data in
        lengths.withUnsafeBufferPointer { lengths in
          CX11Selection_serve(Int32(offers.count), names.baseAddress, data.baseAddress, lengths.baseAddress, readyDescriptor)
        }
      }
    }
    if status != 0 { throw Failure(description: "the X11 clipboard could not be taken") }
  }

  /// Offers as bytes, for handing them to the serving process: per offer a line with the
  /// type, a line with the length, then the bytes.
  package static func encode(_ offers: [Offer]) -> Data {
    var data = Data()
    for offer in offers {
      data.append(Data("\(offer.type)\n\(offer.data.count)\n".utf8))
      data.append(offer.data)
    }
    return data
  }

  package static func decode(_ data: Data) -> [Offer]? {
    var offers: [Offer] = []
    var index = data.startIndex
    func line() -> String? {
      guard let end = data[index...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
      defer { index = end + 1 }
      return String(decoding: data[index..<end], as: UTF8.self)
    }
    while index < data.endIndex {
      guard let type = line(), let count = line().flatMap(Int.init), count >= 0, data.endIndex - index >= count else {
        return nil
      }
      offers.append(Offer(type: type, data: Data(data[index..<index + count])))
      index += count
    }
    return offers
  }
}
