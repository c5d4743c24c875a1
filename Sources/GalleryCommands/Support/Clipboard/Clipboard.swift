import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

/// The desktop clipboard. On X11, `gallery` owns the selection itself (a background
/// `gallery clipboard-owner` process) and serves every type at once; it reads it with `xclip`.
/// On Wayland, `wl-copy`/`wl-paste`, which serve one type per copy.
struct Clipboard {
  enum Tool: String {
    case wayland = "wl-clipboard"
    case x11 = "X11"
  }

  struct Unavailable: CommandError {
    var description: String
    var exitStatus: ExitStatus { .unavailable }
  }

  /// How long a paste waits for the clipboard's owner (another program) to hand it over.
  static let answerTimeout: Double = 10

  let tool: Tool
  /// wl-copy, or xclip (nil when not installed: copying works without it, pasting does not).
  let executable: String?

  /// The clipboard of this session, or why there is none.
  static func current(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Clipboard {
    let wayland = !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
    let x11 = !(environment["DISPLAY"] ?? "").isEmpty
    if wayland, let copy = which("wl-copy", in: environment) {
      return Clipboard(tool: .wayland, executable: copy)
    }
    if x11 {
      return Clipboard(tool: .x11, executable: which("xclip", in: environment))
    }
    if !wayland {
      throw Unavailable(description: "no graphical session: neither WAYLAND_DISPLAY nor DISPLAY is set")
    }
    throw Unavailable(description: "no clipboard tool: install wl-clipboard (Wayland) or xclip (X11)")
  }

  /// Offers the data in each of its types (on Wayland, the first only). Returns once the
  /// selection is taken; its server stays in the background with none of our descriptors
  /// (so a caller reading our output sees its end). Returns the types offered.
  @discardableResult
  func copy(_ offers: [X11Selection.Offer]) throws -> [String] {
    guard let first = offers.first else { return [] }
    switch tool {
    case .wayland:
      let result = try run(try installedTool(), ["--type", first.type], input: first.data)
      guard result.status == 0 else { throw Unavailable(description: "wl-copy failed: \(result.errors)") }
      return [first.type]
    case .x11:
      let owner = try spawnOwner(input: X11Selection.encode(offers))
      guard owner == "ok" else {
        throw Unavailable(
          description: owner.hasPrefix("error: ") ? String(owner.dropFirst(7)) : "the clipboard owner did not start")
      }
      return offers.map(\.type)
    }
  }

  /// The types the clipboard offers now.
  func types() throws -> [String] {
    let result =
      switch tool {
      case .wayland: try run(sibling("wl-paste"), ["--list-types"])
      case .x11: try run(try installedTool(), ["-selection", "clipboard", "-t", "TARGETS", "-o"])
      }
    guard result.status == 0 else { return [] }  // an empty clipboard
    return String(decoding: result.output, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
  }

  /// The clipboard's content as `type`.
  func paste(type: String) throws -> Data {
    let result =
      switch tool {
      case .wayland: try run(sibling("wl-paste"), ["--no-newline", "--type", type])
      case .x11: try run(try installedTool(), ["-selection", "clipboard", "-t", type, "-o"])
      }
    guard result.status == 0 else { throw Unavailable(description: "the clipboard has no \(type): \(result.errors)") }
    return result.output
  }

  private func installedTool() throws -> String {
    guard let executable else { throw Unavailable(description: "no clipboard tool: install xclip to paste on X11") }
    return executable
  }

  private func sibling(_ name: String) -> String {
    ((executable ?? "/usr/bin/wl-copy") as NSString).deletingLastPathComponent + "/" + name
  }

  private static func which(_ name: String, in environment: [String: String]) -> String? {
    for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
      let path = "\(folder)/\(name)"
      if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
  }

  /// Runs a tool to its end, or until the clipboard's owner (another program, which xclip
  /// waits for) has had `answerTimeout` to answer. What it outputs is bounded like standard
  /// input.
  private func run(
    _ path: String, _ arguments: [String], input: Data = Data()
  ) throws -> (status: Int32, output: Data, errors: String) {
    let outcome = try ChildProcess.run(
      path, arguments, input: input, upTo: Self.answerTimeout, outputLimit: DragPayload.sizeLimit)
    guard case .exited(let status) = outcome.ending else {
      throw Unavailable(description: "the clipboard's owner did not answer within \(Int(Self.answerTimeout)) s")
    }
    return (status, outcome.output, outcome.errors)
  }

  /// Starts `gallery clipboard-owner` in a session of its own and returns the line it
  /// writes once it owns the selection ("ok") or cannot ("error: ...").
  private func spawnOwner(input: Data) throws -> String {
    try ChildProcess.startInBackground(ChildProcess.ownExecutable, ["clipboard-owner"], input: input)
  }
}
