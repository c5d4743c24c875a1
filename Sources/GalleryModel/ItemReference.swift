/// How the command line names an item: a 1-based position or an id.
public enum ItemReference: Hashable, Sendable, CustomStringConvertible {
  case position(Int)
  case id(String)

  public init(_ text: String) {
    if let position = Int(text) { self = .position(position) } else { self = .id(text) }
  }

  public var description: String {
    switch self {
    case .position(let position): "at position \(position)"
    case .id(let id): "with id \(id)"
    }
  }
}

extension GalleryModel {
  /// Resolves references to item ids, in the order given, each once.
  public func resolve(_ references: [ItemReference]) throws(DocumentError) -> [String] {
    try ItemReference.resolve(references, among: items.lazy.map(\.id))
  }

  /// Resolves references to trashed items: ids, or 1-based positions in the trash list.
  public func resolveTrashed(_ references: [ItemReference]) throws(DocumentError) -> [String] {
    try ItemReference.resolve(references, among: trash.lazy.map(\.item.id), place: " in the trash")
  }

  /// The positions of the items `references` name, in the order given; of every ready item
  /// when they name none.
  public func positions(named references: [ItemReference]) throws(DocumentError) -> [Int] {
    guard !references.isEmpty else { return items.indices.filter { items[$0].state == .ready } }
    let ids = try resolve(references)
    let positions = positions(of: ids)
    return ids.compactMap { positions[$0] }
  }

  /// Where each of `ids` stands among the items (an id not among them is left out): one
  /// pass over the items, however many ids are asked for.
  public func positions(of ids: [String]) -> [String: Int] {
    let wanted = IDSet(ids)
    var found: [String: Int] = [:]
    found.reserveCapacity(ids.count)
    for (position, item) in items.enumerated() where wanted.contains(item.id) && found[item.id] == nil {
      found[item.id] = position
    }
    return found
  }

}

extension ItemReference {
  /// The ids `references` name among `ids`, in the order given, each once. `ids` is lazy: a
  /// move of one item among 100,000 reads one id, not a copy of all. A few ids are searched
  /// for; more are found in one pass over `ids`.
  package static func resolve<IDs: RandomAccessCollection<String>>(
    _ references: [ItemReference], among ids: IDs, place: String = ""
  ) throws(DocumentError) -> [String] where IDs.Index == Int {
    let named = references.compactMap { if case .id(let id) = $0 { id } else { nil } }
    let known: Set<String>? = named.count > 4 ? IDSet(named).found(in: ids) : nil
    var resolved: [String] = []
    var seen = Set<String>()
    for reference in references {
      let id: String
      switch reference {
      case .position(let position):
        guard ids.indices.contains(position - 1) else {
          throw .itemNotFound("\(reference)\(place) (there \(ids.count == 1 ? "is" : "are") \(ids.count))")
        }
        id = ids[position - 1]
      case .id(let candidate):
        guard known?.contains(candidate) ?? ids.contains(candidate) else { throw .itemNotFound("\(reference)\(place)") }
        id = candidate
      }
      if seen.insert(id).inserted { resolved.append(id) }
    }
    return resolved
  }
}
