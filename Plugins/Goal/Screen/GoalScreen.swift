import WorkbenchModuleAPI

/// The controller role for a goal window: it turns intents into model transitions (on the
/// shared goal, or on this window's draft) and model facts into a presentation.
///
/// Notification: a completion committed through any window reaches every window on the goal
/// before the command returns (the host hands the new document to each), so the next frame of
/// every window shows it. A closed window is released and receives nothing more.
@MainActor
public final class GoalScreen: ActionHandling, FramedScreen, UnsavedWork {
  public private(set) var document: GoalDocument {
    didSet { changes &+= 1 }
  }
  public private(set) var viewState: GoalViewState {
    didSet { changes &+= 1 }
  }
  /// The revision of the shared goal.
  public private(set) var revision = 0 {
    didSet { changes &+= 1 }
  }
  /// Moves with every change of what the frame reads: the three properties above.
  private var changes = 0
  public var frameStamp: Int? { changes }
  /// The message after a rejected intent; cleared by the next successful one. Kept in the
  /// view state, so it survives a relaunch like everything else the frame shows.
  public private(set) var message: String? {
    get { viewState.message }
    set { viewState.message = newValue }
  }
  /// How many times the shared goal was handed to this window (for tests of notification).
  public private(set) var notifications = 0

  public init(document: GoalDocument, viewState: GoalViewState, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
  }

  public func documentReplaced(_ document: GoalDocument) {
    self.document = document
    notifications += 1
  }

  public func documentRevisionChanged(_ revision: Int) { self.revision = revision }

  public func restore(_ viewState: GoalViewState) { self.viewState = viewState }

  /// A refused intent leaves the draft as it was, and its message.
  public func viewStateAfterFailure(before: GoalViewState, attempted: GoalViewState) -> GoalViewState {
    var kept = before
    kept.message = attempted.message
    return kept
  }

  // MARK: Actions

  /// Takes in what happened. A rejection is recorded as the message and thrown; the draft (or
  /// the shared goal) is left as it was.
  ///
  /// - Returns: the new shared goal to commit, when the action changed it (a completion with no
  ///   draft); `nil` when only this window changed.
  @discardableResult
  public func send(_ action: GoalAction) throws(GoalFailure) -> DocumentChange<GoalDocument>? {
    do {
      switch action {
      case .completeTapped:
        if var draft = viewState.draft {
          try draft.goal.completeOne()
          viewState.draft = draft
          message = nil
          return nil
        }
        var goal = document.goal
        try goal.completeOne()
        message = nil
        return DocumentChange(GoalDocument(goal: goal), summary: "complete a book")
      case .targetChosen(let target):
        // A new target goes in this window's draft, started from the shared goal if needed.
        var draft = viewState.draft ?? GoalDraft(goal: document.goal, baseRevision: revision)
        try draft.goal.retarget(target)
        viewState.draft = draft
        message = nil
        return nil
      }
    } catch {
      message = error.userMessage
      throw error
    }
  }

  /// The draft to commit as the shared goal.
  ///
  /// - Throws: `CommandError` when there is no draft, or the shared goal moved since the draft
  ///   started (unless `force`).
  public func draftForSaving(force: Bool) throws(CommandError) -> GoalDocument {
    guard let draft = viewState.draft else { throw CommandError("there is no draft to save in this window") }
    if draft.baseRevision != revision && !force {
      throw CommandError(
        "the shared goal changed since this draft started (revision \(draft.baseRevision), now \(revision): "
          + "\(document.goal.completed) of \(document.goal.target)); `discard` the draft, or `save force` to "
          + "replace the goal with it")
    }
    return GoalDocument(goal: draft.goal)
  }

  /// Ends the draft after it was saved or dropped.
  public func draftEnded() {
    viewState.draft = nil
    message = nil
  }

  // MARK: Unsaved work

  public var unsavedSummary: String? {
    viewState.draft.map { "a draft goal (\($0.goal.completed) of \($0.goal.target))" }
  }

  public func saveUnsavedWork(_ context: CommandContext) throws(CommandError) {
    try context.commit(try draftForSaving(force: false), summary: "save the draft goal")
    draftEnded()
  }

  public func forceSaveUnsavedWork(_ context: CommandContext) throws(CommandError) {
    try context.commit(try draftForSaving(force: true), summary: "save the draft goal")
    draftEnded()
  }

  public func discardUnsavedWork() { draftEnded() }

  // MARK: Presentation

  /// The frame: the shared goal's progress, this window's draft, and the message.
  public var typedFrame: GoalFrame {
    let goal = document.goal
    var frame = GoalFrame()
    frame.progress = "\(goal.completed) of \(goal.target)"
    frame.completed = goal.completed
    frame.target = goal.target
    frame.finished = goal.isFinished
    frame.revision = revision
    frame.showing = viewState.draft == nil ? "saved" : "draft"
    frame.draft = viewState.draft.map { draft in
      var shown = GoalFrame.Draft()
      shown.progress = "\(draft.goal.completed) of \(draft.goal.target)"
      shown.completed = draft.goal.completed
      shown.target = draft.goal.target
      shown.baseRevision = draft.baseRevision
      return shown
    }
    frame.canComplete = !(viewState.draft?.goal ?? goal).isFinished
    frame.message = message
    return frame
  }
}
