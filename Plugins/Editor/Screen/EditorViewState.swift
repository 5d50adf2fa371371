import WorkbenchModuleAPI

/// An editing session: the revision the draft started from, and the draft itself.
public struct EditingSession: Codable, Equatable, Sendable {
  public var baseRevision: Int
  public var title: String
  public var lines: [String]
}

/// One editor window's interaction facts: its editing session, if it has unsaved changes.
/// Drafts are view state, so they survive a relaunch and quitting (with `quit keep`), and no
/// other window sees them before a save.
public struct EditorViewState: ViewStateValue {
  public var session: EditingSession?
  public init() {}
}
