import Foundation
import GalleryKit
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// watch-folder FOLDER DOC [COUNT]: drops the images that arrive in FOLDER into DOC, until
/// SIGINT or SIGTERM, or until COUNT images have been committed.
@main
struct WatchFolder {
  static func main() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard arguments.count >= 2 else { fail("usage: watch-folder FOLDER DOC [COUNT]") }
    let wanted = arguments.count > 2 ? Int(arguments[2]) : nil
    let logger = Logger(label: "watch-folder")
    let committed = Counter()
    // The group is made after the watcher, which stops it once COUNT images are in.
    let group = GroupBox()
    do {
      let watcher = try Gallery(path: arguments[1]).watcher(of: arguments[0], logger: logger) { event in
        print("\(event.event) \(event.path)\(event.id.map { " as \($0)" } ?? "")")
        if event.event == .committed, let wanted, committed.increment() >= wanted {
          Task { await group.value?.triggerGracefulShutdown() }
        }
      }
      // A ServiceGroup stops the watcher gracefully (what loaded is committed) on a signal.
      let services = ServiceGroup(
        configuration: .init(
          services: [.init(service: watcher)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
      await group.set(services)
      print("watching \(arguments[0])")
      try await services.run()
    } catch {
      fail("watch-folder: \(error)")
    }
  }
}

final class Counter: Sendable {
  private let count = Mutex(0)
  func increment() -> Int {
    count.withLock {
      $0 += 1
      return $0
    }
  }
}

actor GroupBox {
  var value: ServiceGroup?
  func set(_ group: ServiceGroup) { value = group }
}

func fail(_ message: String) -> Never {
  print(message)
  exit(1)
}
