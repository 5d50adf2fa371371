import Testing
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Recording a session and replaying it: the recording keeps what the replay needs (documents
/// with revisions, windows with their view state, the real time that passed, the external facts
/// the effects used), so the replay passes every time, in any order.
@Suite(.serialized) struct RecordingTests {
  static func pause(_ milliseconds: Int) { usleep(useconds_t(milliseconds * 1000)) }

  /// Runs a recording `times` times with `jobs` workers; returns the runner's output when it
  /// did not pass every time.
  static func replayProblems(_ file: String, times: Int = 10, jobs: Int = 1) -> String? {
    let run = ChildProcess.runWorkbench(["run", "--repeat", String(times), "-j", String(jobs), file])
    if run.status == 0, run.stdout.contains("\(times) passed, 0 failed") { return nil }
    return run.stdout + run.stderr
  }

  /// A person at the terminal touches all five modules while real time passes: a load and a
  /// search finish in real time, a light is detected, a draft conflicts with another window's
  /// save, a relaunch happens. The recording replays ten times in a row with one worker and
  /// with two.
  /// A recording made with `--rows 8` keeps the rows its frames were made with (`rows: 8`), so
  /// it passes its own replay (it failed: `rows expected: 8 items … actual: 20`).
  @Test func aRecordingKeepsTheRowsItWasMadeWith() throws {
    let folder = makeTemporaryFolder()
    let file = folder + "/rows.yaml"
    let recorded = ChildProcess.runWorkbench(
      ["-w", ":memory:", "--rows", "8"],
      input: Array("open catalog library main\nrecord start \(file)\nquery o\nrecord stop\n".utf8))
    #expect(recorded.status == 0, "\(recorded.stderr)")
    let text = try #require(readTextFile(file))
    #expect(text.contains("\nrows: 8\n"), "\(text)")
    let replayed = ChildProcess.runWorkbench(["run", file])
    #expect(replayed.status == 0, "\(replayed.stdout)")
  }

  /// A recording's expectations check what changed in a row, not only which rows there are:
  /// after `rename 3 …` the row is expected with its new title (`{id: 3, title: …}`, the others
  /// by id), so the same file without the rename fails its replay (it passed: `rows: [1, 2, 3…]`).
  /// So too in a window opened while recording, compared with what it showed as it opened (its
  /// rows were written as ids alone, and the file passed without the rename).
  @Test(arguments: [
    "open catalog library main\nrecord start FILE\n", "record start FILE\nopen catalog library main\n",
  ])
  func aRecordingChecksWhatChangedInARow(opening: String) throws {
    let folder = makeTemporaryFolder()
    let file = folder + "/renamed.yaml"
    let recorded = ChildProcess.runWorkbench(
      ["-w", ":memory:"],
      input: Array((opening.replacing("FILE", with: file) + "rename 3 \"A new title\"\nrecord stop\n").utf8))
    #expect(recorded.status == 0, "\(recorded.stderr)")
    let text = try #require(readTextFile(file))
    #expect(text.contains("{id: 3, title: A new title}"), "\(text)")
    #expect(ChildProcess.runWorkbench(["run", file]).status == 0)
    writeTextFile(text.replacing("  - main: rename 3 A new title\n", with: ""), to: folder + "/unrenamed.yaml")
    let without = ChildProcess.runWorkbench(["run", folder + "/unrenamed.yaml"])
    #expect(without.status == 1, "\(without.stdout)")
    #expect(without.stdout.contains("rows[2].title"), "\(without.stdout)")
  }

  @Test func anInteractiveSessionWithRealTimeReplays() throws {
    let folder = makeTemporaryFolder()
    let file = folder + "/session.yaml"
    let session = try #require(PseudoTerminalSession(environment: InteractiveShellTests.environment(folder)))
    #expect(session.waitFor("workbench> "))
    func run(_ line: String, until prompt: String) {
      let mark = session.transcript.count
      session.type(line + "\r")
      #expect(session.waitFor(prompt, after: mark + line.utf8.count), "after \(line)")
    }
    // Before recording: a selection, a saved edit (the notes move to revision 2) and a draft.
    run("open catalog library left", until: "left catalog:library> ")
    run("select 3", until: "left catalog:library> ")
    run("open editor notes e0", until: "e0 editor:notes> ")
    run("replace 1 saved before recording", until: "e0 editor:notes> ")
    run("save", until: "e0 editor:notes> ")
    run("close e0", until: "left catalog:library> ")
    run("open editor notes e1", until: "e1 editor:notes> ")
    run("append a draft from before", until: "e1 editor:notes> ")
    run("record start \(file)", until: "e1 editor:notes> ")

    run("open feed account f", until: "f feed:account> ")
    #expect(session.waitFor("feed · loaded"))
    run("search rent", until: "f feed:account> ")
    Self.pause(700)  // the debounce and the load finish in real time
    run("open home home h", until: "h home:home> ")
    run("enter living r", until: "r room:home> ")
    run("detect", until: "r room:home> ")
    Self.pause(2300)  // the bridge finds a light
    run("open editor notes e2", until: "e2 editor:notes> ")
    run("replace 2 a change saved first", until: "e2 editor:notes> ")
    run("save", until: "e2 editor:notes> ")
    run("@e1 save", until: "e2 editor:notes> ")  // conflicts: the document moved on
    run("open goal reading g", until: "g goal:reading> ")
    run("complete", until: "g goal:reading> ")
    run("relaunch", until: "g goal:reading> ")
    Self.pause(500)  // the restored feed loads again
    run("@left query the", until: "g goal:reading> ")
    let mark = session.transcript.count
    session.type("record stop\r")
    #expect(session.waitFor("wrote \(file)", after: mark))
    session.type("quit discard\r")
    #expect(session.exitStatus() == 0)

    let recorded = try #require(readTextFile(file))
    for part in [
      "clock advance", "network.answer", "bridge.detected: [{asked: {room: living}, answer: New light 6}]",
      "bridge.state", "\n    revision: 2\n",
      "fails: 'not saved: the document moved to revision", "do: relaunch", "a draft from before",
    ] {
      #expect(recorded.contains(part), "the recording lacks \(part):\n\(recorded)")
    }
    #expect(!recorded.contains("session-token"), "a secret reached the recording")
    #expect(Self.replayProblems(file, jobs: 1) == nil)
    #expect(Self.replayProblems(file, jobs: 2) == nil)
  }

  /// Recording starts in the middle of a busy session: windows opened and closed, drafts, an
  /// earlier error's message, the network offline, a light being detected, two relaunches.
  @Test func recordingInTheMiddleOfABusySessionReplays() throws {
    let folder = makeTemporaryFolder()
    let file = folder + "/busy.yaml"
    let before = """
      open catalog library a
      open catalog library b
      close a
      open goal reading g
      target 30
      complete
      open goal reading g2
      target 1
      open editor notes e
      append kept as a draft
      relaunch
      open feed account f
      network offline
      retry
      open home home h
      enter kitchen k
      detect
      relaunch
      @f search rent
      """
    let during = """
      record start \(file)
      @f network online
      @f retry
      open catalog library c
      @g2 save
      @g complete
      """
    let script = before + "\n" + during
    var input: [UInt8] = []
    for line in script.split(separator: "\n") { input += Array((line + "\n").utf8) }
    // Lines reach the shell at once; `settle` lets the feed's retry finish in real time.
    input += Array("settle\n@e append and more\nrecord stop\nquit discard\n".utf8)
    let shell = ChildProcess.runWorkbench(["--keep-going", "-q"], input: input)
    #expect(shell.stdout.contains("wrote \(file)"), "\(shell.stdout)\n\(shell.stderr)")
    let recorded = try #require(readTextFile(file))
    #expect(recorded.contains("number: 2"), "window a was closed before recording: \(recorded)")
    #expect(recorded.contains("kept as a draft"))
    #expect(recorded.contains("network.state"))
    #expect(Self.replayProblems(file, times: 5, jobs: 2) == nil)
  }

  /// Facts are keyed by window: two feeds loading at once each get their own answers back, and
  /// a replay that asks for other facts than the recording has names the first one.
  @Test func factsBelongToTheirWindowAndADivergenceIsNamed() throws {
    let folder = makeTemporaryFolder()
    let file = folder + "/two.yaml"
    let input = """
      record start \(file)
      open feed account one
      open feed account two
      @one search rent
      @two search coffee
      settle
      record stop
      """
    let shell = ChildProcess.runWorkbench(["-q"], input: Array((input + "\n").utf8))
    #expect(shell.status == 0, "\(shell.stderr)")
    let recorded = try #require(readTextFile(file))
    #expect(recorded.contains("window 1:") && recorded.contains("window 2:"), "\(recorded)")
    #expect(Self.replayProblems(file, times: 3) == nil)

    // Swapping the windows' answers gives each window answers to the other's questions: the
    // replay stops at the step that asks, naming both questions.
    let swapped = recorded.replacing("window 1:", with: "window 9:").replacing("window 2:", with: "window 1:")
      .replacing("window 9:", with: "window 2:")
    writeTextFile(swapped, to: folder + "/swapped.yaml")
    let swappedRun = ChildProcess.runWorkbench(["run", folder + "/swapped.yaml"])
    // (Which comes first depends on whether the windows' first loads, with no search yet, were
    // answered before the searches replaced them: the recording ran on real time. When they
    // were, those answers fit either window, and the expectation catches the searches'.)
    #expect(swappedRun.status == 1)
    #expect(
      swappedRun.stdout.contains(
        #"of window 1 for {"query":"rent"}, and the recording answered it for {"query":"coffee"}"#)
        || swappedRun.stdout.contains(
          #"of window 1 for {"query":""}, and the recording answered it for {"query":"coffee"}"#)
        || swappedRun.stdout.contains("the frames do not match"),
      "\(swappedRun.stdout)")

    // Swapping the two searches' steps keeps each window's questions: it still replays.
    let reordered = recorded.replacing(
      "  - one: search rent\n  - two: search coffee\n", with: "  - two: search coffee\n  - one: search rent\n")
    #expect(reordered != recorded)
    writeTextFile(reordered, to: folder + "/reordered.yaml")
    #expect(Self.replayProblems(folder + "/reordered.yaml", times: 2) == nil)

    // One more command than the recording: the replay asks for an answer it does not have.
    let extra = recorded.replacing("  - expect:", with: "  - one: refresh\n  - do: settle\n  - expect:")
    writeTextFile(extra, to: folder + "/extra.yaml")
    let extraRun = ChildProcess.runWorkbench(["run", folder + "/extra.yaml"])
    #expect(extraRun.status == 1)
    #expect(
      extraRun.stdout.contains(
        "the replay diverged from its recording: the replay asked for network.latency #3 of window 1"),
      "\(extraRun.stdout)")

    // One command fewer (and no expectation): window 2 never asks the search's question. Either
    // its first load (which the search cancelled while recording) now asks for an answer the
    // recording holds for the search, or the search's answers are left over; both are named.
    let fewer = String(recorded.split(separator: "  - expect:", maxSplits: 1)[0]).replacing(
      "  - two: search coffee\n", with: "")
    writeTextFile(fewer, to: folder + "/fewer.yaml")
    let fewerRun = ChildProcess.runWorkbench(["run", folder + "/fewer.yaml"])
    #expect(fewerRun.status == 1)
    #expect(
      fewerRun.stdout.contains(#"for {"query":""}, and the recording answered it for {"query":"coffee"}"#)
        || fewerRun.stdout.contains(#"which the replay never asked for: {"asked":{"query":"coffee"}"#),
      "\(fewerRun.stdout)")

    // The last step dropped: a recorded answer is left over.
    let shorter = String(recorded.split(separator: "  - expect:", maxSplits: 1)[0]).replacing(
      "  - do: settle\n", with: "")
    writeTextFile(shorter, to: folder + "/shorter.yaml")
    let shorterRun = ChildProcess.runWorkbench(["run", folder + "/shorter.yaml"])
    #expect(shorterRun.status == 1)
    #expect(shorterRun.stdout.contains("which the replay never asked for"), "\(shorterRun.stdout)")
  }

  /// The edit the trust issue found: a recorded search for "rent", edited to "coffee" with the
  /// query dropped from the expectation, used to pass on the answer for "rent". The answer
  /// belongs to the question: the step that asks something else fails at its place, naming the
  /// recorded question and the new one.
  @Test func aRecordedAnswerIsServedOnlyToItsQuestion() throws {
    let folder = makeTemporaryFolder()
    let file = folder + "/rent.yaml"
    let shell = ChildProcess.runWorkbench([
      "-q", "-w", ":memory:", "-c", "record start \(file); open feed account f; search rent; settle; record stop",
    ])
    #expect(shell.status == 0, "\(shell.stderr)")
    let recorded = try #require(readTextFile(file))
    #expect(Self.replayProblems(file, times: 1) == nil)
    let lines = recorded.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let searchLine = try #require(lines.firstIndex { $0.hasSuffix("f: search rent") })
    var edited = lines.map { $0.replacing("f: search rent", with: "f: search coffee") }
    edited.removeAll { $0.trimmingPrefix(" ").hasPrefix("query:") }
    writeTextFile(edited.joined(separator: "\n"), to: folder + "/coffee.yaml")
    let run = ChildProcess.runWorkbench(["run", folder + "/coffee.yaml"])
    #expect(run.status == 1, "\(run.stdout)")
    #expect(run.stdout.contains("coffee.yaml:\(searchLine + 1):"), "\(run.stdout)")
    #expect(
      run.stdout.contains(#"for {"query":"coffee"}, and the recording answered it for {"query":"rent"}"#),
      "\(run.stdout)")
  }

  /// A host command run in a named window that is not the focused one (`@1 undo view` with
  /// window 2 focused) is recorded in that window: written as `do: undo view` it undid window 2's
  /// view on the replay, and the recording failed its own expectation. (Time travel replays the
  /// same way: `workbench explore` found it there.)
  @Test func aHostCommandInANamedWindowReplaysThere() throws {
    let folder = makeTemporaryFolder()
    let file = folder + "/undo.yaml"
    let shell = ChildProcess.runWorkbench([
      "-q", "-w", ":memory:", "-c",
      "record start \(file); open editor notes; open editor notes; @1 title x; @1 undo view; record stop",
    ])
    #expect(shell.status == 0, "\(shell.stderr)")
    let recorded = try #require(readTextFile(file))
    #expect(recorded.contains("  - '1': undo view\n"), "\(recorded)")
    #expect(Self.replayProblems(file, times: 1) == nil, "\(recorded)")
  }

  /// A document too big to read inline goes to a data file beside the recording; text beyond
  /// ASCII stays readable.
  @Test func aBigDocumentGoesToADataFile() throws {
    let folder = makeTemporaryFolder()
    let file = folder + "/big.yaml"
    let long = String(repeating: "a long line of notes ", count: 120)
    let shell = ChildProcess.runWorkbench([
      "-q", "-c",
      "open editor notes e; append '\(long)'; save; open catalog library c; rename 3 'Gödel, Escher, Bach 2'; "
        + "record start \(file); @e append more; @c select 3; record stop; quit discard",
    ])
    #expect(shell.status == 0, "\(shell.stderr)")
    let recorded = try #require(readTextFile(file))
    #expect(recorded.contains("    file: big.data/notes.json"), "\(recorded)")
    #expect(readTextFile(folder + "/big.data/notes.json")?.contains(long) == true)
    #expect(recorded.contains("- {id: 3, title: 'Gödel, Escher, Bach 2'}"), "\(recorded)")
    #expect(recorded.contains("- {id: 19, title: Война и мир}"), "\(recorded)")
    #expect(Self.replayProblems(file, times: 2) == nil)
    // They copy the workspace's documents, so they are as private as the workspace.
    for made in [file, folder + "/big.data/notes.json", folder + "/big.data"] {
      var info = stat()
      #expect(stat(made, &info) == 0)
      #expect(info.st_mode & 0o077 == 0, "\(made) is readable by others: \(String(info.st_mode & 0o777, radix: 8))")
    }
  }

  /// Text YAML could read as something else (a bool, a number, a comment, a mapping) comes
  /// back from the recording as the same text: the lines are in the recorded document, and the
  /// expectation (a line added while recording) lists every line, so the replay compares them.
  @Test func awkwardTextRoundTripsThroughTheRecording() throws {
    let folder = makeTemporaryFolder()
    let file = folder + "/awkward.yaml"
    let texts = [
      "yes", "null", "1e5", "0x1F", "300ms", "- dash", "#hash", "a: b", "it's", "\"quoted\"", "[list]", "{map}",
      "trailing ", " leading", "Café, au lait", "@at", "100%", "~", "Война и мир", "tab\there",
    ]
    var lines = ["open editor notes e"]
    for text in texts {
      lines.append("append \"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\"")
    }
    lines += ["save", "record start \(file)", "append end", "save", "record stop"]
    let shell = ChildProcess.runWorkbench(["-q"], input: Array((lines.joined(separator: "\n") + "\n").utf8))
    #expect(shell.status == 0, "\(shell.stderr)")
    let recorded = try #require(readTextFile(file))
    #expect(recorded.contains("documentRevision: 3"), "\(recorded)")
    #expect(Self.replayProblems(file, times: 1) == nil, "\(recorded)")
    // The comparison is real: a recording whose document lost a line's trailing space fails.
    let altered = recorded.replacing("- 'trailing '", with: "- trailing")
    #expect(altered != recorded, "\(recorded)")
    writeTextFile(altered, to: folder + "/altered.yaml")
    #expect(ChildProcess.runWorkbench(["run", folder + "/altered.yaml"]).status == 1)
  }

  /// An external module's facts are recorded and replayed too: the module reports the facts
  /// its effects used, and a replay sends them back for it to use instead of live ones.
  /// Records `steps` in a tally window of the fixture module while its scale reads 17: the
  /// file and what was written.
  private func recordWithTheFixture(_ steps: String) throws -> (file: String, text: String) {
    let file = makeTemporaryFolder() + "/recorded.yaml"
    let shell = ChildProcess.runWorkbench(
      ["-q", "--module", fixture, "-c", "open tally pokes t; record start \(file); \(steps); record stop"],
      environment: ["WORKBENCH_FIXTURE_SCALE": "17"])
    #expect(shell.status == 0, "\(shell.stderr)")
    return (file, try #require(readTextFile(file)))
  }

  /// Runs a recording against the fixture module, its scale reading 99 now.
  private func replayWithTheFixture(_ file: String) -> ProcessResult {
    ChildProcess.runWorkbench(["--module", fixture, "run", file], environment: ["WORKBENCH_FIXTURE_SCALE": "99"])
  }

  private var fixture: String {
    String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
  }

  @Test func anExternalModulesFactsAreRecordedAndReplayed() throws {
    let (file, recorded) = try recordWithTheFixture("weigh; poke; weigh")
    #expect(recorded.contains("scale.reading: [17, 17]"), "\(recorded)")
    #expect(recorded.contains("label: weighed 17"), "\(recorded)")
    // The scale reads 99 now: the replay still sees the recorded 17.
    let replay = replayWithTheFixture(file)
    #expect(replay.status == 0, "\(replay.stdout)")
    // A recording that says the scale read 18 replays as 18, so its expectation fails.
    writeTextFile(recorded.replacing("scale.reading: [17, 17]", with: "scale.reading: [17, 18]"), to: file)
    let changed = replayWithTheFixture(file)
    #expect(changed.status == 1)
    #expect(changed.stdout.contains("weighed 18"), "\(changed.stdout)")
    // One more reading than recorded: the module's divergence is named.
    writeTextFile(recorded.replacing("  - expect:", with: "  - t: weigh\n  - expect:"), to: file)
    let extra = replayWithTheFixture(file)
    #expect(extra.status == 1)
    #expect(
      extra.stdout.contains("window 1: the module asked for more scale.reading facts than the recording has left"),
      "\(extra.stdout)")
  }

  /// An external module's fact that answers a question (`weigh lb` asks the scale in pounds)
  /// is recorded with it through the protocol (`asked`), and a replay whose step asks another
  /// question fails there, naming both, as for a built-in module.
  @Test func anExternalModulesAnswerBelongsToItsQuestion() throws {
    let (file, recorded) = try recordWithTheFixture("weigh lb")
    #expect(recorded.contains("scale.reading: [{asked: {unit: lb}, answer: 17}]"), "\(recorded)")
    let replay = replayWithTheFixture(file)
    #expect(replay.status == 0, "\(replay.stdout)")
    writeTextFile(recorded.replacing("t: weigh lb", with: "t: weigh kg"), to: file)
    let asked = replayWithTheFixture(file)
    #expect(asked.status == 1)
    #expect(
      asked.stdout.contains(
        #"the replay asked scale.reading #1 for {"unit":"kg"}, and the recording answered it for {"unit":"lb"}"#),
      "\(asked.stdout)")
  }

  /// `-c` records too, and a recording from a fresh workspace whose load finished in real time
  /// replays as loaded (the case that used to replay as `loading`).
  @Test func aCommandLineRecordingReplays() throws {
    let folder = makeTemporaryFolder()
    let file = folder + "/c.yaml"
    let shell = ChildProcess.runWorkbench([
      "-q", "-c", "record start \(file); open feed account f; settle; record stop",
    ])
    #expect(shell.status == 0, "\(shell.stderr)")
    let recorded = try #require(readTextFile(file))
    #expect(recorded.contains("state: loaded"), "\(recorded)")
    // The modules' samples, untouched, are the replay's already: none is written out.
    #expect(!recorded.contains("documents:"), "\(recorded)")
    #expect(Self.replayProblems(file, times: 2) == nil)
  }

  /// Lines that only look (`show a b`, `frame`, `windows`, `help`, a `show` that fails) are no
  /// steps of the recording: what they showed is in its expectations.
  @Test func linesThatOnlyLookAreLeftOut() throws {
    let folder = makeTemporaryFolder()
    let file = folder + "/look.yaml"
    let shell = ChildProcess.runWorkbench([
      "-q", "-w", ":memory:", "-c",
      "record start \(file); open catalog library a; open catalog library b; show a b; @a select 2; frame a; windows; "
        + "help; clock; show nope; record stop",
    ])
    let recorded = try #require(readTextFile(file), "\(shell.stderr)")
    let steps = recorded.split(separator: "\n").filter { $0.hasPrefix("  - ") && !$0.hasPrefix("  - expect") }
    #expect(
      steps == ["  - do: open catalog library a", "  - do: open catalog library b", "  - a: select 2"], "\(recorded)")
    #expect(Self.replayProblems(file, times: 1) == nil)
  }

  /// A script cannot be asked about unsaved work, so `close` with a draft fails there: the
  /// recording keeps that step with the refusal as its `fails:` (the session marks the step the
  /// host reported once the front end refuses), and the replay fails the same way.
  @Test func aCloseAScriptRefusesIsRecordedAsFailing() throws {
    let folder = makeTemporaryFolder()
    let file = folder + "/refused.yaml"
    let shell = ChildProcess.runWorkbench([
      "-q", "--keep-going", "-w", ":memory:", "-c",
      "record start \(file); open editor notes e; append a draft; close e; discard; close e; record stop",
    ])
    #expect(shell.stderr.contains("window e has unsaved changes"), "\(shell.stderr)")
    let recorded = try #require(readTextFile(file))
    #expect(recorded.contains("  - do: close e\n    fails: \"window e has unsaved changes"), "\(recorded)")
    #expect(Self.replayProblems(file, times: 1) == nil)
  }

  /// `record start` over a file that exists refuses, saying how to write over it, and leaves the
  /// file as it was; `replace` writes over it; `record stop` says where it wrote and how many
  /// steps and facts.
  @Test func recordingOverAFileAsksToBeToldToReplaceIt() throws {
    let folder = makeTemporaryFolder()
    let file = folder + "/kept.yaml"
    writeTextFile("scenario: someone's\nsteps:\n  - do: documents\n", to: file)
    let refused = ChildProcess.runWorkbench(["-q", "-w", ":memory:", "-c", "record start \(file)"])
    #expect(refused.status != 0)
    #expect(
      refused.stderr.contains("\(file) exists: `record start \(file) replace` writes over it"), "\(refused.stderr)")
    #expect(readTextFile(file) == "scenario: someone's\nsteps:\n  - do: documents\n")
    let replaced = ChildProcess.runWorkbench([
      "-q", "-w", ":memory:", "-c", "record start \(file) replace; open feed account f; settle; record stop",
    ])
    #expect(replaced.status == 0, "\(replaced.stderr)")
    #expect(replaced.stdout.contains("wrote \(file) (4 steps, 3 facts)"), "\(replaced.stdout)")
    #expect(readTextFile(file)?.hasPrefix("scenario: kept\n") == true)
    #expect(Self.replayProblems(file, times: 1) == nil)
  }

  /// A recording starts from whatever the session holds: windows of every module, settled
  /// (their loads done, their counters moved), and a feed whose app session was signed out and
  /// in. Each replays: what it starts from is restored (the network's requests are in its
  /// recorded state, so the replay's set-up loads do not count again) or left out of the
  /// expectation when a replay cannot live it again (the loads a window started in its life).
  @Test func recordingsFromSettledSessionsOfEveryModuleReplay() throws {
    let folder = makeTemporaryFolder()
    let setUps = [
      "catalog": "open catalog library c; select 3; query the",
      "goal": "open goal reading g; complete",
      "editor": "open editor notes e; append a draft",
      "lights": "open home home h; enter living r; detect; settle",
      "feed": "open feed account f; settle",
      "signed out and in": "open feed account f; settle; session sign-out; session sign-in; settle",
    ]
    let actions = [
      "catalog": "@c select 5",
      "goal": "@g complete",
      "editor": "@e append more; @e save",
      "lights": "@r switch 1 toggle; @r detect; settle",
      "feed": "@f search rent; settle",
      "signed out and in": "@f search rent; settle; @f refresh; settle",
    ]
    for (name, setUp) in setUps.sorted(by: { $0.key < $1.key }) {
      let file = folder + "/\(name.replacing(" ", with: "-")).yaml"
      let line = "\(setUp); record start \(file); \(actions[name] ?? ""); record stop; quit discard"
      let shell = ChildProcess.runWorkbench(["-q", "-w", ":memory:", "-c", line])
      #expect(shell.status == 0, "\(name): \(shell.stderr)")
      #expect(Self.replayProblems(file, times: 2) == nil, "\(name) does not replay:\n\(readTextFile(file) ?? "")")
    }
  }
}
