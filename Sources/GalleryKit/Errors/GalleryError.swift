import Foundation
// The statuses of this target's errors; each target states its own.
import GallerySystem

extension DragPayload.Refusal: GalleryError {
  public var exitStatus: ExitStatus { .dataError }
}

extension ImageRetry.Refusal: GalleryError {
  public var exitStatus: ExitStatus { .partial }
}

extension WatchConfigError: GalleryError {
  /// watch.conf holds the command's arguments.
  public var exitStatus: ExitStatus { .usage }
}

extension WebFailure: GalleryError {
  public var exitStatus: ExitStatus { self == .cancelled ? .interrupted : .unavailable }
}

extension DropFailure: GalleryError {
  public var exitStatus: ExitStatus { .partial }
}
