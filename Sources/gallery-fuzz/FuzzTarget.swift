import Foundation
import GalleryKit
import GalleryViewRules

// The fuzz targets of the readers of untrusted input. Built two ways:
// - by `make fuzz` with `-sanitize=fuzzer -parse-as-library -DFUZZING`: libFuzzer's main
//   calls `LLVMFuzzerTestOneInput`; GALLERY_FUZZ_TARGET names the target (document, model,
//   drop-input, jpeg, view-request);
// - by a plain `swift build`: a replayer, `gallery-fuzz TARGET FILE...`, that runs each
//   file through the same target (the tests replay the committed corpus and crashes so).

/// Runs one input through a target; false for an unknown target name.
func runTarget(_ name: String, _ data: Data) -> Bool {
  switch name {
  case "document": FuzzEntryPoints.document(data, scratch: scratchFile)
  case "model": FuzzEntryPoints.model(data)
  case "drop-input": FuzzEntryPoints.dropInput(data)
  case "jpeg": FuzzEntryPoints.jpeg(data)
  case "view-request": ViewFuzzEntryPoints.request(data)
  default: return false
  }
  return true
}

/// One scratch file per process, in memory when /dev/shm exists.
let scratchFile: String = {
  let folder = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
  return folder + "/gallery-fuzz-\(getpid()).gallery"
}()

#if FUZZING
  let targetName = ProcessInfo.processInfo.environment["GALLERY_FUZZ_TARGET"] ?? "document"

  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    guard runTarget(targetName, data) else { fatalError("GALLERY_FUZZ_TARGET: no target \(targetName)") }
    return 0
  }

  /// libFuzzer's driver, called from our own entry point: SwiftPM names an executable's
  /// entry `<target>_main`, so libFuzzer's `main` is not the one that runs.
  // swift-format-ignore: AlwaysUseLowerCamelCase
  @_silgen_name("LLVMFuzzerRunDriver")
  func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
  ) -> CInt

  @_cdecl("gallery_fuzz_main")
  public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { fuzzOneInput($0, $1) }
  }
#else
  @main
  enum Replay {
    static func main() {
      let arguments = CommandLine.arguments.dropFirst()
      guard let name = arguments.first, arguments.count >= 2 else {
        FileHandle.standardError.write(Data("usage: gallery-fuzz document|model|drop-input|jpeg|view-request FILE...\n".utf8))
        exit(64)
      }
      for path in arguments.dropFirst() {
        guard let data = FileManager.default.contents(atPath: path) else {
          FileHandle.standardError.write(Data("gallery-fuzz: cannot read \(path)\n".utf8))
          exit(66)
        }
        guard runTarget(name, data) else {
          FileHandle.standardError.write(Data("gallery-fuzz: no target \(name)\n".utf8))
          exit(64)
        }
      }
      unlink(scratchFile)
      print("replayed \(arguments.count - 1) input(s) through \(name)")
    }
  }
#endif
