import Foundation
import GalleryKit

/// list-items DOC: the items of a gallery, in order, and the last entries of its history.
@main
struct ListItems {
  static func main() async {
    guard let path = CommandLine.arguments.dropFirst().first else { fail("usage: list-items DOC") }
    let gallery = Gallery(path: path)
    do {
      let model = try await gallery.model()
      print("\(model.title): \(model.items.count) items, revision \(model.revision)")
      for (position, item) in model.items.enumerated() {
        let size = item.width.map { "\($0)x\(item.height ?? 0)" } ?? "-"
        print("\(position + 1)\t\(item.id)\t\(item.displayState)\t\(size)\t\(item.source)")
      }
      for record in try await gallery.history().suffix(3) {
        print("r\(record.revision)\t\(record.summary)")
      }
    } catch {
      fail("list-items: \(error)")
    }
  }
}

func fail(_ message: String) -> Never {
  print(message)
  exit(1)
}
