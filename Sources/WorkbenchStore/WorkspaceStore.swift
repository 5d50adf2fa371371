import WorkbenchCore
import WorkbenchModuleAPI
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
  var lastDataVersion: Int?
  /// The window rows this session loaded or wrote, by window number: a save replaces these and
  /// leaves the others (another shell's windows) as they are.
  var ownRows: [Int: Int] = [:]
  /// The save each of those rows was last written by (its `written`), as this session last read
  /// or wrote it: one written since by another shell, whose window is open there, is not this
  /// session's to remove.
  var ownWrites: [Int: Int] = [:]
  /// Windows the last `loadSession` gave new numbers, as two shells that saved beside each
  /// other both had a window by that number.
  public internal(set) var renumberedWindows: [(from: Int, to: Int)] = []

  /// Turns the edits stored since a snapshot into a whole document's JSON, for whoever needs
  /// the whole text (another process, an export): the session sets it from its modules, which
  /// know what their edits mean.
  public var materialize: ((_ kind: String, _ snapshot: String, _ edits: [String]) throws -> String)?

  /// The schema this code writes.
  static let schemaVersion = 5

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

  /// The saved windows. A row's `id` is never reused (`AUTOINCREMENT`): a shell that loaded a
  /// row and saves later finds it, or finds it gone, never another window in its place.
  private static let windowsTable = """
    CREATE TABLE windows (
      id INTEGER PRIMARY KEY AUTOINCREMENT, number INTEGER NOT NULL, position INTEGER NOT NULL, name TEXT,
      screen TEXT NOT NULL, document TEXT NOT NULL, state_version INTEGER NOT NULL, state TEXT NOT NULL,
      written INTEGER NOT NULL DEFAULT 0);
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
          \(windowsTable)
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
      if version < 4 {
        // Schema 4 gives each window row an id of its own, so a shell saves the rows it loaded
        // or wrote and leaves another shell's alone; numbers may repeat between shells.
        try connection.execute(
          """
          ALTER TABLE windows RENAME TO windows_by_number;
          \(windowsTable)
          INSERT INTO windows (number, position, name, screen, document, state_version, state)
            SELECT number, position, name, screen, document, state_version, state FROM windows_by_number
            ORDER BY position;
          DROP TABLE windows_by_number;
          UPDATE meta SET value = '4' WHERE key = 'schema';
          """)
      } else if version < 5 {
        // Schema 5 stamps each window row with the save that wrote it last, so a shell removes
        // a window it closed only when no other shell saved it open since.
        try connection.execute(
          """
          ALTER TABLE windows ADD COLUMN written INTEGER NOT NULL DEFAULT 0;
          """)
      }
      if version < 5 {
        try connection.execute("UPDATE meta SET value = '5' WHERE key = 'schema';")
      }
      return false
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
