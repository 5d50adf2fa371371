import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

@testable import Catalog

@MainActor
@Suite struct SearchTests {
  @Test func matchingIgnoresCaseForNonASCIITitles() throws {
    let screen = CatalogScreenModel(document: CatalogDocument.sampleLibrary)
    try screen.send(.queryChanged("MISÉRABLES"))
    #expect(screen.rowIDs == [17])
    try screen.send(.queryChanged("война"))
    #expect(screen.rowIDs == [19])
    try screen.send(.queryChanged("gödel"))
    #expect(screen.rowIDs == [14])
    try screen.send(.queryChanged("AÑOS"))
    #expect(screen.rowIDs == [18])
  }

  @Test func anEmptyQueryShowsEverything() throws {
    let screen = CatalogScreenModel(document: try seedDocument())
    try screen.send(.queryChanged("x"))
    try screen.send(.queryChanged(""))
    #expect(screen.rowIDs == [1, 2])
  }

  @Test func queriesDoNotMatchAcrossTwoTitles() throws {
    let screen = CatalogScreenModel(document: try catalog([(1, "ab"), (2, "cd")]))
    try screen.send(.queryChanged("bc"))
    #expect(screen.rowIDs == [])
  }

  /// Typing a query one character at a time (the narrowing search) must give exactly what a
  /// fresh search gives, for every prefix, including after deleting characters.
  @Test func incrementalTypingMatchesAFreshSearch() throws {
    var generator = SplitMix64(seed: 42)
    let words = ["the", "art", "of", "swift", "élan", "Über", "data", "flow", "a", "ß"]
    var titles: [(Int, String)] = []
    for id in 1...400 {
      let count = Int.random(in: 1...4, using: &generator)
      titles.append((id, (0..<count).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ")))
    }
    let document = try catalog(titles)
    let typing = CatalogScreenModel(
      document: document, viewState: CatalogViewState(), environment: .init(viewportRows: 500))
    for query in ["t", "th", "the", "the ", "the a", "the ar", "the a", "s", "sw", "über", "üb", "élan d"] {
      try typing.send(.queryChanged(query))
      let fresh = CatalogScreenModel(
        document: document, viewState: CatalogViewState(query: query), environment: .init(viewportRows: 500))
      let expected = titles.filter { $0.1.lowercased().contains(query.lowercased()) }.map(\.0)
      #expect(typing.rowIDs == fresh.rowIDs, "query \(query)")
      #expect(typing.rowIDs == expected, "query \(query)")
    }
  }
}

extension SearchTests {
  /// A rename splices the index instead of rebuilding it: after renames that lengthen, shorten
  /// and change the script of titles, every search gives what a freshly built index gives.
  @Test func renamesKeepTheIndexAsAFreshOneWouldBe() throws {
    var document = try catalog([(1, "Alpha"), (2, "Beta"), (3, "Gamma"), (4, "Delta")])
    document = try document.renaming(2, to: "Much Longer Beta Title")
    document = try document.renaming(3, to: "Г")
    document = try document.renaming(1, to: "al")
    let fresh = try CatalogDocument(validating: Array(document.books))
    for query in ["beta", "bet", "gamma", "г", "al", "delta", "a", "ta\nd", "l"] {
      let spliced = CatalogScreenModel(
        document: document, viewState: CatalogViewState(query: query), environment: .init(viewportRows: 50))
      let rebuilt = CatalogScreenModel(
        document: fresh, viewState: CatalogViewState(query: query), environment: .init(viewportRows: 50))
      #expect(spliced.rowIDs == rebuilt.rowIDs, "query \(query)")
    }
    #expect(
      CatalogScreenModel(
        document: document, viewState: CatalogViewState(query: "gamma"), environment: .init(viewportRows: 50)
      ).rowIDs == [])
    #expect(
      CatalogScreenModel(
        document: document, viewState: CatalogViewState(query: "delta"), environment: .init(viewportRows: 50)
      ).rowIDs == [4])
  }
}

extension SearchTests {
  /// Books and their index are kept in chunks, so a rename copies one chunk. Renames at both
  /// sides of every chunk boundary, in a catalog of three chunks, must leave the books and every
  /// search (full and narrowed) as a catalog built afresh from the same titles.
  @Test func renamesAtChunkBoundariesKeepBooksAndSearches() throws {
    let size = BookList.chunkSize
    var generator = SplitMix64(seed: 42)
    let words = ["dune", "war", "peace", "élan", "code", "art", "the", "sea", "Ünder"]
    var titles = (1...(2 * size + 1808)).map { id in
      (id, (0..<3).map { _ in words.randomElement(using: &generator)! }.joined(separator: " "))
    }
    var document = try catalog(titles)
    let renamed: [(position: Int, title: String)] = [
      (0, "A much longer first title with dune in it"), (size - 1, "x"), (size, "Война и мир"),
      (2 * size - 1, "the end of a chunk"), (2 * size, "DUNE"), (titles.count - 1, "last"),
    ]
    for (position, title) in renamed {
      document = try document.renaming(position + 1, to: title)
      titles[position].1 = title
    }
    #expect(Array(document.books) == titles.map { CatalogBook(id: $0.0, title: $0.1) })
    let fresh = try catalog(titles)
    let rows = titles.count
    let typing = CatalogScreenModel(
      document: document, viewState: CatalogViewState(), environment: .init(viewportRows: rows))
    for query in ["d", "du", "dune", "война", "end", "x", "last", "the", "the e", "ünder", "a"] {
      try typing.send(.queryChanged(query))
      let rebuilt = CatalogScreenModel(
        document: fresh, viewState: CatalogViewState(query: query), environment: .init(viewportRows: rows))
      let expected = titles.filter { $0.1.lowercased().contains(query) }.map(\.0)
      #expect(typing.rowIDs == expected, "query \(query)")
      #expect(rebuilt.rowIDs == expected, "query \(query)")
    }
  }
}

extension SearchTests {
  /// A window searching a catalog that is renamed under it updates its matches by looking at
  /// the renamed title only: titles entering and leaving the matches, in every chunk, must give
  /// what a search from scratch gives.
  @Test func aSearchFollowsRenamesOfTheDocumentItShows() throws {
    let size = BookList.chunkSize
    var titles = (1...(2 * size + 10)).map { ($0, $0 % 7 == 0 ? "dune \($0)" : "sea \($0)") }
    var document = try catalog(titles)
    let queries = ["", "dune", "sea 8", "x"]
    let windows = queries.map {
      CatalogScreenModel(
        document: document, viewState: CatalogViewState(query: $0), environment: .init(viewportRows: titles.count))
    }
    let renames: [(position: Int, title: String)] = [
      (0, "Dune 1"), (6, "sea again"), (size - 1, "x dune"), (size, "sea 8 x"), (2 * size + 9, "DUNE"),
      (0, "plain"),
    ]
    for (position, title) in renames {
      document = try document.renaming(position + 1, to: title)
      titles[position].1 = title
      for (window, query) in zip(windows, queries) {
        window.documentReplaced(document)
        let expected = titles.filter { query.isEmpty || $0.1.lowercased().contains(query) }.map(\.0)
        #expect(window.rowIDs == expected, "query '\(query)' after renaming position \(position)")
      }
    }
  }
}

extension SearchTests {
  /// Titles are folded a run at a time (ASCII bytes directly, each run of other characters
  /// through `lowercased()`): over random mixes of scripts, case pairs that change length,
  /// combining marks and line breaks, that must equal lowercasing the whole title.
  @Test func foldingInRunsIsLowercasingTheWhole() {
    var generator = SplitMix64(seed: 7)
    let pieces = [
      "A", "z", " ", "\n", "\r\n", "Σ", "ΟΔΟΣ", "İ", "ß", "ẞ", "\u{212A}", "É", "e\u{301}", "Ǆ", "Москва", "東京", "🙂",
      "ﬀ", "ΐ", "-", "MISÉRABLES", "x\u{0345}",
    ]
    for _ in 0..<2_000 {
      let title = (0..<Int.random(in: 1...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
        .joined()
      let whole = String(String.UnicodeScalarView(title.lowercased().unicodeScalars.map { $0 == "\n" ? " " : $0 }))
      #expect(TitleIndex.fold(title) == whole, "\(title.unicodeScalars.map { String($0.value, radix: 16) })")
    }
  }
}
