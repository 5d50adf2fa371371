import Testing
import WorkbenchModuleAPI
import WorkbenchTestSupport

@testable import WorkbenchShell

#if canImport(Glibc)
  import Glibc
#endif

/// The ledger and the lights written again in Python on the kit (Examples/ledger,
/// Examples/lights): the proof that a module outside the host can do what the built-ins do. They
/// pass the built-ins' own scenario folders with the built-ins switched off, and show the same
/// frames, text, help and errors.
struct PythonPortsTests {
  let examples = repositoryRoot() + "/Examples"
  var ports: [String] {
    [
      "--without-builtin", "ledger", "--without-builtin", "lights", "-m", examples + "/ledger/ledger.py", "-m",
      examples + "/lights/lights.py",
    ]
  }
  var folders: [String] { [repositoryRoot() + "/Scenarios/ledger", repositoryRoot() + "/Scenarios/lights"] }

  /// The built-ins' own folders, and every scenario of `Scenarios/` with them (the recorded
  /// ones too, whose facts the built-ins made).
  /// Each port's README gives commands that pass as written, run from the repository's root
  /// as the README says (the kit on PYTHONPATH): its scenarios, its module-check, its shell.
  /// (The ledger's said `workbench module-check Examples/ledger/ledger.py` passes; it failed the
  /// names check without `--without-builtin ledger`.)
  @Test(arguments: ["ledger", "lights"])
  func theCommandsAPortsReadmeGivesPassAsWritten(port: String) throws {
    let readme = try #require(readTextFile(examples + "/\(port)/README.md"))
    let blocks = readme.split(separator: "```sh\n").dropFirst().compactMap { $0.split(separator: "```").first }
    let commands = blocks.flatMap { $0.split(separator: "\n") }.map { line in
      String(line.prefix { $0 != "#" }).replacing(/\s+$/, with: "")
    }.filter { $0.hasPrefix("workbench ") }
    #expect(commands.count == 3, "\(commands)")
    for command in commands {
      // Words as a shell splits these (no quotes in them), from the repository's root.
      let words = command.split(separator: " ").dropFirst().map { word in
        word.hasPrefix("Examples/") || word.hasPrefix("Scenarios") ? repositoryRoot() + "/" + word : String(word)
      }
      let result = ChildProcess.runWorkbench(words + (words.contains("run") ? ["-j", "2"] : []))
      #expect(result.status == 0, "\(command): \(result.stdout.suffix(2000))\(result.stderr.suffix(2000))")
    }
  }

  @Test func thePortsPassTheBuiltInsScenarioFolders() {
    let builtIn = ChildProcess.runWorkbench(["run"] + folders)
    let ported = ChildProcess.runWorkbench(["run"] + ports + folders)
    #expect(ported.status == 0, "\(ported.stdout)\(ported.stderr)")
    #expect(ported.stdout.hasSuffix("20 passed, 0 failed\n"), "\(ported.stdout)")
    let everything = ChildProcess.runWorkbench(["run"] + ports + ["--jobs", "2", repositoryRoot() + "/Scenarios"])
    #expect(everything.status == 0, "\(everything.stdout)\(everything.stderr)")
    #expect(everything.stdout.hasSuffix(" passed, 0 failed\n"), "\(everything.stdout)")
    #expect(ported.stdout.split(separator: "\n").last == builtIn.stdout.split(separator: "\n").last)
    let modules = ChildProcess.runWorkbench(ports + ["-w", ":memory:", "-c", "modules"])
    #expect(modules.stdout.contains("(process \(examples)/ledger/ledger.py, protocol 2)"), "\(modules.stdout)")
    #expect(modules.stdout.contains("(process \(examples)/lights/lights.py, protocol 2)"), "\(modules.stdout)")
  }

  /// The traces of both runs (every step's outcome and message, and every frame after it, byte
  /// for byte) are the same but for timings.
  @Test func thePortsShowTheBuiltInsFramesAfterEveryStep() throws {
    let builtIn = makeTemporaryFolder() + "/built-in"
    let ported = makeTemporaryFolder() + "/ported"
    #expect(ChildProcess.runWorkbench(["run"] + folders + ["--trace", builtIn]).status == 0)
    #expect(ChildProcess.runWorkbench(["run"] + ports + folders + ["--trace", ported]).status == 0)
    let names = folderEntries(builtIn)
    #expect(names.count == 21, "\(names)")  // 20 scenarios and the frames
    #expect(folderEntries(ported) == names)
    for name in names {
      let trace = try #require(traceWithoutTimings(ported + "/" + name), "\(name)")
      #expect(trace == traceWithoutTimings(builtIn + "/" + name), "\(name)")
    }
  }

  /// A session in the shell, with errors, help, paging on a one-row window, a relaunch and loads
  /// on real time, prints the same on the ports as on the built-ins.
  @Test(arguments: [
    (
      "lights",
      """
      open home home h
      open preview-home home p
      @h enter living r
      @h enter kitchen k
      @r switch 2 toggle
      @r dim 1 5
      @r page next
      @r page next
      @r page previous
      @h bridge switch 3 on
      @h bridge add kitchen Strip
      @k bridge remove 4
      @k room bedroom
      @k switch 9 on
      @k room bedrom
      @p enter living pr
      @pr switch 1 off
      @pr dim 2 140
      @pr bridge online
      @pr detect
      @h bridge offline
      @r switch 1 on
      @r dim 1 5
      @r detect
      @h bridge online
      @r dim 1 101
      @h enter nowhere
      help enter
      help bridge
      frame h
      frame r
      frame k
      frame p
      frame pr
      relaunch
      frame pr
      frame r
      """
    ),
    (
      "ledger",
      """
      network offline
      open feed account f
      open feed account g
      settle
      frame f
      network online
      @f retry
      @f debounce 200
      @f search rent
      settle
      @f detail 42
      @f dispute start
      @f dispute reason charged twice
      network fail 1
      @f dispute submit
      @f dispute submit
      frame f
      @g link ledger://transaction/44/dispute
      @g link ledger://transaction/4x
      session lock
      @g send 10 r1 Sam Rivera
      session unlock
      @g send 10 r1 Sam Rivera
      @g send 10 r1 Sam Rivera
      @g send 10.5 r2 Jo Prk
      @g back
      @g back
      @g back
      session sign-out
      frame g
      session sign-in
      relaunch
      settle
      frame f
      help network
      help dispute
      """
    ),
  ])
  func aShellSessionOnThePortsPrintsWhatTheBuiltInsPrint(module: String, lines: String) {
    let options = ["-w", ":memory:", "--keep-going", "--rows", "1"]
    let builtIn = ChildProcess.runWorkbench(options, input: Array((lines + "\n").utf8))
    let ported = ChildProcess.runWorkbench(ports + options, input: Array((lines + "\n").utf8))
    // `settle` on real time says how long it waited, which differs by a millisecond or two.
    func shown(_ text: String) -> String { text.replacing(/settled after \d+ms/, with: "settled") }
    #expect(ported.status == builtIn.status)
    #expect(shown(ported.stdout) == shown(builtIn.stdout))
    #expect(ported.stderr == builtIn.stderr)
    #expect(builtIn.stderr.split(separator: "\n").count >= 6, "the session tries errors: \(builtIn.stderr)")
  }

  /// A recording made on the ports replays on them; it keeps the answer that made a command fail
  /// (a dispute the server did not take) and leaves the feed's lifetime counter out of its
  /// expectation, as a built-in's recording does.
  @Test func aRecordingOnThePortsReplaysAndKeepsTheAnswerThatMadeACommandFail() throws {
    let recording = makeTemporaryFolder() + "/dispute.yaml"
    let lines = """
      open feed account f
      record start \(recording)
      search rent
      settle
      network fail 1
      @f detail 42
      dispute start
      dispute reason twice
      dispute submit
      dispute submit
      record stop
      """
    let recorded = ChildProcess.runWorkbench(
      ports + ["-w", ":memory:", "--keep-going"], input: Array((lines + "\n").utf8))
    let text = try #require(readTextFile(recording), "\(recorded.stderr)")
    #expect(text.contains("{asked: {transaction: 42, reason: twice}, answer: the server did not answer}"), "\(text)")
    #expect(text.contains("serverRequests: 3") && !text.contains("fetchesStarted"), "\(text)")
    let replayed = ChildProcess.runWorkbench(["run"] + ports + [recording])
    #expect(replayed.status == 0, "\(replayed.stdout)")
    // Edited so that the failing answer is gone, the replay runs short of answers and says so.
    writeTextFile(
      text.replacing("  - {asked: {transaction: 42, reason: twice}, answer: the server did not answer}\n", with: ""),
      to: recording)
    #expect(ChildProcess.runWorkbench(["run"] + ports + [recording]).status == 1)
  }

  /// A recording started from a settled session (a feed loaded, a light switched at the wall)
  /// keeps the states the network and the bridge were in, whichever implementation runs them:
  /// the built-ins, the same modules as Swift processes (the host asks them with `capture`,
  /// §12), or the Python ports. The three recordings are the same file, and each replays on
  /// all three (the replay's set-up loads do not count as requests again).
  @Test func aRecordingFromASettledSessionIsTheSameAndReplaysOnEveryImplementation() throws {
    let binaries = String(ChildProcess.workbenchPath.dropLast("workbench".count))
    let implementations: [(name: String, options: [String])] = [
      ("builtin", []),
      (
        "swift",
        [
          "--without-builtin", "ledger", "--without-builtin", "lights", "-m", binaries + "ledger-module-process",
          "-m", binaries + "lights-module-process",
        ]
      ),
      ("python", ports),
    ]
    let folder = makeTemporaryFolder()
    var recordings: [String] = []
    for implementation in implementations {
      let file = folder + "/\(implementation.name).yaml"
      let lines = """
        open feed account f
        open home home h
        @h enter kitchen k
        @k bridge switch 3 on
        settle
        record start \(file)
        @f search rent
        settle
        @k switch 4 off
        @k detect
        settle
        record stop
        """
      let recorded = ChildProcess.runWorkbench(
        implementation.options + ["-w", ":memory:"], input: Array((lines + "\n").utf8))
      #expect(recorded.status == 0, "\(implementation.name): \(recorded.stderr)")
      let text = try #require(readTextFile(file), "\(implementation.name)")
      #expect(
        text.contains("network.state: [{online: true, latency: 300ms, failuresToCome: 0, requests: 1}]"), "\(text)")
      #expect(text.contains("{id: 3, name: Counter, 'on': true, brightness: 100}"), "\(text)")
      #expect(text.contains("serverRequests: 2"), "\(text)")
      // The session's time when recording started is measured on the real clock (the settled
      // load's 300 ms, and the moment the next line took): the same to the millisecond only by
      // chance, so it is checked on its own and the rest of the recordings compared.
      let start = try #require(
        text.firstMatch(of: /\nstartsAt: (\d+)ms\n/).flatMap { Int($0.1) }, "\(implementation.name): \(text)")
      #expect((300..<2000).contains(start), "\(implementation.name): \(text)")
      // So is the date the session's clock started at (the wall time each shell started).
      #expect(text.contains(/\ndate: \d{4}-\d{2}-\d{2}T[0-9:.]+Z\n/), "\(implementation.name): \(text)")
      recordings.append(
        text.replacing("scenario: \(implementation.name)\n", with: "").replacing(/startsAt: \d+ms\n/, with: "")
          .replacing(/date: [0-9T:.Z-]+\n/, with: ""))
    }
    #expect(recordings[1] == recordings[0])
    #expect(recordings[2] == recordings[0])
    for implementation in implementations {
      // What the recording started from shows: light 3 was switched on at the wall before it,
      // and one request had reached the server.
      let file = folder + "/\(implementation.name).yaml"
      let text = try #require(readTextFile(file))
      writeTextFile(
        text
          + "  - expect:\n      k: {lights: [{id: 3, on: true}, {id: 4, on: false}, 6]}\n      f: {serverRequests: 2}\n",
        to: file)
    }
    for recorder in implementations {
      for player in implementations {
        let replayed = ChildProcess.runWorkbench(["run"] + player.options + [folder + "/\(recorder.name).yaml"])
        #expect(replayed.status == 0, "recorded on \(recorder.name), replayed on \(player.name): \(replayed.stdout)")
      }
    }
  }

  /// The ledger port's feed asks the network and sets a timer as it opens: explore opens it again
  /// served the answers the session took (`again`, §12) and caught up with its load (`catchUp`,
  /// §14), as the built-in's. A port whose `restored` forgets to load its search again is found
  /// by the rebuild, and the file written is its regression test: it fails on that port and
  /// passes on the sound one and on the built-in.
  @Test func theLedgerPortIsOpenedAgainAndAForgottenReloadIsFound() throws {
    let folder = makeTemporaryFolder()
    let explored = ChildProcess.runWorkbench(
      [
        "--without-builtin", "ledger", "explore", "--module", examples + "/ledger/ledger.py", "--screens", "feed",
        "--seed", "1", "--runs", "30", "--json", "--out", folder + "/sound.yaml",
      ])
    #expect(explored.status == 0, "\(explored.stdout)\(explored.stderr)")
    let summary = try FrameValue.parse(json: Array(explored.stdout.utf8))
    #expect(summary["found"] == .null, "\(explored.stdout)")
    #expect((summary["rebuilds"]?.integerValue ?? 0) > 50, "\(explored.stdout)")
    #expect(summary["endedAtRebuild"] == .integer(0), "\(explored.stdout)")
    #expect(summary["notReopened"] == .list([]), "\(explored.stdout)")

    let port = try #require(readTextFile(examples + "/ledger/ledger.py"))
    let reload = #"if self.window.state.get("query", "") != previous.get("query", "") and self.feed[0] != "idle":"#
    #expect(port.contains(reload))
    let buggy = folder + "/ledger.py"
    writeTextFile(port.replacing(reload, with: "if False:"), to: buggy)
    chmod(buggy, 0o755)
    let file = folder + "/found.yaml"
    let found = ChildProcess.runWorkbench(
      [
        "--without-builtin", "ledger", "explore", "--module", buggy, "--screens", "feed", "--seed", "1", "--runs",
        "30", "--out", file,
      ])
    #expect(found.status == 1, "\(found.stdout)\(found.stderr)")
    #expect(found.stdout.contains("(`reopen`) shows another frame"), "\(found.stdout)")
    let text = try #require(readTextFile(file))
    #expect(text.contains("holds: rebuilt"), "\(text)")
    let onBug = ChildProcess.runWorkbench(["--without-builtin", "ledger", "-m", buggy, "run", file])
    #expect(onBug.status == 1, "\(onBug.stdout)")
    let onPort = ChildProcess.runWorkbench([
      "--without-builtin", "ledger", "-m", examples + "/ledger/ledger.py", "run", file,
    ])
    #expect(onPort.status == 0, "\(onPort.stdout)")
    let onBuiltIn = ChildProcess.runWorkbench(["run", file])
    #expect(onBuiltIn.status == 0, "\(onBuiltIn.stdout)")
  }

  /// Modules with live sources are opened again too: the countdown's device button, the
  /// kettle's sensor (they were never opened again: "its module has live sources").
  @Test(arguments: ["countdown/countdown.py", "kettle/kettle.py"])
  func aModuleWithLiveSourcesIsOpenedAgain(module: String) throws {
    let explored = ChildProcess.runWorkbench(
      [
        "explore", "--module", examples + "/" + module, "--seed", "1", "--runs", "12", "--json", "--out",
        makeTemporaryFolder() + "/f.yaml",
      ])
    #expect(explored.status == 0, "\(explored.stdout)\(explored.stderr)")
    let summary = try FrameValue.parse(json: Array(explored.stdout.utf8))
    #expect(summary["found"] == .null, "\(explored.stdout)")
    #expect((summary["rebuilds"]?.integerValue ?? 0) > 0, "\(explored.stdout)")
    #expect(summary["notReopened"] == .list([]), "\(explored.stdout)")
  }
}
