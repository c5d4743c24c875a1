import Foundation
import GalleryViewRules

/// The view's readers of what a page sends, for the fuzz target `view-request`: the first
/// byte chooses the reader, the rest is its input. Nothing may crash, hang or allocate
/// beyond the stated bounds.
enum ViewFuzzEntryPoints {
  static func request(_ data: Data) {
    guard let choice = data.first else { return }
    let input = data.dropFirst()
    switch choice % 3 {
    case 0:
      if let files = try? UploadFrames.parse(input, maxFileBytes: 1 << 16) {
        precondition(files.count <= UploadFrames.maxFiles && files.allSatisfy { $0.data.count <= 1 << 16 })
      }
    case 1:
      if let request = try? EditRequest.parse(Array(input)) {
        precondition(request.ids.count <= EditRequest.maxIDs && request.uris.count <= EditRequest.maxURIs)
      }
    default:
      // The access rules over hostile header values: split the input into the fields.
      let fields = String(decoding: input, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(
        String.init)
      func field(_ index: Int) -> String? { index < fields.count ? fields[index] : nil }
      let access = ViewAccess(token: "token", bind: field(0) ?? "127.0.0.1", port: 8080)
      let query = field(3).map { ["token": $0] } ?? [:]
      let verdict = access.verdict(
        for: .init(
          method: field(1) ?? "GET", path: field(2) ?? "/", query: query, host: field(4), origin: field(5), cookieToken: field(6),
          authorization: field(7)))
      if case .setCookie(let location) = verdict { precondition(location.hasPrefix("/") && !location.hasPrefix("//")) }
    }
  }
}
