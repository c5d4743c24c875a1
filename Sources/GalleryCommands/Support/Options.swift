import ArgumentParser
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
