import WorkbenchCore
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The workspace: one SQLite database holding documents, the session's windows and their
/// versioned view state. The shell keeps it in a file; scenarios use the same code in memory.
///
/// - Every write is a transaction; document saves are compare-and-swap on the revision.
/// - The file is in WAL mode (readers never block the writer) and readable by its owner only.
/// - Nothing that holds an encoded `Secret` is ever written.
@MainActor
public final class WorkspaceStore {
  let connection: SQLiteConnection
  /// The database's path (`:memory:` for an in-memory workspace).
  public let path: String
  /// Whether the workspace was created by this open (it had no schema before).
  public private(set) var isNew = false
  private var lastDataVersion: Int?

  /// The schema this code writes.
  static let schemaVersion = 3

  /// Where the shell keeps its workspace: `$XDG_DATA_HOME/workbench/workspace.sqlite`, or
  /// `~/.local/share/workbench/workspace.sqlite`.
  public nonisolated static func defaultPath() -> String? {
    UserFolders.dataPath().map { $0 + "/workspace.sqlite" }
  }

  /// Opens (or creates) the workspace at `path`. `:memory:` gives a private in-memory one.
  ///
  /// Nothing is written before the file is recognised: an empty or new file becomes a
  /// workspace; a workspace (by its `PRAGMA application_id`, or the schema of the first
  /// versions) is opened; any other SQLite database is refused untouched. A workspace file
  /// that others could read is made owner-only (`tightenedMode` says to what). When opening
  /// a file this call created fails (a full disk, say), the file and its companions are removed.
  ///
  /// - Throws: `StoreError` when the file is not a workspace, cannot be created, or is locked.
  public init(path: String) throws(StoreError) {
    self.path = path
    let file = Self.filePath(of: path)
    var created = false
    if let file { created = try WorkspaceStore.prepareFile(file) }
    do throws(StoreError) {
      let opened = try SQLiteConnection(path: path)
      try opened.execute("PRAGMA busy_timeout = 3000")
      try Self.identify(opened, path: path)
      // Only a file recognised as a workspace (or made one now) has its permissions touched.
      if let file, !created, !path.hasPrefix("file:") { tightenedMode = Self.tighten(file) }
      if path != ":memory:" {
        let mode = try opened.query("PRAGMA journal_mode = WAL")
        if case .text(let name)? = mode.first?.first, name != "wal" {
          throw StoreError(.other, "the workspace \(path) cannot use write-ahead logging (journal mode \(name))")
        }
        try opened.execute("PRAGMA synchronous = NORMAL")
      }
      isNew = try Self.migrateSchema(opened, path: path)
      connection = opened
    } catch {
      // Nothing is left behind of a workspace that never opened (the connection is closed by now).
      if created, let file { Self.removeFiles(of: file) }
      throw error
    }
  }

  /// A fresh in-memory workspace, for scenarios and tests.
  public static func inMemory() throws(StoreError) -> WorkspaceStore {
    try WorkspaceStore(path: ":memory:")
  }

  /// `PRAGMA application_id` of a workspace: "WKBN" in ASCII.
  static let applicationID = 0x574B_424E

  /// The permissions opening set on the file, when it made it owner-only because others could
  /// read it (0600, or 0400 for a file its owner made read-only); `nil` when it changed nothing.
  public private(set) var tightenedMode: mode_t?

  /// The file behind a path or `file:` URI, or `nil` for an in-memory database.
  static func filePath(of path: String) -> String? {
    if path == ":memory:" || path.isEmpty { return nil }
    guard path.hasPrefix("file:") else { return path }
    let rest = path.dropFirst("file:".count)
    let file = String(rest.prefix { $0 != "?" })
    return file.isEmpty || file == ":memory:" || path.contains("mode=memory") ? nil : file
  }

  /// Creates the folders and an empty file readable by its owner only, so the database never
  /// exists with wider permissions (SQLite gives its -wal and -shm files the same mode). An
  /// existing file is left as it is here: nothing is changed before it is recognised.
  ///
  /// - Returns: whether the file was created.
  /// - Throws: `StoreError` when the path is a symbolic link to nothing (creating through it
  ///   would give the target SQLite's default mode, and a link can point anywhere), or a folder
  ///   or the file cannot be made.
  static func prepareFile(_ path: String) throws(StoreError) -> Bool {
    var info = stat()
    if stat(path, &info) == 0 { return false }
    var link = stat()
    if lstat(path, &link) == 0, (link.st_mode & S_IFMT) == S_IFLNK {
      var buffer = [CChar](repeating: 0, count: 4096)
      let length = readlink(path, &buffer, buffer.count - 1)
      let target = length > 0 ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
      throw StoreError(
        .other,
        "the workspace \(path) is a symbolic link to \(target), which does not exist; nothing was created: create "
          + "the file it points to first (an empty file becomes a workspace, readable by you only), or name another "
          + "file with --workspace")
    }
    if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
      var current = ""
      for component in path[..<slash].split(separator: "/") {
        current += (path.hasPrefix("/") || !current.isEmpty ? "/" : "") + component
        if mkdir(current, 0o700) != 0 && errno != EEXIST {
          throw StoreError(
            .other, "cannot create the folder \(current) for the workspace: \(String(cString: strerror(errno)))")
        }
      }
    }
    let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
    if descriptor < 0 {
      if errno == EACCES || errno == EROFS || errno == EEXIST {
        // It may still be readable, or another process made it just now; SQLite will say.
        return false
      }
      throw StoreError(.other, "cannot create the workspace \(path): \(String(cString: strerror(errno)))")
    }
    close(descriptor)
    return true
  }

  /// Makes a workspace file and its companions unreadable to group and others, removing only
  /// those bits: a file its owner made read-only stays read-only (a write bit is never added).
  ///
  /// - Returns: the permissions set on the first file changed (the workspace's own before its
  ///   companions'), or `nil` when none changed.
  static func tighten(_ path: String) -> mode_t? {
    var tightened: mode_t?
    for file in [path, path + "-wal", path + "-shm"] {
      var info = stat()
      guard stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_mode & 0o077 != 0 else { continue }
      let mode = info.st_mode & 0o700
      if chmod(file, mode) == 0, tightened == nil { tightened = mode }
    }
    return tightened
  }

  /// Removes a database file and the companions SQLite makes beside it.
  static func removeFiles(of path: String) {
    for file in [path, path + "-wal", path + "-shm", path + "-journal"] { unlink(file) }
  }

  /// Refuses a database that is not a workspace, before anything is written to it.
  static func identify(_ connection: SQLiteConnection, path: String) throws(StoreError) {
    let rows = try connection.query("PRAGMA application_id")
    guard case .integer(let id)? = rows.first?.first else { return }
    if id == applicationID { return }
    let tables = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap {
      row -> String? in
      if case .text(let name)? = row.first { return name }
      return nil
    }
    if id == 0 && tables.isEmpty { return }  // a new or empty database becomes a workspace
    if id == 0 && tables.contains("meta") {
      // A workspace from before the application id: it has the schema version row.
      let schema = try connection.query("SELECT value FROM meta WHERE key = 'schema'")
      if !schema.isEmpty { return }
    }
    let what =
      id != 0
      ? "its application id is \(String(UInt32(truncatingIfNeeded: id), radix: 16))"
      : "it holds the tables " + tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", …" : "")
    throw StoreError(
      .foreign,
      "\(path) is an SQLite database of another program (\(what)), not a workbench workspace; nothing in it was "
        + "changed: pick another file with --workspace")
  }

  /// A document with its body, as one row, for reading.
  private static let documentRowsView = """
    CREATE VIEW document_rows AS
      SELECT d.name AS name, d.kind AS kind, d.revision AS revision, COALESCE(b.body, '') AS body
      FROM documents d LEFT JOIN document_bodies b ON b.name = d.name;
    """

  /// Creates the schema in a new workspace, or checks the version of an existing one.
  ///
  /// - Returns: whether the schema was created now.
  private static func migrateSchema(_ connection: SQLiteConnection, path: String) throws(StoreError) -> Bool {
    try connection.transaction { () throws(StoreError) -> Bool in
      let tables = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
      if tables.isEmpty {
        try connection.execute(
          """
          PRAGMA application_id = \(applicationID);
          CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
          CREATE TABLE documents (name TEXT PRIMARY KEY, kind TEXT NOT NULL, revision INTEGER NOT NULL);
          CREATE TABLE document_bodies (name TEXT PRIMARY KEY, body TEXT NOT NULL);
          \(documentRowsView)
          CREATE TABLE windows (
            number INTEGER PRIMARY KEY, position INTEGER NOT NULL, name TEXT, screen TEXT NOT NULL,
            document TEXT NOT NULL, state_version INTEGER NOT NULL, state TEXT NOT NULL);
          CREATE TABLE session (key TEXT PRIMARY KEY, value INTEGER);
          CREATE TABLE document_edits (
            name TEXT NOT NULL, revision INTEGER NOT NULL, edit TEXT NOT NULL, PRIMARY KEY (name, revision));
          """)
        try connection.query(
          "INSERT INTO meta (key, value) VALUES ('schema', ?)", [.text(String(WorkspaceStore.schemaVersion))])
        return true
      }
      let rows = try connection.query("SELECT value FROM meta WHERE key = 'schema'")
      guard case .text(let text)? = rows.first?.first, let version = Int(text) else {
        throw StoreError(.corrupt, "the workspace \(path) has no schema version: it was not written by workbench")
      }
      if version > WorkspaceStore.schemaVersion {
        throw StoreError(
          .invalid,
          "the workspace \(path) was written by a newer workbench (schema \(version)); this one reads up to "
            + "\(WorkspaceStore.schemaVersion): upgrade workbench, or pick another file with --workspace")
      }
      // A workspace from before the application id gets it (a read-only one stays as it is).
      try? connection.execute("PRAGMA application_id = \(applicationID)")
      if version < 2 {
        // Schema 2 adds the log of edits stored since each document's snapshot.
        try connection.execute(
          """
          CREATE TABLE IF NOT EXISTS document_edits (
            name TEXT NOT NULL, revision INTEGER NOT NULL, edit TEXT NOT NULL, PRIMARY KEY (name, revision));
          UPDATE meta SET value = '2' WHERE key = 'schema';
          """)
      }
      if version < 3 {
        // Schema 3 keeps the bodies in a table of their own: the row a save's compare-and-swap
        // changes (the revision) stays small, where SQLite rewrote the whole body with it. The
        // table is copied rather than altered: `DROP COLUMN` needs SQLite 3.35.
        try connection.execute(
          """
          CREATE TABLE document_bodies (name TEXT PRIMARY KEY, body TEXT NOT NULL);
          INSERT INTO document_bodies (name, body) SELECT name, body FROM documents;
          CREATE TABLE documents_without_bodies (
            name TEXT PRIMARY KEY, kind TEXT NOT NULL, revision INTEGER NOT NULL);
          INSERT INTO documents_without_bodies (name, kind, revision) SELECT name, kind, revision FROM documents;
          DROP TABLE documents;
          ALTER TABLE documents_without_bodies RENAME TO documents;
          \(documentRowsView)
          UPDATE meta SET value = '3' WHERE key = 'schema';
          """)
      }
      return false
    }
  }

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
  private func wholeDocuments(
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

  /// Turns the edits stored since a snapshot into a whole document's JSON, for whoever needs
  /// the whole text (another process, an export): the session sets it from its modules, which
  /// know what their edits mean.
  public var materialize: ((_ kind: String, _ snapshot: String, _ edits: [String]) throws -> String)?

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
  private func materialized(_ row: SessionRecord.Document) throws(StoreError) -> SessionRecord.Document {
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

  private static func document(_ row: [SQLiteConnection.Value]) -> SessionRecord.Document? {
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
  private static func successor(ofRevision revision: Int, of name: String) throws(StoreError) -> Int {
    guard let next = OutsideNumbers.successor(of: revision) else {
      throw StoreError(.invalid, OutsideNumbers.lastRevision(of: name))
    }
    return next
  }

  /// Stores a document's body (snapshot), replacing the one it had.
  private func setBody(_ body: String, of name: String) throws(StoreError) {
    try connection.query(
      "INSERT INTO document_bodies (name, body) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET body = excluded.body",
      [.text(name), .text(body)])
  }

  /// The document as stored now, whole, for a conflict.
  private func current(_ name: String) throws(StoreError) -> SessionRecord.Document {
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

  // MARK: Session

  /// Saves the session's windows, their order, names, view states and focus, replacing the
  /// stored ones in one transaction. Documents are saved as they change, not here.
  ///
  /// A window whose view state holds a secret keeps the state it was last saved with (or is left
  /// out, when it has none), and the others are saved as they are: one window's state cannot
  /// cost the rest theirs, nor its own earlier one.
  ///
  /// - Throws: `StoreError` (`.secret`) after saving the others, naming the windows whose state
  ///   was not written; another `StoreError` when nothing could be saved.
  public func saveSession(_ record: SessionRecord) throws(StoreError) {
    let refused = record.windows.filter { Secrets.containsSecret($0.viewState.state) }
    var windows = record.windows
    if !refused.isEmpty {
      let stored = try loadSession(includingWindows: true, includingBodies: false).windows
      windows = record.windows.compactMap { window in
        guard Secrets.containsSecret(window.viewState.state) else { return window }
        return stored.first {
          $0.number == window.number && $0.screen == window.screen && $0.document == window.document
        }
      }
    }
    try connection.transaction { () throws(StoreError) in
      try connection.execute("DELETE FROM windows")
      for (position, window) in windows.enumerated() {
        try connection.query(
          "INSERT INTO windows (number, position, name, screen, document, state_version, state) VALUES (?, ?, ?, ?, ?, ?, ?)",
          [
            .integer(window.number), .integer(position), window.name.map { .text($0) } ?? .null, .text(window.screen),
            .text(window.document), .integer(window.viewState.version), .text(window.viewState.state),
          ])
      }
      try connection.query(
        "INSERT OR REPLACE INTO session (key, value) VALUES ('focused', ?)",
        [record.focusedWindow.map { .integer($0) } ?? .null])
      try connection.query(
        "INSERT OR REPLACE INTO session (key, value) VALUES ('nextWindowNumber', ?)",
        [.integer(record.nextWindowNumber)])
    }
    guard !refused.isEmpty else { return }
    let names = refused.map { "window \($0.name ?? String($0.number))" }.joined(separator: ", ")
    throw StoreError(
      .secret,
      "\(names) holds a secret in its view state, and secrets are never stored: its state as last saved was "
        + "kept (the other windows were saved as they are); keep credentials and tokens out of view state")
  }

  /// The stored session: every document, and the windows (none when `includingWindows` is
  /// false, as batch runs start without windows).
  public func loadSession(includingWindows: Bool = true, includingBodies: Bool = true) throws(StoreError)
    -> SessionRecord
  {
    let documents = includingBodies ? try documents() : try documentSummaries()
    var windows: [SessionRecord.Window] = []
    var focused: Int?
    var next = 1
    if includingWindows {
      let rows = try connection.query(
        "SELECT number, name, screen, document, state_version, state FROM windows ORDER BY position")
      for row in rows {
        guard row.count == 6, case .integer(let number) = row[0], case .text(let screen) = row[2],
          case .text(let document) = row[3], case .integer(let version) = row[4], case .text(let state) = row[5]
        else { continue }
        var name: String? = nil
        if case .text(let text) = row[1] { name = text }
        windows.append(
          SessionRecord.Window(
            number: number, name: name, screen: screen, document: document,
            viewState: ViewStateRecord(version: version, state: state)))
      }
      for row in try connection.query("SELECT key, value FROM session") {
        guard case .text(let key) = row[0], case .integer(let value) = row[1] else { continue }
        if key == "focused" { focused = value }
        if key == "nextWindowNumber" { next = value }
      }
    }
    return SessionRecord(documents: documents, windows: windows, focusedWindow: focused, nextWindowNumber: next)
  }

  // MARK: Settings

  /// The modules every start loads, as executable paths.
  public func modulePaths() throws(StoreError) -> [String] {
    try connection.query("SELECT value FROM meta WHERE key LIKE 'module:%' ORDER BY key").compactMap { row in
      if case .text(let path)? = row.first { return path }
      return nil
    }
  }

  /// The modules the workspace at `path` (the default workspace when `nil`) loads at every
  /// start (`workbench modules add`). Nothing is created: no default workspace yet loads
  /// nothing; a named path with no file there is an error, as is a file that is not a workspace.
  ///
  /// - Throws: `StoreError` naming the path and what is wrong.
  public static func modulePaths(ofWorkspaceAt path: String?) throws(StoreError) -> [String] {
    guard let path = path ?? defaultPath() else { return [] }
    guard FileSystem.exists(path) else {
      if path == defaultPath() { return [] }
      throw StoreError(.other, "there is no workspace at \(path)")
    }
    return try WorkspaceStore(path: path).modulePaths()
  }

  /// The modules the default workspace has seen, when there is one (nothing is created): for
  /// a runner's message about a screen no loaded module has.
  public static func knownModulesOfDefaultWorkspace() -> [KnownModule] {
    guard let path = defaultPath(), FileSystem.exists(path), let store = try? WorkspaceStore(path: path) else {
      return []
    }
    return (try? store.knownModules()) ?? []
  }

  /// The modules this workspace has seen loaded (`rememberModule`), by name.
  public func knownModules() throws(StoreError) -> [KnownModule] {
    try connection.query("SELECT value FROM meta WHERE key LIKE 'seen:%' ORDER BY key").compactMap { row in
      guard case .text(let json)? = row.first,
        let value = try? FrameValue.parse(json: Array(json.utf8)), let name = value["name"]?.stringValue,
        let path = value["path"]?.stringValue
      else { return nil }
      return KnownModule(
        name: name, path: path, documentKinds: value["documentKinds"]?.elements?.compactMap(\.stringValue) ?? [],
        screens: value["screens"]?.elements?.compactMap(\.stringValue) ?? [])
    }
  }

  /// Remembers a module that was loaded, so a document or window of it says whose it is when
  /// the module is not loaded later. Writes only when something changed.
  public func rememberModule(_ module: KnownModule) throws(StoreError) {
    let value: FrameValue = [
      "name": .string(module.name), "path": .string(module.path),
      "documentKinds": .list(module.documentKinds.map(FrameValue.string)),
      "screens": .list(module.screens.map(FrameValue.string)),
    ]
    let key = "seen:" + module.name
    let existing = try connection.query("SELECT value FROM meta WHERE key = ?", [.text(key)]).first?.first
    if case .text(value.jsonText)? = existing { return }
    try connection.transaction { () throws(StoreError) -> Void in
      try connection.query(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [.text(key), .text(value.jsonText)])
    }
  }

  /// Whether `note` was already given for this workspace; records it as given. (A note about
  /// documents of a module not loaded is said once, not at every start.)
  public func noteOnce(_ note: String) throws(StoreError) -> Bool {
    let existing = try connection.query("SELECT value FROM meta WHERE key = 'noted'").first?.first
    if case .text(note)? = existing { return false }
    try connection.transaction { () throws(StoreError) -> Void in
      try connection.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('noted', ?)", [.text(note)])
    }
    return true
  }

  /// Adds or removes a module in the list every start loads.
  public func setModule(_ path: String, loaded: Bool) throws(StoreError) {
    try connection.transaction { () throws(StoreError) -> Void in
      if loaded {
        try connection.query(
          "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [.text("module:" + path), .text(path)])
      } else {
        try connection.query("DELETE FROM meta WHERE key = ?", [.text("module:" + path)])
      }
    }
  }

  // MARK: Checks

  /// `PRAGMA integrity_check`: "ok" for a sound database.
  public func integrityCheck() throws(StoreError) -> String {
    let rows = try connection.query("PRAGMA integrity_check")
    return rows.compactMap { row -> String? in
      if case .text(let text)? = row.first { return text }
      return nil
    }.joined(separator: "\n")
  }

  /// Refuses text that holds an encoded `Secret`.
  static func refuseSecrets(_ text: String, what: String) throws(StoreError) {
    if Secrets.containsSecret(text) {
      throw StoreError(
        .secret,
        "\(what) holds a secret, and secrets are never stored: keep credentials and tokens out of documents "
          + "and view state (nothing was saved)")
    }
  }
}

extension WorkspaceStore: DocumentPersistence {
  public func save(document name: String, kind: String, body: String, baseRevision: Int) throws(CommandError)
    -> SaveOutcome
  {
    do {
      return try saveDocument(name: name, kind: kind, body: body, baseRevision: baseRevision)
    } catch {
      throw CommandError(error.message)
    }
  }

  public func remove(document name: String, baseRevision: Int) throws(CommandError) -> SaveOutcome {
    do {
      return try removeDocument(name: name, baseRevision: baseRevision)
    } catch {
      throw CommandError(error.message)
    }
  }

  public func appendEdit(document name: String, edit: String, baseRevision: Int) throws(CommandError) -> SaveOutcome? {
    do {
      return try appendEdit(name: name, edit: edit, baseRevision: baseRevision)
    } catch {
      throw CommandError(error.message)
    }
  }

  public func changes(since known: [String: Int]) throws(CommandError) -> [SessionRecord.Document] {
    do {
      return try changedDocuments(since: known)
    } catch {
      throw CommandError(error.message)
    }
  }
}
