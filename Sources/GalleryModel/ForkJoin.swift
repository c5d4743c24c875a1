import Foundation

/// Two pieces of work at once, one per core, inside a synchronous call: reading, checking
/// and listing the two halves of a 100,000-item list. Nothing outlives the call.
package enum ForkJoin {
  /// Lists at least this long are checked and listed in two halves: below it, starting the
  /// second piece of work costs more than it saves.
  package static let itemsWorthSplitting = 2_000

  /// Runs `first` and `second` at the same time and returns both results when both are
  /// done. Each may change what it captures, but not what the other one touches.
  package static func both<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
    withoutActuallyEscaping(first) { first in
      withoutActuallyEscaping(second) { second in
        let work = Work(first: first, second: second)
        DispatchQueue.concurrentPerform(iterations: 2) { half in
          if half == 0 { work.firstResult = work.first() } else { work.secondResult = work.second() }
        }
        return (work.firstResult!, work.secondResult!)
      }
    }
  }

  /// The two closures and their results. @unchecked Sendable: each closure runs once, on one
  /// thread, and writes only its own result (two properties, whose accesses never overlap);
  /// the caller reads them after `concurrentPerform` has returned, which waits for both.
  private final class Work<A, B>: @unchecked Sendable {
    let first: () -> A
    let second: () -> B
    var firstResult: A?
    var secondResult: B?

    init(first: @escaping () -> A, second: @escaping () -> B) {
      self.first = first
      self.second = second
    }
  }
}
