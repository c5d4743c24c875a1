import ArgumentParser
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct RetryCommand: AsyncParsableCommand, TakesManyItems {
  static let configuration = CommandConfiguration(
    commandName: "retry",
    abstract: "Load again stale placeholders and failed items.",
    discussion: """
      A placeholder is stale when the process that was loading it is gone (a drop killed \
      with kill -9, a machine that rebooted). Without ITEMs, retries every stale \
      placeholder and failed item. Web images are revalidated through the download \
      cache, not downloaded again when unchanged. Each is committed where it stands; one that fails again \
      stays as a failed item with the new reason (exit status 1). `gallery check --fix` \
      removes stale placeholders instead.

      A placeholder another machine was loading (a document synced between them) stays \
      pending here, since this machine cannot tell whether that process still runs: name \
      it and it is taken over and loaded here.
      """)

  @OptionGroup var target: DocumentArgument

  @Argument(
    help: "Items, by position or id (default: every stale placeholder and failed item).", completion: ItemCompletion.items)
  var items: [ItemReference] = []

  @OptionGroup(title: "Web downloads") var web: WebOptions

  @Flag(help: "Write the items loaded again as JSON (as `show --json` lists items; a failed one with its reason).")
  var json = false

  func run() async throws {
    let ids = items.isEmpty ? nil : try GalleryDocument.open(target.document).model.resolve(items)
    var options = DropOptions()
    web.configure(&options)
    let report = try await ImageRetry.retry(ids, in: target.document, options: options)
    if json {
      try JSONOutput.write(items: report.committed)
    } else {
      Terminal.out(report.committed.filter { $0.state == .ready }.map { "\($0.id)\t\($0.source)\n" }.joined())
    }
    for failure in report.failures { Terminal.message("still not loaded: \(failure)") }
    for failure in report.standIns { Terminal.message("the download failed, the cached copy stands in: \(failure)") }
    if items.isEmpty {
      Self.noteElsewhere(try GalleryDocument.summary(target.document).summary.placeholders)
    }
    if !report.failures.isEmpty { throw ExitCode(ExitStatus.partial) }
  }

  /// Says which placeholders another machine's drop is loading, and how to take them over.
  static func noteElsewhere(_ placeholders: [DocumentSummary.Placeholders]) {
    for group in placeholders where !group.owner.isOnThisHost {
      let them = group.count == 1 ? "it" : "them"
      Terminal.message(
        "\(group.count) placeholder\(group.count == 1 ? " is" : "s are") being loaded by process \(group.owner.pid) "
          + "on \(TerminalText.escaped(group.owner.host)), which this machine cannot check: if that drop is gone, "
          + "`gallery retry` loads \(them) here when named (`gallery show --where state:pending` lists \(them))")
    }
  }
}
