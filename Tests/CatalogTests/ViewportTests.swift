import Catalog
import FoundationEssentials
import Testing
import WorkbenchCore
import WorkbenchModuleAPI

@MainActor
@Suite struct ViewportTests {
  /// Ten books, ids 1...10, titles "Book 1"... and a four-row viewport.
  private func tenBooks() throws -> CatalogScreenModel {
    let document = try catalog((1...10).map { ($0, "Book \($0)") })
    return CatalogScreenModel(document: document, viewState: CatalogViewState(), environment: .init(viewportRows: 4))
  }

  @Test func theAnchorPutsItsBookAtItsRow() throws {
    let screen = try tenBooks()
    try screen.send(.scrolled(ViewportAnchor(bookID: 6, offset: 1)))
    #expect(screen.rowIDs == [5, 6, 7, 8])
    #expect(screen.frame["viewport"]?["firstRow"] == 5)
  }

  @Test func theAnchorSurvivesReordering() throws {
    let screen = try tenBooks()
    try screen.send(.scrolled(ViewportAnchor(bookID: 6, offset: 0)))
    try screen.send(.documentReplaced(try screen.document.sorted(by: .reverse)))
    #expect(screen.rowIDs == [6, 5, 4, 3])
  }

  @Test func removingTheAnchorBookMovesTheAnchorToTheNextSurvivor() throws {
    let screen = try tenBooks()
    try screen.send(.scrolled(ViewportAnchor(bookID: 6, offset: 0)))
    try screen.send(.documentReplaced(try screen.document.removing(6)))
    #expect(screen.viewState.anchor == ViewportAnchor(bookID: 7, offset: 0))
    #expect(screen.rowIDs == [7, 8, 9, 10])
  }

  @Test func removingTheLastBookMovesTheAnchorBack() throws {
    let screen = try tenBooks()
    try screen.send(.scrolled(ViewportAnchor(bookID: 10, offset: 3)))
    try screen.send(.documentReplaced(try screen.document.removing(10)))
    #expect(screen.viewState.anchor == ViewportAnchor(bookID: 9, offset: 3))
  }

  @Test func aFilteredOutAnchorShowsTheNextVisibleBookAndIsKept() throws {
    let screen = try tenBooks()
    try screen.send(.scrolled(ViewportAnchor(bookID: 2, offset: 0)))
    try screen.send(.queryChanged("book 1"))  // matches 1 and 10
    #expect(screen.rowIDs == [1, 10])
    #expect(screen.viewState.anchor == ViewportAnchor(bookID: 2, offset: 0))
    try screen.send(.queryChanged(""))
    #expect(screen.rowIDs == [2, 3, 4, 5])
  }

  @Test func theViewportStopsAtTheEnd() throws {
    let screen = try tenBooks()
    try screen.send(.scrolled(ViewportAnchor(bookID: 10, offset: 0)))
    #expect(screen.rowIDs == [7, 8, 9, 10])
  }

  @Test func pagingMovesByAViewport() throws {
    let screen = try tenBooks()
    try screen.send(.paged(.next))
    #expect(screen.rowIDs == [5, 6, 7, 8])
    try screen.send(.paged(.next))
    #expect(screen.rowIDs == [7, 8, 9, 10])
    try screen.send(.paged(.previous))
    #expect(screen.rowIDs == [3, 4, 5, 6])
  }

  @Test func offsetsOutsideTheViewportAreRejected() throws {
    let screen = try tenBooks()
    #expect(throws: CatalogValidationError.self) { try screen.send(.scrolled(ViewportAnchor(bookID: 3, offset: 4))) }
    #expect(screen.viewState.anchor == nil)
  }

  /// The seed's exercise: a versioned record restored against a changed document, and two
  /// windows restoring different anchors over the same books.
  @Test func restoringAnchorsAgainstAChangedDocument() throws {
    let left = try tenBooks()
    let right = try tenBooks()
    try left.send(.scrolled(ViewportAnchor(bookID: 3, offset: 0)))
    try left.send(.selected(4))
    try right.send(.scrolled(ViewportAnchor(bookID: 8, offset: 2)))
    let leftRecord = try JSONEncoder().encode(left.viewState)
    let rightRecord = try JSONEncoder().encode(right.viewState)

    let changed = try left.document.removing(8).removing(4)
    let environment = ScreenEnvironment(viewportRows: 4)
    let restoredLeft = CatalogScreenModel(
      document: changed, viewState: try JSONDecoder().decode(CatalogViewState.self, from: leftRecord),
      environment: environment)
    let restoredRight = CatalogScreenModel(
      document: changed, viewState: try JSONDecoder().decode(CatalogViewState.self, from: rightRecord),
      environment: environment)
    #expect(restoredLeft.rowIDs == [3, 5, 6, 7])
    #expect(restoredLeft.viewState.selectedID == nil)  // book 4 is gone
    #expect(restoredRight.viewState.anchor == nil)  // book 8 is gone: back to the top
    #expect(restoredRight.rowIDs == [1, 2, 3, 5])
  }

  @Test func olderRecordsWithoutNewFieldsDecodeWithDefaults() throws {
    let record = Data(#"{"query":"swift","selectedID":2}"#.utf8)
    let state = try JSONDecoder().decode(CatalogViewState.self, from: record)
    #expect(state == CatalogViewState(query: "swift", selectedID: 2))
  }

  @Test func theDetailPaneFollowsItsPolicyWhileFilteredOut() throws {
    let screen = CatalogScreenModel(document: try seedDocument())
    try screen.send(.selected(2))
    try screen.send(.queryChanged("swift"))
    #expect(screen.frame["detail"]?["filteredOut"] == true)
    try screen.send(.detailPolicyChanged(.close))
    #expect(screen.frame["detail"] == .null)
    #expect(screen.viewState.selectedID == 2)
    try screen.send(.queryChanged(""))
    #expect(screen.frame["detail"]?["id"] == 2)
  }
}
