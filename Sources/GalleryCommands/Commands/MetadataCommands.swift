import ArgumentParser
import GalleryDocument
import GalleryKit
import GalleryModel
import GallerySystem

/// What a person writes about items: tags, a caption, a note, stars, a colour label. Each
/// command is one edit, so one revision that `history` names and `undo` takes back.

/// `change`, or the usage error that says why it cannot be made, for arguments checked
/// before any document is opened (the rules are the model's; `DocumentEdit.describe`
/// applies them again to what reaches it, from standard input or the library).
private func checked(_ change: MetadataEdit) throws -> MetadataEdit {
  if let problem = change.problem { throw ValidationError(problem) }
  return change
}

/// Makes `change` on `items` as one edit, which its summary names.
private func describe(_ document: String, _ items: [ItemReference], _ change: MetadataEdit, json: Bool) throws {
  try EditReport.edit(document, json: json) { edit in
    let ids = try edit.resolve(items)
    try edit.describe(ids, change)
    return ids
  }
}

struct TagCommand: ParsableCommand, TakesManyOperands {
  static let configuration = CommandConfiguration(
    commandName: "tag",
    abstract: "Add and remove tags.",
    discussion: """
      Items come first (positions or ids), then tags: +TAG adds one, -TAG removes one \
      (a bare TAG after a +TAG or -TAG adds it too). A tag is one line; `a/b` is the tag b \
      under a, as digiKam writes hierarchies (no part empty or with space at an end). \
      Example: gallery tag Trip.gallery 1 3 +beach -sea
      """)

  @OptionGroup var target: DocumentArgument
  @OptionGroup var output: EditOutputOptions

  @Argument(
    parsing: .allUnrecognized, help: "Items, then +TAG to add and -TAG to remove.", completion: ItemCompletion.itemsAndTags)
  var words: [String] = []

  /// The items appended after parsing stood before the tag changes.
  mutating func append(operands: [String]) {
    words.insert(contentsOf: operands, at: words.firstIndex { $0.hasPrefix("+") || $0.hasPrefix("-") } ?? words.endIndex)
  }

  /// The items and the tag changes the words say.
  static func parse(_ words: [String]) throws -> (items: [ItemReference], add: [String], remove: [String]) {
    var items: [ItemReference] = []
    var add: [String] = []
    var remove: [String] = []
    var tagsStarted = false
    for word in words {
      if word.hasPrefix("+") || word.hasPrefix("-") {
        tagsStarted = true
        let tag = String(word.dropFirst())
        if word.hasPrefix("+") { add.append(tag) } else { remove.append(tag) }
      } else if tagsStarted {
        add.append(word)
      } else {
        items.append(try ItemReference.parsing(word))
      }
    }
    guard !items.isEmpty else { throw ValidationError("name at least one ITEM before the tags") }
    guard !add.isEmpty || !remove.isEmpty else { throw ValidationError("give +TAG or -TAG after the items") }
    return (items, add, remove)
  }

  /// The items, and the change the words say.
  static func change(_ words: [String]) throws -> (items: [ItemReference], change: MetadataEdit) {
    let (items, add, remove) = try parse(words)
    var change = MetadataEdit()
    (change.addTags, change.removeTags) = (add, remove)
    return (items, try checked(change))
  }

  func validate() throws { _ = try Self.change(words) }

  func run() throws {
    let (items, change) = try Self.change(words)
    try describe(target.document, items, change, json: output.json)
  }
}

struct CaptionCommand: ParsableCommand, TakesManySelected {
  static let configuration = CommandConfiguration(
    commandName: "caption", abstract: "Set or clear items' caption.",
    discussion: "One line. An empty TEXT clears it.")

  @OptionGroup var target: DocumentArgument
  @OptionGroup var output: EditOutputOptions

  @OptionGroup var selection: ItemsArgument

  @Option(name: .customLong("text"), help: "The caption (\"\" clears it).")
  var text: String

  var change: MetadataEdit {
    var change = MetadataEdit()
    change.caption = text
    return change
  }

  func validate() throws { _ = try checked(change) }

  func run() throws { try describe(target.document, selection.items, change, json: output.json) }
}

struct NoteCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "note", abstract: "Set or clear an item's note.",
    discussion: """
      Any number of lines: TEXT, or `-` for standard input. An empty TEXT clears it (a note \
      card's text is changed, never cleared: trash the card instead).
      """)

  @OptionGroup var target: DocumentArgument
  @OptionGroup var output: EditOutputOptions

  @Argument(help: "The item, by position or id.", completion: ItemCompletion.items)
  var item: ItemReference

  @Argument(help: "The note, or - to read it from standard input (\"\" clears it).")
  var text: String

  func run() throws {
    let note =
      text == "-"
      ? String(decoding: try StandardInput.read(limit: ModelValidation.Limits.noteBytes), as: UTF8.self) : text
    var change = MetadataEdit()
    change.note = note
    try describe(target.document, [item], change, json: output.json)
  }
}

struct AddNoteCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add-note", abstract: "Add a note card: text laid out among the images.",
    discussion: """
      A note card is an item of its own: it is moved, trashed, dragged to other galleries and \
      undone like an image, and `find` and the page's search match its text. `gallery note` \
      changes its text. Prints the card's position, id and first line (or, with --json, the card).
      """)

  @OptionGroup var target: DocumentArgument

  @Argument(help: "The card's text (any number of lines), or - to read it from standard input.")
  var text: String

  @Option(name: .customLong("at"), help: "1-based position (past the end: the end), or `end` (the default).")
  var position: TargetPosition = .end

  @Flag(help: "Write the card as JSON.")
  var json = false

  func run() throws {
    let text =
      self.text == "-"
      ? String(decoding: try StandardInput.read(limit: ModelValidation.Limits.noteBytes), as: UTF8.self) : self.text
    let (card, index) = try GalleryDocument.edit(target.document) { edit in
      let card = try edit.addNote(text, at: position.value)
      return (card, edit.positions(of: [card.id])[card.id] ?? 0)
    }
    if json { return try JSONOutput.write(items: [card]) }
    Terminal.out("\(index + 1)\t\(card.id)\t\(TerminalText.escaped(ItemLine.firstLine(of: text)))\n")
  }
}

struct RateCommand: ParsableCommand, TakesManySelected {
  static let configuration = CommandConfiguration(
    commandName: "rate", abstract: "Give items 1 to 5 stars, or 0 to clear them.")

  @OptionGroup var target: DocumentArgument
  @OptionGroup var output: EditOutputOptions

  @OptionGroup var selection: ItemsArgument

  @Option(name: .customLong("stars"), help: "1 to 5, or 0 for none.")
  var stars: Int

  var change: MetadataEdit {
    var change = MetadataEdit()
    change.rating = stars
    return change
  }

  func validate() throws { _ = try checked(change) }

  func run() throws { try describe(target.document, selection.items, change, json: output.json) }
}

struct LabelCommand: ParsableCommand, TakesManySelected {
  static let configuration = CommandConfiguration(
    commandName: "label", abstract: "Give items a colour label, or none.")

  @OptionGroup var target: DocumentArgument
  @OptionGroup var output: EditOutputOptions

  @OptionGroup var selection: ItemsArgument

  @Option(
    name: .customLong("colour"),
    help: ArgumentHelp("The label: \(Item.Label.allCases.map(\.rawValue).joined(separator: ", ")), or none."))
  var colour: String

  func validate() throws {
    guard colour == "none" || Item.Label(rawValue: colour) != nil else {
      throw ValidationError(
        "--colour must be one of \(Item.Label.allCases.map(\.rawValue).joined(separator: ", ")) or none")
    }
  }

  func run() throws {
    var change = MetadataEdit()
    change.label = Item.Label(rawValue: colour)
    change.clearLabel = change.label == nil
    try describe(target.document, selection.items, change, json: output.json)
  }
}

struct SortCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sort", abstract: "Reorder every item by when it was taken or added, its name, stars or size.",
    discussion: """
      One undoable operation. Ascending (--reverse: descending); items without the key (no \
      date taken, no stars) come last, and equals keep their order.
      """)

  @OptionGroup var target: DocumentArgument
  @OptionGroup var output: EditOutputOptions

  @Option(
    help: ArgumentHelp("What to sort by: \(GalleryModel.SortKey.allCases.map(\.rawValue).joined(separator: ", ")).")
  )
  var by: GalleryModel.SortKey

  @Flag(help: "Descending.")
  var reverse = false

  func run() throws {
    try EditReport.edit(target.document, json: output.json) { edit in
      try edit.sort(by: by, reversed: reverse)
      return nil
    }
  }
}

extension GalleryModel.SortKey: ExpressibleByArgument {}

struct RefreshMetadataCommand: ParsableCommand, TakesManyItems {
  static let configuration = CommandConfiguration(
    commandName: "refresh-metadata",
    abstract: "Read the photos' own facts and XMP again for items already in a gallery.",
    discussion: """
      For each item (every ready one, or the ITEMs named) whose original can be read here \
      (embedded, its unchanged local file, or the download cache's copy): the camera, lens, \
      exposure, date and place taken from EXIF replace the item's; tags from XMP (a sidecar \
      beside a local file, else the file's own) are added, and its stars, label and caption \
      given to an item that has none. One edit, which undo takes back. Items whose original \
      cannot be read here are listed, not changed.
      """)

  @OptionGroup var target: DocumentArgument

  @Argument(help: "Items, by position or id (every ready item when none).", completion: ItemCompletion.items)
  var items: [ItemReference] = []

  @OptionGroup var output: OutputOptions

  func run() throws {
    let ids = items.isEmpty ? [] : try GalleryDocument.open(target.document).model.resolve(items)
    let bar = ProgressBar(label: "reading", total: 2)
    let report = try MetadataRefresh.refresh(
      target.document, ids: ids, cached: { DownloadCache().lookup($0)?.body() },
      progress: { bar.update(done: $0, total: $1) })
    if output.json { return try JSONOutput.write(report) }
    var said = "refreshed \(JournalRecord.counted(report.refreshed.count, "item")), \(report.unchanged.count) unchanged"
    if !report.unreadable.isEmpty {
      said += "; \(report.unreadable.count) could not be read here (not embedded, and the source is gone or changed)"
    }
    Terminal.err("gallery: \(said)\n")
  }
}
