import Foundation

/// An image-search result link, which is what a browser drags out of a search page: Google's
/// `.../imgres?imgurl=<image>&imgrefurl=<page>`, Bing's `.../images/search?mediaurl=<image>`
/// (its page in `purl`): the image is that parameter, not the link.
public struct ImageSearchResult: Sendable, Equatable {
  public var image: URL
  public var page: URL?

  /// The parameters that name the image, and the page it was found on, for each engine.
  private static let engines: [(image: String, page: String)] = [("imgurl", "imgrefurl"), ("mediaurl", "purl")]

  /// Nil unless `url` carries an http(s) `imgurl` or `mediaurl` parameter (keys matched
  /// case-insensitively). A parameter that decodes to any other scheme is ignored: a web
  /// link never becomes a local file.
  public init?(url: URL) {
    let parameters = Self.queryParameters(of: url.absoluteString)
    func value(_ key: String) -> String? { parameters.first { $0.key.lowercased() == key }?.value }
    for engine in Self.engines {
      guard let image = Self.webURL(value(engine.image)) else { continue }
      self.image = image
      self.page = Self.webURL(value(engine.page))
      return
    }
    return nil
  }

  /// The query's `key=value` pairs in order, form-decoded: `+` is a space, `%XX` a byte
  /// (UTF-8), and a value keeps any further `=` it contains.
  static func queryParameters(of text: String) -> [(key: String, value: String)] {
    guard let question = text.firstIndex(of: "?") else { return [] }
    var query = text[text.index(after: question)...]
    if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
    return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
      guard let equals = pair.firstIndex(of: "=") else { return (formDecoded(pair), "") }
      return (formDecoded(pair[..<equals]), formDecoded(pair[pair.index(after: equals)...]))
    }
  }

  static func formDecoded(_ text: Substring) -> String {
    let spaced = text.replacingOccurrences(of: "+", with: " ")
    return spaced.removingPercentEncoding ?? spaced
  }

  private static func webURL(_ text: String?) -> URL? {
    text.flatMap(Self.canonicalWebURL)
  }

  /// An http(s) URL with a host, its scheme in lower case (schemes are case-insensitive,
  /// RFC 3986; the item keeps one spelling), or nil.
  static func canonicalWebURL(_ text: String) -> URL? {
    guard let colon = text.firstIndex(of: ":") else { return nil }
    let scheme = text[..<colon].lowercased()
    guard scheme == "http" || scheme == "https", let url = URL(string: scheme + text[colon...]),
      let host = url.host, !host.isEmpty
    else { return nil }
    return url
  }
}
