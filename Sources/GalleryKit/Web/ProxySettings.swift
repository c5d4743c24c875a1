import Foundation

/// The proxies the environment names, as curl reads them: `https_proxy` (or `HTTPS_PROXY`)
/// for https URLs, `http_proxy` for http ones (lower case only: a CGI server sets
/// `HTTP_PROXY` from a request's `Proxy:` header, the "httpoxy" attack), `all_proxy` (or
/// `ALL_PROXY`) for both when those are unset, and `no_proxy` (or `NO_PROXY`), a
/// comma-separated list of hosts and domain suffixes (`*` for all) to reach directly.
/// Loopback addresses are always reached directly.
///
/// Proxies are `http://` (a CONNECT tunnel), `socks5://` or `socks5h://` (the proxy resolves
/// names in both); a proxy of another scheme is refused with a message, never bypassed.
public struct ProxySettings: Sendable, Equatable {
  public struct Server: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable { case http, socks5 }
    public var kind: Kind
    public var host: String
    public var port: Int
    public var username: String?
    public var password: String?

    public var description: String { "\(kind == .http ? "http" : "socks5")://\(host):\(port)" }
  }

  /// How to reach a URL.
  public enum Route: Sendable, Equatable {
    case direct
    case through(Server)
    /// The environment names a proxy gallery cannot use: the message says which and why.
    case unusable(String)
  }

  typealias Setting = Result<Server, Unusable>
  struct Unusable: Error, Equatable { var message: String }

  var http: Setting?
  var https: Setting?
  public var noProxy: [String]

  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    func value(_ names: String...) -> (name: String, text: String)? {
      for name in names { if let text = environment[name], !text.isEmpty { return (name, text) } }
      return nil
    }
    let all = value("all_proxy", "ALL_PROXY")
    http = (value("http_proxy") ?? all).map { Self.parse($0.text, variable: $0.name) }
    https = (value("https_proxy", "HTTPS_PROXY") ?? all).map { Self.parse($0.text, variable: $0.name) }
    noProxy = (value("no_proxy", "NO_PROXY")?.text ?? "").split(separator: ",")
      .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
  }

  /// How to reach `url`.
  public func route(for url: URL) -> Route {
    guard let host = url.host?.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")) else { return .direct }
    if ["localhost", "::1"].contains(host) || host.hasPrefix("127.") { return .direct }
    for entry in noProxy {
      if entry == "*" { return .direct }
      let domain = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
      if host == domain || host.hasSuffix("." + domain) { return .direct }
    }
    switch url.scheme?.lowercased() == "https" ? https : http {
    case nil: return .direct
    case .success(let server): return .through(server)
    case .failure(let unusable): return .unusable(unusable.message)
    }
  }

  /// `SCHEME://[user:password@]host[:port]`, or a bare `host:port` (an http proxy; port 1080
  /// when missing, as curl does).
  static func parse(_ text: String, variable: String) -> Setting {
    let withScheme = text.contains("://") ? text : "http://" + text
    guard let url = URL(string: withScheme), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
      return .failure(Unusable(message: "the proxy in $\(variable) (\(text)) is not a URL"))
    }
    let kind: Server.Kind
    switch scheme {
    case "http": kind = .http
    case "socks5", "socks5h": kind = .socks5
    default:
      return .failure(
        Unusable(
          message: "the proxy in $\(variable) uses \(scheme)://, which gallery does not support (http://, socks5://, socks5h://)")
      )
    }
    if kind == .socks5, url.user != nil {
      return .failure(Unusable(message: "the SOCKS proxy in $\(variable) asks for a password, which gallery does not support"))
    }
    return .success(
      Server(
        kind: kind, host: host, port: url.port ?? 1080, username: url.user?.removingPercentEncoding,
        password: url.password?.removingPercentEncoding))
  }
}
