import GalleryModel

// What an edit reads and changes, said explicitly. An edit of a large document reads only
// the items it needs (see ItemSource.swift): ids and positions are known without reading
// an item, and a read of an item says so (`item(at:)`, `items(_:)`, `wholeModel()`) and
// throws, with the document named, when the item does not read.
extension DocumentEdit {
  // MARK: The document's own fields

  public var title: String {
    get { model.title }
    set { model.title = newValue }
  }

  public var settings: GalleryModel.Settings { model.settings }

  /// The revision the edit started from, and its identity.
  public var revision: Int { model.revision }
  public var revisionID: String? { model.revisionID }

  /// Moves a `gallery drag --move` offered (see `MoveOffer`).
  public var moveOffers: [MoveOffer]? {
    get { model.moveOffers }
    set { model.moveOffers = newValue }
  }

  /// The trash, read whole when the document opens.
  public var trash: [TrashedItem] { model.trash }

  // MARK: Items, by id and position (nothing read)

  public var itemCount: Int { model.items.count }

  /// The id of the item at `index` (0-based).
  public func itemID(at index: Int) -> String { model.items[index].id }

  /// The items' ids, in order.
  public var itemIDs: some RandomAccessCollection<String> { model.items.lazy.map(\.id) }

  /// Resolves command-line references (positions, ids) to item ids, in the order given.
  public func resolve(_ references: [ItemReference]) throws(DocumentError) -> [String] {
    try model.resolve(references)
  }

  /// Resolves references to trashed items: ids, or 1-based positions in the trash.
  public func resolveTrashed(_ references: [ItemReference]) throws(DocumentError) -> [String] {
    try model.resolveTrashed(references)
  }

  /// Where each of `ids` stands among the items (0-based; an id not among them is left out).
  public func positions(of ids: [String]) -> [String: Int] { model.positions(of: ids) }

  // MARK: Items, read

  /// The item at `index` (0-based), read.
  public func item(at index: Int) throws(DocumentError) -> Item { try read(model.items[index]) }

  /// The items of `ids` that are present, read, in gallery order.
  public func items(_ ids: [String]) throws(DocumentError) -> [Item] {
    try positions(of: ids).values.sorted().map { index throws(DocumentError) in try item(at: index) }
  }

  /// The whole model, every item read: for what looks at all of them (a merge, a census of
  /// what the document holds).
  public func wholeModel() throws(DocumentError) -> GalleryModel {
    var whole = model
    for index in whole.items.indices { whole.items[index] = try read(whole.items[index]) }
    return whole
  }

  /// `item`, read from the document when it is still there, or the failure that stops it.
  private func read(_ item: Item) throws(DocumentError) -> Item {
    guard item.isPending else { return item }
    let read = Item(fields: item.fields)
    if let failure = itemSource?.failure { throw DocumentError.damaged(path, failure) }
    return read
  }

  // MARK: Changing items

  /// Inserts items at a 1-based position, in order; nil or past the end means the end.
  public mutating func insert(_ items: [Item], at position: Int?) { model.insert(items, at: position) }

  /// Moves items so that the first lands at 1-based `position`, keeping their order as
  /// they stand in the gallery. Positions past the end mean the end.
  public mutating func move(_ ids: [String], to position: Int) { model.move(ids, to: position) }

  /// Moves items to the trash, which keeps them (read) until it is emptied.
  public mutating func trash(_ ids: [String]) throws(DocumentError) {
    _ = try items(ids)
    model.trash(ids)
  }

  /// Puts trashed items back where they were.
  public mutating func restore(_ ids: [String]) { model.restore(ids) }

  /// Forgets the trashed items; returns how many there were.
  public mutating func emptyTrash() -> Int { model.emptyTrash() }

  /// Changes the items `ids` names that are present, each read first.
  public mutating func update(_ ids: [String], _ change: (inout Item) throws -> Void) throws {
    for index in positions(of: ids).values.sorted() {
      var item = try item(at: index)
      try change(&item)
      model.items[index] = item
    }
  }

  /// Puts `item` at `index` (0-based) in place of the one there.
  public mutating func replaceItem(at index: Int, with item: Item) { model.items[index] = item }

  /// Removes the items whose ids `ids` holds, and the trashed ones whose ids `trashed` holds.
  public mutating func remove(items ids: Set<String>, trashed: Set<String> = []) {
    if !ids.isEmpty { model.items.removeAll { ids.contains($0.id) } }
    if !trashed.isEmpty { model.trash.removeAll { trashed.contains($0.item.id) } }
  }

  /// Puts `item` in the trash's entry at `index` in place of the item there.
  public mutating func replaceTrashedItem(at index: Int, with item: Item) { model.trash[index].item = item }
}
