import ArgumentParser
import GalleryKit

/// The `gallery` command: image galleries as scriptable documents.
public struct GalleryCommand: ParsableCommand {
  public static let version = GalleryVersion.current

  public static let configuration = CommandConfiguration(
    commandName: "gallery",
    abstract: "Image galleries as scriptable documents.",
    discussion: """
      A gallery is one file, NAME.gallery: a tar archive holding an ordered list of images \
      (referenced by URL, with their aspect ratios), their thumbnails and a cover.

      Items are named by 1-based position or by id. Read commands take --json. Data goes \
      to standard output, messages to standard error.

      FILE NAMES
        A file name need not be UTF-8 (a Latin-1 name from an old camera or a FAT
        card). Text and messages show each byte that is not as \\xE9. JSON gives
        such a path as that text and, exactly, as a file: URL in a member named
        after it with URL (pathURL, documentURL, fileURL); every command that
        takes a document or a folder takes that URL back:
          gallery info "$(gallery browse --json | jq -r '.[0] | .pathURL // .path')"

      EXIT STATUS
        0   success
        1   partly done: sources not dropped, a move that only copied,
            or problems `check` found
        64  usage error (also a malformed watch.conf or too large a sheet)
        65  the document is damaged (read-only: edits refuse it), breaks
            a rule, is not a gallery or of a newer format; or a payload
            on standard input is invalid
        66  the document, an item or an input was not found
        69  no clipboard (copy, paste): no graphical session, no clipboard
            tool, or an owner that does not answer within 10 s
        73  the target already exists, or an output cannot be created
        74  input/output error (a full disk, standard output that cannot
            be written)
        130 interrupted
      """,
    version: version,
    subcommands: [
      NewCommand.self, BrowseCommand.self, ShowCommand.self, InfoCommand.self, RenameCommand.self,
      DuplicateCommand.self, DeleteCommand.self, MergeCommand.self, DropCommand.self, MoveCommand.self,
      TrashCommand.self, RestoreCommand.self, ExportCommand.self, URIsCommand.self, DragCommand.self,
      CompactCommand.self, CheckCommand.self, RetryCommand.self, WatchCommand.self,
      ThumbnailCommand.self, SheetCommand.self, CopyCommand.self, PasteCommand.self, CacheCommand.self,
      OpenCommand.self, ServeCommand.self, HistoryCommand.self, UndoCommand.self, RedoCommand.self,
      RevertCommand.self, TagCommand.self, CaptionCommand.self, NoteCommand.self, AddNoteCommand.self, RateCommand.self,
      LabelCommand.self, SortCommand.self, RefreshMetadataCommand.self, FindCommand.self, ClipboardOwnerCommand.self,
    ])

  public init() {}
}
