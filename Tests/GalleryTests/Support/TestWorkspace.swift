import Foundation
import GalleryKit
import GalleryTestSupport
import Testing

@testable import GalleryDocument
@testable import GalleryImaging
@testable import GalleryModel
@testable import GallerySystem

/// A temporary folder for one test, removed when the test ends; makes real images (with
/// libvips) and real documents in it.
final class TestWorkspace {
  let folder: URL

  init() throws {
    folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("gallery-tests-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  deinit { FileSystem.removeTree(folder.path) }

  /// A path in the workspace whose name is these bytes (which need not be UTF-8).
  func path(bytes name: [UInt8]) -> String { folder.path + "/" + PathBytes.string(name) }

  /// Renames a file to a name of these bytes; returns the new path.
  func rename(_ path: String, toBytes name: [UInt8]) throws -> String {
    let target = (path as NSString).deletingLastPathComponent + "/" + PathBytes.string(name)
    try FileSystem.rename(path, to: target)
    return target
  }

  func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

  /// Writes an image made by libvips and returns its path.
  @discardableResult
  func image(
    _ name: String, width: Int = 300, height: Int = 200, format: FixtureImage.Format = .jpeg,
    alpha: Bool = false, orientation: Int? = nil, seed: Int = 1
  ) throws -> String {
    let data = try FixtureImage.make(
      width: width, height: height, format: format, alpha: alpha, orientation: orientation, seed: seed)
    let path = self.path(name)
    try data.write(to: URL(fileURLWithPath: path))
    return path
  }

  /// Several distinct JPEGs: a.jpg, b.jpg, ...
  func images(_ count: Int, width: Int = 240, height: Int = 160) throws -> [String] {
    try (0..<count).map { index in
      try image("img\(index).jpg", width: width + index, height: height, seed: index + 1)
    }
  }

  func write(_ text: String, to name: String) throws -> String {
    let path = self.path(name)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// A new, empty document.
  func document(_ name: String = "test.gallery", title: String? = nil) throws -> String {
    let path = self.path(name)
    try GalleryDocument.create(path, title: title)
    return path
  }

  func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

  /// `count` hard links to one small image in a folder `name`, named by number in an order
  /// (first to last, or the reverse) a command must keep.
  func links(_ count: Int, in name: String = "many", reversed: Bool = false) throws -> [String] {
    let image = try images(1, width: 40, height: 30)[0]
    let folder = path(name)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let digits = String(count - 1).count
    let files = (0..<count).map { folder + "/" + String(format: "%0\(digits)d", reversed ? count - 1 - $0 : $0) + ".jpg" }
    for file in files { try FileManager.default.linkItem(atPath: image, toPath: file) }
    return files
  }
}

/// A filesystem of its own (tmpfs: the tests run as root, as `make test` does), to fill;
/// `unmount()` it when done.
struct SmallDisk {
  let path: String

  init(in work: TestWorkspace, size: String) throws {
    path = work.path("disk")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let mount = try Run.program("mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path])
    try #require(mount.status == 0, "mount: \(mount.stderr)")
  }

  func unmount() { _ = try? Run.program("umount", [path]) }

  /// A new, empty document on it, made by `gallery new`.
  func newDocument(_ name: String) throws -> String {
    let document = path + "/" + name
    let made = try Run.gallery(["new", document])
    try #require(made.status == 0, "gallery new: \(made.stderr)")
    return document
  }

  /// Fills it with a file `filler` until `free` bytes are left.
  func fill(leaving free: Int) throws {
    let df = try Run.program("df", ["--output=avail", "-B1", path]).stdout.split(separator: "\n")
    let available = try #require(df.last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
    try Data(count: available - free).write(to: URL(fileURLWithPath: filler))
  }

  var filler: String { path + "/filler" }
}

/// Runs real programs: the built `gallery` binary and the tools we interoperate with.
enum Run {
  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutData: Data
    /// Ended by a signal (a crash, or a kill), not by an exit status.
    var signaled = false
  }

  /// The `gallery` binary `swift build` made next to the tests.
  static let galleryBinary: String = {
    if let path = ProcessInfo.processInfo.environment["GALLERY_BINARY"] { return path }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    return root.appendingPathComponent(".build/debug/gallery").path
  }()

  static func gallery(
    _ arguments: [String], stdin: Data? = nil, in directory: String? = nil, environment: [String: String] = [:]
  ) throws -> Result {
    try program(galleryBinary, arguments, stdin: stdin, in: directory, environment: isolatedHome.merging(environment) { $1 })
  }

  /// XDG folders of the test run's own, so that recent documents and the Trash never touch
  /// the real home, nor what an earlier run with the same pid left.
  static let isolatedHome: [String: String] = {
    let name = "gallery-tests-home-\(getpid())-\(UUID().uuidString.prefix(8))"
    let base = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
    return [
      "XDG_STATE_HOME": base + "/state", "XDG_DATA_HOME": base + "/data", "XDG_CACHE_HOME": base + "/cache",
      "XDG_CONFIG_HOME": base + "/config",
      // libvips in this process set VIPSHOME (it does when it starts); the binary must start
      // libvips as it does for a user, whose environment has none.
      "VIPSHOME": VipsRuntime.homeWithoutModules,
    ]
  }()

  /// How long one program may run before the tests kill it and record a failure: a hang
  /// must fail the one test, never stall the whole run.
  static let deadline: TimeInterval = 180

  /// Runs a program to completion, feeding `stdin` and collecting both outputs.
  /// The outputs go to unlinked temporary files, not pipes: a program may leave a server
  /// behind (tmux, xclip) that keeps what it was given open, and reading a pipe to its end
  /// would then wait for that server.
  static func program(
    _ path: String, _ arguments: [String], stdin: Data? = nil, in directory: String? = nil,
    environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Result {
    let output = try unlinkedFile()
    let errors = try unlinkedFile()
    let input = Pipe()
    let process = try TestProcess(
      path, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, directory: directory,
      stdin: input.fileHandleForReading.fileDescriptor, stdout: output.fileDescriptor, stderr: errors.fileDescriptor)
    try input.fileHandleForReading.close()
    // Fed from another thread: a program that exits without reading must not block us.
    let feeder = input.fileHandleForWriting
    DispatchQueue.global().async {
      if let stdin { try? feeder.write(contentsOf: stdin) }
      try? feeder.close()
    }
    process.wait(sourceLocation: sourceLocation)
    try output.seek(toOffset: 0)
    try errors.seek(toOffset: 0)
    let outputData = try output.readToEnd() ?? Data()
    let errorData = try errors.readToEnd() ?? Data()
    return Result(
      status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
      stderr: String(decoding: errorData, as: UTF8.self), stdoutData: outputData,
      signaled: process.terminationReason == .uncaughtSignal)
  }

  private static func unlinkedFile() throws -> FileHandle {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-run-\(UUID().uuidString)").path
    guard FileManager.default.createFile(atPath: path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
    defer { unlink(path) }
    return try FileHandle(forUpdating: URL(fileURLWithPath: path))
  }

  /// Starts `gallery` and returns the running process (for kill tests).
  /// Standard error goes to `errors` when given (a file to read once the process ended).
  static func start(_ arguments: [String], environment: [String: String] = [:], errors: String? = nil) throws -> TestProcess {
    var log: FileHandle?
    if let errors {
      _ = FileManager.default.createFile(atPath: errors, contents: nil)
      log = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
    }
    defer { try? log?.close() }
    return try TestProcess(
      galleryBinary, arguments,
      environment: ProcessInfo.processInfo.environment.merging(isolatedHome.merging(environment) { $1 }) { $1 },
      stderr: log?.fileDescriptor)
  }
}

/// `gallery show --json`, decoded.
struct Listing: Decodable {
  struct Entry: Decodable {
    var position: Int
    var id: String
    var state: String
    var display: String
    var source: String
    var aspectRatio: Double
    var width: Int?
    var height: Int?
    var format: String?
    var thumbnail: String?
  }
  var title: String
  var revision: Int
  var items: [Entry]
  var trashed: Int

  static func of(_ document: String) throws -> Listing {
    let result = try Run.gallery(["show", "--json", document])
    #expect(result.status == 0, "show failed: \(result.stderr)")
    return try JSONDecoder().decode(Listing.self, from: result.stdoutData)
  }
}

/// Lists an archive's entries with a tool other than ours.
func archiveNames(_ path: String, tool: String = "bsdtar") throws -> [String] {
  let result = try Run.program(tool, ["-tf", path])
  #expect(result.status == 0, "\(tool) -tf failed: \(result.stderr)")
  return result.stdout.split(separator: "\n").map(String.init)
}
