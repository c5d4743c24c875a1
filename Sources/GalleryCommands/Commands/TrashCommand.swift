import ArgumentParser
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct TrashCommand: ParsableCommand, TakesManyItems {
  static let configuration = CommandConfiguration(
    commandName: "trash",
    abstract: "Move items to the trash, list it, or empty it.",
    discussion: """
      Trashed items keep their data (thumbnail and all) until the trash is emptied; \
      `gallery restore` puts them back where they were. Emptying the trash can be undone \
      (`gallery undo`) for as long as the history keeps it.
      """)

  @OptionGroup var target: DocumentArgument

  @Argument(help: "Items to trash, by position or id.", completion: ItemCompletion.items)
  var items: [ItemReference] = []

  @Flag(help: "List the trash: position in the trash, id, state, aspect ratio, size, source.")
  var list = false

  @Flag(help: "Empty the trash (`gallery undo` brings its items back while the history keeps them).")
  var empty = false

  @Flag(help: "Write JSON: the trash with --list, else what was done (the revision made, its summary, the items).")
  var json = false

  func validate() throws {
    let modes = [!items.isEmpty, list, empty].filter { $0 }.count
    guard modes == 1 else { throw ValidationError("give ITEMs to trash, or --list, or --empty (one of them)") }
  }

  func run() throws {
    if list {
      let trash = try target.open().model.trash
      if json {
        try JSONOutput.write(items: trash)
      } else {
        let width = ItemLine.positionWidth(count: trash.count)
        Terminal.out(
          trash.enumerated().map { ItemLine.format(position: $0.offset + 1, item: $0.element.item, width: width) + "\n" }
            .joined())
      }
    } else if empty {
      var count = 0
      try EditReport.edit(target.document, json: json, sayingUnchanged: false) { edit in
        let ids = edit.trash.map(\.item.id)
        edit.summary = "trash --empty: " + JournalRecord.counted(ids.count, "item")
        count = edit.emptyTrash()
        return ids
      }
      if !json { Terminal.message("emptied the trash (\(count) item\(count == 1 ? "" : "s"))") }
    } else {
      try EditReport.edit(target.document, json: json) { edit in
        let ids = try edit.resolve(items)
        edit.summary = "trash: " + JournalRecord.counted(ids.count, "item")
        try edit.trash(ids)
        return ids
      }
    }
  }
}
