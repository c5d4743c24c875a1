import ArgumentParser
import GalleryModel

/// A command whose last argument is a list a shell glob or a script may make thousands
/// long (`gallery drop DOC ~/Photos/*.jpg`, `gallery export --to DIR DOC $(gallery find ...)`).
/// The argument parser's cost grows with the square of the arguments (ten thousand take
/// seconds), so the run of plain operands that ends the command line is parsed with its
/// first few only, and the rest appended after.
protocol TakesManyOperands: ParsableCommand {
  /// Appends operands that followed, on the command line, the ones the parser read.
  mutating func append(operands: [String])
}

enum ManyOperands {
  /// The subcommands that take many operands (each conforms to `TakesManyOperands`).
  static let commands: Set<String> = ["drop", "uris", "export", "trash", "restore", "copy", "drag", "retry"]
  /// Fewer trailing operands than this are left to the parser.
  static let threshold = 64
  /// Operands of the run kept for the parser: the first may be an option's value, the
  /// second the document, the third the first of the list.
  static let kept = 3

  /// `arguments` split into what the parser reads and the operands appended after it: the
  /// plain operands (not options, so not taken by one) that end the line, but its first few.
  static func split(_ arguments: [String]) -> (parsed: [String], appended: [String]) {
    guard let command = arguments.first, commands.contains(command) else { return (arguments, []) }
    var start = arguments.count
    while start > 1, isPlain(arguments[start - 1]) { start -= 1 }
    let cut = start + kept
    guard arguments.count - cut >= threshold else { return (arguments, []) }
    return (Array(arguments[..<cut]), Array(arguments[cut...]))
  }

  /// Not an option: the parser takes it as an operand wherever it stands after another
  /// operand. `-` (standard input) is one.
  private static func isPlain(_ argument: String) -> Bool { argument == "-" || !argument.hasPrefix("-") }
}

/// The commands whose last argument is a list of items.
protocol TakesManyItems: TakesManyOperands {
  var items: [ItemReference] { get set }
}

extension TakesManyItems {
  mutating func append(operands: [String]) { items += operands.map { ItemReference($0) } }
}
