import Foundation
import GalleryDocument
import GalleryImaging
import GalleryModel
import GallerySystem
import NIOCore
import NIOPosix
import Synchronization

/// How one source's load ended.
public enum LoadOutcome: Sendable {
  case loaded(ProcessedImage)
  case failed(DropFailure)
  /// The drop was cancelled before the source was loaded: neither loaded nor failed.
  case cancelled
}

/// Loads dropped sources into processed images: local files are read, web images downloaded
/// (through the cache), and every image decoded on a pool of `parallelism` threads of its
/// own, off Swift's cooperative pool (libvips blocks a thread for the whole decode).
/// Downloads wait on the network, decoding on the CPU, so they are bounded separately: the
/// caller runs up to `downloads` loads at once, and the pool decodes `parallelism` at once.
///
/// Owns its thread pool and its web client: `shutdown()` before it goes away.
public final class ImageLoader: Sendable {
  let imageOptions: ImageOptions
  public let parallelism: Int
  public let downloads: Int
  private let decoding: NIOThreadPool
  private let fetcher: WebImageFetcher?
  private let cachedCopies = Mutex<[DropFailure]>([])

  /// The web sources loaded from the download cache because their download failed, each
  /// with the failure: the user learns that a link no longer serves its image.
  public var standIns: [DropFailure] { cachedCopies.withLock { $0 } }

  public init(imageOptions: ImageOptions, options: DropOptions, needsWeb: Bool) {
    self.imageOptions = imageOptions
    parallelism = max(1, options.parallelism)
    downloads = max(1, options.downloads)
    decoding = NIOThreadPool(numberOfThreads: parallelism)
    decoding.start()
    // libvips is not started here: plain JPEGs do without it, and the first image that
    // needs it starts it.
    fetcher = needsWeb ? WebImageFetcher(limits: options.web, cache: options.cache) : nil
  }

  public func shutdown() async {
    await fetcher?.shutdown()
    try? await decoding.shutdownGracefully()
  }

  /// Runs `body` with a loader, and shuts the loader down however `body` ends.
  static func using<T>(
    _ imageOptions: ImageOptions, _ options: DropOptions, needsWeb: Bool, _ body: (ImageLoader) async throws -> T
  ) async throws -> T {
    let loader = ImageLoader(imageOptions: imageOptions, options: options, needsWeb: needsWeb)
    do {
      let value = try await body(loader)
      await loader.shutdown()
      return value
    } catch {
      await loader.shutdown()
      throw error
    }
  }

  /// Loads one source. Cancellation of the calling task stops a download in progress and a
  /// decode that has not started.
  public func load(_ source: DropSource) async -> LoadOutcome {
    await load(source, options: imageOptions)
  }

  /// Loads one source with other image options (a watcher's documents differ in theirs).
  public func load(_ source: DropSource, options: ImageOptions) async -> LoadOutcome {
    switch source.location {
    case .file(let path):
      return await decode(source) { try LocalImageLoader.load(path: path, options: options).get() }
    case .data(let data):
      // There is no URL to load them from again: the bytes always go into the document.
      let embedded = ImageOptions(options, keepingOriginal: true)
      return await decode(source) { try ImageProcessor.process(data, options: embedded) }
    case .web(let url):
      guard let fetcher else { return .failed(DropFailure(source: source.given, reason: "no web loader")) }
      switch await fetcher.fetch(url) {
      case .success(let download):
        if let failure = download.standingInFor {
          cachedCopies.withLock { $0.append(DropFailure(source: source.given, reason: failure.description)) }
        }
        return await decode(source) { try ImageProcessor.process(download.body, options: options) }
      case .failure(.cancelled):
        return .cancelled
      case .failure(let failure):
        return .failed(DropFailure(source: source.given, reason: failure.description))
      }
    }
  }

  /// Makes a cover ahead of the save that needs it, on the decoding threads.
  func prepareCover(from thumbnails: [Data]) async {
    try? await decoding.runIfActive { CoverMaker.prepare(from: thumbnails) }
  }

  private func decode(_ source: DropSource, _ work: @escaping @Sendable () throws -> ProcessedImage) async -> LoadOutcome {
    guard !Task.isCancelled else { return .cancelled }
    do {
      return .loaded(try await decoding.runIfActive(work))
    } catch let failure as DropFailure {
      return .failed(DropFailure(source: source.given, reason: failure.reason, refusal: failure.refusal))
    } catch let refusal as ImageRefusal {
      return .failed(DropFailure(source: source.given, refusal: refusal))
    } catch {
      // Cancelled while waiting for a thread, or the pool is shutting down.
      return .cancelled
    }
  }
}

extension ImageOptions {
  init(_ options: ImageOptions, keepingOriginal: Bool) {
    self = options
    keepOriginal = keepingOriginal
  }
}
