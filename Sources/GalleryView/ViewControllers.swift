import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem
import GalleryViewRules
import Hummingbird
import NIOCore
import Synchronization

// The view's routes, a controller per resource: the page's files, the list of documents,
// and one document. Each registers its own routes (`addRoutes`); blocking work goes to
// `BlockingWork`, answers are Codable values (`ViewResponses.swift`) or, for items, the
// model's own JSON.

/// The page's own files: the document browser and gallery pages (one `index.html`), their
/// scripts, styles and icons, and the stream of changes they listen to.
struct PageController {
  let feed: ChangeFeed

  func addRoutes(to router: Router<BasicRequestContext>) {
    router.get("/") { _, _ in Self.asset("index.html") }
    router.get("/d/:id") { _, _ in Self.asset("index.html") }
    router.get("/assets/:name") { request, context in
      let name = try context.parameters.require("name")
      guard EmbeddedAssets.files[name] != nil else { throw ViewError.notFound("no such file") }
      return Self.asset(name, ifNoneMatch: request.headers[.ifNoneMatch])
    }
    router.get("/api/events") { _, _ in events() }
  }

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
    guard let type = MediaType.getMediaType(forExtension: (name as NSString).pathExtension) else {
      return MediaType.applicationBinary.description
    }
    return (type.type == .text ? type.withParameter(name: "charset", value: "utf-8") : type).description
  }

  func events() -> Response {
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
}

/// The documents this server shows: listed, created, and (for `gallery open`) added.
struct DocumentListController {
  let documents: ServedDocuments
  let feed: ChangeFeed

  func addRoutes(to router: Router<BasicRequestContext>) {
    router.get("/api/documents") { _, _ in try await listing() }
    router.post("/api/documents") { request, _ in try await create(try await ViewServer.edit(request)) }
    router.post("/api/documents/untrash") { request, _ in try await untrash(try await ViewServer.edit(request)) }
    // For `gallery open` only: a page never names a path (a bearer token is what the
    // middleware checked; a cookie does not do here).
    router.post("/api/open") { request, _ in
      guard request.headers[.authorization] != nil else { throw ViewError.forbidden("for `gallery open` only") }
      return try await openDocument(try await ViewServer.edit(request))
    }
  }

  /// Puts back a document a page moved to the Trash (the undo its toast offers).
  func untrash(_ request: EditRequest) async throws -> DocumentID {
    guard let token = request.token, let trashed = documents.takeTrashed(token) else {
      throw ViewError.notFound("nothing to put back: the token is unknown or was used")
    }
    let path = try await BlockingWork.run {
      let path = try DocumentFiles.restoreFromTrash(trashed)
      RecentDocuments.note(path)
      return path
    }
    feed.publish(.documents)
    return DocumentID(id: documents.id(for: path))
  }

  func listing() async throws -> DocumentListing {
    try await BlockingWork.run {
      let summaries = documents.listedPaths().map { path in
        var summary = DocumentListing.Entry(id: documents.id(for: path), path: path)
        do {
          // The counts the last save wrote at the end of the file, as `gallery browse`
          // reads them: a gallery of 100,000 items is not read to be listed.
          let counts = try GalleryDocument.summary(path).summary
          summary.title = counts.title
          summary.items = counts.items
          summary.pending = counts.pending
          summary.stale = counts.stale
          summary.failed = counts.failed
          summary.trashed = counts.trashed
          summary.modified = counts.modified
        } catch {
          summary.problem = PathBytes.displayed("\(error)")
        }
        return summary
      }
      // As each document's `folder`: the text a person reads.
      return DocumentListing(documents: summaries, folders: documents.servedFolders.map(PathBytes.displayed))
    }
  }

  func create(_ request: EditRequest) async throws -> EditedResponse<DocumentID> {
    let folders = documents.servedFolders
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
    return EditedResponse(status: .created, response: DocumentID(id: id))
  }

  /// A file name for a title: no slash, no control character, not hidden, not too long.
  static func fileStem(_ title: String?) -> String {
    let kept = (title ?? "").unicodeScalars.filter { !ModelValidation.isControl($0) && $0 != "/" }
    let stem = String(String(String.UnicodeScalarView(kept)).trimmingCharacters(in: .whitespaces).prefix(120))
    return stem.isEmpty || stem.hasPrefix(".") ? "Untitled" : stem
  }

  /// `gallery open` asks a running server to show one more document (bearer token only).
  func openDocument(_ request: EditRequest) async throws -> DocumentID {
    guard let name = request.name, name.hasPrefix("/") else { throw ViewError.badRequest("open needs an absolute path") }
    try await BlockingWork.run { _ = try GalleryDocument.open(name) }
    let id = documents.serveDocument(name)
    feed.publish(.documents)
    return DocumentID(id: id)
  }
}

/// One document this server shows, by its id: its model, cover, thumbnails and originals,
/// and every edit a page makes, one route each.
struct DocumentController {
  let server: ViewServer
  var documents: ServedDocuments { server.documents }
  var feed: ChangeFeed { server.feed }
  var drops: DropRunner { server.drops }
  var configuration: ViewConfiguration { server.configuration }

  func addRoutes(to group: RouterGroup<BasicRequestContext>) {
    group.get { _, context in try await model(try id(context)) }
    group.get("cover") { request, context in try await cover(try id(context), request: request) }
    group.get("search") { request, context in try await search(try id(context), request: request) }
    group.get("thumbnails/:item") { request, context in
      try await thumbnail(try id(context), item: try context.parameters.require("item"), request: request)
    }
    group.get("originals/:item") { _, context in
      try await original(try id(context), item: try context.parameters.require("item"))
    }
    group.get("previews/:item") { request, context in
      try await preview(try id(context), item: try context.parameters.require("item"), request: request)
    }
    group.post("move") { request, context in try await move(try id(context), try await ViewServer.edit(request)) }
    group.post("trash") { request, context in try await trash(try id(context), try await ViewServer.edit(request)) }
    group.post("restore") { request, context in try await restore(try id(context), try await ViewServer.edit(request)) }
    group.post("empty-trash") { _, context in try await emptyTrash(try id(context)) }
    group.post("transfer") { request, context in
      try await transfer(try id(context), try await ViewServer.edit(request))
    }
    group.post("retry") { request, context in try await retry(try id(context), try await ViewServer.edit(request)) }
    group.post("sort") { request, context in try await sort(try id(context), try await ViewServer.edit(request)) }
    group.post("add-note") { request, context in try await addNote(try id(context), try await ViewServer.edit(request)) }
    group.post("describe") { request, context in
      try await describe(try id(context), try await ViewServer.edit(request))
    }
    group.post("undo") { _, context in try await step(try id(context), undoing: true) }
    group.post("redo") { _, context in try await step(try id(context), undoing: false) }
    group.post("rename") { request, context in try await rename(try id(context), try await ViewServer.edit(request)) }
    group.post("duplicate") { _, context in try await duplicate(try id(context)) }
    group.post("delete") { _, context in try await delete(try id(context)) }
    group.post("drop") { request, context in try await drop(into: try id(context), request) }
  }

  /// The id of the route's document, when this server shows it.
  private func id(_ context: BasicRequestContext) throws -> String {
    let id = try context.parameters.require("id")
    guard documents.path(for: id) != nil else { throw ViewError.notFound("no such document: open it again from the list") }
    return id
  }

  private func path(_ id: String) throws -> String {
    guard let path = documents.path(for: id) else { throw ViewError.notFound("no such document") }
    return path
  }

  func model(_ id: String) async throws -> Response {
    let path = try path(id)
    let model = try await BlockingWork.run { try documents.model(of: path) }
    return ViewServer.json(ViewJSON.document(id: id, path: path, model: model))
  }

  /// The ids of the items a query matches (`?q=`, the language of `gallery find`), in order:
  /// the page's search field.
  func search(_ id: String, request: Request) async throws -> Matches {
    let path = try path(id)
    let text = request.uri.queryParameters["q"].map(String.init) ?? ""
    let query: ItemQuery
    do { query = try ItemQuery(text) } catch { throw ViewError.badRequest("\(error)") }
    let model = try await BlockingWork.run { try documents.model(of: path) }
    return Matches(ids: model.items.filter { query.matches($0) }.map(\.id))
  }

  /// The sizes a page may ask a cover at (`?size=`), besides the 256 pixels a save stores.
  static let coverSizes = [512, 768]

  /// The cover a save made; a document from elsewhere may lack it: made from its
  /// thumbnails. With `?size=`, made at that size (from the originals where the thumbnails
  /// are too small), for large cards on HiDPI screens; its address carries the document's
  /// modification time (`?m=`), so it may be cached.
  func cover(_ id: String, request: Request) async throws -> Response {
    let path = try path(id)
    let size = request.uri.queryParameters["size"].flatMap { Int($0) }
    if let size, !Self.coverSizes.contains(size) {
      throw ViewError.badRequest("size must be one of \(Self.coverSizes.map(String.init).joined(separator: ", "))")
    }
    let data = try await BlockingWork.run {
      try documents.reading(path) { document in
        if let size { return try document.cover(size: size, suffix: ".jpg[Q=85,strip]") }
        return try (try? document.cover()) ?? document.cover(size: 256, suffix: ".jpg")
      }
    }
    var headers = HTTPFields()
    headers[.contentType] = "image/jpeg"
    headers[.cacheControl] = size == nil ? "no-cache" : "private, max-age=86400"
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
  }

  /// A thumbnail; its address carries the item's hash (`?v=`), so it may be cached for a
  /// year: another image under the same id has another address.
  func thumbnail(_ id: String, item itemID: String, request: Request) async throws -> Response {
    let path = try path(id)
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

  /// An item's original: embedded in the document, its local source file or the download
  /// cache's copy of it, when that still has the content the item was made from (see
  /// `ItemOriginal`).
  func original(_ id: String, item itemID: String) async throws -> Response {
    let path = try path(id)
    let (data, item) = try await BlockingWork.run {
      try documents.reading(path) { document -> (Data, Item) in
        guard let item = Self.item(itemID, in: document.model), item.state == .ready else {
          throw ViewError.notFound("no original for item \(itemID)")
        }
        guard let bytes = ItemOriginal.read(item, in: document, cached: Self.downloaded) else {
          throw ViewError.notFound(
            "the original of item \(itemID) is not in the document, and its source has changed, is elsewhere "
              + "or was not kept")
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

  /// The download cache's copy of a web source, for its original.
  @Sendable static func downloaded(_ url: String) -> Data? { DownloadCache().lookup(url)?.body() }

  /// A preview of an item at a short edge the page asks for (`?short=`, one of
  /// `PreviewCache.shortEdges`), made from its original on first use and cached; its
  /// thumbnail when the original cannot be read (served so, not cached by the browser).
  func preview(_ id: String, item itemID: String, request: Request) async throws -> Response {
    guard let shortEdge = request.uri.queryParameters["short"].flatMap({ Int($0) }),
      PreviewCache.shortEdges.contains(shortEdge)
    else {
      throw ViewError.badRequest("short must be one of \(PreviewCache.shortEdges.map(String.init).joined(separator: ", "))")
    }
    let path = try path(id)
    let previews = server.previews
    let (item, maxPixels) = try await BlockingWork.run {
      try documents.reading(path) { document -> (Item, Int) in
        guard let item = Self.item(itemID, in: document.model), item.state == .ready, item.hash != nil else {
          throw ViewError.notFound("no preview for item \(itemID)")
        }
        return (item, document.model.settings.maxPixels)
      }
    }
    let hash = item.hash ?? ""
    let made = try await BlockingWork.run { () -> PreviewCache.Preview? in
      if let cached = previews.cached(hash: hash, shortEdge: shortEdge) { return cached }
      // Embedded, read under the document's lock; else the source, read (and hashed) outside it.
      let embedded = try documents.reading(path) { document in try? document.original(of: item) }
      guard let original = embedded ?? ItemOriginal.outside(item, cached: Self.downloaded),
        let width = item.width, let height = item.height
      else { return nil }
      return try? previews.make(
        from: original, width: width, height: height, format: item.format, hash: hash, shortEdge: shortEdge,
        maxPixels: maxPixels)
    }
    var headers = HTTPFields()
    guard let made else {
      let thumbnail = try await BlockingWork.run {
        try documents.reading(path) { document in try document.thumbnail(of: item) }
      }
      headers[.contentType] = Self.imageType(extension: ((item.thumbnail ?? "") as NSString).pathExtension) ?? "image/jpeg"
      headers[.cacheControl] = "private, no-cache"
      return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: thumbnail)))
    }
    headers[.contentType] = made.mediaType
    // Its address carries the content's hash (`?v=`), as a thumbnail's does.
    headers[.cacheControl] = "private, max-age=31536000, immutable"
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: made.data)))
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
    case "bmp": "image/bmp"
    default: nil
    }
  }

  // MARK: - Edits

  func move(_ id: String, _ request: EditRequest) async throws -> Edited {
    let path = try path(id)
    let ids = try await BlockingWork.run { try ViewEdits.move(request.ids, before: request.before, in: path) }
    return Edited(ids)
  }

  /// A note card (its text in `note`), as `gallery add-note` makes one. Answers its id.
  func addNote(_ id: String, _ request: EditRequest) async throws -> Edited {
    let path = try path(id)
    guard let text = request.note else { throw ViewError.badRequest("add-note needs the card's text (note)") }
    let card = try await BlockingWork.run { try ViewEdits.addNote(text, before: request.before, in: path) }
    return Edited([card])
  }

  /// A caption, note, stars, label or tags for the items, as `gallery caption`, `note`,
  /// `rate`, `label` and `tag` give them: one edit. Answers the items as they are now.
  func describe(_ id: String, _ request: EditRequest) async throws -> Edited {
    let path = try path(id)
    var change = MetadataEdit()
    (change.caption, change.note, change.rating) = (request.caption, request.note, request.rating)
    (change.addTags, change.removeTags) = (request.addTags, request.removeTags)
    if let label = request.label {
      if label == "none" {
        change.clearLabel = true
      } else {
        guard let known = Item.Label(rawValue: label) else { throw ViewError.badRequest("no such label: \(label)") }
        change.label = known
      }
    }
    // Bad values are refused by `DocumentEdit.describe` (400), before anything is saved.
    guard !change.isEmpty, !request.ids.isEmpty else { throw ViewError.badRequest("describe needs items and a change") }
    let items = try await BlockingWork.run { [change] in
      try GalleryDocument.edit(path) { edit in
        let present = try edit.describe(request.ids, change)
        guard !present.isEmpty else { throw ViewError.notFound("none of these items is in the gallery") }
        return try edit.items(present)
      }
    }
    return Edited(items)
  }

  /// Every item reordered, as `gallery sort` does: one edit.
  func sort(_ id: String, _ request: EditRequest) async throws -> Done {
    let path = try path(id)
    guard let by = request.by.flatMap(GalleryModel.SortKey.init(rawValue:)) else {
      let keys = GalleryModel.SortKey.allCases.map(\.rawValue).joined(separator: ", ")
      throw ViewError.badRequest("sort needs by: one of \(keys)")
    }
    let reverse = request.reverse
    try await BlockingWork.run {
      try GalleryDocument.edit(path) { edit in
        try edit.sort(by: by, reversed: reverse)
      }
    }
    return Done()
  }

  func trash(_ id: String, _ request: EditRequest) async throws -> Done {
    let path = try path(id)
    try await BlockingWork.run { try GalleryDocument.edit(path) { try $0.trash(request.ids) } }
    return Done()
  }

  func restore(_ id: String, _ request: EditRequest) async throws -> Done {
    let path = try path(id)
    try await BlockingWork.run { try GalleryDocument.edit(path) { $0.restore(request.ids) } }
    return Done()
  }

  func emptyTrash(_ id: String) async throws -> Done {
    let path = try path(id)
    try await BlockingWork.run { _ = try GalleryDocument.edit(path) { $0.emptyTrash() } }
    return Done()
  }

  func transfer(_ id: String, _ request: EditRequest) async throws -> Edited {
    let path = try path(id)
    guard let from = request.from, let source = documents.path(for: from) else {
      throw ViewError.notFound("the items come from a document this server does not show")
    }
    let documents = self.documents
    let items = try await BlockingWork.run {
      try ViewEdits.transfer(
        request.ids, from: source, to: path, move: request.move, before: request.before, documents: documents)
    }
    return Edited(items)
  }

  func retry(_ id: String, _ request: EditRequest) async throws -> EditedResponse<Done> {
    let path = try path(id)
    let (ids, feed) = (request.ids, feed)
    drops.submit { await Self.report(feed, id) { try await ImageRetry.retry(ids.isEmpty ? nil : ids, in: path) } }
    return EditedResponse(status: .accepted, response: Done())
  }

  /// The document's history, as `gallery undo` and `redo` use it: a new revision.
  func step(_ id: String, undoing: Bool) async throws -> HistoryStep {
    let path = try path(id)
    let outcome: DocumentHistory.Outcome
    do {
      outcome = try await BlockingWork.run { undoing ? try DocumentHistory.undo(path) : try DocumentHistory.redo(path) }
    } catch let failure as DocumentHistory.Failure {
      switch failure {
      case .nothingToUndo: throw ViewError.conflict("nothing to undo")
      case .nothingToRedo: throw ViewError.conflict("nothing to redo")
      }
    }
    return HistoryStep(revision: outcome.revision, skipped: outcome.skipped, summary: outcome.summary)
  }

  /// A new name, not a path: the document stays in its folder.
  func rename(_ id: String, _ request: EditRequest) async throws -> DocumentID {
    let path = try path(id)
    guard let name = request.name, !name.contains("/") else { throw ViewError.badRequest("rename needs a name (no /)") }
    let renamed = try await BlockingWork.run {
      let target = try DocumentFiles.target(name, beside: path)
      try DocumentFiles.renameFollowed(path, to: target)
      return ServedDocuments.absolute(target)
    }
    documents.forget(id)
    let newID = documents.serveDocument(renamed)
    feed.publish(.documents)
    return DocumentID(id: newID)
  }

  func duplicate(_ id: String) async throws -> DocumentID {
    let path = try path(id)
    let copy = try await BlockingWork.run {
      let target = DocumentFiles.copyName(of: path)
      try DocumentFiles.duplicate(path, to: target)
      RecentDocuments.note(target)
      return ServedDocuments.absolute(target)
    }
    let newID = documents.serveDocument(copy)
    feed.publish(.documents)
    return DocumentID(id: newID)
  }

  func delete(_ id: String) async throws -> Trashed {
    let path = try path(id)
    let trashed = try await BlockingWork.run {
      let trashed = try DocumentFiles.moveToTrash(path)
      RecentDocuments.forget(path)
      return trashed
    }
    documents.forget(id)
    feed.publish(.documents)
    return Trashed(token: documents.noteTrashed(trashed))
  }

  /// Files or links dropped on a page: the same drop as `gallery drop`, run by the server
  /// (so that it goes on when the page is closed); placeholders are saved at once, and the
  /// page sees them, and each image as it is committed, through the change stream.
  func drop(into id: String, _ request: Request) async throws -> EditedResponse<DropAnswer> {
    let path = try path(id)
    let before = request.uri.queryParameters["before"].map(String.init)
    var sources: [DropSource] = []
    var refused: [DropFailure] = []
    if request.headers[.contentType] == UploadFrames.mediaType {
      guard server.uploads.add(1, ordering: .relaxed).newValue <= ViewServer.maxUploadsAtOnce else {
        server.uploads.subtract(1, ordering: .relaxed)
        throw ViewError.busy("\(ViewServer.maxUploadsAtOnce) uploads are being received: drop again in a moment")
      }
      defer { server.uploads.subtract(1, ordering: .relaxed) }
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
      let edit = try await ViewServer.edit(request)
      // A page is not a shell: it names no local file (that would read the server's disk,
      // and even a refusal would tell whether a path exists). Only web links and the
      // `data:` URIs of images a page holds inline are parsed.
      let pageMayDrop = { (uri: String) in ["http://", "https://", "data:"].contains { uri.lowercased().hasPrefix($0) } }
      let parsed = DropSourceParser.parse(edit.uris.filter(pageMayDrop), recursive: false) { Data() }
      sources = parsed.0.filter { $0.isWeb || $0.isData }
      refused = parsed.1
      for uri in edit.uris where !pageMayDrop(uri) {
        refused.append(
          DropFailure(source: DropSourceParser.named(uri), reason: "a page can drop web links and files, not local paths"))
      }
    }
    for failure in refused { feed.publish(.failure(document: id, source: failure.source, reason: failure.reason)) }
    guard !sources.isEmpty else { return EditedResponse(response: DropAnswer(accepted: 0, refused: refused.count)) }
    var options = DropOptions()
    options.position = try await BlockingWork.run { () throws -> Int? in
      try ViewEdits.position(before: before, in: path, documents: documents)
    }
    options.commitInterval = 0.2
    let dropping = sources
    let dropOptions = options
    drops.submit {
      await Self.report(feed, id) { try await ImageDrop.drop(dropping, into: path, options: dropOptions) }
    }
    return EditedResponse(status: .accepted, response: DropAnswer(accepted: dropping.count, refused: refused.count))
  }

  static func report(_ feed: ChangeFeed, _ id: String, _ work: () async throws -> DropReport) async {
    do {
      let report = try await work()
      for failure in report.failures + report.keptFailures {
        feed.publish(.failure(document: id, source: failure.source, reason: failure.reason))
      }
      for standIn in report.standIns {
        feed.publish(.standIn(document: id, source: standIn.source, reason: standIn.reason))
      }
    } catch {
      feed.publish(.failure(document: id, source: "", reason: "\(error)"))
    }
  }
}
