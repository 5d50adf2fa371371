import Catalog
import Testing
import WorkbenchCore
import WorkbenchModuleAPI

/// The checks seed 000 makes, one test each, plus its case study's sequence.
@MainActor
@Suite struct SeedChecksTests {
  @Test func viewStateRecreatesThePresentation() throws {
    let document = try seedDocument()
    let screen = CatalogScreenModel(document: document)
    try screen.send(.selected(2))
    try screen.send(.queryChanged("Swift"))
    #expect(screen.rowIDs == [1])
    #expect(screen.viewState.selectedID == 2)
    let restored = CatalogScreenModel(document: document, viewState: screen.viewState)
    #expect(restored.frame == screen.frame)
    #expect(restored.viewState.query == "Swift")
  }

  @Test func replacingTheDocumentReconcilesTheSelection() throws {
    let document = try seedDocument()
    let screen = CatalogScreenModel(document: document)
    try screen.send(.selected(2))
    try screen.send(.documentReplaced(try catalog([(1, "Swift")])))
    #expect(screen.viewState.selectedID == nil)
  }

  @Test func selectingAnUnknownBookIsRejectedAndChangesNothing() throws {
    let screen = CatalogScreenModel(document: try seedDocument())
    try screen.send(.selected(1))
    let before = screen.viewState
    #expect(throws: CatalogValidationError("no book with id 999")) { try screen.send(.selected(999)) }
    #expect(screen.viewState == before)
  }

  @Test func windowsHaveIndependentViewState() throws {
    let document = try seedDocument()
    let screen = CatalogScreenModel(document: document)
    try screen.send(.queryChanged("Swift"))
    let otherWindow = CatalogScreenModel(document: document)
    #expect(otherWindow.viewState.query.isEmpty)
    #expect(otherWindow.rowIDs == [1, 2])
  }

  @Test func selectionSurvivesBeingFilteredOut() throws {
    let screen = CatalogScreenModel(document: try seedDocument())
    try screen.send(.selected(2))
    try screen.send(.queryChanged("Swift"))
    #expect(screen.viewState.selectedID == 2)
    #expect(screen.frame["selected"] == 2)
  }

  @Test func onlySelectedWithNoSelectionIsEmpty() throws {
    let screen = CatalogScreenModel(document: try seedDocument())
    try screen.send(.onlySelectedChanged(true))
    #expect(screen.rowIDs == [])
    try screen.send(.selected(2))
    #expect(screen.rowIDs == [2])
    try screen.send(.queryChanged("Swift"))
    #expect(screen.rowIDs == [])  // only-selected narrows the query's matches
  }

  @Test func selectFilterReorderThenRemoveTheSelectedBook() throws {
    let document = try catalog([(1, "Swift"), (2, "Algorithms"), (3, "Swift Concurrency"), (4, "Compilers")])
    let screen = CatalogScreenModel(document: document)

    try screen.send(.selected(3))
    #expect(screen.viewState.selectedID == 3)
    #expect(screen.rowIDs == [1, 2, 3, 4])

    try screen.send(.queryChanged("swift"))
    #expect(screen.viewState.selectedID == 3)
    #expect(screen.rowIDs == [1, 3])

    try screen.send(.documentReplaced(try document.sorted(by: .reverse)))
    #expect(screen.viewState.selectedID == 3)
    #expect(screen.rowIDs == [3, 1])

    try screen.send(.documentReplaced(try screen.document.removing(3)))
    #expect(screen.viewState.selectedID == nil)
    #expect(screen.rowIDs == [1])
  }

  @Test func aRefreshWhileTheSelectedRowIsFilteredOutKeepsTheSelectionIfTheBookExists() throws {
    let screen = CatalogScreenModel(document: try seedDocument())
    try screen.send(.selected(2))
    try screen.send(.queryChanged("Swift"))
    try screen.send(.documentReplaced(try catalog([(3, "New"), (2, "Algorithms, 2nd ed."), (1, "Swift")])))
    #expect(screen.viewState.selectedID == 2)
    #expect(screen.frame["detail"]?["title"] == "Algorithms, 2nd ed.")
    #expect(screen.frame["detail"]?["filteredOut"] == true)
    try screen.send(.documentReplaced(try catalog([(3, "New"), (1, "Swift")])))
    #expect(screen.viewState.selectedID == nil)
    #expect(screen.frame["detail"] == .null)
  }

  @Test func anIndexWouldPointAtTheWrongBookButAnIDDoesNot() throws {
    let screen = CatalogScreenModel(document: try seedDocument())
    try screen.send(.selected(2))
    try screen.send(.documentReplaced(try catalog([(5, "Inserted"), (1, "Swift"), (2, "Algorithms")])))
    #expect(screen.frame["detail"]?["title"] == "Algorithms")
  }
}
