import ArgumentParser
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct MoveCommand: ParsableCommand, TakesManyItems {
  static let configuration = CommandConfiguration(
    commandName: "move",
    abstract: "Reorder items.",
    discussion: """
      Moves the items so that the first of them lands at POS; several items keep their \
      relative order. POS past the end, or `end`, moves them to the very end.
      """)

  @OptionGroup var target: DocumentArgument

  @Argument(help: "Items to move, by position or id.", completion: ItemCompletion.items)
  var items: [ItemReference]

  @Option(name: .customLong("to"), help: "1-based position, or `end`.")
  var position: TargetPosition

  @OptionGroup var output: EditOutputOptions

  func validate() throws {
    guard !items.isEmpty else { throw ValidationError("name at least one ITEM to move") }
  }

  func run() throws {
    try EditReport.edit(target.document, json: output.json) { edit in
      let ids = try edit.resolve(items)
      edit.summary = "move: " + JournalRecord.counted(ids.count, "item")
      edit.move(ids, to: position.value)
      return ids
    }
  }
}
