import Foundation
import GalleryKit

/// drop-images DOC FILE...: drops image files (or the images in folders) into a gallery.
@main
struct DropImages {
  static func main() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard arguments.count >= 2 else { fail("usage: drop-images DOC FILE...") }
    let gallery = Gallery(path: arguments[0])
    do {
      let report = try await gallery.drop(files: Array(arguments.dropFirst()), recursive: true)
      for item in report.committed {
        print("dropped \(item.id): \(item.width ?? 0)x\(item.height ?? 0) \(item.format ?? "?") \(item.source)")
      }
      // What could not be dropped is reported, not thrown: the rest went in.
      for failure in report.failures { print("not dropped: \(failure)") }
      if !report.failures.isEmpty { exit(1) }
    } catch {
      fail("drop-images: \(error)")
    }
  }
}

func fail(_ message: String) -> Never {
  print(message)
  exit(2)
}
