import ArgumentParser

/// A mistyped subcommand (`gallery shwo`) is answered with the one it most likely meant, as
/// a mistyped option is.
package enum CommandSuggestion {
  /// Every subcommand's name.
  static var names: [String] { GalleryCommand.configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"] }

  /// The message for a first argument that is no subcommand, or nil when it is one (or
  /// could be: help, a version request).
  package static func suggestion(for word: String, among names: [String] = names) -> String? {
    guard !names.contains(word) else { return nil }
    if word.hasSuffix(".gallery") {
      return "'\(word)' is a document, not a command: `gallery show \(word)` lists it, `gallery open \(word)` shows it"
    }
    let scored = names.map { ($0, distance(word, $0)) }.filter { $0.1 <= max(1, min(2, word.count / 3)) }
    guard let best = scored.min(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }) else {
      return "unknown command '\(word)' (`gallery --help` lists them)"
    }
    return "unknown command '\(word)'. Did you mean '\(best.0)'?"
  }

  /// Edits (insert, delete, replace, or swap two neighbours) between two words.
  package static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
        }
      }
    }
    return table[a.count][b.count]
  }
}
