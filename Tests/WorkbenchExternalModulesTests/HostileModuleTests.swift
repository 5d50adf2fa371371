import Testing
import WorkbenchSystem
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Modules that misbehave after their handshake: they exit while idle, stop reading, send a
/// malformed commit, fork, or never introduce themselves. The host is started with SIGPIPE at
/// its default disposition (as from a login shell), so a write to a dead module would kill it.
@Suite struct HostileModuleTests {
  var fixture: String {
    String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
  }

  private func run(_ commands: String, mode: String, extra: [String] = []) -> ProcessResult {
    ChildProcess.runWorkbench(
      ["-w", ":memory:", "--module", fixture, "--keep-going"] + extra, input: Array((commands + "\n").utf8),
      environment: ["WORKBENCH_FIXTURE": mode])
  }

  @Test func aModuleThatClosedItsInputIsStoppedNotAFatalSignal() {
    // The first poke closes the module's end of the request pipe; the second request meets EPIPE.
    let result = run("open tally pokes t\nopen catalog library c\n@t poke\n@t poke\nwindows", mode: "close-input")
    #expect(result.status == 1, "a SIGPIPE death is 141: \(result.status) \(result.stderr)")
    // Closing its input ends the module's loop: it exits, and the stop says so (noticed as the
    // next request is written, or as it is about to be: whichever comes first).
    #expect(result.stderr.contains("the module fixture stopped"), "\(result.stderr)")
    #expect(result.stderr.contains("it exited with status 0"), "\(result.stderr)")
    #expect(result.stdout.contains("* [2 c] catalog library"))
  }

  /// A Swift-kit module writes its reply without looking first, so a host that has gone must be
  /// EPIPE to it, not SIGPIPE: the module ends its loop and exits 0 instead of dying of the
  /// signal (the kit catches SIGPIPE with a handler that does nothing).
  @Test func aModuleWhoseHostHasGoneExitsRatherThanDyingOfSIGPIPE() throws {
    let module = try SpawnedProcess(fixture, input: .pipe, output: .pipe, error: .null)
    // Its hello, whole: then the host "goes", and a request arrives that it must answer.
    var hello: [UInt8] = []
    while hello.count < 4
      || hello.count < 4 + (Int(hello[0]) << 24 | Int(hello[1]) << 16 | Int(hello[2]) << 8 | Int(hello[3]))
    {
      hello += try #require(module.readOutput(), "the module closed its output before its hello")
    }
    module.closeOutput()
    let request = Array(#"{"type":"sync","id":1}"#.utf8)
    #expect(module.write([0, 0, 0, UInt8(request.count)] + request))
    #expect(module.wait(upTo: 10_000) == .exited(0))
    if module.ended() == nil { module.signal(SIGKILL) }
  }

  /// What the kit does about SIGPIPE stays in the module: a program the module starts (here with
  /// a bare `posix_spawn`, nothing reset) still dies of the signal when it writes to a pipe whose
  /// reader has gone, as it would from a login shell.
  @Test func aProgramAModuleStartsStillGetsSIGPIPE() {
    let result = run("open tally pokes t\n@t poke", mode: "pipe-child")
    #expect(result.stdout.contains("the child ended by signal \(SIGPIPE)"), "\(result.stdout)\(result.stderr)")
  }

  @Test func aModuleThatStopsReadingCannotBlockTheHost() {
    // The module answers one command and then never reads again; the next request is larger
    // than a pipe's buffer, so a blocking write would wait forever.
    let big = String(repeating: "x", count: 300_000)
    let started = monotonicMilliseconds()
    let result = run("open tally pokes t\n@t poke\n@t label \(big)\nwindows", mode: "deaf")
    #expect(result.status == 1, "\(result.stderr.prefix(500))")
    #expect(
      result.stderr.contains("the module fixture stopped while running `label`: it did not answer within 3000 ms"))
    #expect(result.stdout.contains("no windows are open"))
    #expect(monotonicMilliseconds() - started < 20_000)
  }

  @Test func aMalformedCommitIsAProtocolErrorNotASilentSuccess() {
    let result = run("open tally pokes t\n@t poke\ndocuments", mode: "bad-commit")
    #expect(result.status == 1)
    #expect(
      result.stderr.contains("the module fixture stopped: it sent a malformed reply: its `commit` was not valid JSON"),
      "\(result.stderr)")
    #expect(result.stdout.contains("pokes  tally  revision 1"))  // nothing was committed
  }

  /// One reply per request: a second message (or one nobody asked for) stops the module before
  /// it can be read as the next command's reply, which would put every later frame and commit
  /// one command late. The second message comes right behind the first (`twice`), or between the
  /// host's lines (`twice-late`, with the input paused there): either way the stop is said once,
  /// at the command it failed, and the next line (`documents`) runs.
  @Test(arguments: ["twice", "twice-late"])
  func aModuleThatAnswersTwiceIsStoppedBeforeTheStreamSlips(mode: String) {
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:", "--module", fixture, "--keep-going"],
      pieces: ["open tally pokes t\n@t poke\n", "@t poke\n", "documents\n"], pause: 300,
      environment: ["WORKBENCH_FIXTURE": mode])
    #expect(result.status == 1, "\(result.stderr)")
    #expect(result.stderr.contains("the module fixture stopped"), "\(result.stderr)")
    #expect(
      result.stderr.contains("it answered `command` with more than one message")
        || result.stderr.contains("it sent a message nobody asked for")
        || result.stderr.contains("with the reply to request 2"), "\(result.stderr)")
    #expect(result.stderr.ranges(of: "the module fixture stopped").count == 1, "said once: \(result.stderr)")
    #expect(!result.stderr.contains("<stdin>:4:"), "`documents` is not blamed: \(result.stderr)")
    // The early reply's frame was never shown as a poke's, and no poke was committed twice.
    #expect(
      result.stdout.contains("pokes  tally  revision 1") || result.stdout.contains("pokes  tally  revision 2"),
      "\(result.stdout)\n\(result.stderr)")
    #expect(!result.stdout.contains("pokes  tally  revision 3"), "\(result.stdout)")
  }

  @Test(arguments: [
    ("ok-reply", "a `result` or an `error` for `command`, got `ok`"),
    ("no-frame", "`frame` as an object"),
    ("bad-facts", "`facts` as a list of {source, value} objects"),
    ("wrong-id", "it answered request 2 (`command`) with the reply to request 999"),
  ])
  func aReplyOfTheWrongKindIsAViolation(mode: String, message: String) {
    let result = run("open tally pokes t\n@t poke\nwindows", mode: mode)
    #expect(result.status == 1, "\(result.stderr)")
    #expect(result.stderr.contains("the module fixture stopped while running `poke`"), "\(result.stderr)")
    #expect(result.stderr.contains(message), "\(result.stderr)")
    #expect(result.stdout.contains("no windows are open"), "\(result.stdout)")
  }

  /// A module that prints without end fills at most two capped log files, and goes on working.
  @Test func aModuleLogIsCappedAndRotated() throws {
    let state = makeTemporaryFolder()
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:", "--module", fixture, "--keep-going"],
      input: Array("open tally pokes t\n@t poke\n@t poke\nframe t\n".utf8),
      environment: ["WORKBENCH_FIXTURE": "loud", "XDG_STATE_HOME": state])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("pokes: 2"), "\(result.stdout)")
    let log = state + "/workbench/modules/workbench-fixture-module.log"
    var sizes: [Int] = []
    for file in [log, log + ".1"] {
      var info = stat()
      #expect(stat(file, &info) == 0, "\(file) is missing")
      sizes.append(Int(info.st_size))
    }
    #expect(sizes.allSatisfy { $0 <= 1024 * 1024 }, "\(sizes)")
    #expect(sizes.reduce(0, +) >= 1024 * 1024, "the log kept too little: \(sizes)")
  }

  @Test func whatAModuleStartedEndsWithIt() throws {
    let state = makeTemporaryFolder()
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:", "--module", fixture, "--keep-going"], input: Array("open tally pokes t\n@t poke\n".utf8),
      environment: ["WORKBENCH_FIXTURE": "fork", "XDG_STATE_HOME": state])
    #expect(result.status == 0, "\(result.stderr)")
    let printed = readTextFile(state + "/workbench/modules/workbench-fixture-module.log") ?? ""
    let line = try #require(printed.split(separator: "\n").first { $0.hasPrefix("grandchild ") })
    let pid = try #require(pid_t(line.dropFirst("grandchild ".count)))
    // Reaped by init or a zombie for a moment; either way not sleeping on with the pipes.
    #expect(processEnds(pid), "the module's child \(pid) outlived the host")
  }

  @Test func aNamedModuleThatNeverIntroducesItselfFailsTheRun() {
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:", "-m", fixture, "-c", "documents"], environment: ["WORKBENCH_FIXTURE": "silent"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("the module \(fixture) did not start: it did not introduce itself"))
    #expect(!result.stdout.contains("library"))
  }

  /// A module that dies as it starts (a Python syntax error, a missing library) is shown with
  /// how it ended and the last of what it printed, not only that the connection closed.
  @Test func aModuleThatDiesAtStartShowsTheEndOfItsLog() {
    let folder = makeTemporaryFolder()
    let module = folder + "/broken-module"
    writeTextFile(
      "#!/bin/sh\necho 'loading the phrase module' >&2\necho 'Traceback: SyntaxError: invalid syntax' >&2\nexit 3\n",
      to: module)
    chmod(module, 0o755)
    let result = ChildProcess.runWorkbench(["-w", ":memory:", "-m", module, "-c", "documents"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("the module \(module) did not start: it exited with status 3."), "\(result.stderr)")
    #expect(result.stderr.contains("The last of what it printed ("), "\(result.stderr)")
    #expect(result.stderr.contains("\n    loading the phrase module\n    Traceback: SyntaxError: invalid syntax"))
  }
}

/// Whatever ends the program a user or CI starts (SIGTERM, SIGHUP, Ctrl-C), the module
/// processes it started end with it, and what they started: `run` (in one process and with
/// workers), `explore` (the same) and a script in the shell. Before, the handler that ends
/// module process groups was installed in workers only: 1 of 2, 4 of 5 and 8 of 9 were still
/// running 2.5 s later, reparented to init.
struct EndedBySignalTests {
  var fixture: String {
    String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
  }

  /// Whether `pid` runs: it exists and is not a zombie (one whose parent has gone may wait for
  /// init to collect it).
  static func runs(_ pid: pid_t) -> Bool {
    guard let stat = readTextFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return false }
    return !stat[stat.index(after: close)...].hasPrefix(" Z")
  }

  static let cases: [(arguments: [String], modules: Int)] = [
    (["run"], 1), (["run", "-j", "2"], 2), (["explore", "--screens", "tally", "--runs", "20"], 1),
    (["explore", "--screens", "tally", "--runs", "20", "--jobs", "2"], 2), (["-w", ":memory:", "-c"], 1),
  ]

  @Test(arguments: [SIGTERM, SIGHUP, SIGINT])
  func theModuleProcessesARunStartedEndWithIt(signal: Int32) throws {
    let folder = makeTemporaryFolder()
    for index in 1...2 {
      writeTextFile(
        "scenario: hangs \(index)\nwindows:\n  t: tally pokes\nsteps:\n  - t: poke\n", to: folder + "/s\(index).yaml")
    }
    for (arguments, modules) in Self.cases {
      let pids = folder + "/pids-\(signal)-\(arguments.joined(separator: "_"))"
      var words = arguments.first == "-w" ? ["-m", fixture] + arguments : arguments + ["-m", fixture]
      words.append(arguments.first == "run" ? folder : arguments.first == "-w" ? "open tally pokes t; poke" : "--seed")
      if arguments.first == "explore" { words.append("3") }
      let environment = ChildProcess.environment(
        ChildProcess.isolated(["WORKBENCH_FIXTURE": "fork-hang", "WORKBENCH_FIXTURE_PID_FILE": pids]))
      // Started as from a terminal, the signals at their defaults (a test runner in the
      // background may have SIGINT ignored, which the program would keep).
      let program = try SpawnedProcess(
        ChildProcess.workbenchPath, arguments: words, environment: environment, output: .null, error: .null,
        defaultSignals: [SIGPIPE, SIGINT, SIGTERM, SIGHUP])
      // Each module process and the program it started are running, stuck in a request.
      var started: [pid_t] = []
      for _ in 0..<400 where started.count < 2 * modules {
        usleep(25_000)
        started = (readTextFile(pids) ?? "").split(separator: "\n").compactMap { pid_t($0) }
      }
      #expect(started.count >= 2 * modules, "\(words): \(started)")
      program.signal(signal)
      let ended = program.wait()
      #expect(ended == .signalled(signal), "\(words): \(ended)")
      // (A worker may have started more by the time it heard the signal.)
      var running = (readTextFile(pids) ?? "").split(separator: "\n").compactMap { pid_t($0) }
      for _ in 0..<100 where !running.isEmpty {
        usleep(25_000)
        running = running.filter(Self.runs)
      }
      #expect(running.isEmpty, "\(words) ended by signal \(signal) left \(running) running")
      for pid in running { kill(pid, SIGKILL) }
    }
  }
}
