import Foundation
import GallerySystem

/// Who may use the view: the rules a request passes before any route sees it. A value with
/// no I/O, unit-tested without a server.
///
/// - The access token: in the URL that `open`/`serve` print (`?token=`), then in an
///   `HttpOnly`, `SameSite=Strict` cookie; a program may send it as `Authorization: Bearer`.
/// - The `Host` header must name the address the server is bound to (DNS rebinding: a page
///   of another site that resolves its name to 127.0.0.1 sends its own name).
/// - A request that changes something must come from the page's own `Origin` (CSRF), unless
///   it carries the token as a bearer header, which no foreign page can add without a CORS
///   preflight that the server never grants.
package struct ViewAccess: Sendable {
  package static let cookieName = "gallery_token"

  package let token: String
  /// `host:port` values the `Host` header may take.
  package let hosts: Set<String>

  /// Bound to every address: any IP literal is a valid Host.
  private let wildcard: Bool
  private let port: Int

  package init(token: String, bind: String, port: Int) {
    self.token = token
    self.port = port
    wildcard = ["0.0.0.0", "::", "[::]"].contains(bind)
    var names = [bind]
    // A browser given 127.0.0.1 or ::1 may say localhost, and the other way round.
    if ["127.0.0.1", "::1", "localhost"].contains(bind) { names = ["127.0.0.1", "localhost", "[::1]"] }
    if bind.contains(":") && !bind.hasPrefix("[") { names.append("[\(bind)]") }
    hosts = Set(names.map { "\($0):\(port)" })
  }

  /// A new random token: 32 bytes, hex.
  package static func newToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
  }

  package enum Verdict: Equatable {
    case allow
    /// The token came in the URL: set the cookie and send the browser to `location`, the
    /// same address without the token (so it stays out of history and bookmarks).
    case setCookie(location: String)
    case refuse(status: Int, reason: String)
  }

  package struct Request {
    package var method: String
    package var path: String
    package var query: [String: String]
    package var host: String?
    package var origin: String?
    package var cookieToken: String?
    package var authorization: String?

    package init(
      method: String, path: String, query: [String: String] = [:], host: String?, origin: String? = nil,
      cookieToken: String? = nil, authorization: String? = nil
    ) {
      self.method = method
      self.path = path
      self.query = query
      self.host = host
      self.origin = origin
      self.cookieToken = cookieToken
      self.authorization = authorization
    }
  }

  package func verdict(for request: Request) -> Verdict {
    guard let host = request.host?.lowercased(), hosts.contains(host) || isAddressOfWildcard(host) else {
      return .refuse(status: 403, reason: "the Host header does not name this server")
    }
    let bearer = request.authorization.flatMap { value -> String? in
      value.hasPrefix("Bearer ") ? String(value.dropFirst("Bearer ".count)) : nil
    }
    let safe = ["GET", "HEAD"].contains(request.method)
    if let bearer {
      return Self.same(bearer, token) ? .allow : .refuse(status: 403, reason: "wrong access token")
    }
    if safe, let given = request.query["token"] {
      guard Self.same(given, token) else { return .refuse(status: 403, reason: "wrong access token") }
      var rest = request.query
      rest["token"] = nil
      let query = rest.sorted { $0.key < $1.key }.map { "\(Self.escape($0.key))=\(Self.escape($0.value))" }
      // Only a path of this server: "//host/..." would send the browser elsewhere.
      let path = request.path.hasPrefix("/") && !request.path.hasPrefix("//") ? request.path : "/"
      return .setCookie(location: path + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
    }
    guard let cookie = request.cookieToken, Self.same(cookie, token) else {
      return .refuse(status: 403, reason: noTokenReason)
    }
    if !safe {
      // Same origin: the page this request's Host names.
      guard let origin = request.origin, origin.lowercased() == "http://" + host else {
        return .refuse(status: 403, reason: "a change must come from the gallery's own page")
      }
    }
    return .allow
  }

  package var noTokenReason: String {
    "no access token: open the address that `gallery open` or `gallery serve` printed"
  }

  /// Bound to every address (0.0.0.0 or ::), the server is reached by any of the machine's
  /// addresses: a Host that is an IP address literal with our port is safe from DNS
  /// rebinding (that needs a name), so it is accepted; names still are not.
  private func isAddressOfWildcard(_ host: String) -> Bool {
    guard wildcard, let colon = host.lastIndex(of: ":"), host[host.index(after: colon)...] == String(port) else { return false }
    let address = host[..<colon]
    if address.hasPrefix("[") && address.hasSuffix("]") {
      return address.dropFirst().dropLast().allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }
    let parts = address.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts.allSatisfy { part in part.count <= 3 && UInt8(part) != nil }
  }

  /// Compares in time that does not depend on where the strings differ.
  static func same(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    guard x.count == y.count else { return false }
    return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
  }

  private static func escape(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
  }

  /// Headers on every response: nothing but the page's own files runs, nothing frames it,
  /// nothing is sniffed, no address leaks in a Referer.
  package static let securityHeaders: [(String, String)] = [
    (
      "Content-Security-Policy",
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
  ]
}
