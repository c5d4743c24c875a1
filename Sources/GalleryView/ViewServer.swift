import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem
import GalleryViewRules
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// How the view is served.
package struct ViewConfiguration: Sendable {
  package var bind = "127.0.0.1"
  /// 0: a free port.
  package var port = 0
  package var token = ViewAccess.newToken()
  /// Stop after this long without an open page (nil: run until stopped).
  package var idleExit: Duration?
  /// Limits of a page's drop.
  package var maxUploadBytes = 512 << 20

  package init() {}
}

/// The browser view: an HTTP server (Hummingbird) for the document browser and gallery
/// pages, their JSON, thumbnails and originals, their edits, and a stream of changes. Every
/// edit goes through the same library calls as the commands.
package final class ViewServer: Sendable {
  package let configuration: ViewConfiguration
  package let documents: ServedDocuments
  let feed = ChangeFeed()
  /// Larger renditions of originals, for sharp tiles (see `PreviewCache`).
  let previews = PreviewCache()
  let drops: DropRunner
  private let access = Mutex<ViewAccess?>(nil)
  /// Uploads being received: each may hold up to `maxUploadBytes`, so only a few at once.
  let uploads = Atomic<Int>(0)
  static let maxUploadsAtOnce = 4
  static let idleTimeoutSeconds: Int64 = 10
  static let maxConnections = 4096

  package init(configuration: ViewConfiguration, documents: ServedDocuments) {
    self.configuration = configuration
    self.documents = documents
    self.drops = DropRunner()
  }

  /// Runs until SIGINT or SIGTERM, or until idle; `announce` gets the address (with the
  /// token) once the server listens.
  package func run(logger: Logger, announce: @escaping @Sendable (_ base: String, _ port: Int) async -> Void) async throws {
    let router = Router()
    // Outermost first: every answer gets the security headers, every error a JSON message,
    // and no route runs for a request the access rules refuse.
    router.add(middleware: SecurityHeadersMiddleware())
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: AccessMiddleware(server: self))
    PageController(feed: feed).addRoutes(to: router)
    DocumentListController(documents: documents, feed: feed).addRoutes(to: router)
    DocumentController(server: self).addRoutes(to: router.group("/api/documents/:id"))
    // A connection that sends nothing (no request, or a request's head that never ends) is
    // closed after a while, and connections are capped below the descriptors this process
    // may open: idle sockets cannot stop the server from answering (an event stream, a
    // response in progress, is not idle).
    let descriptors = ProcessLimits.raiseOpenFiles()
    let app = Application(
      router: router,
      server: .http1(configuration: .init(idleTimeout: .seconds(Self.idleTimeoutSeconds))),
      configuration: .init(
        address: .hostname(configuration.bind, port: configuration.port), serverName: "gallery",
        availableConnectionsDelegate: MaximumAvailableConnections(
          max(64, min(Self.maxConnections, descriptors - 256)), logger: logger)),
      onServerRunning: { [self] channel in
        let port = channel.localAddress?.port ?? configuration.port
        access.withLock { $0 = ViewAccess(token: configuration.token, bind: configuration.bind, port: port) }
        let host = configuration.bind.contains(":") ? "[\(configuration.bind)]" : configuration.bind
        await announce("http://\(host):\(port)", port)
      },
      logger: logger)
    var services: [any Service] = [app, DocumentMonitor(documents: documents, feed: feed), drops]
    if let idle = configuration.idleExit { services.append(IdleExit(feed: feed, timeout: idle)) }
    let group = ServiceGroup(
      configuration: .init(
        services: services.map {
          .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup)
        },
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
  }

  func currentAccess() -> ViewAccess? { access.withLock { $0 } }

  /// A page's edit request, read from the body (bounded).
  static func edit(_ request: Request) async throws -> EditRequest {
    var request = request
    let body = try await request.collectBody(upTo: EditRequest.maxBytes)
    if body.readableBytes == 0 { return EditRequest() }
    do { return try EditRequest.parse(Array(buffer: body)) } catch {
      throw ViewError.badRequest("the request is not valid: \(error)")
    }
  }

  /// JSON the model's codec wrote (a document, items, the list of documents).
  static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    headers[.cacheControl] = "no-store"
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
  }
}
