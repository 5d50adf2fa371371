/// Which way `paged` moves the viewport.
public enum PageDirection: String, CaseIterable, Sendable {
  case next, previous
}

/// Everything that can happen to a catalog window, named for what happened.
public enum CatalogAction: Equatable, Sendable {
  /// The search text changed.
  case queryChanged(String)
  /// A book was selected, or the selection cleared with `nil`.
  case selected(Int?)
  /// "Only selected" was turned on or off.
  case onlySelectedChanged(Bool)
  /// The list was scrolled to put a book at a row of the viewport, or to the top.
  case scrolled(ViewportAnchor?)
  /// The list moved a page.
  case paged(PageDirection)
  /// The detail pane's policy for filtered-out books changed.
  case detailPolicyChanged(DetailPolicy)
  /// The shared document was replaced (an edit in any window, an undo, a refresh).
  case documentReplaced(CatalogDocument)
}
