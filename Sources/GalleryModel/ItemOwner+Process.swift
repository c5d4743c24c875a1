import Foundation
import GallerySystem

extension Item.Owner {
  /// Whether the loading process still runs. On another host we cannot tell: assume it does.
  public var isAlive: Bool {
    guard isOnThisHost else { return true }
    guard ProcessStart.exists(pid) else { return false }
    guard let start = ProcessStart.startTime(of: pid) else { return true }
    return abs(start.timeIntervalSince(started)) < 2
  }

  /// Whether the loading process runs (or ran) on this machine, where `isAlive` can tell.
  public var isOnThisHost: Bool { host == ProcessInfo.processInfo.hostName }
}
