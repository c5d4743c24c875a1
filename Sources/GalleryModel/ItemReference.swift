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
    try Self.resolve(references, among: items.lazy.map(\.id), place: "")
  }

  /// Resolves references to trashed items: ids, or 1-based positions in the trash list.
  public func resolveTrashed(_ references: [ItemReference]) throws(DocumentError) -> [String] {
    try Self.resolve(references, among: trash.lazy.map(\.item.id), place: " in the trash")
  }

  /// `ids` is lazy: a move of one item among 100,000 reads one id, not a copy of all.
  private static func resolve<IDs: RandomAccessCollection<String>>(
    _ references: [ItemReference], among ids: IDs, place: String
  ) throws(DocumentError) -> [String] where IDs.Index == Int {
    var resolved: [String] = []
    for reference in references {
      let id: String
      switch reference {
      case .position(let position):
        guard ids.indices.contains(position - 1) else {
          throw .itemNotFound("\(reference)\(place) (there \(ids.count == 1 ? "is" : "are") \(ids.count))")
        }
        id = ids[position - 1]
      case .id(let candidate):
        guard ids.contains(candidate) else { throw .itemNotFound("\(reference)\(place)") }
        id = candidate
      }
      if !resolved.contains(id) { resolved.append(id) }
    }
    return resolved
  }
}
