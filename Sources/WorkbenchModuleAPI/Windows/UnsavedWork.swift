/// A screen that can hold work not yet saved to its document (a draft). The host asks before a
/// window with unsaved work is closed, or the session ends, and carries out the choice:
/// save, discard, or (when the session ends) keep the draft in the session for next time.
@MainActor
public protocol UnsavedWork: AnyObject {
  /// What is unsaved, for the question ("a draft of 'Notes' based on revision 2"); `nil` when
  /// there is nothing.
  var unsavedSummary: String? { get }
  /// Saves the work to the document (through `context.commit`), or throws why it cannot
  /// (invalid, conflicted); nothing changes then.
  func saveUnsavedWork(_ context: CommandContext) throws(CommandError)
  /// Whether the window holds a draft at all (`save` and `discard` need one), even one that
  /// does not differ from the document; by default, whether there is unsaved work.
  var hasDraft: Bool { get }
  /// Saves the work even over a document that changed since it started, where the screen
  /// allows that (`save force`); by default the same as `saveUnsavedWork`.
  func forceSaveUnsavedWork(_ context: CommandContext) throws(CommandError)
  /// Drops the work.
  func discardUnsavedWork()
}

extension UnsavedWork {
  public var hasDraft: Bool { unsavedSummary != nil }

  public func forceSaveUnsavedWork(_ context: CommandContext) throws(CommandError) {
    try saveUnsavedWork(context)
  }
}

/// What to do with unsaved work when leaving.
package enum LeaveChoice: String, CaseIterable, Sendable {
  /// Save it first; if that fails, stay.
  case save
  /// Drop it.
  case discard
  /// Keep it as a draft in the saved session (only when the session ends).
  case keep
  /// Do not leave.
  case cancel
}
