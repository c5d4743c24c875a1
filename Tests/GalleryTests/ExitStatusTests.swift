import Foundation
import Testing

@testable import GalleryCommands
@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryKit
@testable import GalleryModel
@testable import GallerySystem

@Suite("Errors map to the exit statuses gallery(1) documents")
struct ExitStatusTests {
  @Test("Each error type of the library maps to the status gallery(1) documents for it")
  func statuses() {
    let cases: [(error: any Error, status: GalleryCommands.ExitStatus)] = [
      (DocumentError.notFound("d"), .notFound),
      (DocumentError.itemNotFound("9"), .notFound),
      (DocumentError.exists("d"), .cannotCreate),
      (DocumentError.badName(".."), .usage),
      (DocumentError.damaged("d", "x"), .dataError),
      (DocumentError.invalid("d", ["x"]), .dataError),
      (DocumentError.io(FileSystemError(errno: ENOENT, operation: "open", path: "p")), .notFound),
      (DocumentError.io(CocoaError(.fileReadNoPermission)), .ioError),
      (FileSystemError(errno: EIO, operation: "read", path: "p"), .ioError),
      (FileSystemError(errno: EEXIST, operation: "link", path: "p"), .cannotCreate),
      (OutputFile.Failure(path: "o", errno: ENOENT), .cannotCreate),
      (OutputFile.Failure(path: "o", errno: ENOSPC), .ioError),
      (WatchConfigError(line: 1, text: "x"), .usage),
      (WatchError.deleteNeedsEmbedding, .usage),
      (WatchError.folderGone("f"), .notFound),
      (WatchError.watch("f", ENOTDIR), .notFound),
      (WatchError.watch("f", EACCES), .ioError),
      (DragPayload.Refusal(description: "x"), .dataError),
      (StandardInput.TooLarge(limit: 1, what: "x"), .dataError),
      (WebFailure.cancelled, .interrupted),
      (WebFailure.status(404, "Not Found"), .unavailable),
      (ChildProcess.Failure(description: "x"), .unavailable),
      (DocumentError.saveFailed("d", FileSystemError(errno: ENOSPC, operation: "write", path: "d")), .ioError),
      (ContactSheet.TooLarge(width: 9, height: 9), .usage),
      (ModelHistory.Beyond(revision: 9, oldest: 1, latest: 5), .notFound),
      (CommandFailure.usage("x"), .usage),
      (CocoaError(.fileReadNoSuchFile), .notFound),
    ]
    for (error, status) in cases {
      #expect(GalleryCommands.ExitStatus(for: error) == status, "\(error)")
    }
  }

  @Test("Foundation's errors are described by their errno, without their domain")
  func foreignErrors() {
    let missing = CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: "/x/y"])
    #expect(SystemErrorText.describe(missing) == "/x/y: No such file or directory")
    #expect(GalleryCommands.ExitStatus(for: missing) == .notFound)
    let denied = NSError(
      domain: NSCocoaErrorDomain, code: CocoaError.fileWriteUnknown.rawValue,
      userInfo: [NSFilePathErrorKey: "/z", NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(EACCES))])
    #expect(SystemErrorText.describe(denied) == "/z: Permission denied")
    #expect(GalleryCommands.ExitStatus(for: denied) == .ioError)
  }
}
