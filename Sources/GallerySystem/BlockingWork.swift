import NIOPosix

/// Where async code runs what blocks a thread: a lock waited for, an fsync, a large read.
/// The cooperative pool has a thread per core and none to spare for waiting, so this work
/// goes to NIO's thread pool, which is bounded too but made for it.
public enum BlockingWork {
  /// Runs `work` on the pool and waits for it. It is not cancelled with the calling task
  /// (as `NIOThreadPool.runIfActive` would, skipping work not started yet): a drop that
  /// SIGINT cancels still saves what loaded and removes its other placeholders.
  public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      NIOThreadPool.singleton.submit { state in
        switch state {
        case .active: continuation.resume(with: Result(catching: work))
        case .cancelled: continuation.resume(throwing: CancellationError())
        }
      }
    }
  }
}
