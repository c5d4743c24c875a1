import Foundation
import GalleryKit

/// create-gallery PATH [TITLE]: makes an empty gallery document.
@main
struct CreateGallery {
  static func main() async {
    let arguments = CommandLine.arguments.dropFirst()
    guard let path = arguments.first else { fail("usage: create-gallery PATH [TITLE]") }
    do {
      let gallery = try await Gallery.create(at: path, title: arguments.dropFirst().first)
      let model = try await gallery.model()
      print("created \(gallery.path): \"\(model.title)\", \(model.items.count) items")
    } catch {
      // A library error says what went wrong in words (DocumentError.exists, say).
      fail("create-gallery: \(error)")
    }
  }
}

func fail(_ message: String) -> Never {
  print(message)
  exit(1)
}
