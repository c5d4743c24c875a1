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
