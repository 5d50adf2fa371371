import WorkbenchCore

extension CatalogScreenModel {
  /// The frame: the viewport's rows, the selection, the query, and the detail pane.
  ///
  /// ```
  /// {query, onlySelected, selected, matches, total,
  ///  rows: [{id, title}], viewport: {anchor, offset, firstRow},
  ///  detail: {id, title, filteredOut} | null, detailPolicy}
  /// ```
  public var frame: FrameValue {
    let visible = visiblePositions
    let first = firstRow(in: visible)
    let shown = visible[first..<min(visible.count, first + viewportRows)]
    let rows = shown.map { position -> FrameValue in
      let book = document.books[position]
      return ["id": .integer(book.id), "title": .string(book.title)]
    }
    return [
      "query": .string(viewState.query),
      "onlySelected": .bool(viewState.showsOnlySelected),
      "selected": FrameValue(viewState.selectedID),
      "matches": .integer(visible.count),
      "total": .integer(document.books.count),
      "rows": .list(rows),
      "viewport": [
        "anchor": FrameValue(viewState.anchor?.bookID),
        "offset": .integer(viewState.anchor?.offset ?? 0),
        "firstRow": visible.isEmpty ? .null : .integer(first + 1),
      ],
      "detail": detail(visible: visible),
      "detailPolicy": .string(viewState.detailPolicy.rawValue),
    ]
  }

  private func detail(visible: [Int]) -> FrameValue {
    guard let id = viewState.selectedID, let position = document.position(of: id) else { return .null }
    let row = lowerBound(of: position, in: visible)
    let isVisible = row < visible.count && visible[row] == position
    if !isVisible && viewState.detailPolicy == .close { return .null }
    return [
      "id": .integer(id),
      "title": .string(document.books[position].title),
      "position": .integer(position + 1),
      "filteredOut": .bool(!isVisible),
    ]
  }
}
