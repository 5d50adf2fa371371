import WorkbenchModuleAPI

/// What a catalog window shows: the viewport's rows, the selection, the query, and the detail
/// pane.
public struct CatalogFrame: FrameRecord {
  /// One row of the list.
  public struct Row: FrameRecord {
    public var id = 0
    public var title = ""
    public init() {}
    public init(id: Int, title: String) {
      self.id = id
      self.title = title
    }
    public static let fields: FrameFields<Row> = [
      FrameField("id", \.id, "the book's id"), FrameField("title", \.title, "the book's title"),
    ]
  }

  /// Where the list is scrolled.
  public struct Viewport: FrameRecord {
    /// The book the viewport is anchored to, or `nil`.
    public var anchor: Int?
    /// The anchor's row in the viewport, from 0.
    public var offset = 0
    /// The 1-based number of the first row shown among the matches; `nil` with none.
    public var firstRow: Int?
    public init() {}
    public static let fields: FrameFields<Viewport> = [
      FrameField("anchor", \.anchor, "the id of the book the viewport is anchored to, or null"),
      FrameField("offset", \.offset, "the anchor's row in the viewport, from 0"),
      FrameField("firstRow", \.firstRow, "the 1-based number of the first row shown among the matches; null with none"),
    ]
  }

  /// The selected book.
  public struct Detail: FrameRecord {
    public var id = 0
    public var title = ""
    /// Its 1-based position in the catalog.
    public var position = 0
    /// Whether the query hides it from the list.
    public var filteredOut = false
    public init() {}
    public static let fields: FrameFields<Detail> = [
      FrameField("id", \.id, "the selected book's id"), FrameField("title", \.title, "the selected book's title"),
      FrameField("position", \.position, "its 1-based position in the catalog"),
      FrameField("filteredOut", \.filteredOut, "whether the window's filter hides it from the list"),
    ]
  }

  public var query = ""
  public var onlySelected = false
  public var selected: Int?
  public var matches = 0
  public var total = 0
  public var rows: [Row] = []
  public var viewport = Viewport()
  public var detail: Detail?
  public var detailPolicy = "keep"
  public init() {}

  public static let fields: FrameFields<CatalogFrame> = [
    FrameField("query", \.query, "the window's filter: titles containing it, ignoring case (\"\" shows every book)"),
    FrameField("onlySelected", \.onlySelected, "whether the list shows only the selected book"),
    FrameField("selected", \.selected, "the id of the selected book, or null"),
    FrameField("matches", \.matches, "how many books the filter leaves (all of them, not only the rows shown)"),
    FrameField("total", \.total, "how many books the catalog holds"),
    FrameField("rows", \.rows, "the rows in the viewport: {id, title}, at most --rows of them"),
    FrameField(
      "viewport", \.viewport, "where the list is scrolled: {anchor (a book id or null), offset, firstRow (1-based)}"),
    FrameField(
      "detail", \.detail,
      "the selected book: {id, title, position, filteredOut}; null when none, or filtered out under `detail close`"),
    FrameField(
      "detailPolicy", \.detailPolicy, "keep or close: whether the detail stays while its book is filtered out"),
  ]
}
