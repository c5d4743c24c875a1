import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// SIGINT and SIGTERM, owned in one place: while a watch is alive the signals do not end
/// the process (a drop would leave placeholders behind); its handler runs instead.
package final class SignalWatch {
  package enum Signal: CaseIterable {
    case interrupt, terminate

    var number: Int32 { self == .interrupt ? SIGINT : SIGTERM }
  }

  private let sources: [DispatchSourceSignal]

  package init(signals: [Signal], handler: @escaping @Sendable () -> Void) {
    sources = signals.map { signal in
      // Ignored as a disposition, seen by the dispatch source: the process lives on.
      Glibc.signal(signal.number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signal.number, queue: .global())
      source.setEventHandler(handler: handler)
      source.resume()
      return source
    }
  }

  deinit {
    for source in sources { source.cancel() }
  }
}
