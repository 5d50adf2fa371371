/// One book in a catalog: a stable id and a title. Selection and anchors refer to the id,
/// never to a position, so they survive sorting and insertion.
public struct CatalogBook: Codable, Equatable, Hashable, Sendable {
  /// The book's id, unique within its catalog.
  public let id: Int
  /// The book's title.
  public let title: String

  /// A book.
  public init(id: Int, title: String) {
    self.id = id
    self.title = title
  }
}
