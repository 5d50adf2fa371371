import WorkbenchModuleAPI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

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
  /// The id a new book gets: one more than the largest id in the catalog (or, when that is
  /// `Int.max`, the smallest positive id no book has).
  public var nextID: Int { OutsideNumbers.newID(among: books.map(\.id)) }

  /// The catalog with a book appended.
  public func adding(title: String) throws(CatalogValidationError) -> CatalogDocument {
    let title = title.trimmingSpaces
    try Self.validateTitle(title, at: "the new book")
    let book = CatalogBook(id: nextID, title: title)
    let added = try CatalogDocument(validating: books.array + [book])
    let edit: FrameValue = ["add": ["id": .integer(book.id), "title": .string(title)]]
    return CatalogDocument(books: added.books, index: added.index, lineage: (index.token, edit.jsonText))
  }

  /// The catalog with one book's title changed.
  public func renaming(_ id: Int, to title: String) throws(CatalogValidationError) -> CatalogDocument {
    guard let position = position(of: id) else { throw CatalogValidationError("no book with id \(id)") }
    let title = title.trimmingSpaces
    try Self.validateTitle(title, at: "book \(id)")
    // Ids and positions are unchanged and the new title is valid: nothing else to check, and
    // the index is spliced, not rebuilt (a rename in a million books is milliseconds).
    let books = self.books.replacing(at: position, with: CatalogBook(id: id, title: title))
    let edit: FrameValue = ["rename": ["id": .integer(id), "title": .string(title)]]
    return CatalogDocument(
      books: books, index: index.renaming(at: position, to: title), lineage: (index.token, edit.jsonText))
  }

  /// The catalog without one book.
  public func removing(_ id: Int) throws(CatalogValidationError) -> CatalogDocument {
    guard let position = position(of: id) else { throw CatalogValidationError("no book with id \(id)") }
    var books = self.books.array
    books.remove(at: position)
    let removed = try CatalogDocument(validating: books)
    let edit: FrameValue = ["remove": .integer(id)]
    return CatalogDocument(books: removed.books, index: removed.index, lineage: (index.token, edit.jsonText))
  }

  /// The catalog with one book moved to a 1-based position.
  public func moving(_ id: Int, to newPosition: Int) throws(CatalogValidationError) -> CatalogDocument {
    guard let position = position(of: id) else { throw CatalogValidationError("no book with id \(id)") }
    guard (1...books.count).contains(newPosition) else {
      throw CatalogValidationError("POSITION must be between 1 and \(books.count), not \(newPosition)")
    }
    var books = self.books.array
    let book = books.remove(at: position)
    books.insert(book, at: newPosition - 1)
    return try CatalogDocument(validating: books)
  }

  /// The catalog with its books in another order. `stop` is looked at now and then while a sort
  /// by title runs (Ctrl-C in the shell, `SessionServices.interruptRequested`).
  ///
  /// By title is by the folded titles the search index keeps (lowercased, as UTF-8: code point
  /// order, which is `String`'s for text in its composed form), equal titles in the order they
  /// had. The permutation is taken as it is: its books were valid, and the index is gathered
  /// from the old one, not folded again.
  ///
  /// - Throws: `CommandError` when `stop` said to stop: nothing changed.
  public func sorted(by order: CatalogOrder, stoppingWhen stop: () -> Bool = { false }) throws(CommandError)
    -> CatalogDocument
  {
    let books = self.books.array
    guard books.count > 1 else { return self }
    let permutation: [Int]
    switch order {
    case .title:
      if stop() { throw Self.stopped }
      let (folded, starts) = index.flattened()
      // Ctrl-C is looked for every 65,536 comparisons; once seen, the rest compare at once and
      // the order made is dropped.
      var comparisons = 0
      var stopped = false
      permutation = folded.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return Array(books.indices) }
        return books.indices.sorted { left, right in
          comparisons &+= 1
          if comparisons & 0xFFFF == 0, !stopped { stopped = stop() }
          if stopped { return false }
          // Each title ends with its newline, which a folded title never holds: left out.
          let leftLength = starts[left + 1] - starts[left] - 1
          let rightLength = starts[right + 1] - starts[right] - 1
          let compared = memcmp(base + starts[left], base + starts[right], Swift.min(leftLength, rightLength))
          if compared != 0 { return compared < 0 }
          return leftLength != rightLength ? leftLength < rightLength : left < right
        }
      }
      if stopped || stop() { throw Self.stopped }
    case .id: permutation = books.indices.sorted { books[$0].id < books[$1].id }
    case .reverse: permutation = Array(books.indices.reversed())
    }
    return CatalogDocument(books: books, permutedBy: permutation, index: index)
  }

  /// `books` in the order `permutation` gives (new position to old), with `index` gathered
  /// into that order: ids and titles are those of a valid catalog, so nothing is checked again.
  init(books: [CatalogBook], permutedBy permutation: [Int], index: TitleIndex) {
    self.init(
      books: BookList(permutation.map { books[$0] }),
      index: index.permuted(by: permutation, ids: books.map(\.id)))
  }

  /// What a sort stopped by Ctrl-C says.
  public static let stopped = CommandError("interrupted (Ctrl-C): sort title stopped; nothing changed")
}

extension String {
  var trimmingSpaces: String {
    String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
  }
}

/// The edits the workspace stores for a catalog instead of the whole document.
extension CatalogDocument {
  public func edit(from previous: CatalogDocument) -> String? {
    guard let lineage, lineage.parent == previous.index.token else { return nil }
    return lineage.edit
  }

  public func applying(edit: String) throws -> CatalogDocument {
    let value: FrameValue
    do {
      value = try FrameValue.parse(json: Array(edit.utf8))
    } catch {
      throw DocumentEditError("a stored catalog edit is not JSON: \(error.message)")
    }
    if let rename = value["rename"], let id = rename["id"]?.integerValue, let title = rename["title"]?.stringValue {
      return try renaming(id, to: title)
    }
    if let add = value["add"], let id = add["id"]?.integerValue, let title = add["title"]?.stringValue {
      return try CatalogDocument(validating: books + [CatalogBook(id: id, title: title)])
    }
    if let id = value["remove"]?.integerValue { return try removing(id) }
    throw DocumentEditError("a stored catalog edit is not one this version knows: \(edit.prefix(80))")
  }
}
