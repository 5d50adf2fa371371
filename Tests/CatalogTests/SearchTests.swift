import Catalog
import Testing
import WorkbenchCore

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
    var generator = SeededGenerator(seed: 42)
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
    let fresh = try CatalogDocument(validating: document.books)
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

/// A small deterministic random number generator (SplitMix64) for reproducible tests.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
