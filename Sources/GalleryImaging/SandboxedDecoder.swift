import Foundation
import GallerySystem
import Synchronization

/// Formats whose libvips loaders are marked untrusted (fuzzed less upstream, or running
/// large libraries: ImageMagick, poppler, librsvg, OpenJPEG, libjxl) are decoded in a
/// process of their own, never in ours: `gallery` started again with `childArgument`, fed
/// the file on its standard input, confined (`DecoderSandbox`: memory, CPU, no network,
/// no program run, no file written) and killed at a deadline. It answers with the image's
/// facts and a rendition at the size asked, as PNG, which this process then treats like
/// any PNG. A hostile file can at worst fail its own decode.
public enum SandboxedDecoder {
  /// The first argument that makes `gallery` the decoder (see `runChild`).
  public static let childArgument = "--sandboxed-decoder"

  package static let memoryBytes = 1 << 30
  package static let cpuSeconds = 20
  package static let deadlineSeconds = 30.0
  /// The most a rendition may take (a PNG of at most `maxRenditionSize` squared).
  package static let outputBytes = 64 << 20
  package static let maxRenditionSize = 4096
  /// The most the decoder reads: the caller's own limit on files is lower.
  package static let inputBytes = 1 << 30

  private static let configuredExecutable = Mutex<String?>(nil)

  /// The `gallery` executable that decodes: the running one when it is `gallery` (its
  /// entry point says so), else the first `gallery` on PATH (a program using GalleryKit).
  public static var executable: String? {
    get { configuredExecutable.withLock { $0 } ?? ChildProcess.findInPath("gallery") }
    set { configuredExecutable.withLock { $0 = newValue } }
  }

  /// The formats sent here, by their first bytes: a file none of them claims is not an image.
  package enum Format: String, CaseIterable, Sendable {
    case bmp, jxl, jp2, svg, pdf, raw

    package init?(prefix data: Data) {
      let bytes = [UInt8](data.prefix(4096))
      func starts(_ magic: [UInt8]) -> Bool { bytes.starts(with: magic) }
      if CameraRaw.matches(data) {
        self = .raw
      } else if starts([0x42, 0x4D]) && bytes.count >= 18 && [12, 40, 52, 56, 64, 108, 124].contains(Int(bytes[14]))
        && bytes[15...17].allSatisfy({ $0 == 0 })
      {
        self = .bmp
      } else if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
        self = .jxl
      } else if starts([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) || starts([0xFF, 0x4F, 0xFF, 0x51]) {
        self = .jp2
      } else if starts(Array("%PDF-".utf8)) {
        self = .pdf
      } else if Self.isSVG(bytes) {
        self = .svg
      } else {
        return nil
      }
    }

    /// An XML document whose root element is `svg`: after a byte-order mark, white space,
    /// the XML declaration, comments and a doctype (an HTML page that holds an SVG is not one).
    private static func isSVG(_ bytes: [UInt8]) -> Bool {
      var text = Substring(String(decoding: bytes, as: UTF8.self))
      if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
      while true {
        text = text.drop { $0.isWhitespace }
        if text.hasPrefix("<svg") { return text.dropFirst(4).first.map { $0.isWhitespace || $0 == ">" } ?? false }
        let skips: [(open: String, close: String)] = [("<?xml", "?>"), ("<!--", "-->"), ("<!DOCTYPE svg", ">")]
        guard let skip = skips.first(where: { text.hasPrefix($0.open) }), let end = text.range(of: skip.close) else {
          return false
        }
        text = text[end.upperBound...]
      }
    }
  }

  /// What the decoder says of an image, before its rendition.
  package struct Facts: Codable, Sendable, Equatable {
    /// The libvips loader's format name ("svg", "jp2k", "magick", ...).
    package var format: String
    /// As stored, before the EXIF orientation.
    package var width: Int
    package var height: Int
    package var orientation: Int
    package var pages: Int
  }

  package struct Decoded: Sendable {
    package var facts: Facts
    /// sRGB PNG, at most `size` on its longer side.
    package var rendition: Data
  }

  /// Decodes `data` in the sandboxed process: its facts and a rendition at most `size` on
  /// the longer side. Refuses over `maxPixels` (the decoder reads the header first).
  package static func decode(_ data: Data, size: Int, maxPixels: Int) throws(ImageRefusal) -> Decoded {
    guard let executable else { throw .undecodable("its format needs the `gallery` program to decode it, not found") }
    let outcome: ChildProcess.Outcome
    do {
      outcome = try ChildProcess.run(
        executable, [childArgument, String(min(size, maxRenditionSize)), String(maxPixels)], input: data,
        upTo: deadlineSeconds, outputLimit: outputBytes)
    } catch {
      throw .undecodable("the decoder could not run: \(error)")
    }
    switch outcome.ending {
    case .killedAtDeadline: throw .undecodable("decoding took longer than \(Int(deadlineSeconds)) s")
    case .exited(0): break
    case .exited(128 + SIGXCPU): throw .undecodable("decoding took more than \(cpuSeconds) s of CPU")
    case .exited(let status) where status > 128:
      throw .undecodable("the decoder crashed (signal \(status - 128)) \(outcome.errors)".trimmingCharacters(in: .whitespaces))
    case .exited(overLimit):
      // The facts alone: the refusal is made here, in the same words as for any image.
      let facts = try facts(in: outcome.output)
      try ImageRefusal.checkPixels(width: facts.width, height: facts.height, limit: maxPixels)
      throw .undecodable("the decoder refused it as too large")
    case .exited(let status):
      throw .undecodable(outcome.errors.split(separator: "\n").last.map(String.init) ?? "exit status \(status)")
    }
    let facts = try facts(in: outcome.output)
    try ImageRefusal.checkPixels(width: facts.width, height: facts.height, limit: maxPixels)
    return Decoded(facts: facts, rendition: Data(outcome.output.drop { $0 != 0x0A }.dropFirst()))
  }

  /// Keys in order: the same facts make the same line.
  private static var encoder: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return encoder
  }

  /// The decoder's exit status for an image over the pixel limit, after writing its facts.
  private static let overLimit: Int32 = 3

  /// The first line of the decoder's answer, checked.
  private static func facts(in output: Data) throws(ImageRefusal) -> Facts {
    guard let newline = output.prefix(1024).firstIndex(of: 0x0A),
      let facts = try? JSONDecoder().decode(Facts.self, from: output[..<newline]),
      facts.width > 0, facts.height > 0, (1...8).contains(facts.orientation), facts.pages >= 1
    else { throw .undecodable("the decoder's answer is not one") }
    return facts
  }

  /// The decoder: reads the file from standard input, confines itself, writes the facts
  /// (one line of JSON) and the rendition (PNG) to standard output, or a reason to
  /// standard error and exits 1. Arguments: the rendition's size, the most pixels allowed.
  public static func runChild(_ arguments: [String]) -> Never {
    do {
      guard arguments.count == 2, let size = Int(arguments[0]), (1...maxRenditionSize).contains(size),
        let maxPixels = Int(arguments[1]), maxPixels > 0
      else { throw DecoderSandbox.Failure(description: "usage: gallery \(childArgument) SIZE MAX-PIXELS") }
      let data = try StandardInput.read(limit: inputBytes)
      // libvips loads its modules (and they their libraries) before the doors close.
      try VipsRuntime.start()
      VipsRuntime.allowUntrustedLoaders()
      if Format(prefix: data) == .raw { try RawPhoto.load() }
      try DecoderSandbox.enter(memoryBytes: memoryBytes, cpuSeconds: cpuSeconds, outputBytes: outputBytes)
      let output = FileHandleFD(adopting: 1, path: "standard output")
      if Format(prefix: data) == .raw, let answer = try rawAnswer(data, size: size, maxPixels: maxPixels) {
        try output.writeAll(answer.facts)
        guard let rendition = answer.rendition else { exit(overLimit) }
        try output.writeAll(rendition)
        exit(0)
      }
      try data.withUnsafeBytes { raw in
        let header = try VipsBuffer.header(of: data)
        let loader = VipsBuffer.loaderName(for: data) ?? "unknown"
        let facts = Facts(
          format: ImageProcessor.formatName(loader: loader), width: header.width, height: header.height,
          orientation: header.orientation, pages: header.pages)
        guard facts.width > 0, facts.height > 0 else { throw VipsError(operation: "header", message: "zero-sized image") }
        var line = try Self.encoder.encode(facts)
        line.append(0x0A)
        try output.writeAll(line)
        guard (try? ImageRefusal.checkPixels(width: facts.width, height: facts.height, limit: maxPixels)) != nil else {
          exit(overLimit)
        }
        let drawn = ["svg", "pdf"].contains(facts.format)
        let rendition = try drawn ? VipsImageHandle.drawing(of: raw, size: size) : VipsImageHandle.thumbnail(of: raw, size: size)
        try output.writeAll(try rendition.encoded(as: ".png"))
      }
      exit(0)
    } catch {
      FileHandle.standardError.write(Data("\(error)\n".utf8))
      exit(1)
    }
  }

  /// A camera RAW file, read by libraw: its facts (a line of JSON) and its rendition, upright
  /// (none over the pixel limit); nil when libraw does not read it (a TIFF a camera maker's
  /// scanner wrote), which then goes to libvips as any file.
  private static func rawAnswer(_ data: Data, size: Int, maxPixels: Int) throws -> (facts: Data, rendition: Data?)? {
    guard let decoded = try? RawPhoto.decode(data) else { return nil }
    let facts = Facts(
      format: "raw", width: decoded.width, height: decoded.height, orientation: decoded.orientation, pages: 1)
    guard facts.width > 0, facts.height > 0 else { throw VipsError(operation: "libraw", message: "zero-sized image") }
    var line = try encoder.encode(facts)
    line.append(0x0A)
    guard (try? ImageRefusal.checkPixels(width: facts.width, height: facts.height, limit: maxPixels)) != nil else {
      return (line, nil)
    }
    var image: VipsImageHandle
    if let preview = decoded.preview {
      image = try preview.withUnsafeBytes { raw in try VipsImageHandle.thumbnail(of: raw, size: size).copiedToMemory() }
    } else if let pixels = decoded.pixels {
      image = try pixels.data.withUnsafeBytes { raw in
        try VipsImageHandle.pixels(raw, width: pixels.width, height: pixels.height, bands: pixels.bands)
          .shrunk(toFit: size).copiedToMemory()
      }
    } else {
      return nil
    }
    // The camera stored its preview as the sensor saw it: turned upright here, as the
    // orientation says (libraw turns what it develops itself).
    let turns = [3: 2, 6: 1, 8: 3][decoded.orientation] ?? 0
    if decoded.preview != nil, turns > 0 { image = try image.rotated(quarterTurns: turns) }
    return (line, try image.encoded(as: ".png"))
  }
}

/// Camera RAW files by their content: the formats with their own signature (Olympus,
/// Panasonic, Fujifilm, Canon's CR2 and CR3), and the TIFFs a camera wrote (a DNG's version
/// tag, or a camera maker in the first directory, read wherever it lies).
enum CameraRaw {
  static let makers = [
    "NIKON", "SONY", "PENTAX", "Canon", "OLYMPUS", "Panasonic", "FUJIFILM", "LEICA", "Leica", "Hasselblad", "Phase One",
    "SAMSUNG", "RICOH", "KODAK", "Kodak", "KONICA MINOLTA", "Minolta", "SIGMA", "Mamiya", "Leaf",
  ]

  /// Reads the signature, and a TIFF's first directory wherever in `data` it lies.
  static func matches(_ data: Data) -> Bool {
    let bytes = [UInt8](data.prefix(16))
    func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
      bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
    }
    if starts(Array("IIRO".utf8)) || starts(Array("IIRS".utf8)) || starts(Array("MMOR".utf8)) || starts([0x49, 0x49, 0x55, 0])
      || starts(Array("FUJIFILMCCD-RAW".utf8)) || starts(Array("ftypcrx ".utf8), at: 4)
    {
      return true
    }
    if starts([0x49, 0x49, 0x2A, 0]) && starts(Array("CR".utf8), at: 8) { return true }
    guard let directory = TIFFDirectory(data) else { return false }
    for entry in directory.entries {
      if entry.tag == 0xC612 { return true }  // DNGVersion
      guard entry.tag == 0x010F, entry.count > 4, entry.count < 64,
        let value = directory.bytes(of: entry, unit: 1, limit: 64)
      else { continue }
      let make = String(decoding: value.prefix { $0 != 0 }, as: UTF8.self)
      if makers.contains(where: { make.hasPrefix($0) }) { return true }
    }
    return false
  }
}
