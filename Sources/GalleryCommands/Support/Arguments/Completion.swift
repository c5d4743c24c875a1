import ArgumentParser
import Foundation
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

/// Completion of item arguments: the ids and positions of the document named earlier on the
/// line, described by their file names where the shell shows descriptions (zsh, fish). Runs
/// on every Tab, so it only reads (no lock, no recent-documents note).
enum ItemCompletion {
  static let items = CompletionKind.custom { words, _, prefix in candidates(words, prefix: prefix, trash: false) }
  static let trashedItems = CompletionKind.custom { words, _, prefix in candidates(words, prefix: prefix, trash: true) }
  /// `gallery tag`'s words: items, then `+TAG` and `-TAG` with the document's own tags.
  static let itemsAndTags = CompletionKind.custom { words, _, prefix in
    guard let sign = prefix.first, sign == "+" || sign == "-" else { return candidates(words, prefix: prefix, trash: false) }
    return tags(words, prefix: String(prefix.dropFirst())).map { String(sign) + $0 }
  }
  /// A query's `tag:` with the tags of the galleries named before it.
  static let query = CompletionKind.custom { words, _, prefix in
    guard prefix.hasPrefix("tag:") else { return [] }
    return tags(words, prefix: String(prefix.dropFirst(4))).map { "tag:" + $0 }
  }

  /// The tags of the items of the galleries named on the line, each once, that start with
  /// `prefix`.
  static func tags(_ words: [String], prefix: String) -> [String] {
    var found = Set<String>()
    for word in words.dropFirst().map(ShellWord.unquoted) where word.hasSuffix("." + DocumentName.fileExtension) {
      guard let model = try? GalleryDocument.open(XDGDirectory.expandingTilde(word)).model else { continue }
      for item in model.items { found.formUnion(item.tags ?? []) }
    }
    return found.filter { $0.hasPrefix(prefix) }.sorted()
  }

  static func candidates(
    _ words: [String], prefix: String, trash: Bool, shell: String? = ProcessInfo.processInfo.environment["SAP_SHELL"]
  ) -> [String] {
    guard let word = words.dropFirst().map(ShellWord.unquoted).first(where: { $0.hasSuffix("." + DocumentName.fileExtension) }),
      let model = try? GalleryDocument.open(XDGDirectory.expandingTilde(word)).model
    else { return [] }
    let items = trash ? model.trash.map(\.item) : model.items
    var candidates: [(value: String, item: Item)] = items.map { ($0.id, $0) }
    candidates += items.enumerated().map { (String($0.offset + 1), $0.element) }
    return candidates.filter { $0.value.hasPrefix(prefix) }.map { value, item in
      let name = TerminalText.escaped(PathBytes.lastSegment(ofURL: item.source))
      switch shell {
      case "zsh": return value + ":" + name.replacingOccurrences(of: ":", with: "\\:")
      case "fish": return value + "\t" + name.replacingOccurrences(of: "\t", with: " ")
      default: return value
      }
    }
  }
}

/// A word of a command line as the shell showed it to a completion function, with its
/// quoting still on (`My\ Trip.gallery`, `'My Trip.gallery'`, `"My Trip.gallery`): the
/// text it stands for.
enum ShellWord {
  static func unquoted(_ word: String) -> String {
    var result = ""
    var quote: Character?
    var escaped = false
    for character in word {
      if escaped {
        result.append(character)
        escaped = false
      } else if let open = quote {
        if character == open {
          quote = nil
        } else if character == "\\" && open == "\"" {
          escaped = true
        } else {
          result.append(character)
        }
      } else if character == "\\" {
        escaped = true
      } else if character == "'" || character == "\"" {
        quote = character
      } else {
        result.append(character)
      }
    }
    return result
  }
}
