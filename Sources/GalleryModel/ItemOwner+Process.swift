import Foundation
import GallerySystem

extension Item.Owner {
  /// Whether the loading process still runs. On another host we cannot tell: assume it does.
  public var isAlive: Bool {
    guard host == ProcessInfo.processInfo.hostName else { return true }
    guard ProcessStart.exists(pid) else { return false }
    guard let start = ProcessStart.startTime(of: pid) else { return true }
    return abs(start.timeIntervalSince(started)) < 2
  }
}
