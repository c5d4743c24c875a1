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
    var ids: [String] = []
    for reference in references {
      let id: String
      switch reference {
      case .position(let position):
        guard items.indices.contains(position - 1) else {
          throw .itemNotFound("\(reference) (the gallery has \(items.count) item\(items.count == 1 ? "" : "s"))")
        }
        id = items[position - 1].id
      case .id(let candidate):
        guard items.contains(where: { $0.id == candidate }) else { throw .itemNotFound("\(reference)") }
        id = candidate
      }
      if !ids.contains(id) { ids.append(id) }
    }
    return ids
  }

  /// Resolves references to trashed items: ids, or 1-based positions in the trash list.
  public func resolveTrashed(_ references: [ItemReference]) throws(DocumentError) -> [String] {
    var ids: [String] = []
    for reference in references {
      let id: String
      switch reference {
      case .position(let position):
        guard trash.indices.contains(position - 1) else { throw .itemNotFound("\(reference) in the trash") }
        id = trash[position - 1].item.id
      case .id(let candidate):
        guard trash.contains(where: { $0.item.id == candidate }) else { throw .itemNotFound("\(reference) in the trash") }
        id = candidate
      }
      if !ids.contains(id) { ids.append(id) }
    }
    return ids
  }
}
