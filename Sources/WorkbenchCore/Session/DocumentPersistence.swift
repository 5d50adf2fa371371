import WorkbenchModuleAPI

/// Where committed documents are stored. The host saves through it before it changes anything
/// in memory, so a save that fails or conflicts changes nothing.
@MainActor
public protocol DocumentPersistence: AnyObject {
  /// Stores `body` as the next revision of the document if its stored revision is still
  /// `baseRevision` (0 for a new document): compare and swap, so two windows or two processes
  /// never overwrite each other silently.
  func save(document name: String, kind: String, body: String, baseRevision: Int) throws(CommandError) -> SaveOutcome

  /// Stores one edit (the module's own description of a change, see `DocumentBody.edit(from:)`)
  /// as the next revision, if the stored one is still `baseRevision`; `nil` when this
  /// persistence stores whole documents only.
  func appendEdit(document name: String, edit: String, baseRevision: Int) throws(CommandError) -> SaveOutcome?

  /// Removes the document if its stored revision is still `baseRevision`, leaving a marker so
  /// a sample of that name does not come back and other processes hear of the removal.
  func remove(document name: String, baseRevision: Int) throws(CommandError) -> SaveOutcome

  /// Documents someone else (another process) changed since the given revisions. A removed
  /// document comes back with an empty body.
  func changes(since known: [String: Int]) throws(CommandError) -> [SessionRecord.Document]
}

/// What a conditional save did.
public enum SaveOutcome: Equatable, Sendable {
  /// Stored as this revision.
  case saved(revision: Int)
  /// Not stored: the document moved on; this is what is stored now.
  case conflicted(current: SessionRecord.Document)
}

extension DocumentPersistence {
  public func appendEdit(document name: String, edit: String, baseRevision: Int) throws(CommandError) -> SaveOutcome? {
    nil
  }
}

/// A document as the workspace stores it: a snapshot and the edits stored since, in order.
public struct StoredDocument: Sendable {
  public var revision: Int
  public var json: String
  public var edits: [String]

  public init(revision: Int, json: String, edits: [String] = []) {
    self.revision = revision
    self.json = json
    self.edits = edits
  }
}
