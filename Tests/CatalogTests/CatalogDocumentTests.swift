import FoundationEssentials
import Testing
import WorkbenchCore

@testable import Catalog

@Suite struct CatalogDocumentTests {
  @Test func duplicateIdsAreAValidationErrorNamingBothPlaces() {
    #expect(
      throws: CatalogValidationError(
        "duplicate book id 2 at books[2] (also at books[1]): ids must be unique")
    ) { try catalog([(1, "A"), (2, "B"), (2, "C")]) }
  }

  @Test func emptyAndOverlongTitlesAreRejected() {
    #expect(throws: CatalogValidationError("books[0] has an empty title: every book needs one")) {
      try catalog([(1, "  ")])
    }
    let long = String(repeating: "x", count: CatalogDocument.maximumTitleLength + 1)
    #expect(throws: CatalogValidationError.self) { try catalog([(1, long)]) }
  }

  @Test func decodingValidatesInsteadOfTrapping() throws {
    let duplicate = Data(#"{"books":[{"id":1,"title":"A"},{"id":1,"title":"B"}]}"#.utf8)
    #expect(throws: CatalogValidationError.self) { try JSONDecoder().decode(CatalogDocument.self, from: duplicate) }
    let missingTitle = Data(#"{"books":[{"id":1}]}"#.utf8)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(CatalogDocument.self, from: missingTitle) }
    let valid = Data(#"{"books":[{"id":7,"title":"Dune"}]}"#.utf8)
    #expect(
      Array(try JSONDecoder().decode(CatalogDocument.self, from: valid).books) == [CatalogBook(id: 7, title: "Dune")])
  }

  @Test func encodingRoundTrips() throws {
    let document = CatalogDocument.sampleLibrary
    let decoded = try JSONDecoder().decode(CatalogDocument.self, from: try JSONEncoder().encode(document))
    #expect(decoded == document)
  }

  @Test func editsKeepIdsStableAndValidate() throws {
    let document = try catalog([(1, "A"), (5, "B")])
    #expect(try document.adding(title: " C ").books.last == CatalogBook(id: 6, title: "C"))
    #expect(try document.renaming(5, to: "Bee").book(5)?.title == "Bee")
    #expect(try document.moving(5, to: 1).books.map(\.id) == [5, 1])
    #expect(try document.removing(1).books.map(\.id) == [5])
    #expect(throws: CatalogValidationError.self) { try document.renaming(9, to: "X") }
    #expect(throws: CatalogValidationError.self) { try document.moving(1, to: 3) }
    #expect(throws: CatalogValidationError.self) { try document.adding(title: "") }
  }

  @Test func sortingIsStableAndIgnoresCase() throws {
    let document = try catalog([(1, "beta"), (2, "Alpha"), (3, "alpha")])
    #expect(try document.sorted(by: .title).books.map(\.id) == [2, 3, 1])
    #expect(try document.sorted(by: .reverse).books.map(\.id) == [3, 2, 1])
    #expect(try document.sorted(by: .reverse).sorted(by: .id).books.map(\.id) == [1, 2, 3])
  }

  /// Ctrl-C (`stoppingWhen`, the shell's through `SessionServices.interruptRequested`) stops a
  /// sort by title where it is, folding titles or comparing them, and it throws: the document it
  /// was asked of is all there is. Not asked, the sort is whole.
  @Test func aSortByTitleStopsWhenAskedAndChangesNothing() throws {
    let document = try catalog((1...40_000).map { ($0, "Bök \($0 * 7919 % 40_009)") })
    var asked = 0
    // Asked after the 5th look: once as the sort begins, then every 65,536 comparisons.
    #expect(throws: CatalogDocument.stopped) {
      try document.sorted(by: .title) {
        asked += 1
        return asked > 5
      }
    }
    #expect(asked > 5)
    #expect(throws: CatalogDocument.stopped) { try document.sorted(by: .title) { true } }
    let whole = try document.sorted(by: .title) { false }
    #expect(whole.books.map(\.title) == document.books.map(\.title).sorted { $0.lowercased() < $1.lowercased() })
  }

  /// A sorted catalog's index is gathered from the old one, not built again: it must be the
  /// index a catalog of the same books in that order builds (every id's position, what a search
  /// finds), whatever the titles (capitals, accents, Cyrillic, ties) and the order.
  @Test(arguments: [1, 2, 3, 2026])
  func aSortedCatalogsIndexIsTheOneItsBooksWouldBuild(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let words = ["Dune", "dune", "Über", "über", "Война", "мир", "a", "Zebra", "émile", "Emile", "9"]
    let books = (1...9_000).map { id in
      (id * 7 % 9_001, (0..<3).map { _ in words.randomElement(using: &random)! }.joined(separator: " "))
    }
    let document = try catalog(books)
    for order in CatalogOrder.allCases {
      let sorted = try document.sorted(by: order)
      let rebuilt = try CatalogDocument(validating: sorted.books.array)
      for (id, _) in books { #expect(sorted.position(of: id) == rebuilt.position(of: id), "seed \(seed) \(order)") }
      for query in ["dune", "über", "ВОЙНА", "emile", "a z", "9"] {
        let folded = Array(query.lowercased().utf8)
        #expect(
          sorted.index.positions(matching: folded) == rebuilt.index.positions(matching: folded),
          "seed \(seed) \(order) \(query)")
      }
      if order == .title {
        let titles = sorted.books.array.map { $0.title.lowercased() }
        #expect(
          zip(titles, titles.dropFirst()).allSatisfy {
            Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) || $0 == $1
          })
      }
    }
  }

  @Test func theSampleLibraryHasThirtyBooks() {
    #expect(CatalogDocument.sampleLibrary.books.count == 30)
  }
}
