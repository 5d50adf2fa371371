import Testing
import WorkbenchTestSupport

/// Time travel as people meet it: a failing scenario opened at its failing step in a terminal,
/// and a shell on a workspace moved back and forward over steps that ran on real time.
@Suite(.serialized) struct TimeTravelShellTests {
  /// A ledger scenario whose expectation is wrong (the balance after sending 25.00 is 1805.41).
  static let failing = """
    scenario: A send the test got wrong
    windows:
      main: feed account
    steps:
      - main: send 25.00 req-1 Sam Rivera
      - expect:
          main: {balance: "1800.00"}

    """

  /// Steps made after a move in time are in memory only: the first quit (Ctrl-D too) says so and
  /// how to keep them, and quitting again leaves. A move with nothing done after it, or `quit
  /// force`, leaves at once. (They were lost at quit with no word: the warning came once, at the
  /// move.)
  @Test func quittingAfterStepsMadeSinceAMoveRemindsOnce() throws {
    let folder = makeTemporaryFolder()
    let workspace = folder + "/workspace.sqlite"
    func shell() throws -> PseudoTerminalSession {
      let session = try #require(
        PseudoTerminalSession(
          arguments: ["-w", workspace], environment: InteractiveShellTests.environment(folder)))
      #expect(session.waitFor("> "))
      return session
    }
    func type(_ session: PseudoTerminalSession, _ line: String, until text: String) {
      let mark = session.transcript.count
      session.type(line + "\r")
      #expect(session.waitFor(text, after: mark), "\(session.screen(from: mark).debugDescription)")
      #expect(session.waitFor("main catalog:library> ", after: session.offset(after: text, from: mark) ?? mark))
    }
    let session = try shell()
    type(session, "open catalog library main", until: "all 30 books")
    type(session, "select 2", until: "▸  2")
    type(session, "travel back 1", until: "at step 1 of 2")
    type(session, "select 3", until: "▸  3")
    type(session, "rename 3 Moved On", until: "Moved On")
    var mark = session.transcript.count
    session.type("\u{04}")
    #expect(
      session.waitFor("2 steps made since the session moved in time are not in the workspace", after: mark),
      "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("quit again (or `quit force`) to leave without them", after: mark))
    #expect(session.waitFor("main catalog:library> ", after: mark))
    mark = session.transcript.count
    session.type("quit\r")
    #expect(session.exitStatus() == 0, "\(session.screen(from: mark).debugDescription)")

    // A move with nothing done since leaves at once; so does `quit force`.
    let again = try shell()
    type(again, "select 4", until: "▸  4")
    type(again, "travel back 1", until: "at step 0 of 1")
    again.type("quit\r")
    #expect(again.exitStatus() == 0)
    let forced = try shell()
    type(forced, "select 5", until: "▸  5")
    type(forced, "travel back 1", until: "at step 0 of 1")
    type(forced, "select 6", until: "▸  6")
    mark = forced.transcript.count
    forced.type("quit force\r")
    #expect(forced.exitStatus() == 0)
    #expect(!forced.screen(from: mark).contains("not in the workspace"))
  }

  @Test func aFailingScenarioOpensAtItsFailingStepAndAFixIsRecordedThatPasses() throws {
    let folder = makeTemporaryFolder()
    let path = folder + "/send.yaml"
    writeTextFile(Self.failing, to: path)
    let fix = folder + "/fixed.yaml"
    let session = try #require(
      PseudoTerminalSession(
        arguments: ["run", path + ":6", "--shell"], environment: InteractiveShellTests.environment(folder)))
    #expect(session.waitFor("main feed:account> "), "\(session.screen().debugDescription)")
    let opening = session.screen()
    #expect(opening.contains("after step 2 of 2: expect: main"), "\(opening)")
    #expect(opening.contains("failed: the frames do not match the expectation"), "\(opening)")
    #expect(opening.contains("expected: \"1800.00\""), "\(opening)")

    // Look at the window: the balance the send left.
    var mark = session.transcript.count
    session.type("show main\r")
    #expect(session.waitFor("balance 1805.41", after: mark), "\(session.screen(from: mark).debugDescription)")

    // Step back over the wrong expectation, and record from there.
    mark = session.transcript.count
    session.type("travel back 1\r")
    #expect(session.waitFor("at step 1 of 2: main: send 25.00 req-1 Sam Rivera", after: mark))
    mark = session.transcript.count
    session.type("record start \(fix)\r")
    #expect(session.waitFor("recording to", after: mark), "\(session.screen(from: mark).debugDescription)")
    mark = session.transcript.count
    session.type("record stop\r")
    #expect(session.waitFor("wrote \(fix)", after: mark), "\(session.screen(from: mark).debugDescription)")
    // Ctrl-D once the prompt is back (typed earlier, the terminal's cooked mode takes it).
    let written = session.offset(after: "wrote \(fix)", from: mark) ?? mark
    #expect(session.waitFor("main feed:account> ", after: written))
    session.type("\u{04}")
    #expect(session.exitStatus() == 0)

    let recorded = try #require(readTextFile(fix))
    #expect(recorded.contains("main: send 25.00 req-1 Sam Rivera"), "\(recorded)")
    #expect(recorded.contains("balance: '1805.41'"), "\(recorded)")
    let run = ChildProcess.runWorkbench(["run", fix])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)\n\(recorded)")
    #expect(run.stdout.contains("1 passed, 0 failed"), "\(run.stdout)")
  }

  /// A shell on a workspace runs on real time (the feed loads over the simulated network, the
  /// search waits for its debounce); moved back and forward, it replays those steps on a virtual
  /// clock to the same frames.
  @Test func aWorkspaceSessionOnRealTimeMovesBackAndForwardToTheSameFrames() {
    let workspace = makeTemporaryFolder() + "/workspace.db"
    let lines = [
      "open feed account f", "settle", "search rent", "settle", "frame", "travel back 2", "frame",
      "travel forward 2", "frame", "travel steps",
    ]
    let result = ChildProcess.runWorkbench(
      ["-w", workspace], input: Array((lines.joined(separator: "\n") + "\n").utf8))
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let frames = Self.frames(in: result.stdout)
    #expect(frames.count == 3, "\(result.stdout)")
    guard frames.count == 3 else { return }
    #expect(frames[0].contains("query: rent"), "\(frames[0])")
    #expect(frames[1].contains("query: \n") && !frames[1].contains("query: rent"), "\(frames[1])")
    #expect(frames[2] == frames[0])
    #expect(result.stdout.contains("→ 4  settle"), "\(result.stdout)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
  }

  /// At the prompt, time passes between lines (the feed loads, the search's debounce fires)
  /// without a step saying so; a move replays each step at the time it was typed, so the
  /// search's answers are there for the `detail` typed after them.
  @Test func timeThatPassedAtThePromptIsReplayed() throws {
    let folder = makeTemporaryFolder()
    let session = try #require(
      PseudoTerminalSession(
        arguments: ["-w", folder + "/workspace.db"], environment: InteractiveShellTests.environment(folder)))
    #expect(session.waitFor("workbench> "))
    session.type("open feed account f\r")
    #expect(session.waitFor("feed · loaded"), "\(session.screen().debugDescription)")
    // The loaded feed lists #47 too: wait for the prompt drawn after it, so that the search's
    // own answer is what the next wait sees (the rows can arrive in a later read than the header).
    let loaded = session.offset(after: "feed · loaded", from: 0) ?? 0
    #expect(session.waitFor("f feed:account> ", after: loaded))
    var mark = session.transcript.count
    session.type("search rent\r")
    #expect(session.waitFor("search: rent", after: mark), "\(session.screen(from: mark).debugDescription)")
    let searched = session.offset(after: "search: rent", from: mark) ?? mark
    #expect(
      session.waitFor("47  Oak Street Rentals", after: searched), "\(session.screen(from: mark).debugDescription)")
    mark = session.transcript.count
    session.type("detail 47\r")
    #expect(session.waitFor("detail: #47 Oak Street Rentals", after: mark))
    mark = session.transcript.count
    session.type("travel to 0\r")
    #expect(
      session.waitFor("at step 0 of 3 (the start)", after: mark), "\(session.screen(from: mark).debugDescription)")
    mark = session.transcript.count
    session.type("travel forward 3\r")
    #expect(session.waitFor("at step 3 of 3: detail 47", after: mark), "\(session.screen(from: mark).debugDescription)")
    let replayed = session.screen(from: mark)
    #expect(replayed.contains("detail: #47 Oak Street Rentals"), "\(replayed)")
    #expect(replayed.contains("feed · loaded"), "\(replayed)")
    #expect(replayed.contains("47  Oak Street Rentals  -600.00  rent"), "\(replayed)")
    var arrived = session.offset(after: "at step 3 of 3", from: mark) ?? mark
    #expect(session.waitFor("f feed:account> ", after: arrived))
    // A step is the session as it was when the next began: after `search rent`, its answers
    // (the debounce fired while the prompt waited for `detail 47`).
    mark = session.transcript.count
    session.type("travel back 1\r")
    #expect(
      session.waitFor("at step 2 of 3: search rent", after: mark), "\(session.screen(from: mark).debugDescription)")
    let second = session.screen(from: mark)
    #expect(second.contains("47  Oak Street Rentals  -600.00  rent"), "\(second)")
    #expect(!second.contains("loading"), "\(second)")
    arrived = session.offset(after: "at step 2 of 3", from: mark) ?? mark
    #expect(session.waitFor("f feed:account> ", after: arrived))
    session.type("\u{04}")
    #expect(session.exitStatus() == 0)
  }

  /// What `frame` printed each time: from `session:` to `dispute:`.
  static func frames(in output: String) -> [String] {
    var frames: [String] = []
    var current: [Substring]?
    for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("session: ") { current = [] }
      current?.append(line)
      if line.hasPrefix("dispute: "), let lines = current {
        frames.append(lines.joined(separator: "\n"))
        current = nil
      }
    }
    return frames
  }

  /// Saved work is never lost or overwritten by a move: what was saved before it stays in the
  /// workspace, and nothing done after it is written there.
  @Test func movingInTimeLeavesTheWorkspaceAsItWasSaved() {
    let workspace = makeTemporaryFolder() + "/workspace.db"
    let session = ChildProcess.runWorkbench(
      ["-w", workspace],
      input: Array(
        "open catalog library\nrename 2 Kept Title\nrename 3 Renamed Then\ntravel back 1\nrename 4 After The Move\n"
          .utf8))
    #expect(session.status == 0, "\(session.stdout)\(session.stderr)")
    #expect(session.stdout.contains("nothing is written to it until the shell starts again"), "\(session.stdout)")
    let after = ChildProcess.runWorkbench(["-w", workspace, "-c", "open catalog library; frame"])
    #expect(after.stdout.contains("title: Kept Title"), "\(after.stdout)")
    #expect(after.stdout.contains("title: Renamed Then"), "\(after.stdout)")
    #expect(!after.stdout.contains("After The Move"), "\(after.stdout)")
  }

  /// The start of a session on a workspace reads no document for time travel: a document
  /// another program broke in the workspace file does not stop it, and a document the session
  /// changed is replayed from the body it had before its first change.
  @Test func theStartReadsOnlyWhatTheSessionChanges() throws {
    let folder = makeTemporaryFolder()
    let workspace = folder + "/workspace.db"
    writeTextFile(
      #"{"name": "shelf", "kind": "catalog", "revision": 1, "body": {"books": [{"id": 1, "title": "Only"}]}}"#,
      to: folder + "/shelf.json")
    writeTextFile(
      #"{"name": "broken", "kind": "catalog", "revision": 1, "body": {"books": [{"id": 1, "title": "Lost"}]}}"#,
      to: folder + "/broken.json")
    #expect(ChildProcess.runWorkbench(["-w", workspace, "import", folder + "/shelf.json"]).status == 0)
    #expect(ChildProcess.runWorkbench(["-w", workspace, "import", folder + "/broken.json"]).status == 0)
    let broken = ChildProcess.run(
      "/usr/bin/python3",
      [
        "-c",
        "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
          + "c.execute(\"UPDATE document_bodies SET body='{not json' WHERE name='broken'\"); c.commit()",
        workspace,
      ], input: [], environment: ChildProcess.environment([:]))
    #expect(broken.status == 0, "\(broken.stderr)")
    let session = ChildProcess.runWorkbench(
      ["-w", workspace], input: Array("open catalog shelf s\nrename 1 Changed\ntravel to 1\nframe\n".utf8))
    #expect(session.stderr.isEmpty, "\(session.stderr)")
    #expect(session.stdout.contains("at step 1 of 2: open catalog shelf s"), "\(session.stdout)\(session.stderr)")
    let frames = session.stdout.split(separator: "\n").filter { $0.contains("title: ") }
    #expect(frames.last?.contains("title: Only") == true, "\(session.stdout)")
  }

  /// A command typed after `travel back` starts a new branch: the steps ahead are dropped.
  @Test func aCommandAfterGoingBackStartsANewBranch() {
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:"],
      input: Array(
        "open catalog library\nselect 2\nselect 3\ntravel back 2\nframe\ntravel forward 1\nselect 9\ntravel steps\ntravel forward\n"
          .utf8))
    #expect(result.stdout.contains("at step 1 of 3"), "\(result.stdout)")
    // `frame` only looks: the steps ahead are still there for `travel forward`.
    #expect(result.stdout.contains("at step 2 of 3: select 2"), "\(result.stdout)")
    #expect(result.stdout.contains("→ 3  select 9"), "\(result.stdout)")
    #expect(!result.stdout.contains("select 3  ·"), "\(result.stdout)")
    #expect(result.stderr.contains("the session is at its last step"), "\(result.stderr)")
  }

  /// A failure's message gives the command that opens the session there, at the line of the
  /// scenario's own file (an included flow's step at its `include:`), and that command opens it.
  @Test func aFailureSaysHowToOpenTheSessionThere() {
    let folder = makeTemporaryFolder()
    writeTextFile(
      """
      flow: Pick a book
      params: [book]
      steps:
        - left: select ${book}
        - expect:
            left: {selected: 3}

      """, to: folder + "/pick.yaml")
    writeTextFile(
      """
      scenario: A flow that picks the wrong book
      windows:
        left: catalog library
      steps:
        - left: query the
        - include: pick.yaml
          with: {book: 2}

      """, to: folder + "/main.yaml")
    let run = ChildProcess.runWorkbench(["run", folder + "/main.yaml"])
    #expect(run.status == 1)
    let command = "workbench run \(folder)/main.yaml:6 --shell"
    #expect(run.stdout.contains("open the session there: \(command)\n"), "\(run.stdout)")
    let opened = ChildProcess.runWorkbench(
      ["run", folder + "/main.yaml:6", "--shell"], input: Array("travel steps\nframe\n".utf8))
    #expect(opened.status == 0, "\(opened.stdout)\(opened.stderr)")
    #expect(opened.stdout.contains("after step 3 of 3: expect: left (\(folder)/pick.yaml:5:5)"), "\(opened.stdout)")
    #expect(opened.stdout.contains("failed: the frames do not match the expectation"), "\(opened.stdout)")
    #expect(opened.stdout.contains("selected: 2\n"), "\(opened.stdout)")
  }

  /// Whatever a built-in module can do, an external one can: the ledger as a module process
  /// moves through a scenario's steps to the same frames and the same words.
  @Test func aModuleProcessTravelsAsTheBuiltInDoes() {
    let process = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "ledger-module-process"
    let input = Array("frame\ntravel back 3\nframe\ntravel forward 2\nframe\ntravel steps\n".utf8)
    let file = repositoryRoot() + "/Scenarios/ledger/money.yaml:13"
    let builtIn = ChildProcess.runWorkbench(["run", file, "--shell"], input: input)
    let external = ChildProcess.runWorkbench(
      ["--without-builtin", "ledger", "run", file, "--shell", "-m", process], input: input)
    #expect(builtIn.status == 0 && external.status == 0, "\(builtIn.stderr)\(external.stderr)")
    #expect(builtIn.stdout.contains("at step 1 of 7: do: network fail 1"), "\(builtIn.stdout)")
    #expect(Self.frames(in: builtIn.stdout).count == 3, "\(builtIn.stdout)")
    #expect(external.stdout == builtIn.stdout)
  }

  /// Where time travel does not work, it says why and what works instead.
  @Test func outsideTheShellTimeTravelSaysWhere() throws {
    let oneShot = ChildProcess.runWorkbench(["-w", ":memory:", "-c", "open catalog library; travel back"])
    #expect(oneShot.status == 1)
    #expect(oneShot.stderr.contains("time travel works in the shell"), "\(oneShot.stderr)")
    // A scenario keeps its steps, and travels: back from where it started there is nowhere to go.
    let path = makeTemporaryFolder() + "/travel.yaml"
    writeTextFile(
      "scenario: travel in a scenario\nwindows:\n  left: catalog library\nsteps:\n  - do: travel back\n", to: path)
    let run = ChildProcess.runWorkbench(["run", path])
    #expect(run.status == 1)
    #expect(run.stdout.contains("travel.yaml:5:9: do: travel back"), "\(run.stdout)")
    #expect(run.stdout.contains("the session is at step 0: `travel to 0` goes to where it started"), "\(run.stdout)")
    let directory = ChildProcess.runWorkbench(["run", makeTemporaryFolder(), "--shell"])
    #expect(directory.status == 2)
    #expect(directory.stderr.contains("name one scenario file"), "\(directory.stderr)")
  }
}
