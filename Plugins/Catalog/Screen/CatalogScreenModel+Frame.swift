import WorkbenchModuleAPI

extension CatalogScreenModel {
  /// The frame: the viewport's rows, the selection, the query, and the detail pane.
  public var typedFrame: CatalogFrame {
    let visible = visiblePositions
    let first = firstRow(in: visible)
    let shown = visible[first..<min(visible.count, first + viewportRows)]
    var frame = CatalogFrame()
    frame.query = viewState.query
    frame.onlySelected = viewState.showsOnlySelected
    frame.selected = viewState.selectedID
    frame.matches = visible.count
    frame.total = document.books.count
    frame.rows = shown.map { position in
      let book = document.books[position]
      return CatalogFrame.Row(id: book.id, title: book.title)
    }
    frame.viewport.anchor = viewState.anchor?.bookID
    frame.viewport.offset = viewState.anchor?.offset ?? 0
    frame.viewport.firstRow = visible.isEmpty ? nil : first + 1
    frame.detail = detail(visible: visible)
    frame.detailPolicy = viewState.detailPolicy.rawValue
    return frame
  }

  private func detail(visible: [Int]) -> CatalogFrame.Detail? {
    guard let id = viewState.selectedID, let position = document.position(of: id) else { return nil }
    let row = lowerBound(of: position, in: visible)
    let isVisible = row < visible.count && visible[row] == position
    if !isVisible && viewState.detailPolicy == .close { return nil }
    var detail = CatalogFrame.Detail()
    detail.id = id
    detail.title = document.books[position].title
    detail.position = position + 1
    detail.filteredOut = !isVisible
    return detail
  }
}
