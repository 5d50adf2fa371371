import Testing
import WorkbenchTestSupport

/// Integers at the ends of `Int` from every place one enters: a scenario's documents, an
/// imported file, a workspace row, a recording's facts. Each is refused where it enters with a
/// message, or used with arithmetic that cannot overflow; none ends the program with a signal
/// (a trap is status 128 + 4 or + 5).
@Suite struct ExtremeIntegerTests {
  static let max = "9223372036854775807"

  private func run(_ yaml: String) -> ProcessResult {
    let folder = makeTemporaryFolder()
    writeTextFile(yaml, to: folder + "/extreme.yaml")
    return ChildProcess.runWorkbench(["run", "-j", "1", folder + "/extreme.yaml"])
  }

  @Test func aBookIdOfIntMaxInAScenarioLeavesAddWorking() {
    let result = run(
      """
      scenario: The largest id
      documents:
        shelf:
          kind: catalog
          books:
            - {id: \(Self.max), title: Last}
            - {id: 1, title: First}
      windows:
        main: catalog shelf
      steps:
        - main: add Another
        - main: select 2
        - expect:
            main: {total: 3, selected: 2, detail: {title: Another}}
      """)
    #expect(result.status == 0, "\(result.status) \(result.stdout) \(result.stderr)")
  }

  @Test func aDocumentAtRevisionIntMaxRefusesTheNextEditWithAMessage() {
    let result = run(
      """
      scenario: The largest revision
      documents:
        shelf:
          kind: catalog
          revision: \(Self.max)
          books: [{id: 1, title: First}]
      windows:
        main: catalog shelf
      steps:
        - main: rename 1 Renamed
          fails: 'revision \(Self.max), the largest there is, so it cannot take another edit'
        - expect:
            main: {rows: [1]}
      """)
    #expect(result.status == 0, "\(result.status) \(result.stdout) \(result.stderr)")
  }

  @Test func anImportedCatalogWithIdIntMaxTakesANewBook() {
    let folder = makeTemporaryFolder()
    let workspace = folder + "/workspace.sqlite"
    writeTextFile(
      #"{"name": "shelf", "kind": "catalog", "body": {"books": [{"id": \#(Self.max), "title": "Last"}]}}"#,
      to: folder + "/shelf.json")
    let imported = ChildProcess.runWorkbench(["import", folder + "/shelf.json", "--workspace", workspace])
    #expect(imported.status == 0, "\(imported.stderr)")
    let added = ChildProcess.runWorkbench(["--workspace", workspace, "-c", "open catalog shelf; add Another"])
    #expect(added.status == 0, "\(added.status) \(added.stderr)")
    #expect(added.stdout.contains("1  Another"), "\(added.stdout)")
  }

  /// Rows a hand edit (or another program) left: a window numbered `Int.max` that had focus, the
  /// next window number at `Int.max`, a document at revision `Int.max`.
  @Test func workspaceRowsAtIntMaxStartAndOpenWindows() throws {
    let folder = makeTemporaryFolder()
    let workspace = folder + "/workspace.sqlite"
    let first = ChildProcess.runWorkbench(["--workspace", workspace, "-c", "open catalog library main"])
    #expect(first.status == 0, "\(first.stderr)")
    let edit = ChildProcess.run(
      "/usr/bin/sqlite3",
      [
        workspace,
        "UPDATE windows SET number = \(Self.max); "
          + "INSERT OR REPLACE INTO session (key, value) VALUES ('focused', \(Self.max)); "
          + "INSERT OR REPLACE INTO session (key, value) VALUES ('nextWindowNumber', \(Self.max)); "
          + "UPDATE documents SET revision = \(Self.max) WHERE name = 'library';",
      ], input: [], environment: ChildProcess.environment([:]))
    #expect(edit.status == 0, "\(edit.stderr)")
    let started = ChildProcess.runWorkbench(
      ["--workspace", workspace, "-c", "windows; open catalog library second; open catalog library third; windows"])
    #expect(started.status == 0, "\(started.status) \(started.stderr)")
    #expect(started.stdout.contains("[1 second]"), "\(started.stdout)")
    #expect(started.stdout.contains("[2 third]"), "\(started.stdout)")
    let renamed = ChildProcess.runWorkbench(["--workspace", workspace, "-c", "open catalog library x; rename 1 New"])
    #expect(renamed.status == 1, "\(renamed.status) \(renamed.stderr)")
    #expect(renamed.stderr.contains("the largest there is"), "\(renamed.stderr)")
  }

  @Test func recordedCountersAtIntMaxReplayWithoutTrapping() {
    let result = run(
      """
      scenario: Counters at the end
      facts:
        network:
          network.state: [{online: true, latency: 300ms, failuresToCome: 0, requests: \(Self.max)}]
        window 1:
          network.latency: [300ms, 300ms]
          network.answer: [{rows: [\(Self.max)]}, {rows: ['-9223372036854775808-\(Self.max)']}]
        bridge home:
          bridge.state:
            - reachable: true
              rooms:
                - id: living
                  name: Living room
                  lights: [{id: \(Self.max), name: Ceiling, 'on': true, brightness: 80}]
          bridge.detected: [New light]
      steps:
        - do: open feed account f
        - do: clock advance 583ms
        - f: search rent
        - do: clock advance 801ms
        - do: open home home h
        - h: enter living r
        - r: detect
        - do: clock advance 5s
      """)
    #expect(result.status < 128, "\(result.status) \(result.stdout) \(result.stderr)")
  }

  /// The interactive shell restores windows: one numbered `Int.max` that had focus, with the next
  /// number at `Int.max`, starts, and new windows take free numbers.
  @Test func theShellStartsOnAWindowNumberedIntMax() throws {
    let folder = makeTemporaryFolder()
    let workspace = folder + "/workspace.sqlite"
    let first = ChildProcess.runWorkbench(["--workspace", workspace, "-c", "open catalog library main"])
    #expect(first.status == 0, "\(first.stderr)")
    // A piped session ends by saving its windows: one named main is left for the edit below.
    let session = try #require(
      PseudoTerminalSession(
        arguments: ["-w", workspace], environment: InteractiveShellTests.environment(folder)))
    #expect(session.waitFor("workbench> "))
    session.type("open catalog library main\r")
    #expect(session.waitFor("main catalog:library> "))
    session.type("\u{4}")
    #expect(session.exitStatus() == 0)
    let edit = ChildProcess.run(
      "/usr/bin/sqlite3",
      [
        workspace,
        "UPDATE windows SET number = \(Self.max); "
          + "INSERT OR REPLACE INTO session (key, value) VALUES ('focused', \(Self.max)); "
          + "INSERT OR REPLACE INTO session (key, value) VALUES ('nextWindowNumber', \(Self.max));",
      ], input: [], environment: ChildProcess.environment([:]))
    #expect(edit.status == 0, "\(edit.stderr)")
    let again = try #require(
      PseudoTerminalSession(
        arguments: ["-w", workspace], environment: InteractiveShellTests.environment(folder)))
    #expect(again.waitFor("main catalog:library> "), "\(again.screen())")
    again.type("open catalog library other\r")
    #expect(again.waitFor("[1 other]"), "\(again.screen())")
    #expect(again.waitFor("other catalog:library> "), "\(again.screen())")
    again.type("\u{4}")
    let status = again.exitStatus()
    #expect(status == 0, "\(again.screen())")
  }
}
