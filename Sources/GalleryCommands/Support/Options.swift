import ArgumentParser
import Foundation
import GalleryKit

/// The document a command works on.
struct DocumentArgument: ParsableArguments {
  @Argument(help: "The gallery document (NAME.gallery).", completion: .file(extensions: ["gallery"]))
  var document: String
}

/// `--json` for read commands.
struct OutputOptions: ParsableArguments {
  @Flag(help: "Write JSON to standard output instead of text.")
  var json = false
}

/// A position on the command line: a 1-based number, or `end`.
enum TargetPosition: ExpressibleByArgument {
  case position(Int)
  case end

  init?(argument: String) {
    if argument.lowercased() == "end" {
      self = .end
    } else if let number = Int(argument), number >= 1 {
      self = .position(number)
    } else {
      return nil
    }
  }

  var value: Int {
    switch self {
    case .position(let number): number
    case .end: Int.max
    }
  }
}

extension ItemReference: ExpressibleByArgument {
  public init?(argument: String) {
    guard !argument.isEmpty else { return nil }
    if let number = Int(argument), number < 1 { return nil }
    self.init(argument)
  }
}

/// Completion of item arguments: the ids and positions of the document named earlier on the
/// line. Runs on every Tab, so it only reads (no lock, no recent-documents note).
enum ItemCompletion {
  static let items = CompletionKind.custom { words, _, prefix in candidates(words, prefix: prefix, trash: false) }
  static let trashedItems = CompletionKind.custom { words, _, prefix in candidates(words, prefix: prefix, trash: true) }

  static func candidates(_ words: [String], prefix: String, trash: Bool) -> [String] {
    guard let path = words.first(where: { $0.hasSuffix("." + DocumentName.fileExtension) }),
      let model = try? GalleryDocument.open((path as NSString).expandingTildeInPath).model
    else { return [] }
    let items = trash ? model.trash.map(\.item) : model.items
    let candidates = items.map(\.id) + items.indices.map { String($0 + 1) }
    return candidates.filter { $0.hasPrefix(prefix) }
  }
}
