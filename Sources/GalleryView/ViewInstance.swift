import AsyncHTTPClient
import Foundation
import GalleryModel
import GallerySystem
import GalleryViewRules
import NIOCore

/// The one view server of a user, as `gallery open` finds it: a file in the user's runtime
/// folder (0700) with its address, token and process id, written when it listens and
/// removed when it stops. `open` holds a lock beside it while it finds or starts a server,
/// so that two at once start one.
package struct ViewInstance: Codable, Equatable, Sendable {
  package var pid: Int32
  package var base: String
  package var token: String

  package init(pid: Int32, base: String, token: String) {
    self.pid = pid
    self.base = base
    self.token = token
  }

  package static func folder() throws -> String { try FileSystem.userRuntimeFolder("gallery") }

  package static func file() throws -> String { try folder() + "/view.json" }

  /// The instance on record, when its process still runs.
  package static func current() -> ViewInstance? {
    guard let path = try? file(), let data = try? FileSystem.read(path, limit: 64 << 10, followLinks: false),
      let instance = try? parse(Array(data)), ProcessStart.exists(instance.pid)
    else { return nil }
    return instance
  }

  package func record() throws {
    try FileSystem.writeAtomically(try JSONEncoder.sorted().encode(self), to: try Self.file(), mode: 0o600)
  }

  /// Removes the record if it is this one's.
  package func forget() {
    guard let path = try? Self.file(), let data = try? FileSystem.read(path, limit: 64 << 10, followLinks: false),
      (try? Self.parse(Array(data))) == self
    else { return }
    _ = FileSystem.remove(path)
  }

  package static func parse(_ bytes: [UInt8]) throws -> ViewInstance {
    try JSONDecoder().decode(ViewInstance.self, from: Data(bytes))
  }

  /// Holds the lock of the record while `body` runs.
  package static func locked<T>(_ body: () async throws -> T) async throws -> T {
    let lock = try FileHandleFD(path: try folder() + "/view.lock", flags: O_RDWR | O_CREAT, mode: 0o600)
    try lock.lockExclusive()
    defer { withExtendedLifetime(lock) {} }
    return try await body()
  }
}

extension ViewInstance {
  /// Asks the running server to show a document; returns the page's address, token
  /// included. Nil when the server does not answer as a view server should.
  package func open(_ absolute: String) async -> String? {
    var request = HTTPClientRequest(url: base + "/api/open")
    request.method = .POST
    request.headers.add(name: "Authorization", value: "Bearer " + token)
    request.headers.add(name: "Content-Type", value: "application/json")
    struct Open: Encodable { var name: String }
    guard let payload = try? JSONEncoder().encode(Open(name: absolute)) else { return nil }
    request.body = .bytes(ByteBuffer(bytes: payload))
    guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(10)), response.status == .ok,
      let body = try? await response.body.collect(upTo: 64 << 10),
      let id = try? EditRequest.parseID(Array(buffer: body))
    else { return nil }
    return pageAddress(id: id)
  }

  package func pageAddress(id: String?) -> String {
    base + (id.map { "/d/" + $0 } ?? "/") + "?token=" + token
  }
}
