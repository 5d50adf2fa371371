import Testing
import WorkbenchTestSupport

/// The built binary driven through pipes, as CI jobs and scripts use it.
@Suite struct PipedShellTests {
  private func run(_ input: String, _ arguments: [String] = [], environment: [String: String?] = [:]) -> ProcessResult {
    ChildProcess.runWorkbench(arguments, input: Array(input.utf8), environment: environment)
  }

  @Test func versionAndHelpExitCleanly() {
    let version = run("", ["--version"])
    #expect(version.status == 0)
    #expect(version.stdout == "workbench 0.1.0\n")
    let help = run("", ["--help"])
    #expect(help.status == 0)
    #expect(help.stdout.contains("usage:"))
  }

  /// The commands after `relaunch` on one line run on the restored session, not on the one it
  /// replaced (they found no windows there), in memory and on a workspace file alike.
  @Test(arguments: [":memory:", "file"])
  func commandsAfterARelaunchOnTheSameLineSeeTheRestoredSession(workspace: String) {
    let path = workspace == "file" ? makeTemporaryFolder() + "/workspace.db" : workspace
    let result = run("", ["-w", path, "-c", "open catalog library; open goal reading; relaunch; windows; select 2"])
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.hasSuffix("  [1] catalog library\n* [2] goal reading\n"), "\(result.stdout)")
    // `select` is the catalog's: the restored session's focused window is the goal.
    #expect(result.stderr.contains("select"), "\(result.stderr)")
  }

  @Test func anUnknownOptionIsAUsageError() {
    let result = run("", ["--jsno"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("unknown option '--jsno'. Did you mean --json?"))
  }

  @Test func pipedInputHasNoPromptAndShowsFrames() {
    let result = run("open catalog library left\nselect 2\n")
    #expect(result.status == 0)
    #expect(result.stderr == "")
    #expect(!result.stdout.contains("> "))
    #expect(result.stdout.contains("▸  2  Structure and Interpretation of Computer Programs"))
    #expect(!result.stdout.contains("\u{1B}["))  // no colour or terminal control in a pipe
  }

  /// `source FILE` runs a file of commands, errors naming FILE:LINE:COLUMN; `set` changes an
  /// option for the rest of the session and lists them.
  @Test func sourceRunsAFileAndSetChangesOptions() {
    let folder = makeTemporaryFolder()
    writeTextFile(
      "open catalog library left\n# a comment\n\nselect 3\nselect 999\nquery never\n", to: folder + "/setup.wb")
    writeTextFile("source \(folder)/loop.wb\n", to: folder + "/loop.wb")
    let stopped = run("source \(folder)/setup.wb\nframe\n", ["-q"])
    #expect(stopped.status == 1)
    #expect(stopped.stderr.contains("\(folder)/setup.wb:5:8: error: no book with id 999"), "\(stopped.stderr)")
    #expect(stopped.stderr.contains("<stdin>:1: error: \(folder)/setup.wb stopped at line 5"))
    #expect(!stopped.stdout.contains("never"))  // the file stopped; `frame` did not run

    let kept = run("source \(folder)/setup.wb\nset json on\nframe\nset\n", ["-q", "--keep-going"])
    #expect(kept.stdout.contains(#"{"type":"value","value":{"query":"never""#), "\(kept.stdout)")
    // Going on does not hide the error: the file's lines ran, and the run still fails, as the
    // same line typed directly fails it (it exited 0).
    #expect(kept.status == 1, "\(kept.stderr)")
    #expect(kept.stderr.contains("<stdin>:1: error: \(folder)/setup.wb: 1 line failed (--keep-going ran the others)"))
    #expect(kept.stdout.contains(#""text":"json on\ncolor off\nquiet on\nkeep-going on\necho off\noutput json""#))

    let looping = run("source \(folder)/loop.wb\n")
    #expect(looping.status == 1)
    #expect(looping.stderr.contains("source files run inside each other more than 16 deep"))
    #expect(run("source \(folder)/missing.wb\n").stderr.contains("no file \(folder)/missing.wb to source"))
  }

  /// `-q` prints what was asked for: `resolve diff` is a report, as `lines` is (it printed
  /// nothing while `lines` printed); `resolve keep` and `take` act.
  @Test func quietShowsTheDiffOfAConflict() {
    let result = run(
      "open editor notes a\nopen editor notes b\n@a append x\n@b append y\n@a save\n@b save\n@b resolve diff\n",
      ["-q", "--keep-going", "-w", ":memory:"])
    #expect(result.stdout.hasPrefix("--- revision 2 (theirs)\n+++ your draft\n"), "\(result.stdout)")
    #expect(result.stdout.contains("- x\n+ y"), "\(result.stdout)")
  }

  /// A command refused while it runs points at its column, as a parse error does.
  @Test func runTimeErrorsCarryTheirColumn() {
    let result = run("", ["-c", "open editor notes e; save"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("-c:1:22: error: not saved: there are no changes to save"), "\(result.stderr)")
  }

  /// A module's name where a screen is expected names the module's screens.
  @Test func aModuleNameForAScreenNamesItsScreens() {
    let result = run("", ["-c", "open lights home"])
    #expect(result.status == 1)
    #expect(
      result.stderr.contains(
        "-c:1:6: error: lights is a module, not a screen: lights has screens home, preview-home, preview-room, room"),
      "\(result.stderr)")
  }

  @Test func theFirstErrorStopsTheRunWithItsPlace() {
    let result = run("open catalog library\nselct 2\nselect 3\n")
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "<stdin>:2:1: error: unknown command 'selct'. Did you mean 'select'? (type `help` for the list)\n")
    #expect(!result.stdout.contains("▸"))
  }

  @Test func keepGoingRunsTheRestAndStillFails() {
    let result = run("open catalog library\nselect 999\nselect 3\n", ["--keep-going"])
    #expect(result.status == 1)
    #expect(result.stderr == "<stdin>:2:8: error: no book with id 999\n")
    #expect(result.stdout.contains("▸  3  The Art of Computer Programming"))
  }

  @Test func keepGoingAppliesToEachCommandOfALine() {
    let result = run("", ["--keep-going", "-c", "open catalog library; select 999; select 3; frame"])
    #expect(result.status == 1)
    #expect(result.stderr == "-c:1:30: error: no book with id 999\n")
    #expect(result.stdout.contains("selected: 3"))
  }

  @Test func exitLeavesAsQuitDoesAndShowDefaultsToTheFocusedWindow() {
    let result = run("open catalog library left\nshow\nexit\nwindows\n", ["-q"])
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("[1 left] catalog library · revision 1\nall 30 books\n"), "\(result.stdout)")
    #expect(!result.stdout.contains("* [1 left]"))  // nothing runs after `exit`
    // psql's and sqlite3's ways out leave too.
    for spelling in [#"\q"#, ".quit", " .exit "] {
      let left = run("open catalog library left\n\(spelling)\nwindows\n", ["-q"])
      #expect(left.status == 0 && left.stderr.isEmpty, "\(spelling): \(left.stderr)")
      #expect(!left.stdout.contains("* [1 left]"), "\(spelling) ran the next line")
    }
    // ...and their ways to ask for help are help.
    for spelling in [#"\?"#, #"\h"#, ".help"] {
      let help = run("\(spelling)\n", ["-q"])
      #expect(help.status == 0 && help.stderr.isEmpty, "\(spelling): \(help.stderr)")
      #expect(help.stdout.hasPrefix("Host commands:\n"), "\(spelling): \(help.stdout)")
    }
    // Within a line and with words after them too (they worked only as a whole line:
    // `documents; \?` said unknown command '?', `\h select` unknown command 'h', `.tables` no
    // module named ''), and sqlite3's `.tables` and psql's `\d` list the documents.
    let within = run(#"documents; \?"# + "\n", ["-q", "-w", ":memory:"])
    #expect(within.status == 0 && within.stderr.isEmpty, "\(within.stderr)")
    #expect(within.stdout.hasPrefix("account") && within.stdout.contains("Host commands:\n"), "\(within.stdout)")
    let topic = run(#"\h select"# + "\n.help open\n", ["-q"])
    #expect(
      topic.stdout.hasPrefix("usage: select ID") && topic.stdout.contains("usage: open SCREEN"), "\(topic.stdout)")
    for spelling in [".tables", #"\d"#] {
      let listed = run("\(spelling)\n", ["-q", "-w", ":memory:"])
      #expect(listed.stderr.isEmpty && listed.stdout.contains("library  catalog"), "\(spelling): \(listed.stderr)")
    }
    // A `;` or a dot inside quotes is the text's.
    let quoted = run("open catalog library left\nrename 3 \"a; .tables\"\nshow\n", ["-q", "-w", ":memory:"])
    #expect(quoted.status == 0 && quoted.stdout.contains("a; .tables"), "\(quoted.stdout)\(quoted.stderr)")
  }

  /// Lists print as CSV or an aligned table for other tools (`--output`, `set output`), as
  /// sqlite3's `.mode` does; a cell with a comma or a quote is quoted (RFC 4180).
  @Test func listsPrintAsCSVAndTables() {
    let csv = run("open catalog library left\ndocuments\nmodules\n", ["-q", "-w", ":memory:", "--output", "csv"])
    #expect(csv.status == 0, "\(csv.stderr)")
    #expect(
      csv.stdout.hasPrefix(
        """
        name,kind,revision,windows
        account,ledger,1,
        home,home,1,
        library,catalog,1,left
        notes,text,1,
        reading,goal,1,
        name,version,summary
        catalog,1.0.0,"Books in a shared catalog, with per-window search, selection and scrolling"

        """), "\(csv.stdout)")
    let table = run(
      "open catalog library left\nset output table\nwindows\nset output text\nwindows\n", ["-q", "-w", ":memory:"])
    #expect(
      table.stdout == """
        output table
        number  name  screen   document  focused
        1       left  catalog  library   true
        output text
        * [1 left] catalog library

        """, "\(table.stdout)")
    #expect(run("", ["--output", "xml"]).stderr.contains("--output is text, json, csv or table, not 'xml'"))
    // Without -q too, CSV holds only rows: the frame an `open` shows is left out (it was mixed
    // in), and an empty list prints its header (it printed a blank line).
    let plain = run("open catalog library left\nwindows\n", ["-w", ":memory:", "--output", "csv"])
    #expect(plain.stdout == "number,name,screen,document,focused\n1,left,catalog,library,true\n", "\(plain.stdout)")
    let empty = run("windows\n", ["-w", ":memory:", "--output", "csv"])
    #expect(empty.stdout == "number,name,screen,document,focused\n", "\(empty.stdout)")
    // A window's rows print as CSV and tables (`frame`); a frame with none is an error, not text
    // mixed into the rows.
    let rows = run("open catalog library main\nquery pro\nframe\n", ["-w", ":memory:", "--output", "csv"])
    #expect(
      rows.stdout == """
        id,title
        1,The Swift Programming Language
        2,Structure and Interpretation of Computer Programs
        3,The Art of Computer Programming
        6,The Pragmatic Programmer
        13,Types and Programming Languages

        """, "\(rows.stdout)")
    let feed = run(
      "open feed account f\nsettle\nsearch rent\nsettle\nframe\n", ["-w", ":memory:", "--output", "table"])
    #expect(
      feed.stdout == "id  counterparty        amount   memo\n47  Oak Street Rentals  -600.00  rent\n", "\(feed.stdout)")
    let goal = run("open goal reading g\nframe\n", ["-w", ":memory:", "--output", "csv"])
    #expect(goal.status == 1 && goal.stdout.isEmpty, "\(goal.stdout)")
    #expect(goal.stderr.contains("<stdin>:2: error: this has no rows to print as csv"), "\(goal.stderr)")
  }

  @Test func countsReadAsWords() {
    let home = run("", ["-c", "open home home"])
    #expect(home.stdout.contains("Bedroom · 1 light\n"))
    #expect(home.stdout.contains("Living room · 2 lights"))
  }

  @Test func quietPrintsOnlyWhatWasAskedFor() {
    let result = run("", ["-q", "-c", "open catalog library; select 27; frame"])
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("query: \n"), "\(result.stdout.prefix(200))")
    #expect(result.stdout.contains("selected: 27"))
    #expect(!result.stdout.contains("[1] catalog library"))
    let lists = run("", ["--quiet", "-c", "open catalog library left; windows"])
    #expect(lists.stdout == "* [1 left] catalog library\n")
    let errors = run("", ["--quiet", "-c", "open catalog library; select 99"])
    #expect(errors.stdout == "")
    #expect(errors.stderr.contains("no book with id 99"))
  }

  @Test func settleWaitsForTheLoadsOfAScript() {
    let result = run("", ["-c", "open feed account f; search rent; settle; frame"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("settled after"))
    #expect(result.stdout.contains("state: loaded"))
    #expect(result.stdout.contains("memo: rent"))
    // What settling changed is shown: the window its timers changed, after the line that says so.
    let settled = run("", ["-c", "open feed account f; search rent; settle"])
    let after = settled.stdout.split(separator: "settled after", maxSplits: 1).last ?? ""
    #expect(after.contains("[1 f] feed account") && after.contains("feed · loaded"), "\(settled.stdout)")
    let tooShort = run("", ["-c", "open feed account f; network latency 5000; search rent; settle 100ms"])
    #expect(tooShort.status == 1)
    // It waits for nothing when the next timer is past its limit, and says so.
    #expect(
      tooShort.stderr.contains(/nothing was due within 100ms: 1 timer, the next in \d+(ms|s) \(give a longer time/),
      "\(tooShort.stderr)")
  }

  @Test func aScriptThatLosesADraftFails() {
    let result = run("open editor notes e\nappend a thought\n")
    #expect(result.status == 1)
    #expect(result.stderr.contains("error: window e ended with unsaved changes"))
    #expect(result.stderr.contains("which is lost: end scripts with `quit save` or `quit discard`"))
    let saved = run("open editor notes e\nappend a thought\nquit save\n")
    #expect(saved.status == 0, "\(saved.stderr)")
  }

  @Test func echoShowsEachCommandAfterAPrompt() {
    let result = run("open catalog library left\n# a comment\nquery war\n", ["--echo"])
    #expect(result.stdout.contains("workbench> open catalog library left\n"))
    #expect(result.stdout.contains("left catalog:library> query war\n"))
  }

  @Test func dashCRunsCommandsAndExits() {
    let result = run("", ["-c", "open catalog library; select 5; frame"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("selected: 5"))
    let failing = run("", ["-c", "open catalog library; select x"])
    #expect(failing.status == 1)
    #expect(failing.stderr.hasPrefix("-c:1:"))
  }

  @Test func jsonPrintsOneFramePerLine() {
    let result = run("open catalog library left\nquery dune\n", ["--json"])
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.count == 2)
    #expect(
      lines[1].hasPrefix(
        #"{"type":"frame","window":1,"name":"left","screen":"catalog","document":"library","revision":1,"frame":{"query":"dune""#
      ))
    #expect(lines[1].contains(#""rows":[{"id":27,"title":"Dune"}]"#))
  }

  @Test func invalidUTF8IsReportedNotReplaced() {
    var input = Array("open catalog library\nquery ".utf8)
    input += [0xFF, 0xFE, 0x0A]
    let result = ChildProcess.runWorkbench([], input: input)
    #expect(result.status == 1)
    #expect(result.stderr.hasPrefix("<stdin>:2: error: the line is not valid UTF-8"))
  }

  @Test func quitEndsTheRunEarly() {
    let result = run("open catalog library\nquit\nselct\n")
    #expect(result.status == 0)
  }

  @Test func anUnclosedQuoteIsASyntaxErrorWithItsColumn() {
    let result = run("open catalog library\nadd \"Dune Messiah\n")
    #expect(result.status == 1)
    #expect(result.stderr.hasPrefix("<stdin>:2:5: error: unclosed quote"))
  }
}
