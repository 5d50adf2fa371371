import WorkbenchModuleAPI

/// What a goal window shows: the shared goal, this window's draft, and why its last intent was
/// refused.
public struct GoalFrame: FrameRecord {
  /// A window's draft of the goal, before it is saved.
  public struct Draft: FrameRecord {
    public var progress = ""
    public var completed = 0
    public var target = 0
    public var baseRevision = 0
    /// Always false: a saved draft is no longer a draft.
    public var saved = false
    public init() {}

    public static let fields: FrameFields<Draft> = [
      FrameField("progress", \.progress, "the draft's goal as \"N of M\""),
      FrameField("completed", \.completed, "how many books the draft counts as read"),
      FrameField("target", \.target, "how many books the draft wants"),
      FrameField("baseRevision", \.baseRevision, "the shared goal's revision the draft started from"),
      FrameField("saved", \.saved, "always false: a saved draft is no longer a draft"),
    ]
  }

  public var progress = ""
  public var completed = 0
  public var target = 0
  public var finished = false
  public var revision = 0
  public var showing = "saved"
  public var draft: Draft?
  public var canComplete = false
  public var message: String?
  public init() {}

  public static let fields: FrameFields<GoalFrame> = [
    FrameField("progress", \.progress, "the shared goal as \"N of M\""),
    FrameField("completed", \.completed, "how many books of the shared goal are read"),
    FrameField("target", \.target, "how many books the shared goal wants"),
    FrameField("finished", \.finished, "whether the shared goal is reached"),
    FrameField("revision", \.revision, "the shared goal's revision"),
    FrameField("showing", \.showing, "saved or draft: which goal the window shows"),
    FrameField("draft", \.draft, "this window's draft: {progress, completed, target, baseRevision, saved}, or null"),
    FrameField("canComplete", \.canComplete, "whether `complete` is possible for what the window shows"),
    // A refused intent shows why here (seed 003: the controller turns the model's refusal into
    // display data); nothing else changes.
    FrameField("message", \.message, role: .refusal, "why the window's last intent was refused, or null"),
  ]
}
