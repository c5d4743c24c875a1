import GalleryModel

// What an edit reads and changes, said explicitly. An edit of a large document reads only
// the items it needs (see ItemSource.swift): ids and positions are known without reading
// an item, and a read of an item says so (`item(at:)`, `items(_:)`, `wholeModel()`) and
// throws, with the document named, when the item does not read.
extension DocumentEdit {
  // MARK: The document's own fields

  public var title: String {
    get { working.head.title }
    set { working.head.title = newValue }
  }

  public var settings: GalleryModel.Settings { working.head.settings }

  /// The revision the edit started from, and its identity.
  public var revision: Int { working.head.revision }
  public var revisionID: String? { working.head.revisionID }

  /// Moves a `gallery drag --move` offered (see `MoveOffer`).
  public var moveOffers: [MoveOffer]? {
    get { working.head.moveOffers }
    set { working.head.moveOffers = newValue }
  }

  /// The trash, read whole when the document opens.
  public var trash: [TrashedItem] { working.trash.elements }

  // MARK: Items, by id and position (nothing read)

  public var itemCount: Int { working.items.count }

  /// The id of the item at `index` (0-based).
  public func itemID(at index: Int) -> String { working.items.key(at: index) }

  /// The items' ids, in order.
  public var itemIDs: LazyMapCollection<[Int32], String> { working.items.keys }

  /// Resolves command-line references (positions, ids) to item ids, in the order given.
  public func resolve(_ references: [ItemReference]) throws(DocumentError) -> [String] {
    try ItemReference.resolve(references, among: working.items.keys)
  }

  /// Resolves references to trashed items: ids, or 1-based positions in the trash.
  public func resolveTrashed(_ references: [ItemReference]) throws(DocumentError) -> [String] {
    try ItemReference.resolve(references, among: working.trash.keys, place: " in the trash")
  }

  /// Where each of `ids` stands among the items (0-based; an id not among them is left out).
  public func positions(of ids: [String]) -> [String: Int] { working.positions(of: ids) }

  // MARK: Items, read

  /// The item at `index` (0-based), read.
  public func item(at index: Int) throws -> Item {
    try reading { try working.items.element(at: index, reading: read) }
  }

  /// The items of `ids` that are present, read, in gallery order.
  public func items(_ ids: [String]) throws -> [Item] { try working.indices(of: ids).map(item(at:)) }

  /// The whole model, every item read: for what looks at all of them (a merge, a census of
  /// what the document holds).
  public func wholeModel() throws -> GalleryModel { try reading { try working.model(reading: read) } }

  /// Replaces the model whole (a merge, a revert): items the edit does not change are
  /// still compared with the document's, each read.
  package mutating func replaceModel(_ model: GalleryModel) { working = WorkingModel(model) }

  /// Reads an item still in the file.
  var read: HandleList<Item>.Read {
    guard let itemSource else { return WorkingModel.neverStored }
    return { try itemSource.item($0) }
  }

  /// `body`, whose reads of items still in the file throw, when one fails, as damage of the
  /// document (the edit saves nothing).
  package func reading<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch { throw damage(error) }
  }

  /// A read's error, as damage of the document when an item did not read.
  package func damage(_ error: any Error) -> any Error {
    itemSource?.failure.map { DocumentError.damaged(path, $0) } ?? error
  }

  // MARK: Changing items

  /// Inserts items at a 1-based position, in order; nil or past the end means the end.
  public mutating func insert(_ items: [Item], at position: Int?) { working.insert(items, at: position) }

  /// Moves items so that the first lands at 1-based `position`, keeping their order as
  /// they stand in the gallery. Positions past the end mean the end.
  public mutating func move(_ ids: [String], to position: Int) { working.move(ids, to: position) }

  /// Moves items to the trash, which keeps them (read) until it is emptied.
  public mutating func trash(_ ids: [String]) throws {
    let read = read
    do { try working.trash(ids, reading: read) } catch { throw damage(error) }
  }

  /// Puts trashed items back where they were.
  public mutating func restore(_ ids: [String]) { working.restore(ids) }

  /// Forgets the trashed items; returns how many there were.
  public mutating func emptyTrash() -> Int { working.emptyTrash() }

  /// Changes the items `ids` names that are present, each read first.
  public mutating func update(_ ids: [String], _ change: (inout Item) throws -> Void) throws {
    let read = read
    do { try working.update(ids, reading: read, change) } catch { throw damage(error) }
  }

  /// Puts `item` at `index` (0-based) in place of the one there.
  public mutating func replaceItem(at index: Int, with item: Item) { working.items.replace(at: index, with: item) }

  /// Removes the items whose ids `ids` holds, and the trashed ones whose ids `trashed` holds.
  public mutating func remove(items ids: Set<String>, trashed: Set<String> = []) {
    working.remove(items: ids, trashed: trashed)
  }

  /// Puts `item` in the trash's entry at `index` in place of the item there.
  public mutating func replaceTrashedItem(at index: Int, with item: Item) {
    var entry = working.trash[index]
    entry.item = item
    working.trash.replace(at: index, with: entry)
  }

  /// Reorders every item by `key`, each read: `sort: by taken, reversed` in the history.
  public mutating func sort(by key: GalleryModel.SortKey, reversed: Bool) throws {
    summary = "sort: by \(key.rawValue)\(reversed ? ", reversed" : "")"
    let read = read
    do { try working.sort(by: key, reversed: reversed, reading: read) } catch { throw damage(error) }
  }
}
