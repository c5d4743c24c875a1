import Foundation
import Testing

/// The real HTTP server of `scripts/image-server`, on 127.0.0.1, serving a folder of the test's
/// own; stopped when the value goes away.
final class ImageServer {
  let folder: String
  let port: Int
  private let server: BackgroundProgram

  static let script: String = {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/image-server").path
  }()

  let scheme: String

  /// Serves `folder`; over HTTPS when given a certificate and its key (PEM files).
  init(serving folder: String, tls: (certificate: String, key: String)? = nil) throws {
    self.folder = folder
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    server = try BackgroundProgram(["python3", Self.script, folder] + (tls.map { ["--tls", $0.certificate, $0.key] } ?? []))
    port = server.announced
    scheme = tls == nil ? "http" : "https"
  }

  /// Stops the server: connections to its port are refused from now on.
  func stop() { server.stop() }

  struct ServerError: Error, CustomStringConvertible { var description: String }

  func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

  /// Sends a GET and returns the body (for /stats and /release).
  @discardableResult
  func get(_ path: String) throws -> Data {
    let result = try Run.program("curl", ["-sS", "--insecure", "--max-time", "10", url(path)])
    guard result.status == 0 else { throw ServerError(description: "curl \(path): \(result.stderr)") }
    return result.stdoutData
  }

  struct Stats: Decodable {
    var paths: [String: [String: Int]]
    var agents: [String]
  }

  func stats() throws -> Stats { try JSONDecoder().decode(Stats.self, from: get("/stats")) }

  /// Responses with `status` (or "held": requests waiting) for a path.
  func count(_ path: String, _ status: String = "200") throws -> Int { try stats().paths[path]?[status] ?? 0 }

  func release(_ key: String) throws { try get("/release/\(key)") }

  /// Waits until `condition` holds; records an issue after `timeout` seconds.
  @discardableResult
  static func waitUntil(
    _ what: String, timeout: TimeInterval = 20, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () throws -> Bool
  ) -> Bool {
    let end = Date() + timeout
    while Date() < end {
      // An error (a read racing a save) counts as not yet.
      if (try? condition()) == true { return true }
      usleep(20_000)
    }
    Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
    return false
  }
}
