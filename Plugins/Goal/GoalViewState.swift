import WorkbenchCore

/// A goal the window is editing and has not saved: its target and progress, and the revision
/// of the shared goal it started from.
public struct GoalDraft: Codable, Equatable, Sendable {
  public var goal: ReadingGoal
  public var baseRevision: Int
}

/// One goal window's interaction facts: an unsaved draft, if any. The shared goal itself is
/// the document; the message after a rejected completion is presentation, not stored.
public struct GoalViewState: ViewStateValue {
  /// The draft being edited in this window only.
  public var draft: GoalDraft?

  /// A window with no draft.
  public init() {}
}
