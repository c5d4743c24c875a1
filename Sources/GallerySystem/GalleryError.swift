import Foundation

/// An error of this package that says what went wrong in words a person reads (its
/// `description`, shown after `gallery: `). What a failure means to a caller is its type
/// and its cases; the command layer maps them to exit statuses and the view to HTTP ones.
public protocol GalleryError: Error, CustomStringConvertible {}

extension FileSystemError: GalleryError {}
extension ArchiveError: GalleryError {}
extension StandardInput.TooLarge: GalleryError {}
extension WatchError: GalleryError {}
extension X11Selection.Failure: GalleryError {}
extension ChildProcess.Failure: GalleryError {}
extension VipsError: GalleryError {}

/// Words for errors that are not ours (Foundation's), without their domain and code.
public enum SystemErrorText {
  public static func describe(_ error: Error) -> String {
    if let error = error as? GalleryError { return error.description }
    let cocoa = error as NSError
    let path = cocoa.userInfo[NSFilePathErrorKey] as? String ?? (cocoa.userInfo[NSURLErrorKey] as? URL)?.path
    let reason = posixCode(of: cocoa).map { FileSystem.errorText($0) } ?? cocoa.localizedDescription
    return path.map { "\($0): \(reason)" } ?? reason
  }

  /// The errno of a failed system call behind an error, when it carries one: what tells a
  /// full disk from another failure, by number rather than by words.
  package static func errorNumber(of error: Error) -> Int32? {
    switch error {
    case let error as FileSystemError: error.errno
    case let error as OutputFile.Failure: error.errno
    case let error as ArchiveError: error.errorNumber
    case is GalleryError: nil
    default: posixCode(of: error as NSError)
    }
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
