import Foundation
import Testing

@testable import GalleryDocument
@testable import GalleryModel
@testable import GallerySystem
@testable import GalleryView
@testable import GalleryViewRules

/// The browser view's rules that need no server: who may ask, what a request body may be,
/// where a page's drop lands, what the change stream says.
@Suite("The browser view's rules: access, request bodies, upload frames, drop positions, events")
struct ViewLogicTests {
  let access = ViewAccess(token: "t0k3n", bind: "127.0.0.1", port: 8123)

  func request(
    _ method: String = "GET", path: String = "/", query: [String: String] = [:], host: String? = "127.0.0.1:8123",
    origin: String? = nil, cookie: String? = "t0k3n", authorization: String? = nil
  ) -> ViewAccess.Request {
    ViewAccess.Request(
      method: method, path: path, query: query, host: host, origin: origin, cookieToken: cookie, authorization: authorization)
  }

  @Test("A request needs the token: from the cookie, or once in the URL, which then becomes the cookie")
  func token() {
    #expect(access.verdict(for: request()) == .allow)
    #expect(access.verdict(for: request(cookie: nil)) == .refuse(status: 403, reason: access.noTokenReason))
    #expect(access.verdict(for: request(cookie: "t0k3N")) == .refuse(status: 403, reason: access.noTokenReason))
    #expect(access.verdict(for: request(cookie: "")) == .refuse(status: 403, reason: access.noTokenReason))
    #expect(
      access.verdict(for: request(path: "/d/abc", query: ["token": "t0k3n", "x": "a b"], cookie: nil))
        == .setCookie(location: "/d/abc?x=a%20b"))
    #expect(
      access.verdict(for: request(query: ["token": "wrong"], cookie: nil)) == .refuse(status: 403, reason: "wrong access token"))
    // A token in the URL never authorises a change.
    if case .allow = access.verdict(for: request("POST", query: ["token": "t0k3n"], origin: "http://127.0.0.1:8123", cookie: nil))
    {
      Issue.record("a POST with the token in its URL was allowed")
    }
    // The redirect stays on this server, whatever the path.
    #expect(
      access.verdict(for: request(path: "//evil.example/x", query: ["token": "t0k3n"], cookie: nil)) == .setCookie(location: "/"))
  }

  @Test("The Host header must name this server (DNS rebinding), in any of its loopback names")
  func host() {
    for host in ["127.0.0.1:8123", "localhost:8123", "LOCALHOST:8123", "[::1]:8123"] {
      #expect(access.verdict(for: request(host: host)) == .allow, "\(host)")
    }
    for host in [nil, "evil.example:8123", "127.0.0.1:80", "127.0.0.1", "127.0.0.1:8123.evil.example"] as [String?] {
      if case .allow = access.verdict(for: request(host: host)) { Issue.record("\(host ?? "no host") allowed") }
    }
    let remote = ViewAccess(token: "t", bind: "192.0.2.7", port: 9)
    #expect(remote.hosts == ["192.0.2.7:9"])
    // Bound to every address: any address literal with the port, never a name.
    let everywhere = ViewAccess(token: "t0k3n", bind: "0.0.0.0", port: 8123)
    for host in ["192.0.2.7:8123", "[2001:db8::1]:8123", "127.0.0.1:8123"] {
      #expect(everywhere.verdict(for: request(host: host)) == .allow, "\(host)")
    }
    for host in ["evil.example:8123", "192.0.2.7:80", "1.2.3:8123", "300.1.1.1:8123", "[::1]x:8123"] {
      if case .allow = everywhere.verdict(for: request(host: host)) { Issue.record("\(host) allowed") }
    }
  }

  @Test("A change must come from the page's own Origin (CSRF); a bearer token needs none")
  func origin() {
    #expect(access.verdict(for: request("POST", origin: "http://127.0.0.1:8123")) == .allow)
    #expect(access.verdict(for: request("POST", host: "localhost:8123", origin: "http://localhost:8123")) == .allow)
    for origin in [
      nil, "null", "http://evil.example", "https://127.0.0.1:8123", "http://127.0.0.1:8124", "http://localhost:8123",
    ]
      as [String?]
    {
      if case .allow = access.verdict(for: request("POST", origin: origin)) { Issue.record("\(origin ?? "no origin") allowed") }
    }
    #expect(access.verdict(for: request("POST", cookie: nil, authorization: "Bearer t0k3n")) == .allow)
    #expect(
      access.verdict(for: request("POST", cookie: nil, authorization: "Bearer nope"))
        == .refuse(status: 403, reason: "wrong access token"))
  }

  @Test("Tokens are long, random and compared in full")
  func tokens() {
    let a = ViewAccess.newToken()
    let b = ViewAccess.newToken()
    #expect(a.count == 64 && a != b && a.allSatisfy(\.isHexDigit))
    #expect(ViewAccess.same("abc", "abc") && !ViewAccess.same("abc", "abd") && !ViewAccess.same("abc", "abcd"))
  }

  @Test("Edit requests: members read, sizes bounded, anything else refused")
  func editRequests() throws {
    let parsed = try EditRequest.parse(
      Array(#"{"ids":["a","b"],"before":"c","move":true,"uris":["http://x/"],"extra":{"n":[1]}}"#.utf8))
    #expect(parsed.ids == ["a", "b"] && parsed.before == "c" && parsed.move && parsed.uris == ["http://x/"])
    #expect(try EditRequest.parse(Array(#"{"before":null}"#.utf8)).before == nil)
    for bad in [#"{"ids":"a"}"#, #"{"ids":[1]}"#, #"[]"#, #"{"ids":[]} x"#, #"{"#, ""] {
      #expect(throws: (any Error).self, "\(bad)") { try EditRequest.parse(Array(bad.utf8)) }
    }
    let many = "{\"uris\":[" + Array(repeating: "\"u\"", count: EditRequest.maxURIs + 1).joined(separator: ",") + "]}"
    #expect(throws: (any Error).self) { try EditRequest.parse(Array(many.utf8)) }
    let deep = String(repeating: "[", count: 100_000)
    #expect(throws: (any Error).self) { try EditRequest.parse(Array(("{\"x\":" + deep).utf8)) }
  }

  static func frame(_ name: String, _ data: Data) -> Data {
    func number(_ value: Int) -> Data { Data([24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) }) }
    return number(name.utf8.count) + Data(name.utf8) + number(data.count) + data
  }

  @Test("Upload frames read as they arrive: any split gives the same files; a length over the limit is refused at once")
  func uploadFramesStreamed() throws {
    let body =
      Self.frame("a.jpg", Data([1, 2, 3])) + Self.frame("", Data()) + Self.frame("é.png", Data(0..<200))
      + Self.frame("z", Data([9]))
    let whole = try UploadFrames.parse(body, maxFileBytes: 1000)
    var random = SplitMix(state: 9)
    for _ in 0..<500 {
      var reader = UploadFrames.Reader(maxFileBytes: 1000)
      var files: [UploadFrames.File] = []
      var rest = body[...]
      while !rest.isEmpty {
        let piece = rest.prefix(Int.random(in: 1...40, using: &random))
        files += try reader.feed(piece)
        rest = rest.dropFirst(piece.count)
      }
      files += try reader.finish()
      #expect(files == whole)
    }
    // The length of a file over the limit is refused with its header, before any byte of it.
    var reader = UploadFrames.Reader(maxFileBytes: 10)
    let header = Self.frame("big", Data(count: 11)).prefix(4 + 3 + 4)
    #expect(throws: UploadFrames.Refusal.self) { _ = try reader.feed(header) }
  }

  @Test("Upload frames: files read back as sent; a cut, oversized or overlong upload is refused")
  func uploadFrames() throws {
    let body = Self.frame("a.jpg", Data([1, 2, 3])) + Self.frame("é.png", Data()) + Self.frame("", Data([9]))
    let files = try UploadFrames.parse(body, maxFileBytes: 10)
    #expect(
      files == [
        .init(name: "a.jpg", data: Data([1, 2, 3])), .init(name: "é.png", data: Data()), .init(name: "", data: Data([9])),
      ])
    #expect(try UploadFrames.parse(Data(), maxFileBytes: 10).isEmpty)
    // Every prefix of a valid body but the whole and the file boundaries is refused.
    let boundaries: Set<Int> = [
      0, Self.frame("a.jpg", Data([1, 2, 3])).count, body.count - Self.frame("", Data([9])).count, body.count,
    ]
    for length in 0...body.count where !boundaries.contains(length) {
      #expect(throws: UploadFrames.Refusal.self, "\(length)") { try UploadFrames.parse(body.prefix(length), maxFileBytes: 10) }
    }
    #expect(throws: UploadFrames.Refusal.self) { try UploadFrames.parse(Self.frame("big", Data(count: 11)), maxFileBytes: 10) }
    // A length that claims 4 GB is refused before anything is allocated.
    #expect(throws: UploadFrames.Refusal.self) {
      try UploadFrames.parse(Data([0, 0, 0, 1, 0x61, 0xFF, 0xFF, 0xFF, 0xFF]), maxFileBytes: 10)
    }
    #expect(throws: UploadFrames.Refusal.self) { try UploadFrames.parse(Data([0x7F, 0xFF, 0xFF, 0xFF]), maxFileBytes: 10) }
    let tooMany = (0...UploadFrames.maxFiles).reduce(into: Data()) { data, _ in data += Self.frame("x", Data()) }
    #expect(throws: UploadFrames.Refusal.self) { try UploadFrames.parse(tooMany, maxFileBytes: 10) }
    // A slice of a larger buffer (indices not from zero) reads the same.
    let slice = (Data([0xAA, 0xBB]) + body).dropFirst(2)
    #expect(try UploadFrames.parse(slice, maxFileBytes: 10) == files)
  }

  static func items(_ ids: String) -> [Item] { ids.map { Item.placeholder(id: String($0), source: "file:///\($0)") } }

  @Test("A drop before an item lands before it once the moving items have left; past the end, the end")
  func positions() {
    let items = Self.items("abcde")
    func moved(_ moving: String, before: String?) -> String {
      var model = GalleryModel(title: "t")
      model.items = items
      let ids = moving.map(String.init)
      model.move(ids, to: ViewEdits.position(before: before, in: model.items.map(\.id), moving: Set(ids)))
      return String(model.items.map(\.id).joined())
    }
    #expect(moved("d", before: "a") == "dabce")
    #expect(moved("a", before: "d") == "bcade")
    #expect(moved("a", before: nil) == "bcdea")
    #expect(moved("bd", before: "a") == "bdace")
    #expect(moved("bd", before: "e") == "acbde")
    // Dropped onto one of the moving items: before the next that stays.
    #expect(moved("bc", before: "c") == "abcde")
    #expect(moved("de", before: "e") == "abcde")
    #expect(moved("a", before: "gone") == "bcdea")
    #expect(ViewEdits.position(before: "c", in: items.map(\.id)) == 3)
    #expect(ViewEdits.position(before: nil, in: items.map(\.id)) == Int.max)
  }

  @Test("Events in Server-Sent Events form, their data JSON with every string escaped")
  func events() {
    #expect(ViewEvent.document(id: "abc").serverSent == "event: document\ndata: {\"id\":\"abc\"}\n\n")
    let failure = ViewEvent.failure(document: "d", source: "a\nb\"</script>", reason: "r").serverSent
    #expect(failure.hasPrefix("event: failure\ndata: {") && failure.hasSuffix("}\n\n"))
    #expect(failure.split(separator: "\n").count == 2, "no raw newline inside the data line")
    let standIn = ViewEvent.standIn(document: "d", source: "http://x/a.jpg", reason: "HTTP 404\r\nevent: x").serverSent
    #expect(standIn.hasPrefix("event: stand-in\ndata: {") && standIn.hasSuffix("}\n\n"))
    #expect(standIn.split(separator: "\n").count == 2, "no raw newline inside the data line")
    #expect(ViewEvent.ping.serverSent == ": ping\n\n")
  }

  @Test("The record `gallery open` finds reads back as written; a foreign one is refused")
  func instanceRecord() throws {
    let instance = ViewInstance(pid: 42, base: "http://127.0.0.1:1", token: "t")
    #expect(instance.pageAddress(id: "x") == "http://127.0.0.1:1/d/x?token=t")
    #expect(instance.pageAddress(id: nil) == "http://127.0.0.1:1/?token=t")
    let text = #"{"base":"http://127.0.0.1:1","pid":42,"token":"t"}"#
    #expect(try ViewInstance.parse(Array(text.utf8)) == instance)
    #expect(throws: (any Error).self) { try ViewInstance.parse(Array(#"{"base":"x","pid":99999999999,"token":"t"}"#.utf8)) }
    #expect(throws: (any Error).self) { try ViewInstance.parse(Array(#"{"base":"x"}"#.utf8)) }
  }

  @Test("What the library throws answers a page by its type: missing 404, refused 409, a full disk 507, the rest 500")
  func errorStatuses() {
    let full = FileSystemError(errno: ENOSPC, operation: "write", path: "d")
    let cases: [(any Error, Int)] = [
      (DocumentError.notFound("d"), 404),
      (DocumentError.itemNotFound("x"), 404),
      (DocumentError.badName(".."), 400),
      (DocumentError.damaged("d", "x"), 409),
      (DocumentError.saveFailed("d", full), 507),
      (DocumentError.io(FileSystemError(errno: EACCES, operation: "open", path: "d")), 500),
      (DocumentHistory.Failure.nothingToUndo("d"), 404),
      (ModelValidation.Failure(problems: [.init("x")]), 409),
      (full, 507),
      (CocoaError(.fileReadUnknown), 500),
    ]
    for (error, status) in cases {
      #expect(ViewError.status(of: error).code == status, "\(error)")
    }
  }
}
