import WorkbenchModuleAPI

/// A goal the window is editing and has not saved: its target and progress, and the revision
/// of the shared goal it started from.
public struct GoalDraft: Codable, Equatable, Sendable {
  public var goal: ReadingGoal
  public var baseRevision: Int
}

/// One goal window's interaction facts: an unsaved draft, if any, and the message after a
/// rejected intent. The shared goal itself is the document. The message is stored with the
/// window because the frame shows it: what a window shows survives a relaunch (a record
/// without it, from before it was stored, reads as no message).
public struct GoalViewState: ViewStateValue {
  /// The draft being edited in this window only.
  public var draft: GoalDraft?
  /// The message after a rejected intent; cleared by the next successful one.
  public var message: String?

  /// A window with no draft.
  public init() {}
}
