import Catalog
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

@testable import WorkbenchStore

#if canImport(Glibc)
  import Glibc
#endif

@MainActor
@Suite struct WorkspaceStoreTests {
  let folder = makeTemporaryFolder()
  var path: String { folder + "/workspace.sqlite" }

  @Test func savesAreCompareAndSwapOnTheRevision() throws {
    let store = try WorkspaceStore(path: path)
    #expect(store.isNew)
    #expect(try store.saveDocument(name: "d", kind: "k", body: "{}", baseRevision: 0) == .saved(revision: 1))
    #expect(try store.saveDocument(name: "d", kind: "k", body: #"{"a":1}"#, baseRevision: 1) == .saved(revision: 2))
    let stale = try store.saveDocument(name: "d", kind: "k", body: #"{"a":2}"#, baseRevision: 1)
    #expect(stale == .conflicted(current: .init(name: "d", kind: "k", revision: 2, body: #"{"a":1}"#)))
    #expect(try store.saveDocument(name: "d", kind: "k", body: "{}", baseRevision: 0) != .saved(revision: 1))
    #expect(try store.documents().map(\.revision) == [2])
  }

  @Test func aSecondConnectionSeesChangesAndOnlyThem() throws {
    let first = try WorkspaceStore(path: path)
    let second = try WorkspaceStore(path: path)
    #expect(!second.isNew)
    _ = try first.saveDocument(name: "a", kind: "k", body: "{}", baseRevision: 0)
    _ = try first.saveDocument(name: "b", kind: "k", body: "{}", baseRevision: 0)
    #expect(try second.changedDocuments(since: [:]).map(\.name) == ["a", "b"])
    #expect(try second.changedDocuments(since: ["a": 1, "b": 1]).isEmpty)
    _ = try first.saveDocument(name: "b", kind: "k", body: #"{"x":1}"#, baseRevision: 1)
    #expect(try second.changedDocuments(since: ["a": 1, "b": 1]).map(\.revision) == [2])
  }

  @Test func theSessionRoundTripsInOrder() throws {
    let store = try WorkspaceStore(path: path)
    let record = SessionRecord(
      documents: [],
      windows: [
        .init(
          number: 3, name: "left", screen: "catalog", document: "library", viewState: .init(version: 2, state: "{}")),
        .init(number: 1, name: nil, screen: "catalog", document: "library", viewState: .init(version: 2, state: "{}")),
      ],
      focusedWindow: 1, nextWindowNumber: 4)
    try store.saveSession(record)
    let loaded = try WorkspaceStore(path: path).loadSession()
    #expect(loaded.windows == record.windows)
    #expect(loaded.focusedWindow == 1)
    #expect(loaded.nextWindowNumber == 4)
    #expect(try store.loadSession(includingWindows: false).windows.isEmpty)
  }

  @Test func theFileIsTheOwnersOnly() throws {
    _ = try WorkspaceStore(path: path)
    var info = stat()
    #expect(stat(path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o600)
  }

  @Test func secretsAreNeverWritten() throws {
    struct Login: Codable {
      var user: String
      var token: Secret<String>
    }
    let store = try WorkspaceStore(path: path)
    let window = SessionRecord.Window(
      number: 1, name: "w", screen: "s", document: "d", viewState: .init(version: 1, state: "{}"))
    try store.saveSession(SessionRecord(documents: [], windows: [window], focusedWindow: 1, nextWindowNumber: 2))

    let encoded = try JSONEncoderForTests.encode(Login(user: "ana", token: Secret("hunter2")))
    #expect(!encoded.contains("hunter2"))
    var leaking = window
    leaking.viewState = .init(version: 1, state: encoded)
    #expect(throws: StoreError.self) {
      try store.saveSession(SessionRecord(documents: [], windows: [leaking], focusedWindow: 1, nextWindowNumber: 2))
    }
    #expect(try store.loadSession().windows == [window])  // the earlier session is intact
    #expect(throws: StoreError.self) { try store.saveDocument(name: "d", kind: "k", body: encoded, baseRevision: 0) }
    #expect(try store.documents().isEmpty)
  }

  @Test func aFileThatIsNotADatabaseIsReportedAndLeftAlone() throws {
    let text = "these are my notes, not a database\n" + String(repeating: "x", count: 200)
    writeTextFile(text, to: path)
    do {
      _ = try WorkspaceStore(path: path)
      Issue.record("opened a text file")
    } catch {
      #expect(error.kind == .notADatabase)
      #expect(error.message.contains("is not a workbench workspace"))
    }
    #expect(readTextFile(path) == text)
  }

  @Test func anotherProgramsDatabaseIsRefusedUntouched() throws {
    do {
      let other = try SQLiteConnection(path: path)
      try other.execute("CREATE TABLE documents (x); INSERT INTO documents VALUES (1);")
    }
    let before = try #require(readBytes(path))
    do {
      _ = try WorkspaceStore(path: path)
      Issue.record("opened another program's database")
    } catch {
      #expect(error.kind == .foreign)
      #expect(
        error.message == "\(path) is an SQLite database of another program (it holds the tables documents), not a "
          + "workbench workspace; nothing in it was changed: pick another file with --workspace")
    }
    #expect(readBytes(path) == before)
    #expect(readBytes(path + "-wal") == nil)  // not switched to WAL
    // One with an application id of its own is named by it.
    do {
      let tagged = try SQLiteConnection(path: path)
      try tagged.execute("PRAGMA application_id = 1234")
    }
    #expect(throws: StoreError.self) { try WorkspaceStore(path: path) }
  }

  @Test func aWorkspaceFromBeforeTheApplicationIDIsStillOpened() throws {
    do {
      let store = try WorkspaceStore(path: path)
      _ = try store.saveDocument(name: "d", kind: "k", body: "{}", baseRevision: 0)
      try store.connection.execute("PRAGMA application_id = 0")
    }
    let again = try WorkspaceStore(path: path)
    #expect(try again.documents().count == 1)
    #expect(try again.connection.query("PRAGMA application_id").first?.first == .integer(WorkspaceStore.applicationID))
  }

  @Test func aWorkspaceOthersCanReadIsMadeOwnerOnly() throws {
    do { _ = try WorkspaceStore(path: path) }
    #expect(chmod(path, 0o644) == 0)
    let store = try WorkspaceStore(path: path)
    #expect(store.tightenedMode == 0o600)
    var info = stat()
    #expect(stat(path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o600)
    #expect(try WorkspaceStore(path: path).tightenedMode == nil)  // said once
  }

  /// A workspace its owner made read-only (0444) becomes 0400, and that is the mode said: the note
  /// said "(0600)" whatever it set.
  @Test func aReadOnlyWorkspaceOthersCanReadIsSaidAsTheModeSet() throws {
    do { _ = try WorkspaceStore(path: path) }
    #expect(chmod(path, 0o444) == 0)
    defer { chmod(path, 0o600) }
    let store = try? WorkspaceStore(path: path)
    #expect(mode(of: path) == 0o400)
    if let store { #expect(store.tightenedMode == 0o400) }
  }

  private func mode(of file: String) -> mode_t? {
    var info = stat()
    return stat(file, &info) == 0 ? info.st_mode & 0o777 : nil
  }

  /// A file that turns out not to be a workspace keeps its permissions too, also when the
  /// path given is a link to it.
  @Test func aFileThatIsNotAWorkspaceKeepsItsPermissions() throws {
    do {
      let other = try SQLiteConnection(path: path)
      try other.execute("CREATE TABLE notes (x)")
    }
    #expect(chmod(path, 0o644) == 0)
    let link = path + "-link"
    #expect(symlink(path, link) == 0)
    for given in [path, link] {
      #expect(throws: StoreError.self) { try WorkspaceStore(path: given) }
      #expect(mode(of: path) == 0o644, "\(given)")
    }
    writeTextFile("plain text, not a database\n", to: path)
    #expect(throws: StoreError.self) { try WorkspaceStore(path: path) }
    #expect(mode(of: path) == 0o644)
  }

  /// Tightening only takes bits away: a workspace its owner made read-only stays read-only.
  @Test func aReadOnlyWorkspaceIsNotMadeWritable() throws {
    do { _ = try WorkspaceStore(path: path) }
    #expect(chmod(path, 0o444) == 0)
    _ = try? WorkspaceStore(path: path)
    #expect(mode(of: path) == 0o400)
    #expect(chmod(path, 0o640) == 0)
    _ = try WorkspaceStore(path: path)
    #expect(mode(of: path) == 0o600)
  }

  /// A link to nothing is refused, saying where it points, and nothing is created there.
  @Test func aDanglingLinkIsRefusedAndNothingIsCreated() throws {
    let target = path + "-target"
    let link = path + "-dangling"
    #expect(symlink(target, link) == 0)
    do {
      _ = try WorkspaceStore(path: link)
      Issue.record("a workspace was made through a dangling link")
    } catch {
      #expect(error.message.contains("is a symbolic link to \(target), which does not exist"), "\(error.message)")
    }
    #expect(mode(of: target) == nil)
  }

  @Test func aLockedWorkspaceIsReportedAndNothingChanges() throws {
    let holder = try WorkspaceStore(path: path)
    _ = try holder.saveDocument(name: "d", kind: "k", body: "{}", baseRevision: 0)
    let other = try WorkspaceStore(path: path)
    try other.connection.execute("PRAGMA busy_timeout = 50")
    try holder.connection.execute("BEGIN EXCLUSIVE")
    do {
      _ = try other.saveDocument(name: "d", kind: "k", body: #"{"x":1}"#, baseRevision: 1)
      Issue.record("saved into a locked workspace")
    } catch {
      #expect(error.kind == .locked)
      #expect(error.message.contains("is locked by another process"))
    }
    try holder.connection.execute("ROLLBACK")
    #expect(try other.documents().map(\.revision) == [1])
  }

  @Test func aFullDiskIsReportedAndNothingChanges() throws {
    let store = try WorkspaceStore(path: path)
    _ = try store.saveDocument(name: "d", kind: "k", body: "{}", baseRevision: 0)
    let pages = try store.connection.query("PRAGMA page_count")
    guard case .integer(let count)? = pages.first?.first else { throw StoreError(.other, "no page count") }
    try store.connection.execute("PRAGMA max_page_count = \(count)")
    let big = "{\"text\":\"" + String(repeating: "y", count: 200_000) + "\"}"
    do {
      _ = try store.saveDocument(name: "d", kind: "k", body: big, baseRevision: 1)
      Issue.record("saved past the size limit")
    } catch {
      #expect(error.kind == .full)
      #expect(error.message.contains("is full"))
    }
    #expect(try store.documents().first?.body == "{}")
  }

  @Test func aReadOnlyWorkspaceIsReported() throws {
    let store = try WorkspaceStore(path: path)
    _ = try store.saveDocument(name: "d", kind: "k", body: "{}", baseRevision: 0)
    let readOnly = try WorkspaceStore(path: "file:\(path)?mode=ro")
    #expect(try readOnly.documents().count == 1)  // reading works
    do {
      _ = try readOnly.saveDocument(name: "d", kind: "k", body: #"{"x":1}"#, baseRevision: 1)
      Issue.record("wrote to a read-only workspace")
    } catch {
      #expect(error.kind == .readOnly)
      #expect(error.message.contains("is read-only"))
    }
    #expect(try store.documents().count == 1)
  }

  /// A workspace written by schema 2 (bodies in the documents' rows) opens as schema 5 (bodies
  /// in a table of their own, window rows with ids and the save that wrote them) with every document, its edit log, its
  /// removals and its windows as they were, and takes edits and saves after.
  @Test func aSchemaTwoWorkspaceIsMigrated() throws {
    do {
      let old = try SQLiteConnection(path: path)
      try old.execute(
        """
        PRAGMA application_id = \(WorkspaceStore.applicationID);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE documents (
          name TEXT PRIMARY KEY, kind TEXT NOT NULL, revision INTEGER NOT NULL, body TEXT NOT NULL);
        CREATE TABLE windows (
          number INTEGER PRIMARY KEY, position INTEGER NOT NULL, name TEXT, screen TEXT NOT NULL,
          document TEXT NOT NULL, state_version INTEGER NOT NULL, state TEXT NOT NULL);
        CREATE TABLE session (key TEXT PRIMARY KEY, value INTEGER);
        CREATE TABLE document_edits (
          name TEXT NOT NULL, revision INTEGER NOT NULL, edit TEXT NOT NULL, PRIMARY KEY (name, revision));
        INSERT INTO meta VALUES ('schema', '2');
        INSERT INTO documents VALUES ('library', 'catalog', 2, '{"books":[{"id":1,"title":"Dune"}]}');
        INSERT INTO document_edits VALUES ('library', 2, '{"rename":{"id":1,"title":"Dune Messiah"}}');
        INSERT INTO documents VALUES ('gone', '', 3, '');
        INSERT INTO windows VALUES (4, 0, 'left', 'catalog', 'library', 1, '{}');
        INSERT INTO windows VALUES (2, 1, NULL, 'catalog', 'library', 1, '{"selection":1}');
        INSERT INTO session VALUES ('focused', 2);
        INSERT INTO session VALUES ('nextWindowNumber', 5);
        """)
    }
    let store = try WorkspaceStore(path: path)
    store.materializeEdits(with: try ModuleRegistry(modules: [CatalogModule()]))
    #expect(try store.connection.query("SELECT value FROM meta WHERE key = 'schema'").first?.first == .text("5"))
    // Schema 4's window rows have ids of their own; the windows, their order and focus are kept.
    let session = try store.loadSession(includingWindows: true, includingBodies: false)
    #expect(session.windows.map(\.number) == [4, 2] && session.windows.map(\.name) == ["left", nil])
    #expect(session.windows[1].viewState.state == #"{"selection":1}"#)
    #expect(session.focusedWindow == 2 && session.nextWindowNumber == 5)
    let columns = try store.connection.query("SELECT name FROM pragma_table_info('documents')").compactMap(\.first)
    #expect(columns == [.text("name"), .text("kind"), .text("revision")])
    let library = try #require(try store.documents().first)
    #expect(library.revision == 2 && library.body.contains("Dune Messiah"))
    #expect(try store.removedDocumentNames() == ["gone"])
    #expect(try store.documentBody(named: "library").edits.count == 1)
    let edit = #"{"rename":{"id":1,"title":"Children of Dune"}}"#
    #expect(try store.appendEdit(name: "library", edit: edit, baseRevision: 2) == .saved(revision: 3))
    #expect(try store.documents().first?.body.contains("Children of Dune") == true)
    #expect(
      try store.saveDocument(name: "gone", kind: "catalog", body: #"{"books":[]}"#, baseRevision: 0)
        == .saved(revision: 4))
    #expect(try store.documents().map(\.name) == ["gone", "library"])
  }

  @Test func aWorkspaceFromANewerVersionIsRefused() throws {
    let store = try WorkspaceStore(path: path)
    try store.connection.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    do {
      _ = try WorkspaceStore(path: path)
      Issue.record("opened a newer workspace")
    } catch {
      #expect(error.message.contains("was written by a newer workbench (schema 99)"))
    }
  }
}

/// Encodes a value as JSON text.
enum JSONEncoderForTests {
  static func encode(_ value: some Encodable) throws -> String {
    String(decoding: try FoundationJSON.encoder.encode(value), as: UTF8.self)
  }
}
