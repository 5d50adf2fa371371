import Catalog
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

@testable import WorkbenchStore

/// Two shells on one workspace save their windows beside each other's: the last to quit
/// overwrote the other's saved windows (every save replaced the whole table).
@MainActor
struct SharedSessionTests {
  let path = makeTemporaryFolder() + "/workspace.db"

  static func window(_ number: Int, _ name: String? = nil, state: String = "{}") -> SessionRecord.Window {
    SessionRecord.Window(
      number: number, name: name, screen: "catalog", document: "library",
      viewState: ViewStateRecord(version: 1, state: state))
  }

  static func record(_ windows: [SessionRecord.Window], focus: Int? = nil) -> SessionRecord {
    SessionRecord(
      documents: [], windows: windows, focusedWindow: focus ?? windows.last?.number,
      nextWindowNumber: (windows.map(\.number).max() ?? 0) + 1)
  }

  /// Two shells that started from the same saved session, as a shell's start loads it.
  private func twoShells(startingWith windows: [SessionRecord.Window]) throws -> (WorkspaceStore, WorkspaceStore) {
    try WorkspaceStore(path: path).saveSession(Self.record(windows))
    let first = try WorkspaceStore(path: path)
    let second = try WorkspaceStore(path: path)
    _ = try first.loadSession(includingBodies: false)
    _ = try second.loadSession(includingBodies: false)
    return (first, second)
  }

  private func stored() throws -> SessionRecord { try WorkspaceStore(path: path).loadSession(includingBodies: false) }

  @Test func aWindowOpenedInOneShellSurvivesTheOthersSave() throws {
    let (first, second) = try twoShells(startingWith: [Self.window(1, "main")])
    try first.saveSession(Self.record([Self.window(1, "main"), Self.window(2, "notes")]))
    // The second shell quits last, with only the window it started with.
    try second.saveSession(Self.record([Self.window(1, "main", state: #"{"selection":3}"#)]))
    let session = try stored()
    #expect(session.windows.map(\.name) == ["main", "notes"])
    #expect(session.windows[0].viewState.state == #"{"selection":3}"#)  // as the last to save left it
    #expect(session.focusedWindow == 1)  // the last saver's focus
    #expect(session.nextWindowNumber == 3)  // past every saved number
  }

  @Test func aWindowClosedInOneShellIsKeptWhileTheOtherStillShowsIt() throws {
    let (first, second) = try twoShells(startingWith: [Self.window(1), Self.window(2)])
    try first.saveSession(Self.record([Self.window(2)]))
    #expect(try stored().windows.map(\.number) == [2])
    try second.saveSession(Self.record([Self.window(1), Self.window(2)]))
    #expect(try stored().windows.map(\.number) == [1, 2])
    // Closed in both: gone, and a save of the first after that does not bring it back.
    try second.saveSession(Self.record([Self.window(2)]))
    try first.saveSession(Self.record([Self.window(2)]))
    #expect(try stored().windows.map(\.number) == [2])
  }

  @Test func aNumberBothShellsUsedIsToldApartAtTheNextStart() throws {
    let (first, second) = try twoShells(startingWith: [Self.window(1)])
    try first.saveSession(Self.record([Self.window(1), Self.window(2, "from-first")]))
    try second.saveSession(Self.record([Self.window(1), Self.window(2, "from-second")]))
    let store = try WorkspaceStore(path: path)
    let session = try store.loadSession(includingBodies: false)
    // The last to save comes first and keeps its numbers; the other's window 2 becomes 3.
    #expect(session.windows.map(\.number) == [1, 2, 3])
    #expect(session.windows.map(\.name) == [nil, "from-second", "from-first"])
    #expect(store.renumberedWindows.map(\.from) == [2] && store.renumberedWindows.map(\.to) == [3])
    #expect(session.nextWindowNumber == 4)
    // Saved from there, the numbers are told apart in the file too, and nothing doubles.
    try store.saveSession(
      SessionRecord(documents: [], windows: session.windows, focusedWindow: 3, nextWindowNumber: 4))
    let again = try WorkspaceStore(path: path)
    #expect(try again.loadSession(includingBodies: false).windows.map(\.number) == [1, 2, 3])
    #expect(again.renumberedWindows.isEmpty)
  }

  @Test func aNameBothShellsGaveIsKeptByOneAndTheOtherIsShownByItsNumber() throws {
    let (first, second) = try twoShells(startingWith: [])
    try first.saveSession(Self.record([Self.window(1, "main")]))
    try second.saveSession(Self.record([Self.window(1, "main")]))
    let record = try WorkspaceStore(path: path).loadSession()
    let host = Host(
      registry: try ModuleRegistry(modules: [CatalogModule()]), restoring: record, addingMissingSamples: true)
    #expect(host.windows.map(\.id.number) == [1, 2])
    #expect(host.windows.map(\.name) == ["main", nil])
    #expect(
      host.restorationWarnings.map(\.message) == [
        "window 2: a window named 'main' is already open; pick another name; it is shown by its number"
      ])
  }

  /// A window both shells show, closed in one after the other saved it open, stays: it is open
  /// there. (The one that closed it removed its row, which the other saved no more: a random
  /// session of seed 16394774832896786998 lost it, as 28 seeds in 2,000 did.)
  @Test func aWindowClosedInOneShellAfterTheOtherSavedItOpenStays() throws {
    let (first, second) = try twoShells(startingWith: [Self.window(1, "shared")])
    try first.saveSession(Self.record([Self.window(1, "shared"), Self.window(2, "first")]))
    try second.saveSession(Self.record([]))
    #expect(Set(try stored().windows.compactMap(\.name)) == ["shared", "first"])
    // Closed in both, it goes.
    try first.saveSession(Self.record([Self.window(2, "first")]))
    #expect(try stored().windows.compactMap(\.name) == ["first"])
  }

  /// A workspace of schema 4 (window rows with ids, no stamps) opens as schema 5 with its
  /// windows, and two shells on it keep each other's open windows from then on.
  @Test func aSchemaFourWorkspaceIsMigrated() throws {
    do {
      let old = try SQLiteConnection(path: path)
      try old.execute(
        """
        PRAGMA application_id = \(WorkspaceStore.applicationID);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE documents (name TEXT PRIMARY KEY, kind TEXT NOT NULL, revision INTEGER NOT NULL);
        CREATE TABLE document_bodies (name TEXT PRIMARY KEY, body TEXT NOT NULL);
        CREATE TABLE windows (
          id INTEGER PRIMARY KEY AUTOINCREMENT, number INTEGER NOT NULL, position INTEGER NOT NULL, name TEXT,
          screen TEXT NOT NULL, document TEXT NOT NULL, state_version INTEGER NOT NULL, state TEXT NOT NULL);
        CREATE TABLE session (key TEXT PRIMARY KEY, value INTEGER);
        CREATE TABLE document_edits (
          name TEXT NOT NULL, revision INTEGER NOT NULL, edit TEXT NOT NULL, PRIMARY KEY (name, revision));
        INSERT INTO meta VALUES ('schema', '4');
        INSERT INTO windows (number, position, name, screen, document, state_version, state)
          VALUES (1, 0, 'shared', 'catalog', 'library', 1, '{}');
        """)
    }
    let first = try WorkspaceStore(path: path)
    let second = try WorkspaceStore(path: path)
    #expect(try first.connection.query("SELECT value FROM meta WHERE key = 'schema'").first?.first == .text("5"))
    #expect(try first.loadSession(includingBodies: false).windows.compactMap(\.name) == ["shared"])
    _ = try second.loadSession(includingBodies: false)
    try first.saveSession(Self.record([Self.window(1, "shared")]))
    try second.saveSession(Self.record([]))
    #expect(try stored().windows.compactMap(\.name) == ["shared"])
  }

  /// Random interleavings of two shells' opens, closes and saves from one saved session: after
  /// both saved last, every window open in either is stored once, under a number of its own at
  /// the next start, and no window closed in both comes back.
  nonisolated static let seeds: [UInt64] =
    Array(1...32) + [16_394_774_832_896_786_998, UInt64.random(in: 0...UInt64.max)]

  @Test(arguments: seeds)
  func randomSessionsOfTwoShellsKeepEveryOpenWindow(seed: UInt64) throws {
    let folder = makeTemporaryFolder()
    let file = folder + "/workspace.db"
    var random = SplitMix64(seed: seed)
    // Both start from the same two saved windows.
    let shared = [Self.window(1, "shared1"), Self.window(2, "shared2")]
    try WorkspaceStore(path: file).saveSession(Self.record(shared))
    let shells = [try WorkspaceStore(path: file), try WorkspaceStore(path: file)]
    var open = [shared, shared]
    var next = [3, 3]
    var label = 0
    for shell in 0..<2 {
      _ = try shells[shell].loadSession(includingBodies: false)
    }
    for _ in 0..<30 {
      let shell = Int(random.next() % 2)
      switch random.next() % 3 {
      case 0:
        label += 1
        open[shell].append(Self.window(next[shell], "w\(label)"))
        next[shell] += 1
      case 1 where !open[shell].isEmpty:
        open[shell].remove(at: Int(random.next() % UInt64(open[shell].count)))
      default:
        try shells[shell].saveSession(
          SessionRecord(documents: [], windows: open[shell], focusedWindow: nil, nextWindowNumber: next[shell]))
      }
    }
    for shell in 0..<2 {
      try shells[shell].saveSession(
        SessionRecord(documents: [], windows: open[shell], focusedWindow: nil, nextWindowNumber: next[shell]))
    }
    let session = try WorkspaceStore(path: file).loadSession(includingBodies: false)
    let expected = Set((open[0] + open[1]).compactMap(\.name))
    #expect(Set(session.windows.compactMap(\.name)) == expected, "seed \(seed)")
    #expect(session.windows.count == expected.count, "seed \(seed)")
    #expect(Set(session.windows.map(\.number)).count == session.windows.count, "seed \(seed)")
  }
}
