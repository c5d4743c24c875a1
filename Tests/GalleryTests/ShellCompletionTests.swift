import Foundation
import Testing

/// Completion in the real shells, typed and Tab-completed in a terminal (tmux), for a
/// document whose name has a space: ids and positions, with the file names as descriptions
/// where the shell shows them.
@Suite("Shell completion in bash, zsh and fish", .serialized)
struct ShellCompletionTests {
  static let completions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("completions").path

  /// A folder with `My Trip.gallery` holding landscape.jpg and wide.jpg; returns their ids.
  func trip(_ work: TestWorkspace) throws -> [String] {
    let document = try work.document("My Trip.gallery")
    let dropped = try Run.gallery([
      "drop", document, try work.image("landscape.jpg", seed: 1), try work.image("wide.jpg", seed: 2),
    ])
    #expect(dropped.status == 0, "\(dropped.stderr)")
    return try Listing.of(document).items.map(\.id)
  }

  /// Starts `shell` in tmux, runs `setup`, types `line`, presses Tab and returns the screen
  /// once it shows `expected` (or after 15 s).
  func complete(_ shell: String, setup: String, line: String, expecting expected: String, in work: TestWorkspace) throws -> String
  {
    let session = "gallery-\(UUID().uuidString.prefix(8))"
    let path =
      URL(fileURLWithPath: Run.galleryBinary).deletingLastPathComponent().path + ":"
      + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    let environment = Run.isolatedHome.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    _ = try Run.program(
      "tmux",
      [
        "new-session", "-d", "-s", session, "-x", "160", "-y", "20",
        "env PATH=\(path) HOME=\(work.folder.path) \(environment) \(shell)",
      ])
    defer { _ = try? Run.program("tmux", ["kill-session", "-t", session]) }
    Thread.sleep(forTimeInterval: 0.5)
    _ = try Run.program("tmux", ["send-keys", "-t", session, "\(setup); cd '\(work.folder.path)'; clear", "Enter"])
    Thread.sleep(forTimeInterval: 1)
    _ = try Run.program("tmux", ["send-keys", "-t", session, "-l", line])
    _ = try Run.program("tmux", ["send-keys", "-t", session, "Tab"])
    var screen = ""
    for _ in 0..<60 {
      Thread.sleep(forTimeInterval: 0.25)
      screen = try Run.program("tmux", ["capture-pane", "-t", session, "-p"]).stdout
      if screen.contains(expected) { break }
    }
    return screen
  }

  @Test("fish: ids and positions with file names, for a name with a space; --then values")
  func fish() throws {
    let work = try TestWorkspace()
    let ids = try trip(work)
    let setup = "source '\(Self.completions)/gallery.fish'"
    let screen = try complete(
      "fish --no-config -i", setup: setup, line: "gallery move My\\ Trip.gallery ", expecting: "wide.jpg", in: work)
    #expect(screen.contains(ids[0]) && screen.contains(ids[1]), "\(screen)")
    #expect(screen.contains("(landscape.jpg)") && screen.contains("(wide.jpg)"), "\(screen)")
    let then = try complete("fish --no-config -i", setup: setup, line: "gallery watch --then ", expecting: "delete", in: work)
    #expect(then.contains("keep") && then.contains("delete") && then.contains("move:"), "\(then)")
  }

  @Test("zsh: ids and positions described by file names, quoted or escaped names")
  func zsh() throws {
    let work = try TestWorkspace()
    let ids = try trip(work)
    let setup = "fpath=('\(Self.completions)' $fpath); autoload -U compinit; compinit -u"
    for line in ["gallery move 'My Trip.gallery' ", "gallery move My\\ Trip.gallery "] {
      let screen = try complete("zsh -f -i", setup: setup, line: line, expecting: "wide.jpg", in: work)
      #expect(screen.contains(ids[0]) && screen.contains(ids[1]), "\(line): \(screen)")
      #expect(screen.contains("-- landscape.jpg") && screen.contains("-- wide.jpg"), "\(line): \(screen)")
    }
  }

  @Test("bash: ids and positions for a name with a space, escaped or quoted")
  func bash() throws {
    let work = try TestWorkspace()
    let ids = try trip(work)
    // Each word as bash hands it to a completion function: with the user's quoting on.
    for word in ["My\\ Trip.gallery", "'My Trip.gallery'", "\"My Trip.gallery\""] {
      let probe = """
        source '\(Self.completions)/gallery.bash'
        cd '\(work.folder.path)'
        COMP_WORDS=(gallery move '\(word.replacingOccurrences(of: "'", with: "'\\''"))' ''); COMP_CWORD=3; COMPREPLY=()
        COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
        _gallery gallery '' "${COMP_WORDS[2]}"
        printf '%s\\n' "${COMPREPLY[@]}"
        """
      let path = URL(fileURLWithPath: Run.galleryBinary).deletingLastPathComponent().path
      let result = try Run.program(
        "bash", ["-c", probe], environment: ["PATH": path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")])
      #expect(
        Set(result.stdout.split(separator: "\n").map(String.init)) == Set(ids + ["1", "2"]),
        "\(word): \(result.stdout)\(result.stderr)")
    }
  }
}
