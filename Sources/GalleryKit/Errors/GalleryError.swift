import Foundation
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
  var exitStatus: ExitStatus { .dataError }
}

/// Words and a status for errors that are not ours (Foundation's), without their domain
/// and code.
public enum SystemErrorText {
  public static func describe(_ error: Error) -> String {
    if let error = error as? GalleryError { return error.description }
    let cocoa = error as NSError
    let path = cocoa.userInfo[NSFilePathErrorKey] as? String ?? (cocoa.userInfo[NSURLErrorKey] as? URL)?.path
    let reason = posixCode(of: cocoa).map { FileSystem.errorText($0) } ?? cocoa.localizedDescription
    return path.map { "\($0): \(reason)" } ?? reason
  }

  public static func exitStatus(of error: Error) -> ExitStatus {
    if let error = error as? GalleryError { return error.exitStatus }
    let cocoa = error as NSError
    return posixCode(of: cocoa).map(ExitStatus.init(errno:)) ?? .ioError
  }

  /// The errno behind an error: its own, its underlying one's, or the one its Cocoa code
  /// stands for (Foundation on Linux often gives no underlying error).
  private static func posixCode(of error: NSError) -> Int32? {
    if error.domain == NSPOSIXErrorDomain { return Int32(error.code) }
    if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
      return Int32(underlying.code)
    }
    guard error.domain == NSCocoaErrorDomain else { return nil }
    return switch CocoaError.Code(rawValue: error.code) {
    case .fileNoSuchFile, .fileReadNoSuchFile: ENOENT
    case .fileReadNoPermission, .fileWriteNoPermission: EACCES
    case .fileWriteFileExists: EEXIST
    case .fileWriteOutOfSpace: ENOSPC
    case .fileWriteVolumeReadOnly: EROFS
    case .fileReadInvalidFileName, .fileWriteInvalidFileName: EINVAL
    case .fileReadTooLarge: EFBIG
    default: nil
    }
  }
}
