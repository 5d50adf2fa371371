import WorkbenchModuleAPI

/// How a save ended.
public enum SaveResult: Equatable, Sendable {
  /// Saved; the draft is gone.
  case saved
  /// Refused by the document's rules; the draft is kept.
  case rejected(String)
  /// The document moved past the draft's base revision; the draft is kept until resolved.
  case conflicted(base: Int, current: Int)
}

/// The model and controller of an editor window: a draft over the shared document, edited line
/// by line, and the save use case with its three outcomes.
@MainActor
public final class EditorScreen: ActionHandling, FramedScreen, UnsavedWork {
  public private(set) var document: TextDocument {
    didSet { changes &+= 1 }
  }
  public private(set) var viewState: EditorViewState {
    didSet { changes &+= 1 }
  }
  public private(set) var revision = 0 {
    didSet { changes &+= 1 }
  }
  /// Moves with every change of what the frame reads: the three properties above.
  private var changes = 0
  public var frameStamp: Int? { changes }

  public init(document: TextDocument, viewState: EditorViewState, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
  }

  public func documentReplaced(_ document: TextDocument) {
    self.document = document
    dropSessionIfClean()
  }

  public func documentRevisionChanged(_ revision: Int) { self.revision = revision }

  public func restore(_ viewState: EditorViewState) {
    self.viewState = viewState
    dropSessionIfClean()
  }

  // MARK: What the window shows

  /// The title and lines the window shows: the draft's, or the document's.
  public var title: String { viewState.session?.title ?? document.title }
  public var lines: [String] { viewState.session?.lines ?? document.lines }

  /// Whether the draft differs from the document.
  public var isDirty: Bool {
    guard let session = viewState.session else { return false }
    return session.title != document.title || session.lines != document.lines
  }

  /// The draft's base and the document's revision, when the document moved past a dirty draft.
  public var conflict: (base: Int, current: Int)? {
    guard isDirty, let session = viewState.session, session.baseRevision != revision else { return nil }
    return (session.baseRevision, revision)
  }

  // MARK: Edits (to the draft only)

  private func edit(_ change: (inout EditingSession) throws(TextValidationError) -> Void) throws(TextValidationError) {
    var session =
      viewState.session ?? EditingSession(baseRevision: revision, title: document.title, lines: document.lines)
    try change(&session)
    viewState.session = session
    dropSessionIfClean()
  }

  private func checkLine(_ number: Int, in session: EditingSession, allowEnd: Bool = false) throws(TextValidationError)
  {
    let last = session.lines.count + (allowEnd ? 1 : 0)
    guard (1...max(1, last)).contains(number), last > 0 else {
      let range = last == 0 ? "the body is empty" : "lines are numbered 1 to \(last)"
      throw TextValidationError("there is no line \(number): \(range)")
    }
  }

  /// Takes in an edit to the draft (a draft starts from the document at the first edit). The
  /// document changes only when the draft is saved (`save`), so no action hands back a change.
  ///
  /// - Throws: `TextValidationError` for a line that does not exist, a range that runs
  ///   backwards or a title the document's rules refuse; the draft is left as it was.
  @discardableResult
  public func send(_ action: EditorAction) throws(TextValidationError) -> DocumentChange<TextDocument>? {
    switch action {
    case .titleSet(let title):
      try TextDocument.validateTitle(title)
      try edit { session throws(TextValidationError) in session.title = title }
    case .lineAppended(let text):
      try edit { session throws(TextValidationError) in session.lines.append(text) }
    case .lineInserted(let text, let number):
      try edit { session throws(TextValidationError) in
        try checkLine(number, in: session, allowEnd: true)
        session.lines.insert(text, at: number - 1)
      }
    case .lineReplaced(let number, let text):
      try edit { session throws(TextValidationError) in
        try checkLine(number, in: session)
        session.lines[number - 1] = text
      }
    case .linesDeleted(let first, let last):
      try edit { session throws(TextValidationError) in
        try checkLine(first, in: session)
        try checkLine(last, in: session)
        guard first <= last else { throw TextValidationError("the range \(first)-\(last) runs backwards") }
        session.lines.removeSubrange((first - 1)...(last - 1))
      }
    }
    return nil
  }

  /// A draft that matches the document again is no draft: it goes.
  private func dropSessionIfClean() {
    if viewState.session != nil && !isDirty { viewState.session = nil }
  }

  // MARK: The save use case

  /// Decides a save: the document to commit, or why not. Nothing changes here.
  public func prepareSave(overriding: Bool = false) -> (document: TextDocument?, result: SaveResult) {
    guard let session = viewState.session, isDirty else { return (nil, .rejected("there are no changes to save")) }
    if let conflict, !overriding { return (nil, .conflicted(base: conflict.base, current: conflict.current)) }
    do {
      return (try TextDocument(title: session.title, lines: session.lines), .saved)
    } catch {
      return (nil, .rejected(error.message))
    }
  }

  /// The draft was saved or dropped.
  public func sessionEnded() { viewState.session = nil }

  /// The other version against this window's draft, as a line diff.
  public func conflictDiff() -> [String] {
    let theirs = ([document.title, ""] + document.lines).joined(separator: "\n")
    let mine = ([title, ""] + lines).joined(separator: "\n")
    return LineDiff.lines(expected: theirs, actual: mine, context: 3)
  }

  // MARK: Unsaved work

  /// A draft, changed or not, from the first edit until it is saved or dropped.
  public var hasDraft: Bool { viewState.session != nil }

  public var unsavedSummary: String? {
    guard isDirty, let session = viewState.session else { return nil }
    return "unsaved changes to '\(session.title)' (based on revision \(session.baseRevision))"
  }

  public func saveUnsavedWork(_ context: CommandContext) throws(CommandError) {
    try save(context, overriding: false)
  }

  /// The save use case: saved (committed, and the draft ends), rejected by validation, or
  /// conflicted (the draft is kept, and the error says how to resolve it). `overriding` saves
  /// over a newer revision (`resolve keep`).
  public func save(_ context: CommandContext, overriding: Bool) throws(CommandError) {
    let (document, result) = prepareSave(overriding: overriding)
    switch result {
    case .saved:
      guard let document else { return }
      try context.commit(document, summary: "save '\(document.title)'")
      sessionEnded()
    case .rejected(let reason):
      throw CommandError("not saved: \(reason)")
    case .conflicted(let base, let current):
      throw CommandError(
        "not saved: the document moved to revision \(current) since this draft started from revision \(base); "
          + "your draft is kept: `resolve diff` to compare, `resolve keep` to save yours over it, "
          + "`resolve take` to drop yours")
    }
  }

  public func discardUnsavedWork() { sessionEnded() }

  // MARK: Frame

  public var typedFrame: EditorFrame {
    var frame = EditorFrame()
    frame.title = title
    frame.lines = lines.enumerated().map { EditorFrame.Line(n: $0.offset + 1, text: $0.element) }
    frame.dirty = isDirty
    frame.baseRevision = viewState.session?.baseRevision
    frame.documentRevision = revision
    frame.conflict = conflict.map { conflict in
      var shown = EditorFrame.Conflict()
      shown.base = conflict.base
      shown.current = conflict.current
      return shown
    }
    return frame
  }

}
