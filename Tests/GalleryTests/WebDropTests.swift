import Foundation
import GalleryKit
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

/// A workspace with a real HTTP server on 127.0.0.1 serving its `web/` folder, and a download
/// cache of its own.
final class WebSetup {
  let work: TestWorkspace
  let server: ImageServer
  let document: String
  let environment: [String: String]

  init() throws {
    work = try TestWorkspace()
    server = try ImageServer(serving: work.path("web"))
    document = try work.document()
    environment = ["XDG_CACHE_HOME": work.path("cache")]
  }

  /// Writes an image made by libvips into the served folder and returns its URL.
  @discardableResult
  func image(
    _ name: String, width: Int = 300, height: Int = 200, format: FixtureImage.Format = .jpeg, seed: Int = 1,
    query: String = ""
  ) throws -> String {
    try FixtureImage.make(width: width, height: height, format: format, seed: seed)
      .write(to: URL(fileURLWithPath: server.folder + "/" + name))
    return server.url("/files/\(name)" + (query.isEmpty ? "" : "?" + query))
  }

  func gallery(_ arguments: [String], stdin: Data? = nil) throws -> Run.Result {
    try Run.gallery(arguments, stdin: stdin, environment: environment)
  }

  func start(_ arguments: [String]) throws -> TestProcess {
    try Run.start(arguments, environment: environment)
  }

  /// Serves a 300x150 image held until `key` is released, drops it, and kills the drop
  /// once the download has begun: its placeholder is left stale. Returns the image's URL.
  @discardableResult
  func dropKilledWhileDownloading(_ name: String, seed: Int, holding key: String) throws -> String {
    let url = try image(name, width: 300, height: 150, seed: seed)
    let drop = try start(["drop", document, url + "?hold=\(key)"])
    ImageServer.waitUntil("the held request") { try server.count("/files/\(name)", "held") == 1 }
    kill(drop.processIdentifier, SIGKILL)
    drop.wait()
    return url
  }

  /// Waits until the document shows `count` placeholders; returns them.
  func placeholders(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Listing.Entry] {
    var found: [Listing.Entry] = []
    ImageServer.waitUntil("\(count) placeholders", sourceLocation: sourceLocation) {
      found = (try? Listing.of(document).items.filter { $0.state == "placeholder" }) ?? []
      return found.count >= count
    }
    return found
  }
}

@Suite("Drops from the web: placeholders, downloads, commits where they stand")
struct WebDropTests {
  @Test("JPEG, PNG, WebP, GIF and TIFF bodies, chunked or not, whatever their Content-Type, in drop order")
  func formatsAndOrder() throws {
    let web = try WebSetup()
    let local = try web.work.image("local.jpg", width: 100, height: 100, seed: 9)
    let urls = [
      try web.image("a.jpg", width: 400, height: 200, seed: 1, query: "delay=0.6&type=application/octet-stream"),
      try web.image("b.png", width: 200, height: 400, format: .png, seed: 2, query: "chunked=1"),
      try web.image("c.webp", width: 300, height: 300, format: .webp, seed: 3, query: "type=application/octet-stream"),
      try web.image("d.gif", width: 120, height: 60, format: .gif, seed: 4, query: "type=text/plain&chunked=1"),
      try web.image("e.tif", width: 90, height: 180, format: .tiff, seed: 5),
    ]
    // Mixed with a file, and with a text/uri-list on standard input (CRLF, a comment).
    let list = "# dragged from a browser\r\n\(urls[3])\r\n\(urls[4])\r\n"
    let result = try web.gallery(["drop", web.document, urls[0], local, urls[1], urls[2], "-"], stdin: Data(list.utf8))
    #expect(result.status == 0, "\(result.stderr)")

    let items = try Listing.of(web.document).items
    let expectedSources = [urls[0], URL(fileURLWithPath: local).absoluteString, urls[1], urls[2], urls[3], urls[4]]
    #expect(items.map(\.source) == expectedSources, "the drop order, though the first URL finished last")
    #expect(items.allSatisfy { $0.state == "ready" && $0.thumbnail != nil })
    #expect(items.map(\.aspectRatio) == [2, 1, 0.5, 1, 2, 0.5])
    #expect(try Run.gallery(["check", web.document]).status == 0)
    // Standard output lists the committed items, one a line.
    #expect(result.stdout.split(separator: "\n").count == 6)
  }

  @Test("Each kind of failure removes its placeholder and says why; the rest land; exit 1")
  func failures() throws {
    let web = try WebSetup()
    let good = try web.image("good.jpg", seed: 1)
    try web.image("big.jpg", width: 1200, height: 900, seed: 2)
    let cases: [(url: String, reason: String)] = [
      (web.server.url("/status/404"), "HTTP 404"),
      (web.server.url("/status/500"), "HTTP 500"),
      (web.server.url("/loop"), "redirect loop"),
      (web.server.url("/redirect/6/good.jpg"), "too many redirects (more than 5)"),
      (web.server.url("/to-file"), "redirect to file:///etc/passwd refused"),
      (web.server.url("/to-ftp"), "redirect to ftp://127.0.0.1/x.jpg refused"),
      (web.server.url("/huge"), "larger than"),
      (web.server.url("/huge?length=0"), "larger than"),
      (web.server.url("/html"), "not an image (the server said image/jpeg)"),
      (web.server.url("/files/good.jpg?trickle=20"), "timed out after 3 s"),
      ("http://127.0.0.1:1/nothing.jpg", "connection refused"),
    ]
    let started = Date()
    let result = try web.gallery(
      ["drop", "--timeout", "3", web.document, good] + cases.map(\.url) + [web.server.url("/redirect/5/good.jpg")])
    #expect(Date().timeIntervalSince(started) < 15, "the timeout bounds the drop")
    #expect(result.status == 1)
    for (url, reason) in cases {
      let line = result.stderr.split(separator: "\n").first { $0.contains("not dropped: \(url):") }
      #expect(line?.contains(reason) == true, "\(url): expected '\(reason)' in \(line ?? "nothing")")
    }
    let items = try Listing.of(web.document).items
    // Five redirects are followed; the item keeps the URL that was dropped.
    #expect(items.map(\.source) == [good, web.server.url("/redirect/5/good.jpg")])
    #expect(items.allSatisfy { $0.state == "ready" })

    // A smaller body limit, enforced on a body with a Content-Length.
    let limited = try web.gallery(["drop", "--max-download-size", "10K", web.document, web.server.url("/files/big.jpg")])
    #expect(limited.status == 1)
    #expect(limited.stderr.contains("larger than the 10 KB limit"), "\(limited.stderr)")
  }

  @Test("http_proxy is honoured (a CONNECT tunnel), no_proxy and loopback go direct")
  func proxy() throws {
    let web = try WebSetup()
    try web.image("a.jpg", width: 200, height: 100, seed: 1)
    try web.image("b.jpg", width: 100, height: 200, seed: 2)
    // The test server is also the proxy, and tunnels every host to itself: a name that
    // cannot resolve loads only through it.
    let proxy = ["http_proxy": web.server.url(""), "https_proxy": "", "no_proxy": "direct.invalid"]
    let through = try Run.gallery(
      ["drop", web.document, "http://photos.invalid/files/a.jpg"], environment: web.environment.merging(proxy) { $1 })
    #expect(through.status == 0, "\(through.stderr)")
    #expect(try web.server.count("CONNECT photos.invalid:80") == 1)

    let direct = try Run.gallery(
      ["drop", web.document, "http://direct.invalid/files/b.jpg"], environment: web.environment.merging(proxy) { $1 })
    #expect(direct.status == 1, "no_proxy: not through the proxy, so the name does not resolve")
    #expect(try web.server.count("CONNECT direct.invalid:80") == 0)

    let loopback = try Run.gallery(
      ["drop", web.document, web.server.url("/files/b.jpg")], environment: web.environment.merging(proxy) { $1 })
    #expect(loopback.status == 0)
    #expect(try web.server.stats().paths.keys.filter { $0.hasPrefix("CONNECT 127.0.0.1") }.isEmpty)
    #expect(try Listing.of(web.document).items.map(\.aspectRatio) == [2, 0.5])
  }

  @Test("Proxies as curl reads them: socks5h, all_proxy, no HTTP_PROXY for http, and never around a proxy")
  func proxyKinds() throws {
    let web = try WebSetup()
    try web.image("a.jpg", width: 200, height: 100, seed: 1)
    let port = URL(string: web.server.url(""))!.port!
    func drop(_ name: String, _ proxies: [String: String]) throws -> Run.Result {
      let cleared = [
        "http_proxy": "", "https_proxy": "", "all_proxy": "", "HTTP_PROXY": "", "HTTPS_PROXY": "", "ALL_PROXY": "",
        "no_proxy": "",
      ]
      return try Run.gallery(
        ["drop", web.document, "http://\(name).invalid/files/a.jpg"],
        environment: web.environment.merging(cleared.merging(proxies) { $1 }) { $1 })
    }
    // SOCKS5, the proxy resolving the name.
    let socks = try drop("socks", ["http_proxy": "socks5h://127.0.0.1:\(port)"])
    #expect(socks.status == 0, "\(socks.stderr)")
    #expect(try web.server.count("SOCKS socks.invalid:80") == 1)
    // all_proxy when no scheme's own is set.
    let all = try drop("all", ["all_proxy": "socks5://127.0.0.1:\(port)"])
    #expect(all.status == 0, "\(all.stderr)")
    #expect(try web.server.count("SOCKS all.invalid:80") == 1)
    // HTTP_PROXY (upper case) is not read for http: a CGI server sets it from a header.
    let upper = try drop("upper", ["HTTP_PROXY": web.server.url("")])
    #expect(upper.status == 1)
    #expect(upper.stderr.contains("cannot resolve host upper.invalid"), "\(upper.stderr)")
    #expect(try web.server.count("CONNECT upper.invalid:80") == 0)
    // A proxy of a scheme we cannot use is refused, not bypassed.
    let socks4 = try drop("four", ["http_proxy": "socks4://127.0.0.1:\(port)"])
    #expect(socks4.status == 1)
    #expect(socks4.stderr.contains("socks4://, which gallery does not support"), "\(socks4.stderr)")
    // A proxy that refuses is named as the proxy, not as the server.
    let refused = try drop("refused", ["http_proxy": "http://127.0.0.1:1"])
    #expect(refused.stderr.contains("the proxy http://127.0.0.1:1 refused the connection"), "\(refused.stderr)")
    #expect(try Listing.of(web.document).items.count == 2)
  }

  @Test("https: an untrusted certificate is refused with the reason; trusted through SSL_CERT_FILE it loads")
  func https() throws {
    let work = try TestWorkspace()
    // A self-signed certificate for 127.0.0.1 only, made now by openssl.
    let certificate = work.path("cert.pem")
    let key = work.path("key.pem")
    let made = try Run.program(
      "openssl",
      [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
      ])
    #expect(made.status == 0, "\(made.stderr)")
    let server = try ImageServer(serving: work.path("web"), tls: (certificate, key))
    try FixtureImage.make(width: 300, height: 100, format: .jpeg, seed: 1).write(to: URL(fileURLWithPath: work.path("web/a.jpg")))
    let document = try work.document()
    let url = server.url("/files/a.jpg")
    let cache = ["XDG_CACHE_HOME": work.path("cache")]

    let untrusted = try Run.gallery(["drop", document, url], environment: cache)
    #expect(untrusted.status == 1)
    #expect(untrusted.stderr.contains("the TLS certificate of 127.0.0.1 is not trusted"), "\(untrusted.stderr)")

    let trusted = cache.merging(["SSL_CERT_FILE": certificate]) { $1 }
    let loaded = try Run.gallery(["drop", document, url], environment: trusted)
    #expect(loaded.status == 0, "\(loaded.stderr)")
    #expect(try Listing.of(document).items.map(\.aspectRatio) == [3])
  }

  @Test("A host that does not resolve fails with the reason, within the timeout")
  func unresolvableHost() throws {
    let web = try WebSetup()
    // .invalid never resolves (RFC 6761). With no resolver reachable the lookup may instead
    // run into the timeout; either way the placeholder goes and the URL is named.
    let url = "http://gallery-test.invalid/photo.jpg"
    let result = try web.gallery(["drop", "--timeout", "5", web.document, url])
    #expect(result.status == 1)
    let line = result.stderr.split(separator: "\n").first { $0.contains("not dropped: \(url):") } ?? ""
    #expect(line.contains("cannot resolve host gallery-test.invalid") || line.contains("timed out after 5 s"), "\(result.stderr)")
    #expect(try Listing.of(web.document).items.isEmpty)
  }

  @Test("When every URL fails, the document is left byte for byte as it was")
  func allFailed() throws {
    let web = try WebSetup()
    #expect(try web.gallery(["drop", web.document, try web.work.image("a.jpg")]).status == 0)
    let before = try web.work.bytes(web.document)
    let result = try web.gallery(["drop", web.document, web.server.url("/status/404"), web.server.url("/html")])
    #expect(result.status == 1)
    #expect(try web.work.bytes(web.document) == before)
  }

  @Test("--keep-failed keeps a failed item; retry loads it once the server has it")
  func keepFailedAndRetry() throws {
    let web = try WebSetup()
    let url = web.server.url("/files/later.jpg")
    let result = try web.gallery(["drop", "--keep-failed", web.document, url])
    #expect(result.status == 1)
    var items = try Listing.of(web.document).items
    #expect(items.count == 1 && items[0].state == "failed" && items[0].aspectRatio == 1)

    #expect(try web.gallery(["retry", web.document]).status == 1, "still missing: still failed")
    try web.image("later.jpg", width: 500, height: 250, seed: 7)
    let retried = try web.gallery(["retry", web.document, "1"])
    #expect(retried.status == 0, "\(retried.stderr)")
    items = try Listing.of(web.document).items
    #expect(items.count == 1 && items[0].state == "ready" && items[0].aspectRatio == 2)
  }

  @Test("A document renamed, then moved to another folder, while a drop downloads: the drop commits into it there")
  func documentRenamedDuringDrop() throws {
    let web = try WebSetup()
    let slow = try web.image("slow.jpg", width: 400, height: 100, seed: 3, query: "hold=slow")
    let errors = web.work.path("drop.err")
    let drop = try Run.start(["drop", web.document, slow], environment: web.environment, errors: errors)
    ImageServer.waitUntil("the held request") { try web.server.count("/files/slow.jpg", "held") == 1 }
    #expect(try web.gallery(["rename", web.document, "renamed"]).status == 0)
    let renamed = web.work.path("renamed.gallery")
    try FileManager.default.createDirectory(atPath: web.work.path("kept"), withIntermediateDirectories: true)
    let moved = web.work.path("kept/moved.gallery")
    #expect(try Run.program("mv", [renamed, moved]).status == 0)
    try web.server.release("slow")
    drop.wait()
    #expect(drop.terminationStatus == 0, "\((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
    let items = try Listing.of(moved).items
    #expect(items.map(\.source) == [slow])
    #expect(items.first?.state == "ready" && items.first?.aspectRatio == 4)
    #expect(!FileManager.default.fileExists(atPath: web.document) && !FileManager.default.fileExists(atPath: renamed))
    #expect(try Run.gallery(["check", moved]).status == 0)
  }

  @Test("All placeholders are saved before any download starts; a load commits where its placeholder is then")
  func commitAtCurrentPosition() throws {
    let web = try WebSetup()
    let existing = try web.work.images(2, width: 100, height: 80)
    #expect(try web.gallery(["drop", web.document] + existing).status == 0)
    let slow = try web.image("slow.jpg", width: 400, height: 100, seed: 3, query: "hold=slow")
    let quick = try web.image("quick.jpg", width: 100, height: 400, seed: 4)
    let doomed = try web.image("doomed.jpg", seed: 5, query: "hold=doomed")
    let drop = try web.start(["drop", "--at", "2", web.document, slow, quick, doomed])

    // The first request reaches the server only after every placeholder is in the document
    // (the quick one may be committed already).
    ImageServer.waitUntil("the held request") { try web.server.count("/files/slow.jpg", "held") == 1 }
    let dropped = Array(try Listing.of(web.document).items.dropFirst().prefix(3))
    #expect(dropped.map(\.source) == [slow, quick, doomed])
    let slowItem = try #require(dropped.first { $0.source == slow })
    let doomedItem = try #require(dropped.first { $0.source == doomed })
    #expect([slowItem, doomedItem].allSatisfy { $0.state == "placeholder" && $0.display == "pending" })
    // The quick one lands while the others still load; meanwhile another process inserts
    // before the slow placeholder, moves an item and trashes one placeholder.
    ImageServer.waitUntil("the quick image") {
      try Listing.of(web.document).items.contains { $0.source == quick && $0.state == "ready" }
    }
    let inserted = try web.work.image("inserted.jpg", width: 300, height: 300, seed: 6)
    #expect(try web.gallery(["drop", "--at", "1", web.document, inserted]).status == 0)
    #expect(try web.gallery(["move", web.document, slowItem.id, "--to", "end"]).status == 0)
    #expect(try web.gallery(["trash", web.document, doomedItem.id]).status == 0)
    try web.server.release("slow")
    try web.server.release("doomed")
    drop.wait()
    #expect(drop.terminationStatus == 0)

    let items = try Listing.of(web.document).items
    let file = { URL(fileURLWithPath: $0).absoluteString }
    #expect(items.map(\.source) == [file(inserted), file(existing[0]), quick, file(existing[1]), slow])
    #expect(items.allSatisfy { $0.state == "ready" })
    #expect(items.last?.id == slowItem.id && items.last?.aspectRatio == 4)
    // The trashed placeholder's image was not added, to the items or the trash.
    #expect(try GalleryDocument.open(web.document).model.trash.isEmpty)
    #expect(try Run.gallery(["check", web.document]).status == 0)
  }

  @Test("Two processes drop into one document while a third moves and trashes")
  func concurrentDrops() throws {
    let web = try WebSetup()
    // Every image is served after seconds, so that all eight placeholders are still pending
    // together however late the second process starts on a loaded machine (the server
    // answers each request on a thread of its own).
    let first = try (0..<4).map {
      try web.image("first\($0).jpg", width: 200 + $0, height: 100, seed: $0 + 1, query: "delay=3.\($0 + 3)")
    }
    let second = try (0..<4).map {
      try web.image("second\($0).png", width: 100, height: 200 + $0, format: .png, seed: $0 + 11, query: "delay=3.\($0 + 2)")
    }
    let a = try web.start(["drop", "--downloads", "2", web.document] + first)
    let b = try web.start(["drop", "--downloads", "2", web.document] + second)
    let pending = try web.placeholders(8)
    let movedPlaceholder = try #require(pending.first, "no placeholder to move")
    #expect(try web.gallery(["move", web.document, movedPlaceholder.id, "--to", "end"]).status == 0)
    let trashed = try #require(pending.first { $0.source == second[1] })
    #expect(try web.gallery(["trash", web.document, trashed.id]).status == 0)
    a.wait()
    b.wait()
    #expect(a.terminationStatus == 0 && b.terminationStatus == 0)

    let items = try Listing.of(web.document).items
    #expect(Set(items.map(\.source)) == Set(first + second).subtracting([second[1]]))
    #expect(items.count == 7 && items.allSatisfy { $0.state == "ready" })
    // The moved placeholder's image is where it was moved; each drop keeps its own order.
    let moved = movedPlaceholder.source
    let sources = items.map(\.source)
    #expect(sources.last == moved)
    #expect(sources.dropLast().filter { first.contains($0) } == first.filter { $0 != moved })
    #expect(sources.dropLast().filter { second.contains($0) } == second.filter { $0 != moved && $0 != second[1] })
    #expect(try Run.gallery(["check", web.document]).status == 0)
  }

  @Test("An image-search result link drops the image and keeps the page")
  func imageSearchResult() throws {
    let web = try WebSetup()
    let image = try web.image("found.jpg", width: 200, height: 100, seed: 2)
    let encodedImage = image.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    let link =
      "https://www.google.com/imgres?ImgUrl=\(encodedImage)&imgrefurl=https%3A%2F%2Fexample.org%2Fa+b%3Fq%3D1%3D2&tbnid=x"
    let result = try web.gallery(["drop", web.document, link])
    #expect(result.status == 0, "\(result.stderr)")
    let item = try #require(try GalleryDocument.open(web.document).model.items.first)
    #expect(item.source == image)
    #expect(item.page == "https://example.org/a%20b?q=1=2")
  }

  @Test("Image-search parameters: key case, + and percent decoding, = inside values, only http(s)")
  func imageSearchParsing() throws {
    let parsed = try #require(
      ImageSearchResult(
        url: URL(
          string: "http://x.test/imgres?IMGURL=https%3A%2F%2Fa.test%2Fp%20q%2Br.jpg%3Fs%3D1%3D2&imgRefUrl=http://b.test/x+y")!))
    #expect(parsed.image.absoluteString == "https://a.test/p%20q+r.jpg?s=1=2")
    #expect(parsed.page?.absoluteString == "http://b.test/x%20y")
    #expect(ImageSearchResult(url: URL(string: "http://x.test/imgres?imgurl=file%3A%2F%2F%2Fetc%2Fpasswd")!) == nil)
    #expect(ImageSearchResult(url: URL(string: "http://x.test/photo.jpg?size=2")!) == nil)
    #expect(ImageSearchResult(url: URL(string: "http://x.test/imgres?imgurl=https://a.test/i.jpg")!)?.page == nil)
    // Bing's result links: the image in mediaurl, the page in purl.
    let bing = try #require(
      ImageSearchResult(
        url: URL(
          string:
            "https://www.bing.com/images/search?view=detailV2&mediaurl=https%3a%2f%2fa.test%2fb.jpg&purl=https%3a%2f%2fa.test%2fpage&q=x"
        )!))
    #expect(bing.image.absoluteString == "https://a.test/b.jpg" && bing.page?.absoluteString == "https://a.test/page")
    #expect(ImageSearchResult(url: URL(string: "https://www.bing.com/images/search?mediaurl=file%3a%2f%2f%2fetc")!) == nil)
  }

  @Test("The cache: a drop again revalidates (304), export works with the server gone, --info and --clear")
  func cache() throws {
    let web = try WebSetup()
    let url = try web.image("cached.jpg", seed: 4)
    #expect(try web.gallery(["drop", web.document, url]).status == 0)
    #expect(try web.gallery(["drop", web.document, url]).status == 0)
    #expect(try web.server.count("/files/cached.jpg", "200") == 1)
    #expect(try web.server.count("/files/cached.jpg", "304") == 1)
    #expect(try web.server.stats().agents.contains { $0.hasPrefix("gallery/\(GalleryVersion.current) ") })

    let info = try web.gallery(["cache", "--json"])
    let usage = try JSONSerialization.jsonObject(with: info.stdoutData) as? [String: Any]
    #expect(usage?["entries"] as? Int == 1)
    #expect(usage?["bytes"] as? Int ?? 0 > (try web.work.bytes(web.server.folder + "/cached.jpg")).count)
    #expect((usage?["folder"] as? String)?.hasPrefix(web.work.path("cache/gallery")) == true)

    // Server gone: export still has the original, the same bytes, from the cache.
    let original = try web.work.bytes(web.server.folder + "/cached.jpg")
    web.server.stop()
    let export = try web.gallery(["export", web.document, "1", "--to", web.work.path("out")])
    #expect(export.status == 0, "\(export.stderr)")
    #expect(try web.work.bytes(export.stdout.trimmingCharacters(in: .newlines)) == original)

    let cleared = try web.gallery(["cache", "--clear"])
    #expect(cleared.status == 0 && cleared.stderr.contains("removed 1 cached download"))
    let failed = try web.gallery(["export", web.document, "1", "--to", web.work.path("out2")])
    #expect(failed.status == 1)
    #expect(failed.stderr.contains("cannot be downloaded: connection refused"), "\(failed.stderr)")
  }

  @Test("A link that now fails (404, an error page, a page instead of the image): the cached copy stands in")
  func cacheAfterTheLinkExpired() throws {
    let web = try WebSetup()
    let url = try web.image("expiring.jpg", seed: 6)
    let first = try web.gallery(["drop", web.document, url])
    #expect(first.status == 0 && !first.stderr.contains("stands in"), "\(first.stderr)")
    let original = try web.work.bytes(web.server.folder + "/expiring.jpg")
    // A copy the server says is current (304) is no stand-in either.
    let revalidated = try web.gallery(["export", web.document, "1", "--to", web.work.path("current")])
    #expect(revalidated.status == 0 && !revalidated.stderr.contains("stands in"), "\(revalidated.stderr)")
    #expect(try web.server.count("/files/expiring.jpg", "304") == 1)
    // Taken down: 404. Then an HTML page where the image was (what expired links often serve).
    try FileManager.default.removeItem(atPath: web.server.folder + "/expiring.jpg")
    let export = try web.gallery(["export", web.document, "1", "--to", web.work.path("out")])
    #expect(export.status == 0, "\(export.stderr)")
    #expect(try web.work.bytes(export.stdout.trimmingCharacters(in: .newlines)) == original)
    #expect(try web.server.count("/files/expiring.jpg", "404") == 1)
    // The user learns that the link no longer serves the image.
    #expect(
      export.stderr.contains("the download failed, the cached copy stands in: ") && export.stderr.contains("404"),
      "\(export.stderr)")
    try Data("<!doctype html><p>This link has expired</p>".utf8).write(
      to: URL(fileURLWithPath: web.server.folder + "/expiring.jpg"))
    let other = try web.work.document("other.gallery")
    let again = try web.gallery(["drop", "--keep-failed", other, url])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("the cached copy stands in: \(url): the body is not an image"), "\(again.stderr)")
    let items = try Listing.of(other).items
    #expect(items.count == 1 && items[0].state == "ready" && items[0].aspectRatio == 1.5)
    // Without the cache, the failure is the server's.
    #expect(try web.gallery(["cache", "--clear"]).status == 0)
    let failed = try web.gallery(["drop", other, url])
    #expect(failed.status == 1 && failed.stderr.contains("the body is not an image"), "\(failed.stderr)")
  }

  @Test("The cache keeps at most GALLERY_CACHE_SIZE bytes, evicting the least recently used")
  func cacheEviction() throws {
    let web = try WebSetup()
    let urls = try (0..<3).map { try web.image("e\($0).jpg", width: 300, height: 200, seed: $0 + 1) }
    let sizes = try (0..<3).map { try web.work.bytes(web.server.folder + "/e\($0).jpg").count }
    // Room for two entries (a header line each), not three.
    let limit = sizes[0] + sizes[1] + 1024
    var environment = web.environment
    environment["GALLERY_CACHE_SIZE"] = String(limit)
    for url in urls.prefix(2) {
      #expect(try Run.gallery(["drop", web.document, url], environment: environment).status == 0)
      usleep(20_000)  // distinct use times
    }
    // Using the first again makes the second the least recently used.
    #expect(try Run.gallery(["drop", web.document, urls[0]], environment: environment).status == 0)
    usleep(20_000)
    #expect(try Run.gallery(["drop", web.document, urls[2]], environment: environment).status == 0)
    let info = try Run.gallery(["cache", "--json"], environment: environment)
    let usage = try JSONSerialization.jsonObject(with: info.stdoutData) as? [String: Any]
    #expect(usage?["entries"] as? Int == 2)
    #expect(usage?["limit"] as? Int == limit)
    #expect((usage?["bytes"] as? Int ?? .max) <= limit)
    // The evicted one is downloaded again (200); the kept one is revalidated (304).
    #expect(try Run.gallery(["drop", web.document, urls[1], urls[0]], environment: environment).status == 0)
    #expect(try web.server.count("/files/e1.jpg", "200") == 2)
    #expect(try web.server.count("/files/e0.jpg", "200") == 1)

    // --trim evicts down to a size now.
    let trimmed = try Run.gallery(["cache", "--trim", "1", "--json"], environment: environment)
    #expect(trimmed.status == 0)
    #expect(
      (try JSONSerialization.jsonObject(with: trimmed.stdoutData) as? [String: Any])?["entries"] as? Int == 0, "\(trimmed.stdout)"
    )
  }

  @Test("SIGINT during downloads: committed items kept, pending placeholders removed, exit 130")
  func interrupt() throws {
    let web = try WebSetup()
    let quick = try web.image("quick.jpg", seed: 1)
    let held = try web.image("held.jpg", seed: 2, query: "hold=never")
    let log = web.document + ".stderr"
    let drop = try Run.start(["drop", web.document, quick, held], environment: web.environment, errors: log)
    ImageServer.waitUntil("the quick image") {
      try Listing.of(web.document).items.contains { $0.source == quick && $0.state == "ready" }
    }
    ImageServer.waitUntil("the held request") { try web.server.count("/files/held.jpg", "held") == 1 }
    let started = Date()
    kill(drop.processIdentifier, SIGINT)
    drop.wait()
    #expect(Date().timeIntervalSince(started) < 5, "the download in progress is aborted")
    #expect(drop.terminationStatus == 130)
    // The download it aborted is counted as not loaded, not as a failure.
    let messages = try String(contentsOfFile: log, encoding: .utf8)
    #expect(messages.contains("1 source(s) not loaded") && !messages.contains("not dropped"), "\(messages)")
    let items = try Listing.of(web.document).items
    #expect(items.map(\.source) == [quick] && items[0].state == "ready")
    #expect(try GalleryDocument.open(web.document).model.trash.isEmpty)
  }

  @Test("kill -9 during a download leaves a stale placeholder; retry loads it, check --fix would remove it")
  func staleAfterKill() throws {
    let web = try WebSetup()
    try web.dropKilledWhileDownloading("slow.jpg", seed: 3, holding: "forever")
    let stale = try Listing.of(web.document).items
    #expect(stale.count == 1 && stale[0].display == "stale")

    let copy = web.work.path("copy.gallery")
    try FileManager.default.copyItem(atPath: web.document, toPath: copy)
    #expect(try Run.gallery(["check", "--fix", copy]).status == 0)
    #expect(try Listing.of(copy).items.isEmpty)

    // The stored URL still holds the query; serve it without holding by releasing the key.
    try web.server.release("forever")
    let retried = try web.gallery(["retry", web.document])
    #expect(retried.status == 0, "\(retried.stderr)")
    let items = try Listing.of(web.document).items
    #expect(items.count == 1 && items[0].state == "ready" && items[0].aspectRatio == 2)
  }

  @Test("A placeholder another machine was loading: pending here, retried when named, the others said")
  func placeholderOfAnotherHost() throws {
    let web = try WebSetup()
    let url = try web.dropKilledWhileDownloading("synced.jpg", seed: 8, holding: "laptop")
    // The document as a sync tool brings it from a laptop whose drop was killed.
    let synced = web.work.path("synced.gallery")
    try HostileDocument.make(from: web.document, to: synced) { model in
      HostileDocument.items(&model) { items in
        var placeholder = items[0]["placeholder"] as! [String: Any]
        var owner = placeholder["owner"] as! [String: Any]
        owner["host"] = "laptop-of-someone-else"
        placeholder["owner"] = owner
        items[0]["placeholder"] = placeholder
      }
    }
    let id = try Listing.of(synced).items[0].id
    #expect(try Listing.of(synced).items.map(\.display) == ["pending"])
    try web.server.release("laptop")
    let unnamed = try Run.gallery(["retry", synced], environment: web.environment)
    #expect(unnamed.status == 0, "\(unnamed.stderr)")
    #expect(unnamed.stderr.contains("1 placeholder is being loaded by process"), "\(unnamed.stderr)")
    #expect(unnamed.stderr.contains("on laptop-of-someone-else"), "\(unnamed.stderr)")
    #expect(try Listing.of(synced).items.map(\.display) == ["pending"])
    let check = try Run.gallery(["check", "--fix", synced])
    #expect(check.status == 0 && check.stderr.contains("1 placeholder is being loaded by process"), "\(check.stderr)")
    #expect(try Listing.of(synced).items.map(\.display) == ["pending"])
    let named = try Run.gallery(["retry", synced, id], environment: web.environment)
    #expect(named.status == 0, "\(named.stderr)")
    let items = try Listing.of(synced).items
    #expect(items.map(\.state) == ["ready"] && items[0].id == id && items[0].aspectRatio == 2)
    // This machine's own live loads are still refused.
    let own = try web.start(["drop", web.document, url + "?hold=again"])
    // Held (the one before, the named retry's, this one): its placeholder is saved by then.
    ImageServer.waitUntil("the held request") { try web.server.count("/files/synced.jpg", "held") == 3 }
    let live = try Listing.of(web.document).items.filter { $0.display == "pending" }
    #expect(live.count == 1)
    let refused = try Run.gallery(["retry", web.document] + live.map(\.id), environment: web.environment)
    #expect(refused.status == 1 && refused.stderr.contains("is being loaded by process \(own.processIdentifier)"))
    try web.server.release("again")
    own.wait()
  }

  @Test("What an item cannot hold never reaches a save: a long line, a long page link, a server's long redirect")
  func valuesAnItemCannotHold() throws {
    let web = try WebSetup()
    // Before, each of these was saved, and the record it made damaged the document.
    let line = String(repeating: "a", count: 100_000)
    let long = try web.gallery(["drop", "--keep-failed", web.document, "-"], stdin: Data((line + "\n").utf8))
    #expect(long.status == 1 && long.stderr.contains("bytes long, over the 16384 an item holds"), "\(long.stderr)")
    #expect(long.stderr.utf8.count < 1000, "messages name a long source by its start")
    // An image-search link whose page link is longer than an item holds: the image, no page.
    let url = try web.image("found.jpg", width: 300, height: 150, seed: 10)
    let page = "https://example.org/" + String(repeating: "p", count: 17_000)
    let search = "https://www.google.com/imgres?imgurl=\(url)&imgrefurl=\(page)"
    #expect(try web.gallery(["drop", web.document, search]).status == 0)
    // A redirect to a 6,000-byte ftp:// URL: kept as failed, its reason cut to what an item holds.
    let redirected = try web.gallery(["drop", "--keep-failed", web.document, web.server.url("/to-ftp-long")])
    #expect(redirected.status == 1, "\(redirected.stderr)")
    let check = try Run.gallery(["check", web.document])
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    let items = try JSONSerialization.jsonObject(with: try Run.gallery(["show", "--json", web.document]).stdoutData)
    let listed = (items as? [String: Any])?["items"] as? [[String: Any]] ?? []
    #expect(listed.count == 2)
    #expect(listed.first?["source"] as? String == url && listed.first?["page"] == nil)
    let reason = listed.last?["failure"] as? String ?? ""
    #expect(reason.hasPrefix("redirect to ftp://127.0.0.1/xxx") && reason.hasSuffix("…") && reason.utf8.count <= 4096)
  }

  @Test("drop --embed of web images: the document travels; export works with no server and no cache")
  func embedWeb() throws {
    let web = try WebSetup()
    let urls = [try web.image("one.jpg", seed: 1), try web.image("two.png", format: .png, seed: 2)]
    let originals = try ["one.jpg", "two.png"].map { try web.work.bytes(web.server.folder + "/" + $0) }
    #expect(try web.gallery(["drop", "--embed", web.document] + urls).status == 0)
    #expect(try web.gallery(["cache", "--clear"]).status == 0)
    #expect(
      (try JSONSerialization.jsonObject(with: web.gallery(["cache", "--json"]).stdoutData) as? [String: Any])?["entries"] as? Int
        == 0)
    for name in ["one.jpg", "two.png"] { try FileManager.default.removeItem(atPath: web.server.folder + "/" + name) }
    let out = web.work.path("out")
    let export = try web.gallery(["export", web.document, "--to", out])
    #expect(export.status == 0, "\(export.stderr)")
    let files = export.stdout.split(separator: "\n").map(String.init)
    #expect(try files.map { try web.work.bytes($0) } == originals)
  }
}
