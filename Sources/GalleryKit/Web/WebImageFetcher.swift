import AsyncHTTPClient
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// Limits of web downloads.
public struct WebLimits: Sendable {
  /// Seconds for the whole download, redirects included.
  public var timeout: TimeInterval = 60
  /// Seconds to establish a connection.
  public var connectTimeout: TimeInterval = 10
  /// Bytes of body accepted at most, enforced while the body streams in; local files too.
  public var maxBytes = ImageOptions.defaultMaxFileBytes
  /// The largest `maxBytes` may be: an embedded original must fit in a document entry.
  public static let maxBytesCeiling = Int(DocumentArchive.originalSizeLimit)
  /// Redirects followed at most.
  public var maxRedirects = 5
  /// Sent as `User-Agent`.
  public var userAgent = "gallery/\(GalleryVersion.current) (image gallery documents)"

  public init() {}
}

/// The version of the tool, for the User-Agent and `--version`.
public enum GalleryVersion {
  public static let current = "0.2.0"
}

/// An image body, downloaded or taken from the cache.
public struct WebDownload: Sendable {
  public var body: Data
  /// Where the body was finally served from, after redirects.
  public var finalURL: String
  /// Why the download failed when the cached copy stands in for it (a link that expired,
  /// a server down); nil when the body was downloaded or the cached copy is current (304).
  public var standingInFor: WebFailure?
}

/// Downloads images over http(s) with AsyncHTTPClient: connect and total timeouts, redirects
/// followed by hand (at most `maxRedirects`, http and https only, loops refused), a body limit
/// checked while streaming, content recognised by its bytes, revalidation through the cache.
///
/// Owns its `HTTPClient`s (one to connect directly, one per proxy the environment names);
/// `shutdown()` before it goes away. Cancelling the task that awaits `fetch` aborts the
/// transfer.
public final class WebImageFetcher: Sendable {
  private let clients = Mutex<[ProxySettings.Server?: HTTPClient]>([:])
  /// Whether a body was stored, so the cache is trimmed once, at `shutdown()`.
  private let stored = Atomic<Bool>(false)
  public let limits: WebLimits
  public let cache: DownloadCache?
  public let proxies: ProxySettings

  public init(limits: WebLimits = .init(), cache: DownloadCache? = DownloadCache(), proxies: ProxySettings = .init()) {
    self.limits = limits
    self.cache = cache
    self.proxies = proxies
  }

  /// The system's trust roots, plus the certificates of `$SSL_CERT_FILE` (PEM), as OpenSSL
  /// tools read it: a company's own certificate authority, a test server's certificate.
  static var tlsConfiguration: TLSConfiguration {
    var configuration = TLSConfiguration.makeClientConfiguration()
    if let file = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !file.isEmpty {
      configuration.additionalTrustRoots = [.file(file)]
    }
    return configuration
  }

  public func shutdown() async {
    for client in clients.withLock({ Array($0.values) }) { try? await client.shutdown() }
    if stored.load(ordering: .relaxed) { cache?.evict() }
  }

  private func client(through proxy: ProxySettings.Server?) -> HTTPClient {
    clients.withLock { clients in
      if let client = clients[proxy] { return client }
      var configuration = HTTPClient.Configuration(
        redirectConfiguration: .disallow,
        timeout: .init(
          connect: .milliseconds(Int64(limits.connectTimeout * 1000)),
          read: .milliseconds(Int64(limits.timeout * 1000))),
        decompression: .enabled(limit: .size(limits.maxBytes)))
      // A refused connection is an answer: report it now rather than retry until the timeout.
      configuration.connectionPool.retryConnectionEstablishment = false
      configuration.tlsConfiguration = Self.tlsConfiguration
      switch proxy?.kind {
      case .http?:
        let authorization = proxy?.username.map { HTTPClient.Authorization.basic(username: $0, password: proxy?.password ?? "") }
        configuration.proxy = .server(host: proxy!.host, port: proxy!.port, authorization: authorization)
      case .socks5?:
        configuration.proxy = .socksServer(host: proxy!.host, port: proxy!.port)
      case nil:
        break
      }
      let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
      clients[proxy] = client
      return client
    }
  }

  /// Downloads the image at `url`, or takes it from the cache when the server says it has
  /// not changed, cannot be reached, or no longer serves it.
  public func fetch(_ url: URL) async -> Result<WebDownload, WebFailure> {
    let key = url.absoluteString
    let cached = cache?.lookup(key)
    let failure: WebFailure?
    switch await download(url, cached: cached) {
    case .success(let download?): return .success(download)
    case .success(nil): failure = nil  // 304: the cached copy is current
    case .failure(.cancelled): return .failure(.cancelled)
    case .failure(let error): failure = error
    }
    // Whatever else went wrong (offline, a server down, a link that expired or was taken
    // down, a page where the image was), what the server served before is still the image
    // dropped: the cached copy stands in, as HTTP's stale-if-error lets a cache answer.
    guard let cached, let body = cached.body() else {
      return .failure(failure ?? .transport("the cached copy could not be read"))
    }
    cache?.touch(key)
    return .success(WebDownload(body: body, finalURL: cached.entry.finalURL, standingInFor: failure))
  }

  /// The image at `url`, revalidating the `cached` copy when there is one: nil when the
  /// server says it has not changed (304).
  private func download(_ url: URL, cached: DownloadCache.CachedCopy?) async -> Result<WebDownload?, WebFailure> {
    let key = url.absoluteString
    let deadline = NIODeadline.now() + .milliseconds(Int64(limits.timeout * 1000))
    var current = url
    var visited: Set<String> = [key]
    var redirects = 0
    while true {
      guard !Task.isCancelled else { return .failure(.cancelled) }
      guard let scheme = current.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
        return .failure(.refusedScheme(current.absoluteString))
      }
      var request = HTTPClientRequest(url: current.absoluteString)
      request.headers.add(name: "User-Agent", value: limits.userAgent)
      request.headers.add(name: "Accept", value: "image/avif,image/webp,image/png,image/jpeg,image/*;q=0.9,*/*;q=0.5")
      if let cached, cached.entry.finalURL == current.absoluteString {
        if let etag = cached.entry.etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = cached.entry.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
      }
      let proxy: ProxySettings.Server?
      switch proxies.route(for: current) {
      case .direct: proxy = nil
      case .through(let server): proxy = server
      // Never around a proxy the user named: going direct could leak where they go.
      case .unusable(let message): return .failure(.proxy(message))
      }
      let head: HTTPClientResponse
      var body = Data()
      do {
        head = try await client(through: proxy).execute(request, deadline: deadline)
        // Only an image's body is wanted, not a redirect's or an error page's.
        if (200..<300).contains(head.status.code) {
          if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > limits.maxBytes {
            return .failure(.tooLarge(limit: limits.maxBytes))
          }
          let collected = try await head.body.collect(upTo: limits.maxBytes)
          // The Data shares the buffer's storage: a body is copied once, off the wire.
          body =
            collected.getData(at: collected.readerIndex, length: collected.readableBytes, byteTransferStrategy: .noCopy) ?? Data()
        }
      } catch is NIOTooManyBytesError {
        return .failure(.tooLarge(limit: limits.maxBytes))
      } catch {
        var failure = WebFailure(error, host: current.host ?? "", timeout: limits.timeout)
        if Task.isCancelled { failure = .cancelled }
        // What could not be reached was the proxy, not the server.
        if let proxy {
          switch failure {
          case .connectionRefused: failure = .proxy("the proxy \(proxy) refused the connection")
          case .cannotResolve: failure = .proxy("cannot resolve the proxy's host \(proxy.host)")
          default: break
          }
        }
        return .failure(failure)
      }

      if cached != nil, head.status.code == 304 { return .success(nil) }
      switch head.status.code {
      case 200..<300:
        guard ImageProcessor.recognises(body.prefix(LocalImageLoader.precheckPrefix)) else {
          return .failure(.notAnImage(contentType: head.headers.first(name: "Content-Type")))
        }
        cache?.store(
          DownloadCache.Entry(
            url: key, finalURL: current.absoluteString,
            etag: head.headers.first(name: "ETag"),
            lastModified: head.headers.first(name: "Last-Modified"),
            contentType: head.headers.first(name: "Content-Type"), stored: Date()),
          body: body)
        stored.store(true, ordering: .relaxed)
        return .success(WebDownload(body: body, finalURL: current.absoluteString))
      case 301, 302, 303, 307, 308:
        guard let location = head.headers.first(name: "Location"),
          let next = URL(string: location, relativeTo: current)?.absoluteURL
        else { return .failure(.badRedirect) }
        // A redirect to another scheme is refused at the top of the loop.
        guard visited.insert(next.absoluteString).inserted else { return .failure(.redirectLoop(next.absoluteString)) }
        redirects += 1
        guard redirects <= limits.maxRedirects else { return .failure(.tooManyRedirects(limits.maxRedirects)) }
        current = next
      default:
        return .failure(.status(Int(head.status.code), head.status.reasonPhrase))
      }
    }
  }
}

/// Why a download failed, in words for the user.
public enum WebFailure: Error, Sendable, Equatable, CustomStringConvertible {
  case cannotResolve(String)
  case connectionRefused(String)
  case timedOut(TimeInterval)
  case status(Int, String)
  case notAnImage(contentType: String?)
  case tooLarge(limit: Int)
  case tooManyRedirects(Int)
  case redirectLoop(String)
  case refusedScheme(String)
  case badRedirect
  case cancelled
  case transport(String)
  /// The proxy could not be reached or used.
  case proxy(String)

  init(_ error: any Error, host: String, timeout: TimeInterval) {
    if let error = error as? WebFailure {
      self = error
    } else if let error = error as? NIOConnectionError {
      if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
        self = .cannotResolve(host)
      } else if error.connectionErrors.contains(where: { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }) {
        self = .connectionRefused(host)
      } else {
        self = .transport("cannot connect to \(host)")
      }
    } else if error is CancellationError {
      self = .cancelled
    } else if let error = error as? HTTPClientError {
      switch error {
      case .deadlineExceeded, .readTimeout, .connectTimeout, .getConnectionFromPoolTimeout: self = .timedOut(timeout)
      case .cancelled: self = .cancelled
      case .remoteConnectionClosed: self = .transport("the server closed the connection before the end of the body")
      case .invalidProxyResponse: self = .transport("the proxy would not connect to \(host)")
      case .proxyAuthenticationRequired:
        self = .transport("the proxy asks for a user name and password (put them in the proxy URL)")
      case .httpProxyHandshakeTimeout: self = .timedOut(timeout)
      default: self = .transport("\(error)")
      }
    } else if case NIOSSLError.handshakeFailed(let reason) = error {
      // NIOSSL keeps BoringSSL's reason code private: its text is all there is to tell an
      // untrusted certificate from another failed handshake.
      if "\(reason)".contains("CERTIFICATE_VERIFY_FAILED") {
        self = .transport(
          "the TLS certificate of \(host) is not trusted (a certificate authority of your own goes in $SSL_CERT_FILE)")
      } else {
        self = .transport("TLS handshake with \(host) failed: \(reason)")
      }
    } else if let error = error as? NIOSSLError {
      self = .transport("TLS with \(host) failed: \(error)")
    } else if let error = error as? IOError, error.errnoCode == ECONNREFUSED {
      self = .connectionRefused(host)
    } else if case SocketAddressError.unknown = error {
      self = .cannotResolve(host)
    } else {
      self = .transport("\(error)")
    }
  }

  public var description: String {
    switch self {
    case .cannotResolve(let host): "cannot resolve host \(host)"
    case .connectionRefused(let host): "connection refused by \(host)"
    case .timedOut(let seconds): "timed out after \(seconds.formatted()) s"
    case .status(let code, let reason): "HTTP \(code) \(reason)"
    case .notAnImage(let type):
      "the body is not an image" + (type.map { " (the server said \($0))" } ?? "")
    case .tooLarge(let limit):
      "the body is larger than the \(ByteCountFormatter.string(fromByteCount: Int64(limit), countStyle: .binary)) limit"
    case .tooManyRedirects(let limit): "too many redirects (more than \(limit))"
    case .redirectLoop(let url): "redirect loop at \(url)"
    case .refusedScheme(let url): "redirect to \(url) refused: only http and https are followed"
    case .badRedirect: "a redirect without a usable Location"
    case .cancelled: "cancelled"
    case .transport(let text), .proxy(let text): text
    }
  }
}

extension TimeInterval {
  fileprivate func formatted() -> String {
    self == rounded() ? String(Int(self)) : String(format: "%.1f", self)
  }
}
