import WorkbenchModuleAPI

/// The shared facts of a catalog: its books, in order.
///
/// Every instance is valid: ids are unique and titles are non-empty and at most
/// `maximumTitleLength` characters. A search index over the titles is built with the document
/// and shared by every window showing it.
public struct CatalogDocument: DocumentBody {
  /// The books, in catalog order.
  public let books: BookList
  let index: TitleIndex
  /// The document this one was made from by one edit, and that edit as stored JSON: what the
  /// workspace stores instead of the whole catalog (a rename, an addition, a removal).
  let lineage: (parent: UInt64, edit: String)?

  /// The longest title a book may have, in characters.
  public static let maximumTitleLength = 500

  /// A document, after checking that ids are unique and titles valid.
  ///
  /// - Throws: `CatalogValidationError` naming the first problem and where it is.
  /// - Complexity: O(n) in the number of books, plus the titles' length to index them.
  public init(validating books: [CatalogBook]) throws(CatalogValidationError) {
    var positions: [Int: Int] = [:]
    positions.reserveCapacity(books.count)
    for (position, book) in books.enumerated() {
      if let earlier = positions[book.id] {
        throw CatalogValidationError(
          "duplicate book id \(book.id) at books[\(position)] (also at books[\(earlier)]): "
            + "ids must be unique")
      }
      try Self.validateTitle(book.title, at: position)
      positions[book.id] = position
    }
    self.books = BookList(books)
    self.index = TitleIndex(books: books, positions: positions)
    self.lineage = nil
  }

  /// The empty catalog.
  public static let empty = CatalogDocument(books: BookList([]), index: TitleIndex(books: [], positions: [:]))

  init(books: BookList, index: TitleIndex, lineage: (parent: UInt64, edit: String)? = nil) {
    self.books = books
    self.index = index
    self.lineage = lineage
  }

  /// Checks the title of the book at `position` (the message names `books[position]`).
  static func validateTitle(_ title: String, at position: Int) throws(CatalogValidationError) {
    // Most titles start with a plain ASCII letter: nothing more to ask of them but their length.
    if let first = title.utf8.first, first > 0x20, first < 0x7F, title.utf8.count <= maximumTitleLength { return }
    try validateTitle(title, at: "books[\(position)]")
  }

  static func validateTitle(_ title: String, at place: String) throws(CatalogValidationError) {
    if title.allSatisfy(\.isWhitespace) {
      throw CatalogValidationError("\(place) has an empty title: every book needs one")
    }
    // Counting characters is slow; a title with no more bytes than the limit is within it.
    if title.utf8.count > maximumTitleLength, title.count > maximumTitleLength {
      throw CatalogValidationError(
        "\(place) has a title of \(title.count) characters; the limit is \(maximumTitleLength)")
    }
  }

  /// The position of the book with `id`, if the catalog has it.
  ///
  /// - Complexity: O(1).
  public func position(of id: Int) -> Int? { index.positions[id] }

  /// Whether the catalog has a book with `id`.
  public func contains(_ id: Int) -> Bool { index.positions[id] != nil }

  /// The book with `id`, if the catalog has it.
  public func book(_ id: Int) -> CatalogBook? { position(of: id).map { books[$0] } }

  public static func == (lhs: CatalogDocument, rhs: CatalogDocument) -> Bool {
    lhs.index === rhs.index || lhs.books == rhs.books
  }

  private enum CodingKeys: String, CodingKey { case books }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let books = try container.decode([CatalogBook].self, forKey: .books)
    try self.init(validating: books)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(books.array, forKey: .books)
  }
}
