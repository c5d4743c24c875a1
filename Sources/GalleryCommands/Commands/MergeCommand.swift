import ArgumentParser
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct MergeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge",
    abstract: "Merge galleries.",
    discussion: """
      The items of each document in order, the same content only once; thumbnails (and \
      embedded originals) are carried over, nothing is refetched. -o makes a new document \
      (never over an existing file); --into adds to an existing one.
      """)

  @Argument(help: "The documents to merge.", completion: .file(extensions: ["gallery"]))
  var documents: [String]

  @Option(name: .customShort("o"), help: "A new document to make.", completion: .file(extensions: ["gallery"]))
  var output: String?

  @Option(help: "An existing document to merge into (it comes first).", completion: .file(extensions: ["gallery"]))
  var into: String?

  func validate() throws {
    guard (output == nil) != (into == nil) else {
      throw ValidationError("give -o NEW.gallery or --into DOC.gallery (one of them)")
    }
    guard !documents.isEmpty else { throw ValidationError("name the documents to merge") }
  }

  func run() throws {
    let target = output ?? into!
    let sources = documents.filter { $0 != target }
    let added = try DocumentMerge.merge(sources, into: target, create: output != nil)
    RecentDocuments.note(target)
    Terminal.message("merged \(added.count) item\(added.count == 1 ? "" : "s") into \(target)")
  }
}
