import Foundation

/// The proxies the environment names, as curl reads them: `https_proxy` for https URLs,
/// `http_proxy` for http ones (upper-case names too), and `no_proxy`, a comma-separated list
/// of hosts and domain suffixes (`*` for all) to reach directly. Loopback addresses are always
/// reached directly.
public struct ProxySettings: Sendable, Equatable {
  public struct Server: Sendable, Hashable {
    public var host: String
    public var port: Int
    public var username: String?
    public var password: String?
  }

  public var http: Server?
  public var https: Server?
  public var noProxy: [String]

  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    func value(_ name: String) -> String? {
      (environment[name] ?? environment[name.uppercased()]).flatMap { $0.isEmpty ? nil : $0 }
    }
    http = value("http_proxy").flatMap(Self.server)
    https = value("https_proxy").flatMap(Self.server)
    noProxy = (value("no_proxy") ?? "").split(separator: ",")
      .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
  }

  /// The proxy to reach `url` through, or nil to connect directly.
  public func server(for url: URL) -> Server? {
    guard let host = url.host?.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")) else { return nil }
    if ["localhost", "::1"].contains(host) || host.hasPrefix("127.") { return nil }
    for entry in noProxy {
      if entry == "*" { return nil }
      let domain = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
      if host == domain || host.hasSuffix("." + domain) { return nil }
    }
    return url.scheme?.lowercased() == "https" ? https : http
  }

  /// `http://[user:password@]host[:port]`, or a bare `host:port` (port 1080 when missing, as
  /// curl does).
  static func server(_ text: String) -> Server? {
    let withScheme = text.contains("://") ? text : "http://" + text
    guard let url = URL(string: withScheme), url.scheme?.lowercased() == "http", let host = url.host, !host.isEmpty else {
      return nil
    }
    return Server(
      host: host, port: url.port ?? 1080, username: url.user?.removingPercentEncoding,
      password: url.password?.removingPercentEncoding)
  }
}
