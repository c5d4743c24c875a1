import Foundation
import GalleryDocument
import GalleryModel
import GallerySystem
import ServiceLifecycle
import Synchronization

/// What the server tells every open page.
package enum ViewEvent: Sendable, Equatable {
  /// A document's file changed: pages showing it fetch its model again.
  case document(id: String)
  /// A document appeared or went in a served folder, or was renamed: the browser page
  /// lists again.
  case documents
  /// A drop from a page could not load a source.
  case failure(document: String, source: String, reason: String)
  /// A drop from a page could not download a source, and the download cache's copy of it
  /// stood in: the item is there, from a copy the server may no longer serve.
  case standIn(document: String, source: String, reason: String)
  /// Keeps the connection open through proxies and tells the server that a page left.
  case ping

  private struct DocumentData: Encodable {
    var id: String
  }

  private struct FailureData: Encodable {
    var document: String
    var source: String
    var reason: String
  }

  /// An event's data: one line of JSON (the encoder escapes every line break).
  private static func data(_ value: some Encodable) -> String {
    (try? JSONEncoder.sorted().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }

  /// The event in Server-Sent Events form.
  package var serverSent: String {
    switch self {
    case .document(let id): "event: document\ndata: \(Self.data(DocumentData(id: id)))\n\n"
    case .documents: "event: documents\ndata: {}\n\n"
    case .failure(let document, let source, let reason):
      "event: failure\ndata: \(Self.data(FailureData(document: document, source: source, reason: reason)))\n\n"
    case .standIn(let document, let source, let reason):
      "event: stand-in\ndata: \(Self.data(FailureData(document: document, source: source, reason: reason)))\n\n"
    case .ping: ": ping\n\n"
    }
  }
}

/// The pages listening for events, and how many there are (the server ends some minutes
/// after the last one left, when it was started by `gallery open`).
package final class ChangeFeed: Sendable {
  private struct State {
    var listeners: [Int: AsyncStream<ViewEvent>.Continuation] = [:]
    var next = 0
  }

  private let state = Mutex(State())
  /// The number of listeners, each time it changes.
  package let listenerCounts: AsyncStream<Int>
  private let countContinuation: AsyncStream<Int>.Continuation

  package init() {
    (listenerCounts, countContinuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
    countContinuation.yield(0)
  }

  /// A stream of events until the listener's task ends.
  package func listen() -> AsyncStream<ViewEvent> {
    let (stream, continuation) = AsyncStream.makeStream(of: ViewEvent.self, bufferingPolicy: .bufferingNewest(256))
    let (key, count) = state.withLock { state in
      let key = state.next
      state.next += 1
      state.listeners[key] = continuation
      return (key, state.listeners.count)
    }
    continuation.onTermination = { [weak self] _ in self?.remove(key) }
    countContinuation.yield(count)
    return stream
  }

  private func remove(_ key: Int) {
    let count = state.withLock { state in
      state.listeners[key] = nil
      return state.listeners.count
    }
    countContinuation.yield(count)
  }

  package func publish(_ event: ViewEvent) {
    for listener in state.withLock({ Array($0.listeners.values) }) { listener.yield(event) }
  }

  package func finish() {
    for listener in state.withLock({ Array($0.listeners.values) }) { listener.finish() }
    countContinuation.finish()
  }
}

/// Watches the served documents' folders with inotify (no polling) and publishes a change
/// of a document as soon as its file is written, renamed or removed. The folders to watch
/// grow as pages open documents elsewhere: the watch then starts again with all of them,
/// and every document's stamp is compared, so nothing that changed in between is missed.
/// It also pings the pages now and then, which finds those that left. When it stops, every
/// page's event stream ends, so that the HTTP server can finish its responses.
package struct DocumentMonitor: Service {
  let documents: ServedDocuments
  let feed: ChangeFeed
  let pingInterval: Duration

  package init(documents: ServedDocuments, feed: ChangeFeed, pingInterval: Duration = .seconds(5)) {
    self.documents = documents
    self.feed = feed
    self.pingInterval = pingInterval
  }

  private enum Input: Sendable {
    case inotify(InotifyItem)
    case foldersChanged
    case ping
  }

  package func run() async throws {
    defer { feed.finish() }
    await cancelWhenGracefulShutdown {
      var stamps: [String: FileStamp] = [:]
      while !Task.isCancelled {
        let folders = documents.watchedFolders
        compare(&stamps)
        do {
          try await InotifyReader.reading(folders: folders, recursive: false) { events in
            await watch(events, folders: folders, stamps: &stamps)
          }
        } catch {
          // A folder went while the watch started: start again with those left, shortly.
          try? await Task.sleep(for: .seconds(1))
        }
      }
    }
  }

  /// One watch session: ends when the folders to watch changed, or when cancelled.
  private func watch(_ events: AsyncStream<InotifyItem>, folders: [String], stamps: inout [String: FileStamp]) async {
    var liveness: [String: [Bool]] = [:]
    let (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for await item in events { continuation.yield(.inotify(item)) }
      }
      group.addTask { [documents] in
        for await _ in documents.foldersChanged { continuation.yield(.foldersChanged) }
      }
      group.addTask { [pingInterval] in
        while (try? await Task.sleep(for: pingInterval)) != nil { continuation.yield(.ping) }
      }
      loop: for await input in inputs {
        switch input {
        case .inotify(.event(let event)) where event.has(.queueOverflow): compare(&stamps)
        case .inotify(.event(let event)): changed(event, &stamps)
        case .inotify: break
        case .ping:
          feed.publish(.ping)
          checkLoaders(&liveness)
        case .foldersChanged:
          if Set(documents.watchedFolders) != Set(folders) { break loop }
        }
      }
      group.cancelAll()
    }
  }

  private func changed(_ event: InotifyEvent, _ stamps: inout [String: FileStamp]) {
    guard event.name.hasSuffix("." + DocumentName.fileExtension), !event.folder.isEmpty else { return }
    let path = String(event.path)
    if event.has([.create, .movedTo, .movedFrom, .delete]), documents.isListed(folder: event.folder) {
      feed.publish(.documents)
    }
    guard let id = documents.knownID(of: path) else { return }
    // A document renamed away: its id follows it to its new name now, before the pages,
    // told below, read it again; its stamp too, so that a write under the new name before
    // its folder is watched is told when the watch starts again.
    if event.has([.movedFrom, .delete]), let renamed = documents.path(for: id), renamed != path {
      stamps[renamed] = stamps[path]
    }
    // Every write is told (a stamp of whole seconds could hide a second save); pages
    // coalesce their reads.
    stamps[path] = FileSystem.stamp(of: path)
    feed.publish(.document(id: id))
  }

  /// A loader that died (killed drop, crashed watcher) changes no file, but its placeholders
  /// turn stale: pages are told, so they offer to retry.
  private func checkLoaders(_ liveness: inout [String: [Bool]]) {
    for path in documents.knownPaths {
      let now = documents.placeholderLiveness(of: path)
      if let before = liveness[path], before != now, let id = documents.knownID(of: path) {
        feed.publish(.document(id: id))
      }
      liveness[path] = now
    }
  }

  /// Compares every known document with its last stamp (after a restart of the watch, or
  /// an overflow of inotify's queue).
  private func compare(_ stamps: inout [String: FileStamp]) {
    var changedAny = false
    for path in documents.knownPaths {
      let stamp = FileSystem.stamp(of: path)
      guard stamps[path] != stamp else { continue }
      let known = stamps[path] != nil
      stamps[path] = stamp
      if known, let id = documents.knownID(of: path) {
        feed.publish(.document(id: id))
        changedAny = true
      }
    }
    if changedAny { feed.publish(.documents) }
  }
}
