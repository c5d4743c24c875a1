import Foundation
import GalleryImaging
import GalleryModel
import GallerySystem

extension DocumentError: GalleryError {
  public var exitStatus: ExitStatus {
    switch self {
    case .notFound, .itemNotFound: .notFound
    case .exists: .cannotCreate
    case .badName: .usage
    case .notAGallery, .corrupt, .invalid, .damaged, .unsupportedFormat: .dataError
    case .io(let error): SystemErrorText.exitStatus(of: error)
    }
  }
}

extension ModelValidation.Failure: GalleryError {
  public var exitStatus: ExitStatus { .dataError }
}

extension ImageRefusal: GalleryError {
  public var exitStatus: ExitStatus { .dataError }
}

extension DragPayload.Refusal: GalleryError {
  public var exitStatus: ExitStatus { .dataError }
}

extension ImageRetry.Refusal: GalleryError {
  public var exitStatus: ExitStatus { .partial }
}

extension ContactSheet.TooLarge: GalleryError {
  /// The size asked for on the command line is too large.
  public var exitStatus: ExitStatus { .usage }
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

extension JSONReadError: GalleryError {
  package var exitStatus: ExitStatus { .dataError }
}
