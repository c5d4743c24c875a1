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
  let drops: DropRunner
  private let access = Mutex<ViewAccess?>(nil)
  /// Uploads being received: each may hold up to `maxUploadBytes`, so only a few at once.
  private let uploads = Atomic<Int>(0)
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
    router.add(middleware: AccessMiddleware(server: self))
    routes(router)
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

  // MARK: - Routes

  private func routes(_ router: Router<BasicRequestContext>) {
    router.get("/") { _, _ in Self.asset("index.html") }
    router.get("/d/:id") { _, _ in Self.asset("index.html") }
    router.get("/assets/:name") { request, context in
      let name = try context.parameters.require("name")
      guard EmbeddedAssets.files[name] != nil else { throw ViewError.notFound("no such file") }
      return Self.asset(name, ifNoneMatch: request.headers[.ifNoneMatch])
    }
    router.get("/api/events") { [self] _, _ in events() }
    router.get("/api/documents") { [self] _, _ in try await listing() }
    router.post("/api/documents") { [self] request, _ in try await create(try await Self.edit(request)) }
    // For `gallery open` only: a page never names a path (a bearer token is what the
    // middleware checked; a cookie does not do here).
    router.post("/api/open") { [self] request, _ in
      guard request.headers[.authorization] != nil else { throw ViewError.forbidden("for `gallery open` only") }
      return try await openDocument(try await Self.edit(request))
    }
    router.get("/api/documents/:id") { [self] _, context in try await model(try id(context)) }
    router.get("/api/documents/:id/cover") { [self] _, context in try await cover(try id(context)) }
    router.get("/api/documents/:id/thumbnails/:item") { [self] request, context in
      try await thumbnail(try id(context), item: try context.parameters.require("item"), request: request)
    }
    router.get("/api/documents/:id/originals/:item") { [self] _, context in
      try await original(try id(context), item: try context.parameters.require("item"))
    }
    router.post("/api/documents/:id/:action") { [self] request, context in
      let id = try id(context)
      let action = try context.parameters.require("action")
      if action == "drop" { return try await drop(into: id, request) }
      return try await perform(action, on: id, try await Self.edit(request))
    }
  }

  private func id(_ context: BasicRequestContext) throws -> String {
    let id = try context.parameters.require("id")
    guard documents.path(for: id) != nil else { throw ViewError.notFound("no such document: open it again from the list") }
    return id
  }

  private func path(_ id: String) throws -> String {
    guard let path = documents.path(for: id) else { throw ViewError.notFound("no such document") }
    return path
  }

  static func edit(_ request: Request) async throws -> EditRequest {
    var request = request
    let body = try await request.collectBody(upTo: EditRequest.maxBytes)
    if body.readableBytes == 0 { return EditRequest() }
    do { return try EditRequest.parse(Array(buffer: body)) } catch {
      throw ViewError.badRequest("the request is not valid: \(error)")
    }
  }

  // MARK: - Pages and files

  static func asset(_ name: String, ifNoneMatch: String? = nil) -> Response {
    let text = EmbeddedAssets.files[name] ?? ""
    let tag = "\"" + String(contentHash(of: Data(text.utf8)).dropFirst("sha256:".count).prefix(20)) + "\""
    var headers = HTTPFields()
    headers[.contentType] = mediaType(ofAsset: name)
    headers[.eTag] = tag
    // The page's files change with the binary: revalidated each load, 304 when unchanged.
    headers[.cacheControl] = "no-cache"
    if ifNoneMatch == tag { return Response(status: .notModified, headers: headers) }
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
  }

  static func mediaType(ofAsset name: String) -> String {
    switch (name as NSString).pathExtension {
    case "html": "text/html; charset=utf-8"
    case "css": "text/css; charset=utf-8"
    case "js": "text/javascript; charset=utf-8"
    case "svg": "image/svg+xml"
    default: "application/octet-stream"
    }
  }

  static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    headers[.cacheControl] = "no-store"
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
  }

  private func events() -> Response {
    let stream = feed.listen()
    var headers = HTTPFields()
    headers[.contentType] = "text/event-stream"
    headers[.cacheControl] = "no-store"
    return Response(
      status: .ok, headers: headers,
      body: ResponseBody { writer in
        try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
        for await event in stream { try await writer.write(ByteBuffer(string: event.serverSent)) }
        try await writer.finish(nil)
      })
  }

  private func listing() async throws -> Response {
    let documents = self.documents
    let bytes = try await BlockingWork.run {
      let summaries = documents.listedPaths().map { path in
        var summary = ViewJSON.Summary(id: documents.id(for: path), path: path)
        do {
          let model = try documents.model(of: path)
          summary.title = model.title
          summary.items = model.items.count
          summary.pending = model.items.filter { $0.state == .placeholder }.count
          summary.failed = model.items.filter { $0.state == .failed }.count
          summary.trashed = model.trash.count
          summary.modified = model.modified
        } catch {
          summary.problem = "\(error)"
        }
        return summary
      }
      return ViewJSON.documents(summaries, folders: documents.servedFolders)
    }
    return Self.json(bytes)
  }

  private func model(_ id: String) async throws -> Response {
    let path = try path(id)
    let documents = self.documents
    let model = try await BlockingWork.run { try documents.model(of: path) }
    return Self.json(ViewJSON.document(id: id, path: path, model: model))
  }

  private func cover(_ id: String) async throws -> Response {
    let path = try path(id)
    let documents = self.documents
    // The cover a save made; a document from elsewhere may lack it: made from its thumbnails.
    let data = try await BlockingWork.run {
      try documents.reading(path) { document in
        try (try? document.cover()) ?? document.cover(size: 256, suffix: ".jpg")
      }
    }
    var headers = HTTPFields()
    headers[.contentType] = "image/jpeg"
    headers[.cacheControl] = "no-cache"
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
  }

  /// A thumbnail; its address carries the item's hash (`?v=`), so it may be cached for a
  /// year: another image under the same id has another address.
  private func thumbnail(_ id: String, item itemID: String, request: Request) async throws -> Response {
    let path = try path(id)
    let documents = self.documents
    let (data, item) = try await BlockingWork.run {
      try documents.reading(path) { document -> (Data, Item) in
        guard let item = Self.item(itemID, in: document.model), item.thumbnail != nil else {
          throw ViewError.notFound("no thumbnail for item \(itemID)")
        }
        return (try document.thumbnail(of: item), item)
      }
    }
    let tag = "\"" + (item.hash.map { String($0.dropFirst("sha256:".count).prefix(24)) } ?? item.id) + "\""
    var headers = HTTPFields()
    headers[.contentType] = Self.imageType(extension: ((item.thumbnail ?? "") as NSString).pathExtension) ?? "image/jpeg"
    headers[.eTag] = tag
    headers[.cacheControl] = "private, max-age=31536000, immutable"
    if request.headers[.ifNoneMatch] == tag { return Response(status: .notModified, headers: headers) }
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
  }

  /// An item's original: embedded in the document, or its local source file when that still
  /// has the content the item was made from (a document cannot make the server read any
  /// other file: it would have to know the file's hash already).
  private func original(_ id: String, item itemID: String) async throws -> Response {
    let path = try path(id)
    let documents = self.documents
    let (data, item) = try await BlockingWork.run {
      try documents.reading(path) { document -> (Data, Item) in
        guard let item = Self.item(itemID, in: document.model), item.state == .ready else {
          throw ViewError.notFound("no original for item \(itemID)")
        }
        if let embedded = try document.original(of: item) { return (embedded, item) }
        guard let path = PathBytes.path(fromFileURL: item.source), let hash = item.hash,
          let bytes = try? FileSystem.read(path, limit: ImageOptions.defaultMaxFileBytes, followLinks: false),
          contentHash(of: bytes) == hash
        else {
          throw ViewError.notFound(
            "the original of item \(itemID) is not in the document and its source has changed or is elsewhere")
        }
        return (bytes, item)
      }
    }
    var headers = HTTPFields()
    let format = item.format ?? ""
    let stem = item.id
    if let type = Self.imageType(extension: format) {
      headers[.contentType] = type
      headers[.contentDisposition] = "inline; filename=\"\(stem).\(format)\""
    } else {
      headers[.contentType] = "application/octet-stream"
      headers[.contentDisposition] = "attachment; filename=\"\(stem).\(format.isEmpty ? "bin" : format)\""
    }
    headers[.cacheControl] = "private, no-cache"
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
  }

  /// An item of the gallery or of its trash (whose view shows thumbnails too).
  static func item(_ id: String, in model: GalleryModel) -> Item? {
    model.items.first { $0.id == id } ?? model.trash.lazy.map(\.item).first { $0.id == id }
  }

  /// The types a browser shows inline; anything else is served as an attachment.
  static func imageType(extension name: String) -> String? {
    switch name.lowercased() {
    case "jpg", "jpeg": "image/jpeg"
    case "png": "image/png"
    case "webp": "image/webp"
    case "gif": "image/gif"
    case "avif": "image/avif"
    default: nil
    }
  }

  // MARK: - Edits

  private func perform(_ action: String, on id: String, _ request: EditRequest) async throws -> Response {
    let path = try path(id)
    let documents = self.documents
    let feed = self.feed
    switch action {
    case "move":
      let ids = try await BlockingWork.run { try ViewEdits.move(request.ids, before: request.before, in: path) }
      return Self.json(ViewJSON.items(ids))
    case "trash":
      try await BlockingWork.run { try GalleryDocument.edit(path) { $0.model.trash(request.ids) } }
      return Self.json(Array("{}".utf8))
    case "restore":
      try await BlockingWork.run { try GalleryDocument.edit(path) { $0.model.restore(request.ids) } }
      return Self.json(Array("{}".utf8))
    case "empty-trash":
      try await BlockingWork.run { _ = try GalleryDocument.edit(path) { $0.model.emptyTrash() } }
      return Self.json(Array("{}".utf8))
    case "transfer":
      guard let from = request.from, let source = documents.path(for: from) else {
        throw ViewError.notFound("the items come from a document this server does not show")
      }
      let items = try await BlockingWork.run {
        try ViewEdits.transfer(
          request.ids, from: source, to: path, move: request.move, before: request.before, documents: documents)
      }
      return Self.json(ViewJSON.items(items))
    case "retry":
      let ids = request.ids
      drops.submit { await Self.report(feed, id) { try await ImageRetry.retry(ids.isEmpty ? nil : ids, in: path) } }
      return Self.json(Array("{}".utf8), status: .accepted)
    case "undo", "redo":
      // The document's history, as `gallery undo` and `redo` use it: a new revision.
      let outcome: DocumentHistory.Outcome
      do {
        outcome = try await BlockingWork.run {
          action == "undo" ? try DocumentHistory.undo(path) : try DocumentHistory.redo(path)
        }
      } catch let failure as DocumentHistory.Failure {
        switch failure {
        case .nothingToUndo: throw ViewError.conflict("nothing to undo")
        case .nothingToRedo: throw ViewError.conflict("nothing to redo")
        }
      }
      return Self.json(
        Array(
          ViewJSON.encode { writer in
            writer.object { o in
              o.int("revision", outcome.revision)
              o.strings("skipped", outcome.skipped)
              o.string("summary", outcome.summary)
            }
          }.utf8))
    case "rename":
      // A new name, not a path: the document stays in its folder.
      guard let name = request.name, !name.contains("/") else { throw ViewError.badRequest("rename needs a name (no /)") }
      let renamed = try await BlockingWork.run {
        let target = try DocumentFiles.target(name, beside: path)
        try DocumentFiles.rename(path, to: target)
        RecentDocuments.forget(path)
        RecentDocuments.note(target)
        return ServedDocuments.absolute(target)
      }
      documents.forget(id)
      let newID = documents.serveDocument(renamed)
      feed.publish(.documents)
      return Self.json(Array(ViewJSON.encode { $0.object { $0.string("id", newID) } }.utf8))
    case "duplicate":
      let copy = try await BlockingWork.run {
        let target = DocumentFiles.copyName(of: path)
        try DocumentFiles.duplicate(path, to: target)
        RecentDocuments.note(target)
        return ServedDocuments.absolute(target)
      }
      let newID = documents.serveDocument(copy)
      feed.publish(.documents)
      return Self.json(Array(ViewJSON.encode { $0.object { $0.string("id", newID) } }.utf8))
    case "delete":
      try await BlockingWork.run {
        try DocumentFiles.moveToTrash(path)
        RecentDocuments.forget(path)
      }
      documents.forget(id)
      feed.publish(.documents)
      return Self.json(Array("{}".utf8))
    default:
      throw ViewError.notFound("no such action: \(action)")
    }
  }

  /// Files or links dropped on a page: the same drop as `gallery drop`, run by the server
  /// (so that it goes on when the page is closed); placeholders are saved at once, and the
  /// page sees them, and each image as it is committed, through the change stream.
  private func drop(into id: String, _ request: Request) async throws -> Response {
    let path = try path(id)
    var request = request
    let before = request.uri.queryParameters["before"].map(String.init)
    var sources: [DropSource] = []
    var refused: [DropFailure] = []
    if request.headers[.contentType] == UploadFrames.mediaType {
      guard uploads.add(1, ordering: .relaxed).newValue <= Self.maxUploadsAtOnce else {
        uploads.subtract(1, ordering: .relaxed)
        throw ViewError.busy("\(Self.maxUploadsAtOnce) uploads are being received: drop again in a moment")
      }
      defer { uploads.subtract(1, ordering: .relaxed) }
      // Read as it arrives: a file over the limit is refused at its length, before its
      // bytes come, and only the images among the files are kept.
      var reader = UploadFrames.Reader(maxFileBytes: ImageOptions.defaultMaxFileBytes)
      var kept = 0
      func take(_ files: [UploadFrames.File]) throws {
        for file in files {
          // Sniffed like any drop: what is not an image gets no placeholder.
          guard DropSource.isImageData(file.data) else {
            refused.append(DropFailure(source: file.name, reason: "not an image"))
            continue
          }
          kept += file.data.count
          guard kept <= configuration.maxUploadBytes else {
            throw ViewError.tooLarge("a drop of more than \(configuration.maxUploadBytes >> 20) MiB")
          }
          sources.append(.data(file.data, given: file.name))
        }
      }
      do {
        for try await piece in request.body { try take(try reader.feed(piece.readableBytesView)) }
        try take(try reader.finish())
      } catch let refusal as UploadFrames.Refusal {
        throw ViewError.badRequest("\(refusal)")
      }
    } else {
      let edit = try await Self.edit(request)
      // A page is not a shell: it names no local file (that would read the server's disk,
      // and even a refusal would tell whether a path exists). Only web links are parsed.
      let isWeb = { (uri: String) in ["http://", "https://"].contains { uri.lowercased().hasPrefix($0) } }
      let parsed = DropSourceParser.parse(edit.uris.filter(isWeb), recursive: false) { Data() }
      sources = parsed.0.filter(\.isWeb)
      refused = parsed.1
      for uri in edit.uris where !isWeb(uri) {
        refused.append(DropFailure(source: uri, reason: "a page can drop web links and files, not local paths"))
      }
    }
    let feed = self.feed
    for failure in refused { feed.publish(.failure(document: id, source: failure.source, reason: failure.reason)) }
    guard !sources.isEmpty else {
      return Self.json(
        Array(
          ViewJSON.encode {
            $0.object {
              $0.int("accepted", 0)
              $0.int("refused", refused.count)
            }
          }.utf8))
    }
    var options = DropOptions()
    let documents = self.documents
    options.position = try await BlockingWork.run { () throws -> Int? in
      try ViewEdits.position(before: before, in: path, documents: documents)
    }
    options.commitInterval = 0.2
    let dropping = sources
    let dropOptions = options
    drops.submit {
      await Self.report(feed, id) { try await ImageDrop.drop(dropping, into: path, options: dropOptions) }
    }
    return Self.json(
      Array(
        ViewJSON.encode {
          $0.object {
            $0.int("accepted", dropping.count)
            $0.int("refused", refused.count)
          }
        }.utf8),
      status: .accepted)
  }

  private static func report(_ feed: ChangeFeed, _ id: String, _ work: () async throws -> DropReport) async {
    do {
      let report = try await work()
      for failure in report.failures + report.keptFailures {
        feed.publish(.failure(document: id, source: failure.source, reason: failure.reason))
      }
    } catch {
      feed.publish(.failure(document: id, source: "", reason: "\(error)"))
    }
  }

  private func create(_ request: EditRequest) async throws -> Response {
    let folders = documents.servedFolders
    let documents = self.documents
    guard let folder = folders.first ?? documents.listedPaths().first.map({ ($0 as NSString).deletingLastPathComponent }) else {
      throw ViewError.badRequest("no folder to create documents in: serve one (`gallery serve DIR`)")
    }
    let title = request.title.flatMap { $0.isEmpty ? nil : $0 }
    let path = try await BlockingWork.run {
      let path = DocumentFiles.freeName(in: folder, stem: Self.fileStem(title))
      let created = try GalleryDocument.create(path, title: title)
      RecentDocuments.note(created.path)
      return ServedDocuments.absolute(created.path)
    }
    let id = documents.serveDocument(path)
    feed.publish(.documents)
    return Self.json(Array(ViewJSON.encode { $0.object { $0.string("id", id) } }.utf8), status: .created)
  }

  /// A file name for a title: no slash, no control character, not hidden, not too long.
  static func fileStem(_ title: String?) -> String {
    let kept = (title ?? "").unicodeScalars.filter { !ModelValidation.isControl($0) && $0 != "/" }
    let stem = String(String(String.UnicodeScalarView(kept)).trimmingCharacters(in: .whitespaces).prefix(120))
    return stem.isEmpty || stem.hasPrefix(".") ? "Untitled" : stem
  }

  /// `gallery open` asks a running server to show one more document (bearer token only).
  private func openDocument(_ request: EditRequest) async throws -> Response {
    guard let name = request.name, name.hasPrefix("/") else { throw ViewError.badRequest("open needs an absolute path") }
    try await BlockingWork.run { _ = try GalleryDocument.open(name) }
    let id = documents.serveDocument(name)
    feed.publish(.documents)
    return Self.json(Array(ViewJSON.encode { $0.object { $0.string("id", id) } }.utf8))
  }
}
