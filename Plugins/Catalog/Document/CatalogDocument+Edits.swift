/// How `sorted(by:)` orders books.
public enum CatalogOrder: String, CaseIterable, Sendable {
  /// By title, ignoring case.
  case title
  /// By id, ascending.
  case id
  /// The current order, reversed.
  case reverse
}

extension CatalogDocument {
  /// The id a new book gets: one more than the largest id in the catalog.
  public var nextID: Int { (books.map(\.id).max() ?? 0) + 1 }

  /// The catalog with a book appended.
  public func adding(title: String) throws(CatalogValidationError) -> CatalogDocument {
    let title = title.trimmingSpaces
    try Self.validateTitle(title, at: "the new book")
    return try CatalogDocument(validating: books + [CatalogBook(id: nextID, title: title)])
  }

  /// The catalog with one book's title changed.
  public func renaming(_ id: Int, to title: String) throws(CatalogValidationError) -> CatalogDocument {
    guard let position = position(of: id) else { throw CatalogValidationError("no book with id \(id)") }
    let title = title.trimmingSpaces
    try Self.validateTitle(title, at: "book \(id)")
    // Ids and positions are unchanged and the new title is valid: nothing else to check, and
    // the index is spliced, not rebuilt (a rename in a million books is milliseconds).
    var books = self.books
    books[position] = CatalogBook(id: id, title: title)
    return CatalogDocument(books: books, index: index.renaming(at: position, to: title))
  }

  /// The catalog without one book.
  public func removing(_ id: Int) throws(CatalogValidationError) -> CatalogDocument {
    guard let position = position(of: id) else { throw CatalogValidationError("no book with id \(id)") }
    var books = self.books
    books.remove(at: position)
    return try CatalogDocument(validating: books)
  }

  /// The catalog with one book moved to a 1-based position.
  public func moving(_ id: Int, to newPosition: Int) throws(CatalogValidationError) -> CatalogDocument {
    guard let position = position(of: id) else { throw CatalogValidationError("no book with id \(id)") }
    guard (1...books.count).contains(newPosition) else {
      throw CatalogValidationError("POSITION must be between 1 and \(books.count), not \(newPosition)")
    }
    var books = self.books
    let book = books.remove(at: position)
    books.insert(book, at: newPosition - 1)
    return try CatalogDocument(validating: books)
  }

  /// The catalog with its books in another order.
  public func sorted(by order: CatalogOrder) -> CatalogDocument {
    let reordered: [CatalogBook]
    switch order {
    case .title:
      reordered = books.enumerated().sorted { lhs, rhs in
        let (left, right) = (lhs.element.title.lowercased(), rhs.element.title.lowercased())
        return left != right ? left < right : lhs.offset < rhs.offset
      }.map(\.element)
    case .id: reordered = books.sorted { $0.id < $1.id }
    case .reverse: reordered = books.reversed()
    }
    // A permutation of valid books is valid.
    return (try? CatalogDocument(validating: reordered)) ?? self
  }
}

extension String {
  var trimmingSpaces: String {
    String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
  }
}
