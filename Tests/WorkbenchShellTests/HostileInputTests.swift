import Testing
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Input an adversary would write: patterns nested thousands deep, a FIFO where a file should
/// be, a worker that dies mid-run. Each gets a message; none ends the program with a signal.
@Suite struct HostileInputTests {
  private func scenario(_ name: String, select id: Int = 2) -> String {
    """
    scenario: \(name)
    windows:
      main: catalog library
    steps:
      - main: select \(id)
      - expect:
          main: {selected: \(id)}
    """
  }

  @Test func aFilterNestedThousandsDeepIsAUsageErrorNotACrash() {
    let folder = makeTemporaryFolder()
    writeTextFile(scenario("One"), to: folder + "/a.yaml")
    let pattern = String(repeating: "[", count: 2200)
    let result = ChildProcess.runWorkbench(["run", "--filter", pattern, folder])
    #expect(result.status == 2, "\(result.stderr.prefix(300))")
    #expect(result.stderr.contains("cannot be used: it nests groups and classes more than 32 deep"))
  }

  @Test func aDeeplyNestedFailurePatternIsAFileErrorInCheckAndRun() {
    let folder = makeTemporaryFolder()
    let deep = String(repeating: "[", count: 2200)
    writeTextFile(
      "scenario: Deep\nwindows:\n  main: catalog library\nsteps:\n  - main: select 99\n    fails: \"/\(deep)/\"\n",
      to: folder + "/deep.yaml")
    for command in ["check", "run"] {
      let result = ChildProcess.runWorkbench(
        [command, "-j", "1", folder].filter { command == "run" || $0 != "-j" && $0 != "1" })
      #expect(result.status == 2, "\(command): \(result.status) \(result.stderr.prefix(300))")
      #expect(result.stderr.contains("\(folder)/deep.yaml:6:12: fails: /[[["), "\(command)")
    }
  }

  /// Patterns that backtrack exponentially in a backtracking engine (minutes at 22 characters
  /// of subject) fail or filter at once: `$matches`, `fails: /…/` and `--filter` cannot backtrack.
  @Test func aBacktrackingBombFailsItsStepAtOnce() {
    let folder = makeTemporaryFolder()
    let subject = String(repeating: "a", count: 40) + "b"
    writeTextFile(
      """
      scenario: \(subject)
      windows:
        main: catalog library
      steps:
        - main: query \(subject)
        - expect:
            main: {query: {$matches: '(a+)+$'}}
      """, to: folder + "/matches.yaml")
    writeTextFile(
      """
      scenario: Fails
      windows:
        main: catalog library
      steps:
        - main: query \(subject)
        - main: select 999\(String(repeating: "a", count: 40))b
          fails: /^(no|book|with|id|\\s|\\d|a|aa)+$/
      """, to: folder + "/fails.yaml")
    let result = ChildProcess.runWorkbench(["run", "-j", "1", folder])
    #expect(result.status == 1, "\(result.status) \(result.stderr)")
    #expect(result.stdout.contains("matches.yaml:6:5: expect: main"), "\(result.stdout)")
    #expect(result.stdout.contains("a match for /(a+)+$/"), "\(result.stdout)")
    #expect(result.stdout.contains("fails.yaml:6:"), "\(result.stdout)")
    #expect(result.stdout.contains("0 passed, 2 failed"), "\(result.stdout)")
    let filtered = ChildProcess.runWorkbench(["run", "-j", "1", "--filter", "^(a+)+$", folder])
    #expect(filtered.status != 0 && filtered.status < 128, "\(filtered.status) \(filtered.stderr)")
  }

  @Test func aDocumentFileThatIsAFIFOIsRefusedWithoutWaiting() {
    let folder = makeTemporaryFolder()
    #expect(mkfifo(folder + "/books.json", 0o600) == 0)
    writeTextFile(
      """
      scenario: Reads a FIFO
      documents:
        shelf: {kind: catalog, file: books.json}
      windows:
        main: catalog shelf
      steps:
        - main: select 1
      """, to: folder + "/fifo.yaml")
    let result = ChildProcess.runWorkbench(["check", folder + "/fifo.yaml"])
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("it is a FIFO (a named pipe), not a regular file"), "\(result.stderr)")
  }

  /// A worker that dies takes only the scenario it was running with it; the rest of its files
  /// are run by a new worker, and their results are reported as usual.
  @Test func aCrashedWorkerLosesOnlyItsScenario() {
    let folder = makeTemporaryFolder()
    writeTextFile(
      [scenario("First", select: 1), scenario("Crashes", select: 2), scenario("Third", select: 3)].joined(
        separator: "\n---\n"), to: folder + "/a.yaml")
    writeTextFile(scenario("Other worker", select: 4), to: folder + "/b.yaml")
    writeTextFile(scenario("Same worker, later file", select: 5), to: folder + "/c.yaml")
    let result = ChildProcess.runWorkbench(
      ["run", "-j", "2", folder], environment: ["WORKBENCH_TEST_CRASH_SCENARIO": "Crashes"])
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.hasSuffix("4 passed, 1 failed\n"), "\(result.stdout)")
    #expect(result.stdout.contains("✘ Crashes  \(folder)/a.yaml"))
    #expect(result.stdout.contains("was killed by signal 9"))
    for name in ["First", "Third", "Other worker", "Same worker, later file"] {
      #expect(result.stdout.contains("✔ \(name)"), "\(name)")
    }
    #expect(!result.stdout.contains("ended abnormally"))
  }

  /// Workers take files from a shared queue. One killed after taking a file and before saying
  /// which loses nothing: the parent finds the file nobody ran and runs it in a new worker.
  @Test func aWorkerKilledAsItTakesAFileLosesNothing() {
    let folder = makeTemporaryFolder()
    let names = ["a", "b", "c", "d", "e", "f"]
    for name in names { writeTextFile(scenario("Scenario \(name)"), to: folder + "/\(name).yaml") }
    let result = ChildProcess.runWorkbench(
      ["run", "-j", "2", folder], environment: ["WORKBENCH_TEST_KILL_TAKING": "/c.yaml"])
    #expect(result.status != 0, "\(result.stdout)\(result.stderr)")
    // On the scenario it was running (stdout), or as the run's own error (stderr) when it had
    // taken no file before, depending on how the two workers were scheduled.
    #expect((result.stdout + result.stderr).contains("killed by signal 9"), "\(result.stdout)\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").filter { $0.hasPrefix("✔") || $0.hasPrefix("✘") }
    for name in names {
      // Each scenario has one result; the one the kill took had run, its result unsent.
      #expect(lines.filter { $0.contains("Scenario \(name) ") }.count == 1, "\(name): \(result.stdout)")
    }
    #expect(lines.contains { $0.hasPrefix("✔ Scenario c ") }, "\(result.stdout)")

    // Killed taking the first file, a worker has run nothing: the run says so as its own
    // error, the other worker takes the queue, and the file is run at the end.
    let first = ChildProcess.runWorkbench(
      ["run", "-j", "2", folder], environment: ["WORKBENCH_TEST_KILL_TAKING": "/a.yaml"])
    #expect(first.status == 2, "\(first.stdout)\(first.stderr)")
    #expect(first.stderr.contains("a worker process was killed by signal 9 before it took a file"), "\(first.stderr)")
    #expect(
      first.stdout.hasSuffix("ended abnormally outside a scenario (see the errors above)\n\n6 passed, 0 failed\n"))
    #expect(!first.stdout.contains("could not be loaded"), "\(first.stdout)")
  }

  /// A worker killed after it said it was loading a file and before it loaded it: the file is
  /// loaded again by another worker and every scenario runs once; a file whose loading kills
  /// every worker is reported, and the run ends.
  @Test func aWorkerKilledWhileLoadingAFileLosesNothing() {
    let folder = makeTemporaryFolder()
    let names = ["a", "b", "c", "d"]
    for name in names { writeTextFile(scenario("Scenario \(name)"), to: folder + "/\(name).yaml") }
    for killed in ["/a.yaml", "/c.yaml"] {
      let marker = makeTemporaryFolder() + "/killed-once"
      let result = ChildProcess.runWorkbench(
        ["run", "-j", "2", folder],
        environment: ["WORKBENCH_TEST_KILL_LOADING": killed, "WORKBENCH_TEST_KILL_ONCE": marker])
      #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
      #expect(
        result.stderr.contains(
          "was killed by signal 9 while it loaded \(folder)\(killed); another worker loaded it again"),
        "\(result.stderr)")
      let lines = result.stdout.split(separator: "\n").filter { $0.hasPrefix("✔") || $0.hasPrefix("✘") }
      for name in names {
        #expect(lines.filter { $0.contains("✔ Scenario \(name) ") }.count == 1, "\(killed) \(name): \(result.stdout)")
      }
      #expect(!result.stdout.contains("did not run"), "\(result.stdout)")
    }
    let always = ChildProcess.runWorkbench(
      ["run", "-j", "2", folder], environment: ["WORKBENCH_TEST_KILL_LOADING": "/b.yaml"])
    #expect(always.status == 2, "\(always.stdout)\(always.stderr)")
    #expect(
      always.stderr.contains(
        "b.yaml:1:1: the worker process reading this file was killed by signal 9; its scenarios did not run"),
      "\(always.stderr)")
    #expect(always.stdout.contains("✔ Scenario d "), "\(always.stdout)")
  }

  /// Control characters in stored text reach the terminal shown, not obeyed; names with them are
  /// refused where they enter (an import) or set aside (a workspace row).
  @Test func controlCharactersFromOutsideAreShownAndNamesChecked() {
    let folder = makeTemporaryFolder()
    let workspace = folder + "/workspace.sqlite"
    let title = "Clip\u{1B}]52;c;aGVsbG8=\u{07}board\u{1B}[2J"
    writeTextFile(
      #"{"name": "shelf", "kind": "catalog", "body": {"books": [{"id": 1, "title": "\#(title)"}]}}"#
        .replacing("\u{1B}", with: "\\u001b").replacing("\u{07}", with: "\\u0007"),
      to: folder + "/shelf.json")
    let imported = ChildProcess.runWorkbench(["import", folder + "/shelf.json", "-w", workspace])
    #expect(imported.status == 0, "\(imported.stderr)")
    let shown = ChildProcess.runWorkbench(["-w", workspace, "-c", "open catalog shelf; select 1"])
    #expect(shown.status == 0, "\(shown.stderr)")
    #expect(!shown.stdout.contains("\u{1B}") && !shown.stdout.contains("\u{07}"), "\(shown.stdout.debugDescription)")
    #expect(shown.stdout.contains("Clip^[]52;c;aGVsbG8=^Gboard^[[2J"), "\(shown.stdout)")
    // The JSON output keeps the title as it is, escaped the JSON way.
    let json = ChildProcess.runWorkbench(["-w", workspace, "--json", "-c", "open catalog shelf"])
    #expect(json.stdout.contains(#"Clip\u001b]52;c;aGVsbG8=\u0007board\u001b[2J"#), "\(json.stdout)")

    // A document named with a control character is refused at the import.
    writeTextFile(
      #"{"name": "bad\u001b[2Jname", "kind": "catalog", "body": {"books": []}}"#, to: folder + "/bad.json")
    let refused = ChildProcess.runWorkbench(["import", folder + "/bad.json", "-w", workspace])
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("holds a control character (U+001B)"), "\(refused.stderr)")
    #expect(!refused.stderr.contains("\u{1B}"), "\(refused.stderr.debugDescription)")

    // A window name with one, from a row: shown by its number, the name never printed raw.
    let first = ChildProcess.run(
      "/usr/bin/sqlite3",
      [
        workspace,
        "INSERT INTO windows (number, position, name, screen, document, state_version, state) "
          + "VALUES (1, 0, 'w' || char(27) || '[2J', 'catalog', 'shelf', 1, '{}');",
      ], input: [], environment: ChildProcess.environment([:]))
    #expect(first.status == 0, "\(first.stderr)")
    // The interactive shell restores windows (a piped one starts without).
    let session = PseudoTerminalSession(
      arguments: ["-w", workspace], environment: InteractiveShellTests.environment(folder))
    #expect(session?.waitFor("1 catalog:shelf> ") == true, "\(session?.screen().debugDescription ?? "")")
    session?.type("\u{4}")
    _ = session?.exitStatus()
    let screen = session?.screen() ?? ""
    #expect(screen.contains("window 1: window name 'w^[[2J' must start with a letter"), "\(screen)")
    #expect(!screen.contains("\u{1B}[2J"), "\(screen.debugDescription)")
  }
}
