import ArgumentParser
import GalleryDocument
import GalleryImaging
import GalleryKit
import GalleryModel
import GallerySystem

struct RestoreCommand: ParsableCommand, TakesManyItems {
  static let configuration = CommandConfiguration(
    commandName: "restore",
    abstract: "Put trashed items back where they were.",
    discussion: "ITEMs are ids, or positions in `gallery trash DOC --list`.")

  @OptionGroup var target: DocumentArgument

  @Argument(help: "Trashed items, by id or position in the trash.", completion: ItemCompletion.trashedItems)
  var items: [ItemReference]

  @OptionGroup var output: EditOutputOptions

  func validate() throws {
    guard !items.isEmpty else { throw ValidationError("name at least one trashed ITEM to restore") }
  }

  func run() throws {
    try EditReport.edit(target.document, json: output.json) { edit in
      let ids = try edit.resolveTrashed(items)
      edit.summary = "restore: " + JournalRecord.counted(ids.count, "item")
      edit.restore(ids)
      return ids
    }
  }
}
