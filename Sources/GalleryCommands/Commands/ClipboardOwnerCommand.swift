import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

/// The background process `gallery copy` starts on X11: owns the CLIPBOARD selection and
/// serves the types it was given on standard input until another client takes it.
struct ClipboardOwnerCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "clipboard-owner",
    abstract: "Serve the X11 clipboard (started by `gallery copy`).",
    shouldDisplay: false)

  func run() throws {
    let input = FileHandle.standardInput.readDataToEndOfFile()
    guard let offers = X11Selection.decode(input), !offers.isEmpty else {
      Terminal.out("error: nothing to offer\n")
      throw ExitCode.failure
    }
    do {
      try X11Selection.serve(offers, readyDescriptor: 1)
    } catch {
      throw ExitCode.failure
    }
  }
}
