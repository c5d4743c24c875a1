import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

/// The statuses `gallery` exits with (sysexits.h where one fits), as `gallery --help` and
/// gallery(1) list them.
package enum ExitStatus: Int32, Sendable, CaseIterable {
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

/// A failure the command layer names itself, with the status it ends the command with.
protocol CommandError: GalleryError {
  var exitStatus: ExitStatus { get }
}

extension ExitStatus {
  /// The status a command ends with when `error` ends it. The library's errors say what
  /// went wrong by their type and case; this is the one place that turns that into a
  /// status. What is not ours (Foundation's) follows its errno, and 74 without one.
  package init(for error: any Error) {
    self =
      switch error {
      case let error as CommandError: error.exitStatus
      case let error as DocumentError: Self(for: error)
      case let error as FileSystemError: Self(errno: error.errno)
      case let error as OutputFile.Failure:
        // sysexits' "cannot create", but a full or failing disk is I/O.
        [ENOSPC, EIO, EDQUOT].contains(error.errno) ? .ioError : .cannotCreate
      case let error as ArchiveError:
        // What libarchive refuses to read is damage; writes that fail are I/O.
        error.writing ? .ioError : .dataError
      case let error as WatchError: Self(for: error)
      case let error as WebFailure: error == .cancelled ? .interrupted : .unavailable
      case is ModelValidation.Failure, is JSONReadError, is ChangeMismatch, is ImageRefusal, is VipsError,
        is DocumentConflict.Failure, is DragPayload.Refusal, is StandardInput.TooLarge, is EntryTooLarge:
        .dataError
      case is DocumentHistory.Failure, is ModelHistory.Beyond: .notFound
      // watch.conf holds the command's arguments; a sheet's size is one.
      case is WatchConfigError, is ContactSheet.TooLarge, is MetadataEdit.Refusal: .usage
      case is ImageRetry.Refusal, is DropFailure: .partial
      case is X11Selection.Failure, is ChildProcess.Failure: .unavailable
      default: SystemErrorText.errorNumber(of: error).map(Self.init(errno:)) ?? .ioError
      }
  }

  private init(for error: DocumentError) {
    self =
      switch error {
      case .notFound, .itemNotFound: .notFound
      case .exists: .cannotCreate
      case .badName: .usage
      case .notAGallery, .corrupt, .invalid, .damaged, .unsupportedFormat: .dataError
      case .io(let cause), .saveFailed(_, let cause): Self(for: cause)
      }
  }

  private init(for error: WatchError) {
    self =
      switch error {
      case .deleteNeedsEmbedding: .usage
      case .folderGone, .notAFolder: .notFound
      case .alreadyWatching: .unavailable
      case .watch(_, let code) where code == ENOENT || code == ENOTDIR: .notFound
      default: .ioError
      }
  }

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

extension ExitCode {
  init(_ status: ExitStatus) { self.init(status.rawValue) }
}

/// A failure a command names itself, with its exit status (a usage error found while
/// running, a missing input), printed without the usage text.
struct CommandFailure: CommandError {
  var exitStatus: ExitStatus
  var description: String

  static func usage(_ message: String) -> CommandFailure { CommandFailure(exitStatus: .usage, description: message) }
  static func notFound(_ message: String) -> CommandFailure { CommandFailure(exitStatus: .notFound, description: message) }
}
