import WorkbenchModuleAPI

/// Where a window's list is scrolled to: a book id and how many rows below the top of the
/// viewport that book sits. Stable across inserts, removals and sorting, unlike a row index.
public struct ViewportAnchor: Codable, Equatable, Hashable, Sendable {
  /// The book the viewport is anchored to.
  public var bookID: Int
  /// The anchor book's row within the viewport, 0 being the top row.
  public var offset: Int

  /// An anchor.
  public init(bookID: Int, offset: Int = 0) {
    self.bookID = bookID
    self.offset = offset
  }
}

/// What the detail pane does while its selected book is hidden by the query.
public enum DetailPolicy: String, Codable, CaseIterable, Sendable {
  /// Keep showing the selected book, marked as filtered out (the default).
  case keep
  /// Close the pane until the book is visible again; the selection itself stays.
  case close
}

/// One catalog window's interaction facts: everything needed to rebuild the window, and
/// nothing more (no frames, no rows, no tasks).
public struct CatalogViewState: ViewStateValue {
  /// The search text; matching ignores case.
  public var query: String
  /// The selected book, by id.
  public var selectedID: Int?
  /// Whether the list shows only the selected book (when it also matches the query).
  public var showsOnlySelected: Bool
  /// Where the list is scrolled to; `nil` is the top.
  public var anchor: ViewportAnchor?
  /// What the detail pane does while its book is filtered out.
  public var detailPolicy: DetailPolicy

  /// A fresh window: no query, no selection, at the top.
  public init() {
    self.init(query: "")
  }

  /// A view state with the given facts.
  public init(
    query: String, selectedID: Int? = nil, showsOnlySelected: Bool = false,
    anchor: ViewportAnchor? = nil, detailPolicy: DetailPolicy = .keep
  ) {
    self.query = query
    self.selectedID = selectedID
    self.showsOnlySelected = showsOnlySelected
    self.anchor = anchor
    self.detailPolicy = detailPolicy
  }

  /// Version 2 renamed version 1's `selection` and `onlySelected` to `selectedID` and
  /// `showsOnlySelected`, and stores the anchor as `{bookID, offset}` instead of a bare book id.
  public static var version: Int { 2 }

  /// Brings a version 1 record to version 2.
  public static func migrate(_ state: FrameValue, from version: Int) -> FrameValue? {
    guard version == 1, case .object(var record) = state else { return nil }
    if let selection = record["selection"] {
      record["selection"] = nil
      record["selectedID"] = selection
    }
    if let onlySelected = record["onlySelected"] {
      record["onlySelected"] = nil
      record["showsOnlySelected"] = onlySelected
    }
    if let anchor = record["anchor"], case .integer(let bookID) = anchor {
      record["anchor"] = ["bookID": .integer(bookID), "offset": 0]
    }
    return .object(record)
  }

  private enum CodingKeys: String, CodingKey {
    case query, selectedID, showsOnlySelected, anchor, detailPolicy
  }

  // Fields added later decode with their defaults, so older records still load.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      query: try container.decodeIfPresent(String.self, forKey: .query) ?? "",
      selectedID: try container.decodeIfPresent(Int.self, forKey: .selectedID),
      showsOnlySelected: try container.decodeIfPresent(Bool.self, forKey: .showsOnlySelected) ?? false,
      anchor: try container.decodeIfPresent(ViewportAnchor.self, forKey: .anchor),
      detailPolicy: try container.decodeIfPresent(DetailPolicy.self, forKey: .detailPolicy) ?? .keep)
  }
}
