import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

/// Modules built as their own executables, loaded with `--module`: they work like built-in
/// ones, and one that crashes, hangs or talks nonsense is stopped without taking the host down.
@Suite struct ExternalModuleTests {
  var fixture: String {
    String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
  }

  /// Where the fixture's log goes for runs with `state` as XDG_STATE_HOME.
  func log(in state: String) -> String? { readTextFile(state + "/workbench/modules/workbench-fixture-module.log") }

  private func run(
    _ commands: String, mode: String = "ok", extra: [String] = [], state: String? = nil, protocolVersion: Int? = nil
  ) -> ProcessResult {
    ChildProcess.runWorkbench(
      ["-w", ":memory:", "--module", fixture, "--keep-going"] + extra, input: Array((commands + "\n").utf8),
      environment: [
        "WORKBENCH_FIXTURE": mode, "XDG_STATE_HOME": state ?? makeTemporaryFolder(),
        "WORKBENCH_MODULE_PROTOCOL_OVERRIDE": protocolVersion.map(String.init),
      ])
  }

  /// The kit speaks the newest version the host offers (2); a module made to speak protocol 1
  /// works as it always did.
  @Test(arguments: [1, 2])
  func anExternalModuleWorksLikeABuiltInOne(protocolVersion: Int) {
    let result = run(
      "modules\nopen tally pokes t\npoke 3\nlabel mine\nopen tally pokes u\nhelp poke\ndocuments",
      protocolVersion: protocolVersion == 1 ? 1 : nil)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("fixture 1.0  a module for tests (process \(fixture), protocol \(protocolVersion))"))
    #expect(result.stdout.contains("pokes: 3 (mine)"))  // rendered by the module
    #expect(result.stdout.contains("[2 u] tally pokes · revision 2\npokes: 3 (tally)"))  // the commit reached the host
    #expect(result.stdout.contains("usage: poke [TIMES]"))
    #expect(result.stdout.contains("pokes  tally  revision 2"))
  }

  /// A module's command arrives as the host bound it: by name (protocol 2) with its arguments,
  /// and as a line written from the bound command, so text the tokenizer gives a meaning (`;`,
  /// `#`, quotes) reaches the module as the user typed it under either protocol. (The line once
  /// wrote a rest argument raw, and the module read `x; #y z` as `x`.)
  @Test(arguments: [1, 2])
  func aCommandReachesTheModuleAsBoundNotAsRetypedText(protocolVersion: Int) throws {
    let log = makeTemporaryFolder() + "/protocol.jsonl"
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:", "--module", fixture], input: Array(#"open tally pokes t; label "x; #y" z"#.utf8 + [10]),
      environment: [
        "WORKBENCH_FIXTURE": "ok", "XDG_STATE_HOME": makeTemporaryFolder(), "WORKBENCH_PROTOCOL_LOG": log,
        "WORKBENCH_MODULE_PROTOCOL_OVERRIDE": protocolVersion == 1 ? "1" : nil,
      ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("pokes: 0 (x; #y z)"), "\(result.stdout)")
    var requests: [FrameValue] = []
    for line in (readTextFile(log) ?? "").split(separator: "\n") {
      let entry = try FrameValue.parse(json: Array(line.utf8))
      if entry["from"] == "host", let message = entry["message"], message["type"] == "command" {
        requests.append(message)
      }
    }
    let request = try #require(requests.first, "\(requests)")
    #expect(request["arguments"] == ["text": "x; #y z"])
    #expect(request["line"] == ##"label "x;" "#y" z"##)
    #expect(request["command"] == (protocolVersion == 2 ? "label" : nil), "\(request)")
  }

  /// A command reaches a module process by its spec's path, and a window argument naming one of
  /// the module's windows by that window's key (§5): the kit finds its own window under the key,
  /// though its windows are numbered otherwise than the host's (a catalog window came first here).
  @Test func aWindowArgumentReachesTheModuleByItsKey() throws {
    let log = makeTemporaryFolder() + "/protocol.jsonl"
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:", "--module", fixture],
      input: Array("open catalog library c\nopen tally pokes t\nlabel first\nopen tally pokes u\ncopy t\n".utf8),
      environment: [
        "WORKBENCH_FIXTURE": "ok", "XDG_STATE_HOME": makeTemporaryFolder(), "WORKBENCH_PROTOCOL_LOG": log,
      ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("copied first"), "\(result.stdout)\n\(result.stderr)")
    var copy: FrameValue?
    for line in (readTextFile(log) ?? "").split(separator: "\n") {
      let entry = try FrameValue.parse(json: Array(line.utf8))
      if entry["from"] == "host", let message = entry["message"], message["line"] == "copy t" { copy = message }
    }
    let request = try #require(copy)
    #expect(request["path"] == ["copy"], "\(request)")
    #expect(request["arguments"] == ["from": 2], "\(request)")
    #expect(request["windows"]?["from"]?.stringValue != nil, "\(request)")
  }

  @Test func argumentsAreCheckedByTheHostFromTheHandshake() {
    let result = run("open tally pokes t\npoke 500")
    #expect(result.stderr.contains("TIMES must be between 1 and 100, not 500"))
  }

  /// How a trap ends a module: a signal, or, in a build under a sanitizer (which catches the
  /// signal and reports it), an exit status.
  static func saysItCrashed(_ text: some StringProtocol) -> Bool {
    text.contains("stopped while running `poke`: it crashed (signal ")
      || (ChildProcess.isSanitized && text.contains("stopped while running `poke`: it exited with status "))
  }

  @Test(arguments: [
    ("trap", "it crashed (signal "),
    ("hang", "it did not answer within 3000 ms"),
    ("garbage", "it sent a malformed message"),
  ])
  func aFailingModuleIsStoppedAndTheRestCarriesOn(mode: String, reason: String) {
    let result = run("open tally pokes t\nopen catalog library c\n@t poke\nwindows\n@c select 2", mode: mode)
    #expect(result.status == 1)
    #expect(
      result.stderr.contains("the module fixture stopped while running `poke`: \(reason)")
        || (mode == "trap" && Self.saysItCrashed(result.stderr)), "\(result.stderr)")
    #expect(result.stderr.contains("Its windows were closed; the rest of the session is untouched"))
    #expect(result.stdout.contains("* [2 c] catalog library"))  // only the catalog window is left
    #expect(!result.stdout.contains("[1 t] tally pokes\n"))
    #expect(result.stdout.contains("▸  2  Structure and Interpretation"))  // the host went on
  }

  @Test func printingToStdoutDoesNotBreakTheProtocol() {
    let state = makeTemporaryFolder()
    let result = run("open tally pokes t\npoke", mode: "print", state: state)
    #expect(result.status == 0)
    #expect(result.stdout.contains("pokes: 1 (tally)"))
    // What a module prints goes to its log, not over the user's screen.
    #expect(!result.stderr.contains("printing to stdout"))
    #expect(log(in: state)?.contains("printing to stdout must not break the protocol") == true)
  }

  /// A module that crashes costs the user one line (which module, which command, which signal,
  /// that it starts again, where its output went); the backtrace is in the log.
  @Test func aCrashIsOneLineAndTheBacktraceGoesToTheLog() throws {
    let state = makeTemporaryFolder()
    let result = run("open tally pokes t\npoke", mode: "trap", state: state)
    #expect(result.status == 1)
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(result.stderr)")
    let line = try #require(lines.first)
    #expect(Self.saysItCrashed(line), "\(line)")
    #expect(line.contains("it starts again when a window opens on it"))
    #expect(line.contains("what it printed is in \(state)/workbench/modules/workbench-fixture-module.log"))
    #expect(log(in: state)?.contains("the fixture traps on purpose") == true)
  }

  @Test func aStoppedModuleCanBeRestarted() {
    let result = run("open tally pokes t\n@t poke\nrestart-module fixture\nopen tally pokes t2", mode: "garbage")
    #expect(result.stdout.contains("fixture is running again"))
    #expect(result.stdout.contains("[2 t2] tally pokes"))
  }

  @Test func aModuleForAnotherProtocolIsRefused() {
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:", "--module", fixture, "-c", "modules"],
      environment: ["WORKBENCH_MODULE_PROTOCOL_OVERRIDE": "99"])
    #expect(result.stderr.contains("speaks module protocol 99, and this workbench speaks 1 and 2"))
    #expect(!result.stdout.contains("fixture"))
  }

  @Test func scenariosRunAgainstExternalModules() {
    let folder = makeTemporaryFolder()
    writeTextFile(
      """
      scenario: Poking through one window shows in the other
      windows:
        left: tally pokes
        right: tally pokes
      steps:
        - left: poke 2
        - expect:
            right: {pokes: 2, label: tally}
        - left: poke 101
          fails: TIMES must be between 1 and 100
      """, to: folder + "/tally.yaml")
    let result = ChildProcess.runWorkbench(["run", "--module", fixture, "-j", "2", folder])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.hasSuffix("1 passed, 0 failed\n"))
    // The module declares its frame's fields in its handshake: a misspelt key is refused early.
    writeTextFile(
      """
      scenario: Misspelt
      windows:
        left: tally pokes
      steps:
        - expect:
            left: {poke: null}
      """, to: folder + "/tally.yaml")
    let misspelt = ChildProcess.runWorkbench(["run", "--module", fixture, folder + "/tally.yaml"])
    #expect(misspelt.status == 2, "\(misspelt.stdout)\(misspelt.stderr)")
    #expect(
      misspelt.stderr.contains(
        "tally.yaml:6:14: left shows tally, whose frame has no field 'poke'. Did you mean 'pokes'?"),
      "\(misspelt.stderr)")
  }

  @Test func theWorkspaceRemembersModulesToLoad() {
    let workspace = makeTemporaryFolder() + "/w.sqlite"
    let added = ChildProcess.runWorkbench(["modules", "add", fixture, "-w", workspace])
    #expect(added.status == 0, "\(added.stderr)")
    let listed = ChildProcess.runWorkbench(["modules", "list", "-w", workspace])
    #expect(listed.stdout == fixture + "\n")
    let shell = ChildProcess.runWorkbench(["-w", workspace, "-c", "open tally pokes t; poke"])
    #expect(shell.stdout.contains("pokes: 1 (tally)"))
  }
}
