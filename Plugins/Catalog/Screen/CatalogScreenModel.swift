import WorkbenchModuleAPI

/// The model behind one catalog window: a snapshot of the shared document, the window's view
/// state, and the rules that keep the two consistent.
///
/// Rules, applied after every action:
/// - The selection is a book id. It survives filtering and reordering, and is cleared only
///   when its book leaves the document. Selecting an unknown id is rejected.
/// - The anchor is a book id. When its book is removed, the anchor moves to the next book that
///   survived (or the previous one when none follows); when its book is filtered out, the
///   viewport shows the nearest visible row after it, and the anchor is kept for later.
@MainActor
public final class CatalogScreenModel: ActionHandling, FramedScreen {
  public private(set) var document: CatalogDocument {
    didSet { changes &+= 1 }
  }
  public private(set) var viewState: CatalogViewState {
    didSet { changes &+= 1 }
  }
  /// Moves with every change of what the frame reads (the document and the view state; the
  /// viewport's size is fixed).
  private var changes = 0
  public var frameStamp: Int? { changes }
  /// How many rows the viewport shows.
  public let viewportRows: Int
  private var lastSearch: (index: TitleIndex, query: [UInt8], positions: [Int])?

  public init(document: CatalogDocument, viewState: CatalogViewState, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
    self.viewportRows = max(1, environment.viewportRows)
    reconcile(previous: nil)
  }

  /// A model with the default environment.
  public convenience init(document: CatalogDocument, viewState: CatalogViewState = CatalogViewState()) {
    self.init(document: document, viewState: viewState, environment: ScreenEnvironment())
  }

  /// Applies an action. A rejected action changes nothing. The catalog's actions change only
  /// this window; its edits are document changes (`CatalogDocument+Edits`).
  ///
  /// - Throws: `CatalogValidationError` when the action refers to a book that does not exist.
  @discardableResult
  public func send(_ action: CatalogAction) throws(CatalogValidationError) -> DocumentChange<CatalogDocument>? {
    var previous: CatalogDocument? = nil
    switch action {
    case .queryChanged(let query):
      viewState.query = query
    case .selected(let id):
      if let id, !document.contains(id) { throw CatalogValidationError("no book with id \(id)") }
      viewState.selectedID = id
    case .onlySelectedChanged(let enabled):
      viewState.showsOnlySelected = enabled
    case .scrolled(let anchor):
      if let anchor, !document.contains(anchor.bookID) {
        throw CatalogValidationError("no book with id \(anchor.bookID)")
      }
      if let anchor, anchor.offset < 0 || anchor.offset >= viewportRows {
        throw CatalogValidationError("OFFSET must be between 0 and \(viewportRows - 1), not \(anchor.offset)")
      }
      viewState.anchor = anchor
    case .paged(let direction):
      viewState.anchor = pageAnchor(direction)
    case .detailPolicyChanged(let policy):
      viewState.detailPolicy = policy
    case .documentReplaced(let replacement):
      previous = document
      document = replacement
    }
    reconcile(previous: previous)
    return nil
  }

  public func documentReplaced(_ document: CatalogDocument) {
    _ = try? send(.documentReplaced(document))  // cannot be rejected
  }

  public func restore(_ viewState: CatalogViewState) {
    self.viewState = viewState
    reconcile(previous: nil)
  }

  /// Brings the view state back in line with the document.
  ///
  /// - Parameter previous: the document before a replacement, used to move an anchor whose book
  ///   was removed to its neighbour; `nil` when restoring, where a missing anchor goes to the top.
  private func reconcile(previous: CatalogDocument?) {
    if let selected = viewState.selectedID, !document.contains(selected) {
      viewState.selectedID = nil
    }
    if var anchor = viewState.anchor {
      if !document.contains(anchor.bookID) {
        guard let neighbour = previous.flatMap({ survivingNeighbour(of: anchor.bookID, in: $0) }) else {
          viewState.anchor = nil
          return
        }
        anchor.bookID = neighbour
      }
      anchor.offset = min(max(0, anchor.offset), viewportRows - 1)
      viewState.anchor = anchor
    }
  }

  /// The first book after `id` in `previous` that is still in the document, else the last one
  /// before it.
  private func survivingNeighbour(of id: Int, in previous: CatalogDocument) -> Int? {
    guard let position = previous.position(of: id) else { return nil }
    let books = previous.books
    if let after = books[(position + 1)...].first(where: { document.contains($0.id) }) { return after.id }
    return books[..<position].last(where: { document.contains($0.id) })?.id
  }

  // MARK: Projection

  /// The positions of the books the list shows, in document order.
  public var visiblePositions: [Int] {
    let matches = matchingPositions()
    guard viewState.showsOnlySelected else { return matches }
    guard let selected = viewState.selectedID, let position = document.position(of: selected) else {
      return []
    }
    let row = lowerBound(of: position, in: matches)
    return row < matches.count && matches[row] == position ? [position] : []
  }

  /// The positions of the books whose title matches the query. Remembers the result so the
  /// next, longer query searches only these, and a rename looks only at the renamed title.
  private func matchingPositions() -> [Int] {
    let query = Array(TitleIndex.fold(viewState.query).utf8)
    let index = document.index
    if let last = lastSearch, last.query == query, let renamed = index.renamed, renamed.parent == last.index.token {
      // One title changed: the matches are the last ones, with that title in or out.
      var positions = last.positions
      if !query.isEmpty {
        let matches = !index.positions(matching: query, among: [renamed.position]).isEmpty
        let row = lowerBound(of: renamed.position, in: positions)
        let listed = row < positions.count && positions[row] == renamed.position
        if matches && !listed { positions.insert(renamed.position, at: row) }
        if !matches && listed { positions.remove(at: row) }
      }
      lastSearch = (index, query, positions)
      return positions
    }
    if let last = lastSearch, last.index === index {
      if last.query == query { return last.positions }
      if !last.query.isEmpty, query.count > last.query.count, query.contains(last.query) {
        let narrowed = index.positions(matching: query, among: last.positions)
        lastSearch = (index, query, narrowed)
        return narrowed
      }
    }
    let positions = index.positions(matching: query)
    lastSearch = (index, query, positions)
    return positions
  }

  /// The index in `visible` of the viewport's first row.
  func firstRow(in visible: [Int]) -> Int {
    guard let anchor = viewState.anchor, let position = document.position(of: anchor.bookID),
      !visible.isEmpty
    else { return 0 }
    var row = lowerBound(of: position, in: visible)
    if row == visible.count { row = visible.count - 1 }
    let first = max(0, row - anchor.offset)
    return min(first, max(0, visible.count - viewportRows))
  }

  private func pageAnchor(_ direction: PageDirection) -> ViewportAnchor? {
    let visible = visiblePositions
    guard !visible.isEmpty else { return viewState.anchor }
    let first = firstRow(in: visible)
    let target =
      direction == .next
      ? min(first + viewportRows, max(0, visible.count - viewportRows))
      : max(0, first - viewportRows)
    return target == 0 ? nil : ViewportAnchor(bookID: document.books[visible[target]].id, offset: 0)
  }
}

func lowerBound(of value: Int, in sorted: [Int]) -> Int {
  var low = 0
  var high = sorted.count
  while low < high {
    let middle = (low + high) / 2
    if sorted[middle] < value { low = middle + 1 } else { high = middle }
  }
  return low
}
