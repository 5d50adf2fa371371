import WorkbenchModuleAPI

/// What an editor window shows: the text (the draft's while there is one) and where the draft
/// stands against the document.
public struct EditorFrame: FrameRecord {
  /// One numbered line of the text.
  public struct Line: FrameRecord {
    /// Its 1-based number.
    public var n = 0
    public var text = ""
    public init() {}
    public init(n: Int, text: String) {
      self.n = n
      self.text = text
    }
    public static let fields: FrameFields<Line> = [
      FrameField("n", \.n, "the line's 1-based number"), FrameField("text", \.text, "the line's text"),
    ]
  }

  /// The revisions of a draft the document moved on under.
  public struct Conflict: FrameRecord {
    public var base = 0
    public var current = 0
    public init() {}
    public static let fields: FrameFields<Conflict> = [
      FrameField("base", \.base, "the document revision the draft started from"),
      FrameField("current", \.current, "the document's revision now, which the draft did not see"),
    ]
  }

  public var title = ""
  public var lines: [Line] = []
  public var dirty = false
  public var baseRevision: Int?
  public var documentRevision = 0
  public var conflict: Conflict?
  public init() {}

  public static let fields: FrameFields<EditorFrame> = [
    FrameField("title", \.title, "the title the window shows (the draft's while there is one)"),
    FrameField("lines", \.lines, "the text, as {n, text} lines (the draft's while there is one)"),
    FrameField("dirty", \.dirty, "whether the window holds an unsaved draft"),
    FrameField("baseRevision", \.baseRevision, "the document revision the draft started from, or null without a draft"),
    FrameField("documentRevision", \.documentRevision, "the document's revision now"),
    FrameField("conflict", \.conflict, "{base, current} when the document moved on under the draft, or null"),
  ]
}
