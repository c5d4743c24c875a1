import ArgumentParser
import Foundation
import GalleryModel

/// A command whose list argument a shell glob or a script may make thousands long
/// (`gallery drop DOC ~/Photos/*.jpg`, `gallery rate DOC $(gallery find ...) --stars 5`).
/// The argument parser's cost grows with the square of the arguments (ten thousand take
/// seconds), so the run of operands that makes the list is parsed with its first few only,
/// and the rest appended after.
protocol TakesManyOperands: ParsableCommand {
  /// Appends operands that followed, on the command line, the ones the parser read,
  /// refusing those the parser would have refused.
  mutating func append(operands: [String]) throws
}

enum ManyOperands {
  /// Fewer operands in the run than this are left to the parser.
  static let threshold = 64
  /// Operands of the run kept for the parser: the first may be an option's value, the
  /// second the document, the third the first of the list.
  static let kept = 3

  /// What the split needs to know of a command's arguments: the names of its options that
  /// take a value and of its flags, and whether its list is words, items then changes
  /// that start with + or - (`gallery tag DOC 1 2 +beach -sea`).
  struct Shape {
    var valued: Set<String> = []
    var flags: Set<String> = []
    var dashedOperands = false

    /// The shape the argument parser itself describes (its `--experimental-dump-help`).
    init(of command: any ParsableCommand.Type) {
      let data = Data(command._dumpHelp().utf8)
      let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
      let arguments = (root?["command"] as? [String: Any])?["arguments"] as? [[String: Any]] ?? []
      for argument in arguments {
        let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
          guard let text = name["name"] as? String else { return nil }
          return (name["kind"] as? String == "long" ? "--" : "-") + text
        }
        switch argument["kind"] as? String {
        case "option": valued.formUnion(names)
        case "flag": flags.formUnion(names)
        default: if argument["parsingStrategy"] as? String == "allUnrecognized" { dashedOperands = true }
        }
      }
    }

    /// Not an option: the parser takes it as an operand wherever it stands after another
    /// operand. `-` (standard input) is one.
    func isOperand(_ argument: String) -> Bool {
      argument == "-" || !argument.hasPrefix("-")
        || (dashedOperands && !argument.hasPrefix("--") && !valued.contains(argument) && !flags.contains(argument))
    }
  }

  /// The command `arguments` name, when it takes many operands.
  static func command(_ arguments: [String], among commands: [any ParsableCommand.Type]) -> (any TakesManyOperands.Type)? {
    guard let name = arguments.first else { return nil }
    return commands.first { $0._commandName == name } as? any TakesManyOperands.Type
  }

  /// `arguments` (the command's name first) split into what the parser reads and the
  /// operands appended after it: the last run of operands, but its first few, when nothing
  /// after it is an operand (only flags, and options with their values). Anything else
  /// (`--`, an option it does not know, a command that takes no list) is left to the
  /// parser whole.
  static func split(_ arguments: [String], shape: () -> Shape?) -> (parsed: [String], appended: [String]) {
    // Cheap checks first: the command and its shape are looked up only for a long line.
    guard arguments.count - 1 >= threshold + kept, !arguments.contains("--"), let shape = shape() else {
      return (arguments, [])
    }
    // From the end: flags, and options with their values.
    var end = arguments.count
    while end > 1 {
      let last = arguments[end - 1]
      let name = last.split(separator: "=", maxSplits: 1).first.map(String.init) ?? last
      if shape.flags.contains(last) || (last.hasPrefix("--") && last.contains("=") && shape.valued.contains(name)) {
        end -= 1
      } else if end > 2, shape.valued.contains(arguments[end - 2]) {
        end -= 2
      } else {
        break
      }
    }
    var start = end
    while start > 1, shape.isOperand(arguments[start - 1]) { start -= 1 }
    let cut = start + kept
    // Words: only items are appended, from a run that starts with items (the command puts
    // them back before the first change).
    if shape.dashedOperands {
      func isChange(_ word: String) -> Bool { word.hasPrefix("+") || word.hasPrefix("-") }
      guard cut <= end, !arguments[start..<cut].contains(where: isChange) else { return (arguments, []) }
      end = arguments[cut..<end].firstIndex(where: isChange) ?? end
    }
    guard end - cut >= threshold else { return (arguments, []) }
    return (Array(arguments[..<cut] + arguments[end...]), Array(arguments[cut..<end]))
  }
}

/// The commands whose last argument is a list of items.
protocol TakesManyItems: TakesManyOperands {
  var items: [ItemReference] { get set }
}

extension TakesManyItems {
  mutating func append(operands: [String]) throws { items += try ItemReference.parsing(operands) }
}

/// The commands whose items are an `ItemsArgument`.
protocol TakesManySelected: TakesManyOperands {
  var selection: ItemsArgument { get set }
}

extension TakesManySelected {
  mutating func append(operands: [String]) throws { selection.items += try ItemReference.parsing(operands) }
}

extension ItemReference {
  /// Operands read as the argument parser reads items.
  static func parsing(_ operands: [String]) throws -> [ItemReference] { try operands.map(parsing) }

  static func parsing(_ operand: String) throws -> ItemReference {
    guard let item = ItemReference(argument: operand) else { throw ValidationError("\(operand): not an item position or id") }
    return item
  }
}
