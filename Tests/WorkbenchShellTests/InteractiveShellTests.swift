import Testing
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The shell on a pseudo-terminal: prompt, completion, Ctrl-C, Ctrl-D and history.
@Suite(.serialized) struct InteractiveShellTests {
  /// A terminal of this test's own: workspace and history in `folder`, no colour, no inputrc.
  static func environment(_ folder: String, inputrc: String = "/dev/null") -> [String: String?] {
    PseudoTerminalSession.environment(folder, inputrc: inputrc)
  }

  @Test func promptCompletionInterruptAndEndOfInput() throws {
    let state = makeTemporaryFolder()
    let session = try #require(PseudoTerminalSession(environment: Self.environment(state)))
    #expect(session.waitFor("workbench> "))

    session.type("open catalog library left\r")
    #expect(session.waitFor("left catalog:library> "))

    // Tab completes a command name from the specs.
    var mark = session.transcript.count
    session.type("sel\t")
    #expect(session.waitFor("select", after: mark))
    session.type("2\r")
    #expect(session.waitFor("▸  2", after: mark))

    // Tab twice lists the candidates with each book's title beside its id, then gives the line back.
    #expect(session.waitFor("left catalog:library> ", after: mark))
    mark = session.transcript.count
    session.type("select 1\t\t")
    #expect(session.waitFor("12  Clean Architecture", after: mark), "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("left catalog:library> select 1", after: mark))
    session.type("\u{15}")  // Ctrl-U: clear the line

    // Every id, in numeric order as docs/shell.md says (readline would sort them as text).
    mark = session.transcript.count
    session.type("select \t\t")
    #expect(session.waitFor("30  ", after: mark), "\(session.screen(from: mark).debugDescription)")
    let two = session.offset(after: "\n2   Structure", from: mark)
    let ten = session.offset(after: "\n10  The Mythical", from: mark)
    #expect(two != nil && ten != nil && two! < ten!, "\(session.screen(from: mark).debugDescription)")
    session.type("\u{15}")

    // Ctrl-C abandons the half-typed line; nothing runs.
    mark = session.transcript.count
    session.type("remove 2")
    #expect(session.waitFor("remove 2", after: mark))
    session.type("\u{03}")
    #expect(session.waitFor("^C", after: mark), "screen: \(session.screen(from: mark).debugDescription)")
    session.type("documents\r")
    #expect(session.waitFor("library  catalog  revision 1", after: mark))

    // A line that does not parse is reported, and kept in the history to fix. (Each key is typed
    // after the prompt is back: between lines the terminal is in cooked mode, where a Ctrl-D
    // typed too early is taken by the kernel, as in any readline program.)
    #expect(session.waitFor("left catalog:library> ", after: session.transcript.count - 30))
    mark = session.transcript.count
    session.type("selct 3\r")
    #expect(session.waitFor("Did you mean 'select'?", after: mark))
    let afterError = session.offset(after: "Did you mean 'select'?", from: mark) ?? mark
    #expect(session.waitFor("left catalog:library> ", after: afterError))

    // Ctrl-D on an empty line leaves with status 0.
    session.type("\u{04}")
    let status = session.exitStatus()
    #expect(
      status == 0,
      "child: \(session.childState); screen: \(session.screen(from: max(0, session.transcript.count - 300)).debugDescription)"
    )

    // The next start restores the window, with its view state.
    let again = try #require(PseudoTerminalSession(environment: Self.environment(state)))
    #expect(again.waitFor("left catalog:library> "))
    #expect(again.screen().contains("▸  2  Structure and Interpretation"))
    again.type("\u{04}")
    #expect(again.exitStatus() == 0)

    // `history` lists the lines typed, numbered, the mistyped one included.
    let again2 = try #require(PseudoTerminalSession(environment: Self.environment(state)))
    #expect(again2.waitFor("left catalog:library> "))
    let listed = again2.transcript.count
    again2.type("history 3\r")
    #expect(again2.waitFor("selct 3", after: listed), "\(again2.screen(from: listed).debugDescription)")
    #expect(again2.screen(from: listed).contains("documents"))
    let afterList = again2.offset(after: "selct 3", from: listed) ?? listed
    #expect(again2.waitFor("left catalog:library> ", after: afterList))
    again2.type("\u{04}")
    #expect(again2.exitStatus() == 0)

    let history = readTextFile(state + "/workbench/history") ?? ""
    #expect(history.contains("open catalog library left"))
    #expect(history.contains("select 2"))
    #expect(history.contains("documents"))
    #expect(!history.contains("remove 2"))  // abandoned with Ctrl-C
    #expect(history.contains("selct 3"))  // kept, to recall and fix
  }

  /// `show A B` fits the terminal: each side is cut to its share (ending with …) instead of
  /// wrapping into a zigzag.
  @Test func showSideBySideFitsTheTerminalWidth() throws {
    let folder = makeTemporaryFolder()
    let session = try #require(
      PseudoTerminalSession(
        arguments: ["-c", "open catalog library a; open catalog library b; query the; show a b"],
        environment: Self.environment(folder).merging(["COLUMNS": "80"]) { $1 }))
    #expect(session.exitStatus() == 0)
    let text = String(decoding: session.transcript, as: UTF8.self)
    let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map { $0.split(separator: "\n") }
      .joined()
    let shown = lines.filter { $0.contains("│") }
    #expect(shown.count > 5, "\(text)")
    #expect(shown.allSatisfy { $0.count <= 80 }, "\(shown.map(\.count))")
    #expect(shown.contains { $0.contains("…") })
  }

  /// A home document another process saved reaches open lights windows at the next command:
  /// the rooms (the parent scope) and a room's lights re-derive from it.
  @Test func aHomeChangedByAnotherProcessReachesLightsWindows() throws {
    let folder = makeTemporaryFolder()
    let workspace = folder + "/w.sqlite"
    let session = try #require(
      PseudoTerminalSession(arguments: ["-w", workspace], environment: Self.environment(folder)))
    #expect(session.waitFor("workbench> "))
    session.type("open home home h\r")
    #expect(session.waitFor("h home:home> "))
    session.type("enter living r\r")
    #expect(session.waitFor("r room:home> "))
    // Another process renames the living room, adds a lamp to it and removes the bedroom.
    let home = """
      {"name": "home", "kind": "home", "body": {"rooms": [
        {"id": "living", "name": "Lounge", "lights": [
          {"id": 1, "name": "Ceiling", "on": true, "brightness": 80},
          {"id": 2, "name": "Floor lamp", "on": false, "brightness": 40},
          {"id": 9, "name": "Reading lamp", "on": true, "brightness": 70}]},
        {"id": "kitchen", "name": "Kitchen", "lights": [
          {"id": 3, "name": "Counter", "on": false, "brightness": 100},
          {"id": 4, "name": "Pendant", "on": true, "brightness": 60}]}]}}
      """
    writeTextFile(home, to: folder + "/home.json")
    let imported = ChildProcess.runWorkbench(
      ["-w", workspace, "import", folder + "/home.json"], environment: Self.environment(folder))
    #expect(imported.status == 0, "\(imported.stderr)")
    var mark = session.transcript.count
    session.type("frame\r")
    #expect(session.waitFor("Reading lamp", after: mark), "\(session.screen(from: mark).debugDescription)")
    #expect(session.screen(from: mark).contains("Lounge"))
    mark = session.transcript.count
    session.type("@h frame\r")
    #expect(session.waitFor("kitchen", after: mark))
    #expect(!session.screen(from: mark).contains("bedroom"), "\(session.screen(from: mark))")
    let prompt = session.offset(after: "kitchen", from: mark) ?? mark
    #expect(session.waitFor("r room:home> ", after: prompt))
    session.type("\u{04}")
    #expect(session.exitStatus() == 0)
  }

  /// Windows of an external module that is not loaded this time are kept, dormant, with their
  /// documents, and come back when the module is loaded again.
  @Test func windowsOfAModuleNotLoadedComeBackWhenItIs() throws {
    let folder = makeTemporaryFolder()
    let fixture = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
    let first = try #require(
      PseudoTerminalSession(arguments: ["--module", fixture], environment: Self.environment(folder)))
    #expect(first.waitFor("workbench> "))
    first.type("open tally pokes t\r")
    #expect(first.waitFor("t tally:pokes> "))
    first.type("poke 3\r")
    #expect(first.waitFor("pokes: 3"))
    first.type("open catalog library c\r")
    #expect(first.waitFor("c catalog:library> "))
    first.type("\u{04}")
    #expect(first.exitStatus() == 0)

    let without = try #require(PseudoTerminalSession(environment: Self.environment(folder)))
    #expect(without.waitFor("c catalog:library> "))
    let screen = without.screen()
    // A note (once), not an error: what is kept, whose it is and how to load it.
    #expect(
      screen.contains("note: document 'pokes' (tally) and window t (tally) belong to a module that is not loaded"))
    #expect(screen.contains("(fixture: load it with `-m \(fixture)`"), "\(screen)")
    #expect(!screen.contains("error"), "\(screen)")
    let listed = without.transcript.count
    without.type("windows\r")
    #expect(without.waitFor("catalog library", after: listed))
    #expect(without.waitFor("[1 t] tally pokes  dormant: the module fixture is not loaded", after: listed))
    #expect(
      without.waitFor("c catalog:library> ", after: without.offset(after: "catalog library", from: listed) ?? listed))
    without.type("\u{04}")
    #expect(without.exitStatus() == 0)

    let again = try #require(
      PseudoTerminalSession(arguments: ["--module", fixture], environment: Self.environment(folder)))
    #expect(again.waitFor("c catalog:library> "))
    let mark = again.transcript.count
    again.type("windows\r")
    #expect(again.waitFor("[1 t] tally pokes", after: mark), "\(again.screen(from: mark))")
    #expect(again.waitFor("c catalog:library> ", after: again.offset(after: "[1 t] tally pokes", from: mark) ?? mark))
    again.type("\u{04}")
    #expect(again.exitStatus() == 0)
  }

  @Test func leavingADirtyEditorAsks() throws {
    let folder = makeTemporaryFolder()
    let environment = Self.environment(folder)
    let session = try #require(PseudoTerminalSession(environment: environment))
    #expect(session.waitFor("workbench> "))
    session.type("open editor notes main\r")
    #expect(session.waitFor("main editor:notes> "))
    var mark = session.transcript.count
    session.type("append a thought\r")
    #expect(session.waitFor("unsaved draft based on revision 1", after: mark))
    #expect(session.waitFor("main editor:notes> ", after: session.offset(after: "a thought", from: mark) ?? mark))

    // Closing asks; cancel keeps the window.
    mark = session.transcript.count
    session.type("close\r")
    #expect(session.waitFor("Save, discard or cancel? [s/d/c] ", after: mark))
    session.type("c\r")
    #expect(session.waitFor("main editor:notes> ", after: session.offset(after: "[s/d/c] ", from: mark) ?? mark))

    // Ctrl-C at the question cancels, as in psql (it asked again).
    mark = session.transcript.count
    session.type("close\r")
    #expect(session.waitFor("Save, discard or cancel? [s/d/c] ", after: mark))
    let asked = session.transcript.count
    session.type("\u{03}")
    #expect(session.waitFor("main editor:notes> ", after: asked), "\(session.screen(from: asked).debugDescription)")
    #expect(!session.screen(from: asked).contains("[s/d/c]"), "\(session.screen(from: asked).debugDescription)")
    let shown = session.transcript.count
    session.type("windows\r")
    #expect(session.waitFor("[1 main]", after: shown))
    // Ctrl-D once the prompt is back (typed earlier, the terminal's cooked mode takes it).
    #expect(session.waitFor("main editor:notes> ", after: session.offset(after: "[1 main]", from: shown) ?? shown))

    // Ctrl-D asks too, with the choice to keep the draft for next time.
    mark = session.transcript.count
    session.type("\u{04}")
    #expect(session.waitFor("keep the drafts for next time, or cancel? [s/d/k/c] ", after: mark))
    session.type("k\r")
    #expect(session.exitStatus() == 0)

    // The draft comes back with the session, still unsaved.
    let again = try #require(PseudoTerminalSession(environment: environment))
    #expect(again.waitFor("main editor:notes> "))
    #expect(again.screen().contains("unsaved draft based on revision 1"))
    #expect(again.screen().contains("4  a thought"))
    mark = again.transcript.count
    again.type("quit\r")
    #expect(again.waitFor("[s/d/k/c] ", after: mark))
    again.type("s\r")
    #expect(again.exitStatus() == 0)
    let listed = ChildProcess.runWorkbench(["-c", "documents"], environment: ["XDG_DATA_HOME": folder + "/data"])
    #expect(listed.stdout.contains("notes  text  revision 2"))
  }

  /// A load that finishes while the user is typing shows above the prompt, and the line being
  /// typed is drawn again as it was.
  @Test func aLoadFinishingAtThePromptRedrawsAboveIt() throws {
    let folder = makeTemporaryFolder()
    let session = try #require(
      PseudoTerminalSession(environment: Self.environment(folder)))
    #expect(session.waitFor("workbench> "))
    session.type("open feed account main\r")
    #expect(session.waitFor("loading..."))
    #expect(session.waitFor("main feed:account> "))
    let mark = session.transcript.count
    session.type("sear")
    #expect(session.waitFor("feed · loaded", after: mark))
    #expect(
      session.waitFor("main feed:account> sear", after: session.offset(after: "feed · loaded", from: mark) ?? mark))
    session.type("ch coffee\r")
    #expect(session.waitFor("search: coffee", after: mark))
    let searched = session.offset(after: "search: coffee", from: mark) ?? mark
    #expect(session.waitFor("main feed:account> ", after: searched))
    session.type("\u{04}")
    #expect(session.exitStatus() == 0)
  }

  /// A change a module process sends unasked (a live source, protocol 2) is shown above the
  /// prompt without another command typed.
  @Test func aLiveChangeShowsAboveThePromptUnasked() throws {
    let folder = makeTemporaryFolder()
    let kettle = repositoryRoot() + "/Tests/ProcessModules/Kettle/kettle.pl"
    let session = try #require(
      PseudoTerminalSession(arguments: ["-w", ":memory:", "-m", kettle], environment: Self.environment(folder)))
    #expect(session.waitFor("workbench> "))
    session.type("open kettle kettle k\r")
    #expect(session.waitFor("k kettle:kettle> "))
    session.type("open kettle kettle j\r")
    #expect(session.waitFor("j kettle:kettle> "))
    let mark = session.transcript.count
    session.type("@k wall\r")
    #expect(session.waitFor("kettle kettle: on at the wall", after: mark))
    let shown = session.offset(after: "kettle kettle: on at the wall", from: mark) ?? mark
    #expect(session.waitFor("j kettle:kettle> ", after: shown))
    session.type("\u{04}")
    #expect(session.exitStatus() == 0)
  }

  /// A module on the Swift kit whose own live source (a switch at the wall, seen on a pipe from
  /// another thread) saw a change sends it unasked: the shell shows it above the prompt, in
  /// both windows on the tally, with nothing typed; a recording keeps it as a `live` step and
  /// replays it.
  @Test func aLiveSourceOfAModuleOnTheSwiftKitShowsAboveThePrompt() throws {
    let folder = makeTemporaryFolder()
    let fixture = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
    let recording = folder + "/wall.yaml"
    let session = try #require(
      PseudoTerminalSession(arguments: ["-w", ":memory:", "-m", fixture], environment: Self.environment(folder)))
    #expect(session.waitFor("workbench> "))
    session.type("record start \(recording)\r")
    #expect(session.waitFor("workbench> ", after: session.offset(after: "record", from: 0) ?? 0))
    session.type("open tally pokes a\r")
    #expect(session.waitFor("a tally:pokes> "))
    session.type("open tally pokes b\r")
    #expect(session.waitFor("b tally:pokes> "))
    let mark = session.transcript.count
    session.type("@a wall-later\r")
    #expect(session.waitFor("pokes: 0 (switched at the wall 1)", after: mark))
    let shown = session.offset(after: "pokes: 0 (switched at the wall 1)", from: mark) ?? mark
    #expect(session.waitFor("b tally:pokes> ", after: shown))
    session.type("record stop\r")
    #expect(session.waitFor("wrote", after: shown))
    #expect(session.waitFor("b tally:pokes> ", after: session.offset(after: "wrote", from: shown) ?? shown))
    session.type("\u{04}")
    #expect(session.exitStatus() == 0)
    let text = try #require(readTextFile(recording))
    #expect(text.contains("- do: live"), "\(text)")
    let replayed = ChildProcess.runWorkbench(["run", "-m", fixture, recording])
    #expect(replayed.status == 0, "\(replayed.stdout)")
  }

  /// The session is saved as the shell goes: a shell killed with SIGKILL (no quit, no save on
  /// the way out) comes back with its windows as they were after the last completed line.
  @Test func aKilledShellComesBackWithItsWindows() throws {
    let folder = makeTemporaryFolder()
    let environment = Self.environment(folder)
    let session = try #require(PseudoTerminalSession(environment: environment))
    #expect(session.waitFor("workbench> "))
    session.type("open catalog library left\r")
    #expect(session.waitFor("left catalog:library> "))
    var mark = session.transcript.count
    session.type("select 3\r")
    #expect(session.waitFor("▸  3", after: mark))
    #expect(session.waitFor("left catalog:library> ", after: session.offset(after: "▸  3", from: mark) ?? mark))
    mark = session.transcript.count
    session.type("open catalog library right\r")
    #expect(session.waitFor("right catalog:library> ", after: mark))
    mark = session.transcript.count
    session.type("query the\r")
    #expect(session.waitFor("match \"the\"", after: mark))
    #expect(session.waitFor("right catalog:library> ", after: session.offset(after: "match", from: mark) ?? mark))
    session.send(signal: SIGKILL)
    #expect(session.exitStatus() == 128 + SIGKILL)

    let again = try #require(PseudoTerminalSession(environment: environment))
    #expect(again.waitFor("right catalog:library> "), "screen: \(again.screen())")
    #expect(again.screen().contains("match \"the\""))
    mark = again.transcript.count
    again.type("@left frame\r")
    #expect(again.waitFor("selected: 3", after: mark), "screen: \(again.screen(from: mark))")
    #expect(again.waitFor("right catalog:library> ", after: again.offset(after: "selected: 3", from: mark) ?? mark))
    again.type("\u{04}")
    #expect(again.exitStatus() == 0)
  }

  /// readline reads `rl_readline_name` while it parses an inputrc with `$if workbench` (as
  /// docs/shell.md suggests), so the name must still be there then. (Under AddressSanitizer,
  /// as CI runs this suite, a name handed over as a temporary buffer fails here.)
  /// `--watch`: a rebuilt module starts again in place, its window reopens as it was (document
  /// and view state), and a build that does not start leaves the old one working.
  @Test func aRebuiltModuleReloadsItsWindows() throws {
    let folder = makeTemporaryFolder()
    let fixture = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
    let module = folder + "/fixture-module"
    // Files that will be executed are written by `cp`, not by this process: a child another
    // test forks meanwhile would inherit our open descriptor, and exec would fail with ETXTBSY.
    func install(_ source: String) {
      _ = ChildProcess.run("/bin/cp", [source, module + ".new"], input: [], environment: ChildProcess.environment([:]))
      rename(module + ".new", module)
    }
    install(fixture)
    var environment = Self.environment(folder)
    environment["WORKBENCH_FIXTURE_EXTRA_FILE"] = folder + "/newer-build"
    let session = try #require(
      PseudoTerminalSession(arguments: ["-w", ":memory:", "--module", module, "--watch"], environment: environment))
    #expect(session.waitFor("workbench> "))
    session.type("open tally pokes t\r")
    #expect(session.waitFor("t tally:pokes> "))
    var mark = session.transcript.count
    session.type("poke 2\r")
    #expect(session.waitFor("pokes: 2 (tally)", after: mark))
    session.type("label mine\r")
    #expect(session.waitFor("pokes: 2 (mine)", after: mark))
    // A rebuild: a new file in its place.
    mark = session.transcript.count
    install(fixture)
    #expect(session.waitFor("1 window opened again", after: mark), "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("pokes: 2 (mine)", after: mark))
    // A build with a new command: the shell says what changed and takes it in at once (the
    // command runs, help knows it); the window is as it was.
    mark = session.transcript.count
    writeTextFile("", to: folder + "/newer-build")
    install(fixture)
    #expect(
      session.waitFor("its commands changed (new: stamp), its screens changed (new: tally2), taken in", after: mark),
      "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("t tally:pokes> ", after: mark))
    mark = session.transcript.count
    session.type("stamp\r")
    #expect(session.waitFor("stamped", after: mark), "\(session.screen(from: mark).debugDescription)")
    session.type("frame\r")
    #expect(session.waitFor("label: mine", after: mark), "\(session.screen(from: mark).debugDescription)")
    // Its new screen too: a window opens on it.
    session.type("open tally2 pokes s\r")
    #expect(session.waitFor("s tally2:pokes> ", after: mark), "\(session.screen(from: mark).debugDescription)")
    // A build without them: the command is gone again, and the window on the screen that went
    // away is closed, with a line.
    mark = session.transcript.count
    unlink(folder + "/newer-build")
    install(fixture)
    #expect(
      session.waitFor("its commands changed (gone: stamp), its screens changed (gone: tally2), taken in", after: mark),
      "\(session.screen(from: mark).debugDescription)")
    #expect(
      session.waitFor("window s (tally2) closed: its screen is gone from the module's new build", after: mark),
      "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("t tally:pokes> ", after: mark))
    mark = session.transcript.count
    session.type("stamp\r")
    #expect(session.waitFor("unknown command 'stamp'", after: mark), "\(session.screen(from: mark).debugDescription)")
    // A build that cannot start: the old process goes on serving the window.
    mark = session.transcript.count
    writeTextFile("#!/bin/sh\nexit 3\n", to: folder + "/broken")
    chmod(folder + "/broken", 0o755)
    install(folder + "/broken")
    #expect(session.waitFor("did not start", after: mark), "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("its windows keep the last good one", after: mark))
    session.type("poke 1\r")
    #expect(session.waitFor("pokes: 3 (mine)", after: mark), "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("t tally:pokes> ", after: session.transcript.count - 20))
    session.type("\u{04}")
    #expect(session.exitStatus() == 0)
  }

  /// `show left right` cuts its columns for the terminal as it is at each draw (a resize from
  /// 120 to 50 columns was ignored: the lines still cut for 120 and wrapped), and counts a wide
  /// character (Japanese, an emoji) as the two columns it takes, so the `│` between the windows
  /// stays in one column (it shifted, and lines ran past the width).
  @Test func showKeepsUpWithTheTerminalAndWideCharacters() throws {
    let folder = makeTemporaryFolder()
    let session = try #require(
      PseudoTerminalSession(arguments: ["-w", ":memory:"], environment: Self.environment(folder)))
    #expect(session.waitFor("workbench> "))
    session.type("open catalog library left\r")
    #expect(session.waitFor("left catalog:library> "))
    session.type("open catalog library right\r")
    #expect(session.waitFor("right catalog:library> "))
    var mark = session.transcript.count
    session.type("@left rename 3 \"吾輩は猫である 🐱 ok\"\r")
    #expect(session.waitFor("right catalog:library> ", after: mark))
    /// The lines of a `show` (those with the separator), as the terminal shows them.
    func shown(columns: Int) -> [String] {
      session.resize(columns: columns)
      session.pass(milliseconds: 100)
      let mark = session.transcript.count
      session.type("show left right\r")
      _ = session.waitFor("right catalog:library> ", after: mark + 20)
      // "\r\n" is one Character: the lines are split at the scalar.
      return session.screen(from: mark).replacing("\r\n", with: "\n").split(separator: "\n").map { line in
        String(line.replacing(/\r/, with: "").replacing(/\u{1B}\[[0-9;?]*[A-Za-z]/, with: ""))
      }.filter { $0.contains("│") }
    }
    func columnOfSeparator(_ line: String) -> Int {
      var width = 0
      for scalar in line.unicodeScalars {
        if scalar == "│" { return width }
        width += Self.columns(of: scalar)
      }
      return width
    }
    for columns in [120, 50] {
      let lines = shown(columns: columns)
      #expect(lines.count > 5, "\(columns): \(lines)")
      #expect(lines.contains { $0.contains("吾輩は猫である") }, "\(lines)")
      let widths = lines.map { $0.unicodeScalars.reduce(0) { $0 + Self.columns(of: $1) } }
      #expect(widths.allSatisfy { $0 <= columns }, "\(columns): \(zip(widths, lines).filter { $0.0 > columns })")
      #expect(Set(lines.map(columnOfSeparator)).count == 1, "\(columns): \(lines)")
    }
    mark = session.transcript.count
    session.type("\u{04}")
    #expect(session.exitStatus() == 0)
  }

  /// Columns on a terminal: two for the CJK ideographs, kana and emoji these tests use.
  static func columns(of scalar: Unicode.Scalar) -> Int {
    if scalar.properties.generalCategory == .nonspacingMark || (0xFE00...0xFE0F).contains(scalar.value) { return 0 }
    if scalar.properties.isEmojiPresentation || (0x3040...0x30FF).contains(scalar.value)
      || (0x4E00...0x9FFF).contains(scalar.value)
    {
      return 2
    }
    return 1
  }

  /// `watch INTERVAL COMMAND` runs the command again and again at the prompt, marking the
  /// lines that changed since the run before, until a key (which is not typed) or Ctrl-C.
  @Test func watchRunsACommandAgainUntilAKey() throws {
    let folder = makeTemporaryFolder()
    let session = try #require(
      PseudoTerminalSession(arguments: ["-w", ":memory:"], environment: Self.environment(folder)))
    #expect(session.waitFor("workbench> "))
    var mark = session.transcript.count
    session.type("watch 300ms clock\r")
    #expect(
      session.waitFor("every 300ms: clock · run 3", after: mark), "\(session.screen(from: mark).debugDescription)")
    // The clock moved between runs: its line is marked as changed.
    #expect(session.waitFor("1 line changed", after: mark))
    #expect(session.waitFor("+ ", after: mark))
    session.type("x")
    #expect(session.waitFor("stopped watching clock", after: mark), "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("workbench> ", after: session.offset(after: "stopped watching", from: mark) ?? mark))
    // The key that stopped it was not typed: the next line runs as typed.
    mark = session.transcript.count
    session.type("windows\r")
    #expect(session.waitFor("no windows are open", after: mark), "\(session.screen(from: mark).debugDescription)")
    // Ctrl-C stops it too.
    mark = session.transcript.count
    session.type("watch 200ms windows\r")
    #expect(session.waitFor("run 2", after: mark))
    session.type("\u{03}")
    #expect(session.waitFor("stopped watching windows", after: mark))
    session.type("\u{04}")
    #expect(session.exitStatus() == 0)
    // In colour, what it watches is shown without the colour sequences as text (`^[[1;36m`).
    var coloured = Self.environment(folder)
    coloured["NO_COLOR"] = .some(nil)
    let colour = try #require(PseudoTerminalSession(arguments: ["-w", ":memory:"], environment: coloured))
    #expect(colour.waitFor("> "))
    colour.type("open catalog library left\r")
    #expect(colour.waitFor("library"))
    mark = colour.transcript.count
    colour.type("watch 300ms show\r")
    #expect(colour.waitFor("run 2", after: mark), "\(colour.screen(from: mark).debugDescription)")
    #expect(colour.waitFor("all 30 books", after: mark))
    #expect(!colour.screen(from: mark).contains("^["), "\(colour.screen(from: mark).debugDescription)")
    colour.type("x")
    #expect(colour.waitFor("stopped watching show", after: mark))
    colour.type("\u{04}")
    #expect(colour.exitStatus() == 0)
  }

  /// Ctrl-C stops `settle` at once, saying what is still pending; the prompt comes back and the
  /// load goes on.
  @Test func ctrlCStopsSettleAndSaysWhatIsPending() throws {
    let folder = makeTemporaryFolder()
    let session = try #require(
      PseudoTerminalSession(arguments: ["-w", ":memory:"], environment: Self.environment(folder)))
    #expect(session.waitFor("workbench> "))
    session.type("open feed account f\r")
    #expect(session.waitFor("f feed:account> "))
    let mark = session.transcript.count
    session.type("network latency 60000\r")
    #expect(session.waitFor("f feed:account> ", after: mark))
    session.type("search rent\r")
    session.type("settle 120s\r")
    #expect(session.waitFor("settle 120s", after: mark))
    usleep(300_000)
    let started = monotonicMilliseconds()
    session.type("\u{03}")
    #expect(
      session.waitFor("interrupted after", after: mark), "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("1 timer, the next in", after: mark))
    #expect(monotonicMilliseconds() - started < 10_000)
    #expect(session.waitFor("f feed:account> ", after: session.offset(after: "interrupted", from: mark) ?? mark))
    session.type("\u{04}")
    #expect(session.exitStatus() == 0)
  }

  /// Ctrl-C stops a long `sort title` (100,000 books) before it changes anything, and says so; a
  /// long command with no point to stop at (opening them) finishes, and the Ctrl-C is said, not
  /// left to abandon the next prompt. (Both ran to the end and the next prompt was dropped.)
  @Test func ctrlCStopsALongSortAndNothingChanges() throws {
    let folder = makeTemporaryFolder()
    // Titles out of order: sorting them takes a third of a second in a debug build, so the
    // Ctrl-C comes while it runs.
    let books = (1...100_000).map { #"{"id": \#($0), "title": "Bök \#($0 * 7919 % 100_003)"}"# }
      .joined(separator: ",")
    writeTextFile(
      #"{"name": "shelf", "kind": "catalog", "revision": 1, "body": {"books": [\#(books)]}}"#,
      to: folder + "/shelf.json")
    let workspace = folder + "/workspace.sqlite"
    let imported = ChildProcess.runWorkbench(["import", folder + "/shelf.json", "-w", workspace])
    #expect(imported.status == 0, "\(imported.stderr)")
    let session = try #require(
      PseudoTerminalSession(arguments: ["-w", workspace], environment: Self.environment(folder)))
    #expect(session.waitFor("workbench> "))
    var mark = session.transcript.count
    session.type("open catalog shelf main\r")
    #expect(session.waitFor("open catalog shelf main", after: mark))
    session.pass(milliseconds: 30)
    session.type("\u{03}")
    #expect(session.waitFor("main catalog:shelf> ", after: mark), "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("Ctrl-C came as the line ran", after: mark))
    #expect(session.screen(from: mark).contains("1  Bök 7919"))
    mark = session.transcript.count
    session.type("sort title\r")
    #expect(session.waitFor("sort title", after: mark))
    // Once the line runs, a Ctrl-C waits for the sort's next look (every few milliseconds).
    session.pass(milliseconds: 40)
    session.type("\u{03}")
    #expect(
      session.waitFor("interrupted (Ctrl-C): sort title stopped; nothing changed", after: mark),
      "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("main catalog:shelf> ", after: mark))
    #expect(!session.screen(from: mark).contains("Ctrl-C came as the line ran"))
    mark = session.transcript.count
    session.type("documents\r")
    #expect(
      session.waitFor("shelf  catalog  revision 1", after: mark), "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("main catalog:shelf> ", after: mark))
    session.type("\u{04}")
    #expect(session.exitStatus() == 0)
  }

  /// `run --watch` runs the scenarios again when a file changes, until Ctrl-C.
  @Test func runWatchRunsAgainWhenAScenarioChanges() throws {
    let folder = makeTemporaryFolder()
    let scenario = """
      scenario: Watched
      windows:
        main: catalog library
      steps:
        - main: select 2
        - expect:
            main: {selected: 2}

      """
    writeTextFile(scenario, to: folder + "/watched.yaml")
    let session = try #require(
      PseudoTerminalSession(
        arguments: ["run", "-j", "1", folder, "--watch"], environment: Self.environment(folder)))
    #expect(session.waitFor("1 passed, 0 failed"))
    #expect(session.waitFor("watching 1 scenario file (Ctrl-C stops)"))
    let mark = session.transcript.count
    usleep(50_000)
    writeTextFile(scenario.replacing("{selected: 2}", with: "{selected: 3}"), to: folder + "/watched.yaml")
    #expect(session.waitFor("watched.yaml changed: running again", after: mark), "\(session.screen(from: mark))")
    #expect(session.waitFor("0 passed, 1 failed", after: mark))
    session.type("\u{03}")
    _ = session.exitStatus()
  }

  /// readline's `set completion-ignore-case on`, as docs/shell.md shows it: `SEL<Tab>`
  /// completes `select` (it changed nothing).
  @Test func completionIgnoresCaseWhenAsked() throws {
    let folder = makeTemporaryFolder()
    writeTextFile("set completion-ignore-case on\n", to: folder + "/inputrc")
    let session = try #require(
      PseudoTerminalSession(
        arguments: ["-w", ":memory:"], environment: Self.environment(folder, inputrc: folder + "/inputrc")))
    #expect(session.waitFor("workbench> "))
    session.type("open catalog library main\r")
    #expect(session.waitFor("main catalog:library> "))
    let mark = session.transcript.count
    session.type("SEL\t")
    #expect(session.waitFor("select ", after: mark), "\(session.screen(from: mark).debugDescription)")
    session.type("3\r")
    #expect(session.waitFor("▸  3", after: mark), "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("main catalog:library> ", after: session.offset(after: "▸  3", from: mark) ?? mark))
    session.type("\u{04}")
    #expect(session.exitStatus() == 0, "\(session.screen(from: mark).debugDescription)")
  }

  /// Tab completes a file after `source` and `record start`, a command after `help`, and a book
  /// by its title (`select pragm` is book 6) with the titles listed when several match; it offered
  /// nothing for all of these.
  @Test func completionOffersFilesCommandsAndTitles() throws {
    let folder = makeTemporaryFolder()
    writeTextFile("documents\n", to: folder + "/commands-of-monday.txt")
    let session = try #require(
      PseudoTerminalSession(arguments: ["-w", ":memory:"], environment: Self.environment(folder)))
    #expect(session.waitFor("workbench> "))
    session.type("open catalog library main\r")
    #expect(session.waitFor("main catalog:library> "))
    var mark = session.transcript.count
    session.type("source \(folder)/commands-of\t")
    #expect(session.waitFor("commands-of-monday.txt ", after: mark), "\(session.screen(from: mark).debugDescription)")
    session.type("\r")
    #expect(session.waitFor("library  catalog", after: mark), "\(session.screen(from: mark).debugDescription)")
    mark = session.transcript.count
    session.type("record start \(folder)/comm\t")
    #expect(session.waitFor("commands-of-monday.txt ", after: mark), "\(session.screen(from: mark).debugDescription)")
    session.type("\u{15}")
    mark = session.transcript.count
    session.type("help sel\t")
    #expect(session.waitFor("help select ", after: mark), "\(session.screen(from: mark).debugDescription)")
    session.type("\u{15}")
    mark = session.transcript.count
    session.type("select pragm\t\r")
    #expect(session.waitFor("▸  6", after: mark), "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("main catalog:library> ", after: session.offset(after: "▸  6", from: mark) ?? mark))
    mark = session.transcript.count
    session.type("select programm\t\t")
    #expect(
      session.waitFor("3   The Art of Computer Programming", after: mark),
      "\(session.screen(from: mark).debugDescription)")
    #expect(session.waitFor("main catalog:library> select programm", after: mark))
    session.type("\u{15}\u{04}")
    #expect(session.exitStatus() == 0, "\(session.screen(from: mark).debugDescription)")
  }

  /// `help` taller than the terminal goes through the pager (less, as psql and git use it): the
  /// first screen shows, the end waits for the reader, and `q` gives the prompt back; a short
  /// help is printed; a pager that is not there leaves the text printed, with why. (`help`
  /// printed 94 lines, every module's, past the top of a 40-line terminal.)
  @Test func longHelpIsPaged() throws {
    let folder = makeTemporaryFolder()
    var environment = Self.environment(folder)
    environment["PAGER"] = "less"
    environment["LESS"] = .some(nil)
    let session = try #require(PseudoTerminalSession(arguments: ["-w", ":memory:"], environment: environment))
    #expect(session.waitFor("workbench> "))
    session.type("open catalog library main\r")
    #expect(session.waitFor("main catalog:library> "))
    var mark = session.transcript.count
    session.type("help\r")
    #expect(session.waitFor("Host commands:", after: mark))
    session.pass(milliseconds: 500)
    #expect(!session.screen(from: mark).contains("Put @WINDOW"), "\(session.screen(from: mark).debugDescription)")
    #expect(!session.screen(from: mark).contains("main catalog:library> "))
    session.type("G")  // less's end of the text
    #expect(session.waitFor("Put @WINDOW", after: mark), "\(session.screen(from: mark).debugDescription)")
    // Only the focused window's module has its commands listed; the others are named.
    #expect(session.screen(from: mark).contains("catalog commands (in this window)"))
    #expect(!session.screen(from: mark).contains("ledger commands"))
    #expect(session.screen(from: mark).contains("The commands of goal, editor, lights, ledger run in their windows"))
    session.type("q")
    #expect(session.waitFor("main catalog:library> ", after: mark), "\(session.screen(from: mark).debugDescription)")
    mark = session.transcript.count
    session.type("help select\r")
    #expect(session.waitFor("usage: select ID", after: mark))
    #expect(session.waitFor("main catalog:library> ", after: mark))
    session.type("\u{04}")
    #expect(session.exitStatus() == 0)

    environment["WORKBENCH_PAGER"] = "no-such-pager-here"
    let missing = try #require(PseudoTerminalSession(arguments: ["-w", ":memory:"], environment: environment))
    #expect(missing.waitFor("workbench> "))
    mark = missing.transcript.count
    missing.type("help\r")
    #expect(
      missing.waitFor("the pager 'no-such-pager-here' was not found", after: mark),
      "\(missing.screen(from: mark).debugDescription)")
    #expect(missing.screen(from: mark).contains("Put @WINDOW"))
    // Ctrl-D once the prompt is back (typed earlier, the terminal's cooked mode takes it).
    #expect(missing.waitFor("workbench> ", after: missing.offset(after: "was not found", from: mark) ?? mark))
    missing.type("\u{04}")
    #expect(missing.exitStatus() == 0)
  }

  @Test func anInputrcForTheWorkbenchIsRead() throws {
    let folder = makeTemporaryFolder()
    writeTextFile("$if workbench\n\"\\C-xh\": \"help\\n\"\n$endif\n", to: folder + "/inputrc")
    let session = try #require(
      PseudoTerminalSession(environment: Self.environment(folder, inputrc: folder + "/inputrc")))
    #expect(session.waitFor("workbench> "))
    let mark = session.transcript.count
    session.type("\u{18}h")  // Ctrl-X h, bound only inside `$if workbench`
    #expect(session.waitFor("open", after: mark), "screen: \(session.screen(from: mark))")
    #expect(session.waitFor("workbench> ", after: mark + 10))
    session.type("\u{04}")
    #expect(session.exitStatus() == 0)
  }
}
