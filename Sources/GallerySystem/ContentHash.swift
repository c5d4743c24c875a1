import CCrypto
import Foundation

/// `sha256:<hex>` of some bytes: the content hash items record.
/// The corresponding C function is `EVP_Digest` with `EVP_sha256`.
package func contentHash(of data: Data) -> String {
  var digest = [UInt8](repeating: 0, count: 32)
  let ok = data.withUnsafeBytes { raw in CCrypto_sha256(raw.baseAddress, raw.count, &digest) }
  precondition(ok == 1, "EVP_Digest(SHA-256) failed")
  let hex: [UInt8] = Array("0123456789abcdef".utf8)
  var text = [UInt8]()
  text.reserveCapacity(64)
  for byte in digest {
    text.append(hex[Int(byte >> 4)])
    text.append(hex[Int(byte & 0x0f)])
  }
  return "sha256:" + String(decoding: text, as: UTF8.self)
}
