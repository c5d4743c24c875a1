import Foundation
import Testing

/// Documents as an attacker would make them: a real document's entries, with its model
/// changed or entries added that no writer of ours makes. The tar is written by Python's
/// `tarfile`, a writer other than ours.
enum HostileDocument {
  /// A copy of `source` (its entries, every revision) whose last `gallery.json` is the
  /// source's model after `change`, then after `text` on its JSON text. `extra` adds entries:
  /// `symlink:NAME:TARGET`, `file:NAME:PATH`, `fifo:NAME`.
  static func make(
    from source: String, to path: String, extra: [String] = [],
    change: (inout [String: Any]) -> Void = { _ in }, text: (String) -> String = { $0 }
  ) throws {
    // A compacted copy: its last `gallery.json` is the current model (format 2 appends
    // journal records after it otherwise), and its history comes before it.
    let compacted = path + ".source.gallery"
    try? FileManager.default.removeItem(atPath: compacted)
    try FileManager.default.copyItem(atPath: source, toPath: compacted)
    defer { unlink(compacted) }
    let source = try Run.gallery(["compact", compacted]).status == 0 ? compacted : source
    // The last revision's model (bsdtar -xO would print every revision's).
    let json = try Run.program(
      "python3",
      [
        "-c",
        "import tarfile,sys\nt=tarfile.open(sys.argv[1])\nm=[m for m in t if m.name=='gallery.json'][-1]\nsys.stdout.buffer.write(t.extractfile(m).read())",
        source,
      ])
    #expect(json.status == 0)
    var model = try JSONSerialization.jsonObject(with: json.stdoutData) as! [String: Any]
    change(&model)
    let data = try JSONSerialization.data(withJSONObject: model, options: [.sortedKeys, .withoutEscapingSlashes])
    let modelFile = path + ".model.json"
    try Data(text(String(decoding: data, as: UTF8.self)).utf8).write(to: URL(fileURLWithPath: modelFile))
    defer { unlink(modelFile) }
    let script = """
      import sys, tarfile
      src, dst, model = sys.argv[1:4]
      with tarfile.open(src) as s, tarfile.open(dst, 'w', format=tarfile.PAX_FORMAT) as d:
          for m in s.getmembers():
              if m.name != 'gallery.json':
                  d.addfile(m, s.extractfile(m))
          for spec in sys.argv[4:]:
              kind, name, *rest = spec.split(':')
              info = tarfile.TarInfo(name)
              if kind == 'symlink':
                  info.type, info.linkname = tarfile.SYMTYPE, rest[0]
                  d.addfile(info)
              elif kind == 'fifo':
                  info.type = tarfile.FIFOTYPE
                  d.addfile(info)
              else:
                  d.add(rest[0], arcname=name)
          d.add(model, arcname='gallery.json')
      """
    let result = try Run.program("python3", ["-c", script, source, path, modelFile] + extra)
    #expect(result.status == 0, "python tarfile failed: \(result.stderr)")
  }

  /// The items of a model being changed.
  static func items(_ model: inout [String: Any], _ change: (inout [[String: Any]]) -> Void) {
    var items = model["items"] as! [[String: Any]]
    change(&items)
    model["items"] = items
  }
}

/// Runs `gallery` under GNU time and returns its peak resident memory in bytes.
func peakMemory(_ arguments: [String], stdin: Data? = nil) throws -> (result: Run.Result, bytes: Int) {
  let report = FileManager.default.temporaryDirectory.appendingPathComponent("time-\(UUID().uuidString)").path
  defer { unlink(report) }
  let result = try Run.program(
    "/usr/bin/time", ["-f", "%M", "-o", report, Run.galleryBinary] + arguments, stdin: stdin,
    environment: Run.isolatedHome)
  let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
  let kilobytes = text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
  return (result, kilobytes * 1024)
}

/// Whether a process crashed: ended by a signal, or by a status a shell gives a signal.
func crashed(_ result: Run.Result) -> Bool { result.signaled || (result.status > 128 && result.status != 130) }

/// Writes an all-zero RGBA PNG, 16 bits a sample, Adam7-interlaced, streaming (a few MB for
/// millions of pixels): what a decoder must hold whole before it can shrink it.
func writeInterlacedPNG(_ path: String, width: Int, height: Int) throws {
  let script = """
    import struct, sys, zlib
    path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    z = zlib.compressobj(9)
    idat = bytearray()
    for x0, y0, dx, dy in passes:
        pw, ph = (w - x0 + dx - 1) // dx, (h - y0 + dy - 1) // dy
        if pw == 0 or ph == 0:
            continue
        row = bytes(1 + pw * 8)
        for _ in range(ph):
            idat += z.compress(row)
    idat += z.flush()
    with open(path, 'wb') as f:
        f.write(b'\\x89PNG\\r\\n\\x1a\\n')
        f.write(chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 16, 6, 0, 0, 1)))
        f.write(chunk(b'IDAT', bytes(idat)))
        f.write(chunk(b'IEND', b''))
    """
  let result = try Run.program("python3", ["-c", script, path, String(width), String(height)])
  #expect(result.status == 0, "\(result.stderr)")
}
