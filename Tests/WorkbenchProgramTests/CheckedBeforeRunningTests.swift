import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchLanguageServer
import WorkbenchModuleAPI
import WorkbenchScenarios
import WorkbenchTestSupport

/// Mistakes said before anything runs, at the place they are, in words that say what to do; and
/// options that work where a user would try them.
struct CheckedBeforeRunningTests {
  /// `clock advance 5` is refused when the file is checked, at the number, with the units
  /// (it failed only when it ran, at the column of `advance`); `settle` takes a duration too.
  @Test func aDurationWithoutItsUnitIsRefusedAtTheValue() {
    let folder = makeTemporaryFolder()
    writeTextFile(
      "scenario: Units\nwindows:\n  f: feed account\nsteps:\n  - do: clock advance 5\n  - do: settle 10\n",
      to: folder + "/units.yaml")
    let check = ChildProcess.runWorkbench(["check", folder + "/units.yaml"])
    #expect(check.status == 2)
    #expect(
      check.stderr.contains(
        "units.yaml:5:23: DURATION must be a length of time with its unit (300ms, 2s, 1.5s, 1m, 2h, 1d), not '5'"),
      "\(check.stderr)")
    #expect(check.stderr.contains("units.yaml:6:16: TIMEOUT must be a length of time"), "\(check.stderr)")
  }

  /// The language server reports it where `check` does, on the value.
  @MainActor @Test func theLanguageServerReportsItOnTheValue() throws {
    var sent: [FrameValue] = []
    let server = try LanguageServer(modules: builtInModules) { sent.append($0) }
    let text = "scenario: Units\nwindows:\n  f: feed account\nsteps:\n  - do: clock advance 5\n"
    let open: FrameValue = [
      "jsonrpc": "2.0", "method": "textDocument/didOpen",
      "params": [
        "textDocument": ["uri": "file:///units.yaml", "languageId": "yaml", "version": 1, "text": .string(text)]
      ],
    ]
    _ = server.receive(Array(open.jsonText.utf8))
    let diagnostic = sent.last?["params"]?["diagnostics"]?.elements?.first
    #expect(diagnostic?["range"]?["start"] == ["line": 4, "character": 22], "\(sent)")
    #expect(diagnostic?["message"]?.stringValue?.contains("with its unit") == true)
  }

  /// Steps only a shell can run are refused by `check`, with the reason (they passed it and
  /// failed only when run).
  @Test(arguments: [
    ("do: record start out.yaml", "`record` works in the shell"),
    ("do: source commands.txt", "`source` works in the shell"),
    ("do: quit", "`quit` ends a shell session"),
    ("do: set json on", "`set` changes how the shell prints"),
  ])
  func aShellOnlyStepIsRefusedByCheck(step: String, said: String) {
    let folder = makeTemporaryFolder()
    writeTextFile("scenario: Shell only\nsteps:\n  - \(step)\n", to: folder + "/shell.yaml")
    let check = ChildProcess.runWorkbench(["check", folder + "/shell.yaml"])
    #expect(check.status == 2, "\(step): \(check.stdout)")
    #expect(check.stderr.contains("shell.yaml:3:"), "\(check.stderr)")
    #expect(check.stderr.contains(said), "\(check.stderr)")
  }

  /// A tab where indentation goes is said as such, at the tab (libyaml's text named two lines).
  @Test func aTabIsSaidAtTheTab() {
    let folder = makeTemporaryFolder()
    writeTextFile("scenario: Tabs\nsteps:\n  - do: help\n\t- do: help\n", to: folder + "/tabs.yaml")
    let check = ChildProcess.runWorkbench(["check", folder + "/tabs.yaml"])
    #expect(check.stderr == "error: \(folder)/tabs.yaml:4:1: tabs cannot indent YAML: use spaces\n", "\(check.stderr)")
  }

  /// `- do: @left select 2` is said as what it is, with the two forms that run (libyaml's text
  /// said a character "cannot start any token while scanning for the next token").
  @Test func anUnquotedWindowPrefixSaysHowToWriteIt() {
    let folder = makeTemporaryFolder()
    writeTextFile(
      "scenario: At\nwindows:\n  left: catalog library\nsteps:\n  - do: @left select 2\n", to: folder + "/at.yaml")
    let check = ChildProcess.runWorkbench(["check", folder + "/at.yaml"])
    #expect(
      check.stderr
        == "error: \(folder)/at.yaml:5:9: `@` cannot start a YAML value that is not quoted: quote the value "
        + "('@left select 2'), or run the command as a step of that window (`- left: select 2`)\n", "\(check.stderr)")
  }

  /// A line past the end of the file (or Int.max) is refused as line 0 is: it ran the last scenario.
  @Test(arguments: ["100", "9223372036854775807", "99999999999999999999", "0"])
  func aLinePastTheEndIsRefused(line: String) {
    let file = repositoryRoot() + "/Scenarios/ledger/money.yaml"
    let run = ChildProcess.runWorkbench(["run", "\(file):\(line)"])
    #expect(run.status == 2, "\(line): \(run.stdout)")
    #expect(run.stderr.contains("\(file):\(line): lines are numbered from 1 to 39 in \(file)"), "\(run.stderr)")
  }

  /// `run FILE:LINE --shell` takes the shell's options (it refused `--rows 5`): the windows show
  /// that many rows, and `-c` runs commands there.
  @Test func runAtALineInTheShellTakesTheShellsOptions() {
    let file = repositoryRoot() + "/Scenarios/catalog/two-windows-relaunch.yaml:5"
    let run = ChildProcess.runWorkbench(["run", file, "--shell", "--rows", "3", "-q", "-c", "show left"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("↓ 27 more"), "\(run.stdout)")
    let refused = ChildProcess.runWorkbench(["run", file, "--shell", "-w", "x.db"])
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("it takes no -w"), "\(refused.stderr)")
  }

  /// `--rows` shortens the ledger's feed as it does the catalog's (8 rows showed at `--rows 3`);
  /// the rows left out are counted.
  @Test func theFeedShowsAsManyRowsAsAsked() {
    let shell = ChildProcess.runWorkbench(
      ["-w", ":memory:", "--rows", "3", "-q", "-c", "open feed account f; settle; show; frame"])
    #expect(shell.status == 0, "\(shell.stderr)")
    #expect(shell.stdout.contains("  43  City Power  -120.00  electricity\n  ↓ 5 more"), "\(shell.stdout)")
    #expect(!shell.stdout.contains("  44  "), "\(shell.stdout)")
  }

  /// `settle`'s advice is longer than what it allowed, and enough for the timer it would wait
  /// for (it always said `settle 30s`, after `settle 45s` too).
  @Test func settlesAdviceIsLongerThanItWaited() {
    let shell = ChildProcess.runWorkbench([
      "-w", ":memory:", "-c", "open feed account f; network latency 60000; search rent; settle 45s",
    ])
    let said = shell.stderr.split(separator: "`settle ").last.flatMap { $0.split(separator: "`").first } ?? ""
    let advised = SessionClock.parseDuration(String(said))
    #expect(advised.map { $0 > .seconds(60) } == true, "\(shell.stderr)")
  }

  /// `diff --help` names `-m`, which `diff` takes.
  @Test func diffsHelpNamesTheModuleOption() {
    let help = ChildProcess.runWorkbench(["diff", "--help"])
    #expect(help.stdout.contains("-m, --module PATH"), "\(help.stdout)")
  }
}
