import Dispatch
import Foundation
import Synchronization

/// Loads dropped sources into processed images on worker threads, with no lock held: local
/// files are read, web images downloaded (through the cache). Downloads wait on the network,
/// decoding on the CPU, so they are bounded separately: up to `downloads` transfers at once,
/// and at most `parallelism` images decoding at once.
final class SourceLoading: Sendable {
  private let imageOptions: ImageOptions
  private let parallelism: Int
  private let downloads: Int
  private let decodeSlots: DispatchSemaphore
  private let fetcher: WebImageFetcher?

  init(imageOptions: ImageOptions, options: DropOptions, needsWeb: Bool) {
    self.imageOptions = imageOptions
    parallelism = max(1, options.parallelism)
    downloads = max(1, options.downloads)
    decodeSlots = DispatchSemaphore(value: parallelism)
    fetcher = needsWeb ? WebImageFetcher(limits: options.web, cache: options.cache) : nil
  }

  deinit {
    fetcher?.shutdown()
  }

  /// Loads every source, calling `completed` (from a worker thread) with each outcome as it
  /// is ready; returns when all are done or the drop is cancelled. `beforeDownloads` is
  /// waited on before the first web request, so placeholders can be saved first.
  func run(
    _ sources: [DropSource], cancellation: DropCancellation, beforeDownloads: DispatchGroup? = nil,
    completed: @escaping @Sendable (_ index: Int, _ outcome: Result<ProcessedImage, DropFailure>) -> Void
  ) {
    let hasWeb = sources.contains(where: \.isWeb)
    let workers = max(1, min(sources.count, hasWeb ? max(parallelism, downloads) : parallelism))
    let next = Atomic<Int>(0)
    let finished = DispatchGroup()
    for _ in 0..<workers {
      finished.enter()
      let thread = Thread { [self] in
        defer { finished.leave() }
        while !cancellation.isCancelled {
          let index = next.add(1, ordering: .relaxed).oldValue
          guard index < sources.count else { return }
          if sources[index].isWeb { beforeDownloads?.wait() }
          guard !cancellation.isCancelled else { return }
          completed(index, load(sources[index], cancellation: cancellation))
        }
      }
      // libvips decodes on the calling thread's stack; Foundation's default is 512 KiB.
      thread.stackSize = 8 << 20
      thread.start()
    }
    finished.wait()
  }

  /// Loads one source.
  func load(_ source: DropSource, cancellation: DropCancellation) -> Result<ProcessedImage, DropFailure> {
    switch source.location {
    case .file(let path):
      decodeSlots.wait()
      defer { decodeSlots.signal() }
      return LocalImageLoader.load(path: path, options: imageOptions)
        .mapError { DropFailure(source: source.given, reason: $0.reason) }
    case .data(let data):
      decodeSlots.wait()
      defer { decodeSlots.signal() }
      // There is no URL to load them from again: the bytes always go into the document.
      var options = imageOptions
      options.keepOriginal = true
      do {
        return .success(try ImageProcessor.process(data, options: options))
      } catch {
        return .failure(DropFailure(source: source.given, reason: error.description))
      }
    case .web(let url):
      guard let fetcher else { return .failure(DropFailure(source: source.given, reason: "no web loader")) }
      let data: Data
      switch fetcher.fetch(url, cancellation: cancellation) {
      case .success(let download): data = download.body
      case .failure(let failure): return .failure(DropFailure(source: source.given, reason: failure.description))
      }
      decodeSlots.wait()
      defer { decodeSlots.signal() }
      do {
        return .success(try ImageProcessor.process(data, options: imageOptions))
      } catch {
        return .failure(DropFailure(source: source.given, reason: error.description))
      }
    }
  }
}
