import Foundation

/// The statuses `gallery` exits with (sysexits.h where one fits), as `gallery --help` and
/// gallery(1) list them.
public enum ExitStatus: Int32, Sendable, CaseIterable {
  case success = 0
  /// Part of the work failed (some sources, some exports); the rest was done.
  case partial = 1
  /// The command line (or a file that holds arguments, such as watch.conf) is wrong.
  case usage = 64
  /// The input is damaged or not what it claims to be.
  case dataError = 65
  /// A document, item or file named does not exist.
  case notFound = 66
  /// A service it needs is not there (no clipboard, no tool to run).
  case unavailable = 69
  /// An output exists already or cannot be made.
  case cannotCreate = 73
  /// Reading or writing failed.
  case ioError = 74
  /// Stopped by SIGINT.
  case interrupted = 130
}

/// An error that says which status `gallery` exits with when it ends a command. Every error
/// a command can end with conforms; `main` prints its description after `gallery: `.
public protocol GalleryError: Error, CustomStringConvertible {
  var exitStatus: ExitStatus { get }
}

extension ExitStatus {
  /// The status a failed system call ends a command with: what is not there is 66, what
  /// exists already 73, anything else I/O.
  package init(errno: Int32) {
    switch errno {
    case ENOENT, ENOTDIR: self = .notFound
    case EEXIST: self = .cannotCreate
    default: self = .ioError
    }
  }
}

extension FileSystemError: GalleryError {
  public var exitStatus: ExitStatus { ExitStatus(errno: errno) }
}

extension ArchiveError: GalleryError {
  /// What libarchive refuses to read is damage; writes that fail are I/O.
  public var exitStatus: ExitStatus { writing ? .ioError : .dataError }
}

extension StandardInput.TooLarge: GalleryError {
  public var exitStatus: ExitStatus { .dataError }
}

extension WatchError: GalleryError {
  public var exitStatus: ExitStatus {
    switch self {
    case .deleteNeedsEmbedding: .usage
    case .folderGone, .notAFolder: .notFound
    case .alreadyWatching: .unavailable
    case .watch(_, let code) where code == ENOENT || code == ENOTDIR: .notFound
    default: .ioError
    }
  }
}

extension X11Selection.Failure: GalleryError {
  public var exitStatus: ExitStatus { .unavailable }
}

extension ChildProcess.Failure: GalleryError {
  package var exitStatus: ExitStatus { .unavailable }
}

extension VipsError: GalleryError {
  /// libvips fails on what it is given far more often than on anything else.
  package var exitStatus: ExitStatus { .dataError }
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
