import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Documents: their rows, revisions and compare-and-swap saves.
extension WorkspaceStore {
  // MARK: Documents

  /// Every stored document that can be read whole. A removed document is kept as a row with an
  /// empty kind and body, so its sample does not come back and other processes see it go.
  ///
  /// A document that cannot be read whole (its kind is no loaded module's and it has stored
  /// edits, or its edits do not apply) is left out and named in `unreadable`: it stays in the
  /// workspace as it was and stops nothing else.
  public func documents(unreadable: inout [StoreError]) throws(StoreError) -> [SessionRecord.Document] {
    var result: [SessionRecord.Document] = []
    for read in try wholeDocuments(where: "kind != ''", [], ordered: true) {
      switch read {
      case .success(let document): result.append(document)
      case .failure(let error): unreadable.append(error)
      }
    }
    return result
  }

  /// Every stored document that can be read whole (see `documents(unreadable:)`).
  public func documents() throws(StoreError) -> [SessionRecord.Document] {
    var unreadable: [StoreError] = []
    return try documents(unreadable: &unreadable)
  }

  /// One document as it is stored now, whole: its snapshot with the edits stored since applied;
  /// `nil` when there is no such row (a removed document's row has an empty kind and body).
  ///
  /// - Throws: `StoreError` when its stored edits cannot be applied (see `materialize`).
  public func document(named name: String) throws(StoreError) -> SessionRecord.Document? {
    guard let read = try wholeDocuments(where: "name = ?", [.text(name)], ordered: false).first else { return nil }
    return try read.get()
  }

  /// The one reader of whole documents: every row of `document_rows` that `condition` selects,
  /// with its stored edits applied. Every path that gives a document's content to a session, an
  /// export or a conflict comes through here, so none can hand out a snapshot as if it were the
  /// current revision (a session that took one would save over the edits it never saw).
  func wholeDocuments(
    where condition: String, _ parameters: [SQLiteConnection.Value], ordered: Bool
  ) throws(StoreError) -> [Result<SessionRecord.Document, StoreError>] {
    let rows = try connection.query(
      "SELECT name, kind, revision, body FROM document_rows WHERE \(condition)\(ordered ? " ORDER BY name" : "")",
      parameters)
    var result: [Result<SessionRecord.Document, StoreError>] = []
    for row in rows {
      guard let document = Self.document(row) else { continue }
      do throws(StoreError) {
        result.append(.success(try materialized(document)))
      } catch {
        result.append(.failure(error))
      }
    }
    return result
  }

  /// Lets the modules of `registry` turn snapshots and their edits into whole documents.
  public func materializeEdits(with registry: ModuleRegistry) {
    materialize = { kind, snapshot, edits in
      try registry.materializeDocument(kind: kind, snapshot: snapshot, edits: edits)
    }
  }

  /// The edits stored since the document's snapshot, in order.
  func edits(of name: String) throws(StoreError) -> [String] {
    try connection.query("SELECT edit FROM document_edits WHERE name = ? ORDER BY revision", [.text(name)]).compactMap {
      if case .text(let edit)? = $0.first { return edit }
      return nil
    }
  }

  /// A document row as a whole document: its snapshot, with the edits since applied.
  func materialized(_ row: SessionRecord.Document) throws(StoreError) -> SessionRecord.Document {
    var document = row
    guard !document.kind.isEmpty else { return document }
    let edits = try edits(of: document.name)
    guard !edits.isEmpty else { return document }
    guard let materialize else {
      throw StoreError(
        .invalid,
        "document '\(document.name)' has stored edits, and no module here can apply them: it is kept in the "
          + "workspace as it was")
    }
    do {
      document.body = try materialize(document.kind, document.body, edits)
    } catch {
      throw StoreError(
        .corrupt,
        "document '\(document.name)' (\(document.kind)): its stored edits cannot be applied (\(error)); it is kept in "
          + "the workspace as it was")
    }
    return document
  }

  /// Every stored document's name, kind and revision, with an empty body: the bodies (in a
  /// table of their own) are not read.
  public func documentSummaries() throws(StoreError) -> [SessionRecord.Document] {
    try connection.query("SELECT name, kind, revision FROM documents WHERE kind != '' ORDER BY name").compactMap {
      row in
      guard row.count == 3, case .text(let name) = row[0], case .text(let kind) = row[1],
        case .integer(let revision) = row[2]
      else { return nil }
      return SessionRecord.Document(name: name, kind: kind, revision: revision, body: "")
    }
  }

  /// One document's stored revision, snapshot and the edits since, read when a session first
  /// needs it (the session applies the edits itself).
  public func documentBody(named name: String) throws(StoreError) -> StoredDocument {
    try connection.transaction { () throws(StoreError) -> StoredDocument in
      let rows = try connection.query(
        "SELECT revision, body FROM document_rows WHERE name = ? AND kind != ''", [.text(name)])
      guard let row = rows.first, row.count == 2, case .integer(let revision) = row[0], case .text(let body) = row[1]
      else { throw StoreError(.invalid, "document '\(name)' is not in the workspace any more") }
      return StoredDocument(revision: revision, json: body, edits: try edits(of: name))
    }
  }

  /// The names of removed documents (see `removeDocument`).
  public func removedDocumentNames() throws(StoreError) -> Set<String> {
    var names: Set<String> = []
    for row in try connection.query("SELECT name FROM documents WHERE kind = ''") {
      if case .text(let name)? = row.first { names.insert(name) }
    }
    return names
  }

  static func document(_ row: [SQLiteConnection.Value]) -> SessionRecord.Document? {
    guard row.count == 4, case .text(let name) = row[0], case .text(let kind) = row[1],
      case .integer(let revision) = row[2], case .text(let body) = row[3]
    else { return nil }
    return SessionRecord.Document(name: name, kind: kind, revision: revision, body: body)
  }

  /// Stores a document as the next revision if the stored one is still `baseRevision`
  /// (0: the document must not exist yet).
  public func saveDocument(name: String, kind: String, body: String, baseRevision: Int) throws(StoreError)
    -> SaveOutcome
  {
    try Self.refuseSecrets(body, what: "document '\(name)'")
    return try connection.transaction { () throws(StoreError) -> SaveOutcome in
      if baseRevision == 0 {
        if let current = try document(named: name) {
          guard current.kind.isEmpty else { return .conflicted(current: current) }
          let next = try Self.successor(ofRevision: current.revision, of: name)
          // The name of a removed document is free again; its revisions go on counting.
          try connection.query(
            "UPDATE documents SET kind = ?, revision = revision + 1 WHERE name = ?", [.text(kind), .text(name)])
          try setBody(body, of: name)
          try connection.query("DELETE FROM document_edits WHERE name = ?", [.text(name)])
          return .saved(revision: next)
        }
        try connection.query(
          "INSERT INTO documents (name, kind, revision) VALUES (?, ?, 1)", [.text(name), .text(kind)])
        try setBody(body, of: name)
        return .saved(revision: 1)
      }
      let next = try Self.successor(ofRevision: baseRevision, of: name)
      try connection.query(
        "UPDATE documents SET revision = revision + 1 WHERE name = ? AND revision = ?",
        [.text(name), .integer(baseRevision)])
      if connection.changes == 1 {
        // A new snapshot: the edits it includes go.
        try setBody(body, of: name)
        try connection.query("DELETE FROM document_edits WHERE name = ?", [.text(name)])
        return .saved(revision: next)
      }
      return .conflicted(current: try current(name))
    }
  }

  /// The revision after `revision`: a row can hold `Int.max` (SQLite would turn the sum into a
  /// floating-point number, and Swift would trap), and such a document takes no more saves.
  static func successor(ofRevision revision: Int, of name: String) throws(StoreError) -> Int {
    guard let next = OutsideNumbers.successor(of: revision) else {
      throw StoreError(.invalid, OutsideNumbers.lastRevision(of: name))
    }
    return next
  }

  /// Stores a document's body (snapshot), replacing the one it had.
  func setBody(_ body: String, of name: String) throws(StoreError) {
    try connection.query(
      "INSERT INTO document_bodies (name, body) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET body = excluded.body",
      [.text(name), .text(body)])
  }

  /// The document as stored now, whole, for a conflict.
  func current(_ name: String) throws(StoreError) -> SessionRecord.Document {
    guard let document = try document(named: name) else {
      throw StoreError(.invalid, "document '\(name)' is not in the workspace any more")
    }
    return document
  }

  /// Stores one edit as the document's next revision if the stored one is still
  /// `baseRevision`: a row in the edit log, so the cost follows the edit, not the document.
  /// The edit is the module's own JSON describing the change from the revision before.
  public func appendEdit(name: String, edit: String, baseRevision: Int) throws(StoreError) -> SaveOutcome {
    try Self.refuseSecrets(edit, what: "an edit of document '\(name)'")
    let next = try Self.successor(ofRevision: baseRevision, of: name)
    return try connection.transaction { () throws(StoreError) -> SaveOutcome in
      try connection.query(
        "UPDATE documents SET revision = revision + 1 WHERE name = ? AND revision = ? AND kind != ''",
        [.text(name), .integer(baseRevision)])
      guard connection.changes == 1 else { return .conflicted(current: try current(name)) }
      try connection.query(
        "INSERT INTO document_edits (name, revision, edit) VALUES (?, ?, ?)",
        [.text(name), .integer(next), .text(edit)])
      return .saved(revision: next)
    }
  }

  /// Removes a document if the stored one is still `baseRevision`: its row stays, with an
  /// empty kind and body and the next revision.
  public func removeDocument(name: String, baseRevision: Int) throws(StoreError) -> SaveOutcome {
    let next = try Self.successor(ofRevision: baseRevision, of: name)
    return try connection.transaction { () throws(StoreError) -> SaveOutcome in
      try connection.query(
        "UPDATE documents SET kind = '', revision = revision + 1 WHERE name = ? AND revision = ? AND kind != ''",
        [.text(name), .integer(baseRevision)])
      if connection.changes == 1 {
        try connection.query("DELETE FROM document_bodies WHERE name = ?", [.text(name)])
        try connection.query("DELETE FROM document_edits WHERE name = ?", [.text(name)])
        return .saved(revision: next)
      }
      // The document as it is now, with the edits this session has not seen: taking the bare
      // snapshot at the current revision would make the session's next save erase them.
      guard let document = try document(named: name), !document.kind.isEmpty else {
        return .saved(revision: baseRevision)  // already gone
      }
      return .conflicted(current: document)
    }
  }

  /// Stores documents that are not stored yet (a new workspace's samples); others are left alone.
  public func addMissing(_ documents: [SessionRecord.Document]) throws(StoreError) {
    for document in documents { try Self.refuseSecrets(document.body, what: "document '\(document.name)'") }
    try connection.transaction { () throws(StoreError) in
      for document in documents {
        try connection.query(
          "INSERT OR IGNORE INTO documents (name, kind, revision) VALUES (?, ?, ?)",
          [.text(document.name), .text(document.kind), .integer(document.revision)])
        if connection.changes == 1 { try setBody(document.body, of: document.name) }
      }
    }
  }

  /// Documents whose stored revision differs from `known`, or that `known` lacks. Cheap when
  /// nothing changed: SQLite's data version says whether another connection wrote at all.
  public func changedDocuments(since known: [String: Int]) throws(StoreError) -> [SessionRecord.Document] {
    let version = try connection.query("PRAGMA data_version")
    guard case .integer(let dataVersion)? = version.first?.first else { return [] }
    defer { lastDataVersion = dataVersion }
    if let lastDataVersion, lastDataVersion == dataVersion { return [] }
    let revisions = try connection.query("SELECT name, revision, kind = '' FROM documents")
    var changed: [String] = []
    for row in revisions {
      guard case .text(let name) = row[0], case .integer(let revision) = row[1], case .integer(let removed) = row[2]
      else { continue }
      // A removal matters only to a session that has the document.
      if known[name] != revision, removed == 0 || known[name] != nil { changed.append(name) }
    }
    var result: [SessionRecord.Document] = []
    for name in changed {
      // One that cannot be read whole (a kind no module here knows, with stored edits) is left
      // out: the session keeps what it had, and a save over it is refused as a conflict that
      // names it. It must not stop the session's other documents.
      guard case .success(let document)? = try wholeDocuments(where: "name = ?", [.text(name)], ordered: false).first
      else { continue }
      result.append(document)
    }
    return result
  }
}
