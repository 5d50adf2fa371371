import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench explore` through the binary, on a module process: a module that crashes is found,
/// shrunk to the one command that crashes it and written as a scenario that `workbench run`
/// fails on the same way; exit codes 0, 1 and 2; `--json`.
struct ExploreCommandTests {
  var fixture: String {
    String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
  }

  @Test func aModuleThatCrashesIsFoundShrunkAndWritten() throws {
    let out = makeTemporaryFolder() + "/found.yaml"
    let crashing: [String: String?] = ["WORKBENCH_FIXTURE": "trap"]
    let explored = ChildProcess.runWorkbench(
      ["explore", "-m", fixture, "--screens", "tally", "--seed", "3", "--runs", "20", "--steps", "10", "--out", out],
      environment: crashing)
    #expect(explored.status == 1, "\(explored.stdout)\(explored.stderr)")
    #expect(explored.stdout.contains("found that the host and its modules stay up does not hold"), "\(explored.stdout)")
    let written = try #require(readTextFile(out))
    // The heading names the whole command, which run again (pasted) finds the same session.
    let command = try #require(written.firstMatch(of: /^# Found by `(workbench [^`]*)`/).map { String($0.1) })
    #expect(
      command.hasPrefix("workbench explore --module \(fixture) --screens tally --steps 10 --seed 3 --runs "),
      "\(written)")
    #expect(written.contains(/\n# Shrunk from \d+ steps? in \d windows? to 1 in 1\.\n/), "\(written)")
    let again = makeTemporaryFolder() + "/again.yaml"
    let pasted = ChildProcess.runWorkbench(
      Array(command.split(separator: " ").dropFirst().map(String.init)) + ["--out", again], environment: crashing)
    #expect(pasted.status == 1, "\(pasted.stdout)")
    #expect(pasted.stdout.contains("found that the host and its modules stay up does not hold"), "\(pasted.stdout)")
    let heading = { (text: String?) in text?.split(separator: "\n").first.map(String.init) }
    #expect(heading(readTextFile(again)) == heading(written), "\(readTextFile(again) ?? "")")
    #expect(written.contains(/\n  - w[1-4]: poke 1\n/), "\(written)")
    // The file fails under the runner as explore said.
    let run = ChildProcess.runWorkbench(["run", "-m", fixture, out], environment: crashing)
    #expect(run.status == 1, "\(run.stdout)")
    // Under a sanitizer a crash by signal is reported and becomes an exit status.
    let stopped = "the module fixture stopped while running `poke`: "
    #expect(
      run.stdout.contains(stopped + "it crashed")
        || (ChildProcess.isSanitized && run.stdout.contains(stopped + "it exited with status ")),
      "\(run.stdout)")
    // The same, for a machine.
    let json = ChildProcess.runWorkbench(
      [
        "explore", "-m", fixture, "--screens", "tally", "--seed", "3", "--runs", "20", "--steps", "10", "--out", out,
        "--force", "--json",
      ],
      environment: crashing)
    #expect(json.status == 1)
    let summary = try FrameValue.parse(json: Array(json.stdout.utf8))
    #expect(summary["found"]?["property"] == .string("the host and its modules stay up"), "\(json.stdout)")
    #expect(summary["found"]?["steps"] == .integer(1), "\(json.stdout)")
  }

  /// `--jobs` deals the sessions out to processes and finds what one process finds: the same
  /// session, shrunk to the same file, with the same counts.
  @Test func jobsFindWhatOneProcessFinds() throws {
    let folder = makeTemporaryFolder()
    // One state folder for both, so the module's log is named the same in what they write.
    let crashing: [String: String?] = [
      "WORKBENCH_FIXTURE": "trap", "XDG_STATE_HOME": folder + "/state", "XDG_DATA_HOME": folder + "/data",
    ]
    var outputs: [String] = []
    var summaries: [FrameValue] = []
    for jobs in ["1", "3"] {
      let explored = ChildProcess.runWorkbench(
        [
          "explore", "-m", fixture, "--screens", "tally", "--seed", "11", "--runs", "40", "--steps", "1", "--jobs",
          jobs, "--out", folder + "/found.yaml", "--force", "--json",
        ],
        environment: crashing)
      #expect(explored.status == 1, "--jobs \(jobs): \(explored.stdout)\(explored.stderr)")
      outputs.append(try #require(readTextFile(folder + "/found.yaml")))
      guard case .object(let summary) = try FrameValue.parse(json: Array(explored.stdout.utf8)) else {
        Issue.record("not a JSON object: \(explored.stdout)")
        return
      }
      summaries.append(.object(FrameObject(members: summary.members.filter { $0.key != "seconds" })))
    }
    // Under a sanitizer, how the crash is reported (a signal, or the sanitizer's exit status)
    // varies from one crash to the next; what is found must not.
    func same(_ text: String) -> String {
      ChildProcess.isSanitized
        ? text.replacing(/it (crashed \([^)]*\)|exited with status \d+)/, with: "it stopped") : text
    }
    #expect(same(outputs[0]) == same(outputs[1]))
    #expect(same(summaries[0].jsonText) == same(summaries[1].jsonText))
    #expect(summaries[0]["found"]?["steps"] == .integer(1), "\(summaries[0])")
    // Found past the first sessions, so in another part than the first.
    #expect((summaries[0]["sessions"]?.integerValue ?? 0) > 1, "\(summaries[0])")
  }

  /// The file explore writes is the user's: never written over unless `--force`, never
  /// through a link, never into a FIFO (the open does not wait); one it cannot write goes to a
  /// temporary file it names, and the finding is shown all the same, with exit 1.
  @Test func theFileExploreWritesIsNeverAnotherFile() throws {
    let folder = makeTemporaryFolder()
    let crashing: [String: String?] = ["WORKBENCH_FIXTURE": "trap"]
    func explore(_ out: String, _ more: [String] = []) -> ProcessResult {
      ChildProcess.runWorkbench(
        ["explore", "-m", fixture, "--screens", "tally", "--seed", "3", "--runs", "20", "--steps", "10", "--out", out]
          + more, environment: crashing)
    }
    let kept = folder + "/kept.yaml"
    writeTextFile("mine\n", to: kept)
    let target = folder + "/target.yaml"
    writeTextFile("the link's\n", to: target)
    #expect(symlink(target, folder + "/link.yaml") == 0)
    #expect(mkfifo(folder + "/fifo", 0o644) == 0)
    for (out, problem) in [
      (kept, "is there already: say --force to replace it"), (folder + "/link.yaml", "is a symbolic link"),
      (folder + "/fifo", "is not a regular file"), (folder, "is a folder"),
      (folder + "/linked.yaml", "is a symbolic link"),
    ] {
      if out.hasSuffix("linked.yaml") { #expect(symlink(target, out) == 0) }
      let explored = explore(out, out.hasSuffix("linked.yaml") ? ["--force"] : [])
      #expect(explored.status == 1, "\(out): \(explored.stdout)\(explored.stderr)")
      #expect(explored.stdout.contains("not written to \(out) (\(out) \(problem)"), "\(explored.stdout)")
      let elsewhere = try #require(explored.stdout.firstMatch(of: /wrote (\/\S+)/).map { String($0.1) })
      #expect(readTextFile(elsewhere)?.hasPrefix("# Found by `workbench explore --module ") == true, "\(elsewhere)")
    }
    #expect(readTextFile(kept) == "mine\n")
    #expect(readTextFile(target) == "the link's\n")
    let forced = explore(kept, ["--force"])
    #expect(forced.status == 1)
    #expect(forced.stdout.contains("wrote \(kept) "), "\(forced.stdout)")
    #expect(readTextFile(kept)?.hasPrefix("# Found by") == true)
    // Written nowhere at all, the scenario is in the JSON.
    let json = ChildProcess.runWorkbench(
      [
        "explore", "-m", fixture, "--screens", "tally", "--seed", "3", "--runs", "20", "--steps", "10", "--out", kept,
        "--json",
      ], environment: crashing.merging(["TMPDIR": folder + "/no-such-folder"]) { $1 })
    let summary = try FrameValue.parse(json: Array(json.stdout.utf8))
    #expect(summary["found"]?["file"] == .null, "\(json.stdout)")
    #expect(summary["found"]?["scenario"]?.stringValue?.hasPrefix("# Found by") == true, "\(json.stdout)")
    #expect(summary["found"]?["outProblem"]?.stringValue?.contains("is there already") == true, "\(json.stdout)")
  }

  /// Terminal control in what a module shows is shown visibly in the summary and in the file,
  /// and the file explore writes always loads: a step refused for a number across its range
  /// (`poke 0`) carries its `fails:`.
  @Test func moduleTextWithEscapesIsShownVisiblyAndTheFileLoads() throws {
    let folder = makeTemporaryFolder()
    let always = folder + "/always.yaml"
    writeTextFile("always:\n  tally:\n    label: {$matches: '^tally$'}\n", to: always)
    let escapes: [String: String?] = ["WORKBENCH_FIXTURE": "escapes"]
    for seed in ["1", "2", "3"] {
      let out = folder + "/found-\(seed).yaml"
      let explored = ChildProcess.runWorkbench(
        [
          "explore", "-m", fixture, "--screens", "tally", "--always", always, "--seed", seed, "--runs", "5", "--steps",
          "5", "--out", out,
        ],
        environment: escapes)
      #expect(explored.status == 1, "\(explored.stdout)\(explored.stderr)")
      #expect(!explored.stdout.contains("\u{1B}") && !explored.stdout.contains("\u{07}"), "\(explored.stdout)")
      #expect(explored.stdout.contains("(`workbench run \(out)` fails the same way)"), "\(explored.stdout)")
      let written = try #require(readTextFile(out))
      #expect(!written.contains("\u{1B}"), "\(written)")
      let check = ChildProcess.runWorkbench(["check", "-m", fixture, out], environment: escapes)
      #expect(check.status == 0, "\(written)\n\(check.stdout)\(check.stderr)")
      let run = ChildProcess.runWorkbench(["run", "-m", fixture, out], environment: escapes)
      #expect(run.status == 1, "\(run.stdout)")
    }
  }

  /// `--time` is the whole run's, shrinking included, checked between a session's steps: a
  /// module that takes half a second a command, or never answers, cannot stretch it by much,
  /// and what was cut short is said. (Before, the limit was checked only between sessions:
  /// `--time 1s` ran 8.5 s and `--time 5s --jobs 2` 28 s.)
  @Test(arguments: [
    ("slow", ["--time", "1s"], "--time ran out in session 1", 6.0),
    ("hang", ["--time", "5s", "--jobs", "2"], "--time ran out while shrinking", 15.0),
  ])
  func timeIsTheWholeRunsAndSaysWhatItCut(mode: String, time: [String], cut: String, most: Double) {
    let folder = makeTemporaryFolder()
    let out = folder + "/found.yaml"
    let started = ContinuousClock.now
    // A mark in the environment of every process the run starts, to find any left behind.
    let mark = "WORKBENCH_TEST_MARK=" + folder
    let explored = ChildProcess.runWorkbench(
      ["explore", "-m", fixture, "--screens", "tally", "--out", out] + time,
      environment: ["WORKBENCH_FIXTURE": mode, "WORKBENCH_TEST_MARK": folder])
    let took = ContinuousClock.now - started
    #expect(explored.stdout.contains("  cut short: \(cut)"), "\(explored.stdout)\(explored.stderr)")
    #expect(took < .seconds(most), "\(took): \(explored.stdout)")
    // No module process outlives the run: a worker ended by its parent while its module hung in
    // a request ends the module too (they were left sleeping for ever).
    usleep(300_000)
    let left = ChildProcess.run(
      "/bin/sh", ["-c", "grep -las '\(mark)' /proc/[0-9]*/environ | wc -l"], input: [],
      environment: ChildProcess.environment([:]))
    #expect(left.stdout.filter(\.isNumber) == "0", "processes left: \(left.stdout)")
    if mode == "hang" {
      #expect(explored.status == 1)
      #expect(readTextFile(out)?.contains("# Not run through `workbench run` before it was written") == true)
    }
  }

  /// A `--jobs` worker killed from outside (here by the module it started) is said to have
  /// died, and how; its sessions go on in the parent, so the run finds (and counts) what one
  /// process does, and no module is blamed.
  @Test func aWorkerKilledFromOutsideIsSaidAndItsSessionsGoOn() throws {
    let folder = makeTemporaryFolder()
    let arguments = ["explore", "-m", fixture, "--screens", "tally", "--seed", "4", "--runs", "30", "--steps", "5"]
    let killing: [String: String?] = [
      "WORKBENCH_FIXTURE": "kill-host-once", "WORKBENCH_FIXTURE_MARK": folder + "/mark",
    ]
    let explored = ChildProcess.runWorkbench(
      arguments + ["--jobs", "2", "--out", folder + "/found.yaml"], environment: killing)
    #expect(explored.status == 0, "\(explored.stdout)\(explored.stderr)")
    #expect(explored.stdout.contains("nothing found"), "\(explored.stdout)")
    #expect(
      explored.stdout.contains(
        /note: the explore worker for part [12] of 2 stopped \(it was ended by signal 9 \(SIGKILL\)\) in session \d+: its sessions from there ran here/
      ),
      "\(explored.stdout)")
    #expect(!explored.stdout.contains("do not behave the same"), "\(explored.stdout)")
    let alone = ChildProcess.runWorkbench(arguments + ["--out", folder + "/alone.yaml"])
    let counts = /explored (\d+ sessions \(\d+ steps, \d+ refused, \d+ checks\))/
    #expect(
      explored.stdout.firstMatch(of: counts).map { String($0.1) }
        == alone.stdout.firstMatch(of: counts).map { String($0.1) },
      "\(explored.stdout)\n\(alone.stdout)")
  }

  /// `--module FILE` explores that module's screens, not the built-ins' as well.
  @Test func aModuleGivenIsExploredOnItsOwnScreens() throws {
    // A rule every catalog window breaks: found only where a catalog window opens.
    let folder = makeTemporaryFolder()
    writeTextFile("always:\n  catalog:\n    total: {$between: [0, 0]}\n", to: folder + "/always.yaml")
    let arguments = ["explore", "-m", fixture, "--always", folder + "/always.yaml", "--runs", "30", "--steps", "5"]
    // Without the fixture's switch at the wall (`ok`): it comes from a thread 50 ms after
    // `wall-later`. Under heavy load (eight busy processes on two cores) explore's replay of it
    // differed in 8 seeds of 10, because the Swift kit applied an event its own host took in
    // between two looks; since that was mended, 1 seed in 15 still fails there, in a move in
    // time (the moved session's device switches again). What this test is about is which
    // screens are explored.
    let quiet: [String: String?] = ["WORKBENCH_FIXTURE": "ok"]
    let own = ChildProcess.runWorkbench(arguments + ["--out", folder + "/own.yaml"], environment: quiet)
    #expect(own.status == 0, "\(own.stdout)\(own.stderr)")
    #expect(own.stdout.contains(": nothing found\n"), "\(own.stdout)")
    // Asked for, the built-in screens are explored too.
    let asked = ChildProcess.runWorkbench(
      arguments + ["--screens", "tally,catalog", "--out", folder + "/asked.yaml"], environment: quiet)
    #expect(asked.status == 1, "\(asked.stdout)\(asked.stderr)")
  }

  /// A matcher written wrong in an `--always` file is an error at its line and column before
  /// anything runs (exit 2), in words, never a failure blamed on the module.
  @Test(arguments: [
    ("{$between: []}", "3:23: $between takes two numbers, [LOW, HIGH]"),
    ("{$betwen: [0, 3]}", "3:13: '$betwen' is not a matcher. Did you mean '$between'?"),
    ("{$matches: '(('}", "3:23: the pattern of $matches does not compile: "),
    ("{$between: [5, 1]}", "3:23: $between [5.0, 1.0] holds no number: put the lower bound first"),
    ("{$any: true, $matches: x}", "3:13: a matcher is a mapping of one key"),
    ("[1, {$contains: 3}]", "3:28: $contains takes a list"),
  ])
  func aMatcherWrittenWrongIsAnErrorAtItsPlace(matcher: String, error: String) throws {
    let always = makeTemporaryFolder() + "/always.yaml"
    writeTextFile("always:\n  tally:\n    pokes: \(matcher)\n", to: always)
    let explored = ChildProcess.runWorkbench(["explore", "-m", fixture, "--screens", "tally", "--always", always])
    #expect(explored.status == 2, "\(explored.stdout)\(explored.stderr)")
    #expect(explored.stderr.hasPrefix("workbench explore: \(always):\(error)"), "\(explored.stderr)")
    #expect(!explored.stderr.contains("RegexProblem"), "\(explored.stderr)")
  }

  /// A mistake in an `--always` file is a usage error that says where.
  @Test func aBrokenAlwaysFileSaysWhere() throws {
    let always = makeTemporaryFolder() + "/always.yaml"
    writeTextFile("always:\n  tallly:\n    count: 1\n", to: always)
    let explored = ChildProcess.runWorkbench(["explore", "-m", fixture, "--always", always])
    #expect(explored.status == 2, "\(explored.stdout)\(explored.stderr)")
    #expect(explored.stderr.hasPrefix("workbench explore: \(always):2:3: no screen 'tallly'"), "\(explored.stderr)")
  }

  /// The newcomer's notes module (#46): `strike N` starts a draft of what to strike, kept in the
  /// module's process beside the window's view state, before it checks N, and is refused; the
  /// next strike strikes the draft too. No frame changes at the refusal and a replay does the
  /// same, so only the window opened again from its document and view state shows it. Found,
  /// shrunk and written with its `reopen`; the sound version passes as many sessions.
  @Test func aDraftKeptBesideTheViewStateIsFound() throws {
    let folder = makeTemporaryFolder()
    writeTextFile(
      """
      #!/usr/bin/env python3
      import os, sys
      sys.path.insert(0, os.environ["WORKBENCH_KIT"])
      import workbench_module as wb

      module = wb.Module("notes", "1.0", "notes to strike")
      module.document_kind("notes", samples={"errands": {"items": ["milk", "eggs", "tea", "soap"]}})
      drafts = {}  # by window: what the next strike strikes besides its own
      buggy = os.environ.get("NOTES_BUG") == "1"

      @module.screen("notes", kind="notes", fields=["items", "struck"])
      class Notes(wb.Screen):
          def frame(self):
              return {"items": self.window.document["items"], "struck": self.window.state.get("struck", [])}

      @module.command("strike", screens=["notes"], arguments=[wb.integer("n", 0, 9)])
      def strike(window, n):
          if buggy:
              drafts.setdefault(window.key, []).append(n)  # the bug: the draft starts before n is checked
          if not 1 <= n <= len(window.document["items"]):
              raise wb.Refused(f"there is no note {n}")
          draft = drafts.pop(window.key, []) if buggy else [n]
          window.state["struck"] = sorted(set(window.state.get("struck", [])) | set(draft))

      sys.exit(module.run())
      """, to: folder + "/notes.py")
    let environment: [String: String?] = ["WORKBENCH_KIT": repositoryRoot() + "/Kits/python"]
    let module = folder + "/notes.py"
    chmod(module, 0o755)
    let explore = ["explore", "-m", module, "--runs", "60", "--steps", "12", "--json"]
    let found = ChildProcess.runWorkbench(
      explore + ["--out", folder + "/found.yaml"], environment: environment.merging(["NOTES_BUG": "1"]) { $1 })
    #expect(found.status == 1, "\(found.stdout)\(found.stderr)")
    let summary = try FrameValue.parse(json: Array(found.stdout.utf8))
    #expect(
      summary["found"]?["property"] == .string("a window rebuilt from its document and view state is the same window"),
      "\(found.stdout)")
    #expect(summary["found"]?["failsUnderRun"] == .bool(true), "\(found.stdout)")
    let written = try #require(readTextFile(folder + "/found.yaml"))
    #expect(written.contains("- do: reopen\n"), "\(written)")
    #expect(written.contains("fails: there is no note"), "\(written)")
    let run = ChildProcess.runWorkbench(
      ["run", "-m", module, folder + "/found.yaml"],
      environment: environment.merging(["NOTES_BUG": "1"]) {
        $1
      })
    #expect(run.status == 1, "\(run.stdout)")
    // The sound module: nothing, with windows opened again as explore went.
    let sound = ChildProcess.runWorkbench(explore + ["--out", folder + "/none.yaml"], environment: environment)
    #expect(sound.status == 0, "\(sound.stdout)\(sound.stderr)")
    let none = try FrameValue.parse(json: Array(sound.stdout.utf8))
    #expect((none["rebuilds"]?.integerValue ?? 0) > 30, "\(sound.stdout)")
  }

  /// Undo puts back a window's timers (§18): a note whose autosave `discard` cancelled gets it back
  /// with `undo view`, on a kit that moves what `restore` names. The host holds a kit to it: one
  /// that leaves the timers aside fails the undo, saying so (the note here leaves its timers to
  /// the host: its `restored` sets none; a window of it opened again, which keeps its view history
  /// and not the timers of it, is what explore finds wanting first). Explore compares undos
  /// of commands that set or cancel their window's timers (before, none): drafts.py, whose
  /// `restored` sets the autosave its state says when none waits, explores clean.
  @Test func aKitThatDoesNotPutBackAnUndosTimersIsFound() throws {
    let folder = makeTemporaryFolder()
    let drafts = repositoryRoot() + "/Tests/ProcessModules/Drafts"
    writeTextFile(
      """
      #!/usr/bin/env python3
      import os, sys
      sys.path.insert(0, os.environ["WORKBENCH_KIT"])
      import workbench_module as wb
      if os.environ.get("LEAVE_ASIDE") == "1":
          wb.Clock._move = lambda self, put_back, take_away: []  # the bug: restore's timers left aside
      if os.environ.get("NO_UNDO_TIMERS") == "1":  # a module from before §18 said how undo moves timers
          hello = wb.Module._hello
          wb.Module._hello = lambda self: {k: v for k, v in hello(self).items() if k != "undoTimers"}

      notes = wb.Module("drafts", "1.0", "notes with an autosave left to the host")
      notes.document_kind("note", samples={"memo": {"text": ""}})

      def save(window):
          window.document = dict(window.document, text=window.document["text"] + window.state.get("draft", ""))
          window.state = {"draft": "", "autosave": None}

      @notes.screen("note", kind="note", fields=["text", "draft", "autosave"])
      class Note(wb.Screen):
          def __init__(self, window):
              super().__init__(window)
              due = window.state.get("autosave")
              if due is not None:
                  window.session.clock.schedule(max(0, due - window.session.clock.now), lambda: save(window),
                                                id="autosave " + window.key)

          def frame(self):
              state = self.window.state
              return {"text": self.window.document["text"], "draft": state.get("draft", ""),
                      "autosave": state.get("autosave")}

      @notes.command("type", screens=["note"], arguments=[wb.rest("words")])
      def type_words(window, words):
          clock = window.session.clock
          window.state = {"draft": window.state.get("draft", "") + words, "autosave": clock.now + 5000}
          clock.schedule(5000, lambda: save(window), id="autosave " + window.key)

      @notes.command("discard", screens=["note"])
      def discard(window):
          window.state = {"draft": "", "autosave": None}
          window.session.clock.cancel("autosave " + window.key)

      notes.run()
      """, to: folder + "/notes.py")
    let notes = folder + "/notes.py"
    chmod(notes, 0o755)
    let environment: [String: String?] = ["WORKBENCH_KIT": repositoryRoot() + "/Kits/python"]
    let leavingAside = environment.merging(["LEAVE_ASIDE": "1"]) { $1 }
    let said = "did not move the window's timers as `restore` asked (§18)"
    let undoing = drafts + "/Scenarios/autosave.yaml:3"
    #expect(ChildProcess.runWorkbench(["run", "-m", notes, undoing], environment: environment).status == 0)
    let run = ChildProcess.runWorkbench(["run", "-m", notes, undoing], environment: leavingAside)
    #expect(run.status == 1, "\(run.stdout)")
    #expect(run.stdout.contains("n: undo view\n   the drafts module " + said), "\(run.stdout)")
    // A module whose hello does not say `undoTimers` keeps its timers through an undo, as before:
    // no error, and the autosave does not come back.
    let older = environment.merging(["LEAVE_ASIDE": "1", "NO_UNDO_TIMERS": "1"]) { $1 }
    writeTextFile(
      "scenario: s\nwindows:\n  n: note memo\nsteps:\n  - n: type a\n  - n: discard\n  - n: undo view\n"
        + "  - do: clock advance 10s\n  - expect:\n      n: {text: '', draft: a}\n", to: folder + "/older.yaml")
    let kept = ChildProcess.runWorkbench(["run", "-m", notes, folder + "/older.yaml"], environment: older)
    #expect(kept.status == 0, "\(kept.stdout)")
    let explore = ["explore", "--seed", "1", "--json"]
    // Explored, a note that sets its autosave from the state it is given back: nothing, with
    // undos of the autosave compared and windows opened again.
    let clean = ChildProcess.runWorkbench(
      explore + ["-m", drafts + "/drafts.py", "--runs", "100", "--out", folder + "/none.yaml"],
      environment: environment)
    #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
    let none = try FrameValue.parse(json: Array(clean.stdout.utf8))
    #expect((none["undosAndRedos"]?.integerValue ?? 0) > 100, "\(clean.stdout)")
    #expect((none["rebuilds"]?.integerValue ?? 0) > 100, "\(clean.stdout)")
  }

  /// `--against`: a port that rounds what it is given (an odd amount added as the even one below)
  /// differs from the module it stands in for; explore finds the first difference, shrinks it
  /// and writes a file that passes on the module explored and fails on the port. A faithful port
  /// agrees over every session.
  @Test func aPortThatRoundsAValueIsFoundAgainstItsOriginal() throws {
    let folder = makeTemporaryFolder()
    func tally(rounding: Bool) -> String {
      """
      #!/usr/bin/env python3
      import os, sys
      sys.path.insert(0, os.environ["WORKBENCH_KIT"])
      import workbench_module as wb

      module = wb.Module("tally", "1.0", "a number that adds up")
      module.document_kind("tally", samples={"sum": {"total": 0}})

      @module.screen("tally", kind="tally", fields=["total"])
      class Tally(wb.Screen):
          def frame(self):
              return {"total": self.window.document["total"]}

      @module.command("add", screens=["tally"], arguments=[wb.integer("n", 1, 9)])
      def add(window, n):
          window.document = {"total": window.document["total"] + (\(rounding ? "n // 2 * 2" : "n"))}

      sys.exit(module.run())
      """
    }
    writeTextFile(tally(rounding: false), to: folder + "/tally.py")
    writeTextFile(tally(rounding: true), to: folder + "/port.py")
    writeTextFile(tally(rounding: false), to: folder + "/faithful.py")
    for name in ["tally", "port", "faithful"] { chmod(folder + "/\(name).py", 0o755) }
    let environment: [String: String?] = ["WORKBENCH_KIT": repositoryRoot() + "/Kits/python"]
    let explore = ["explore", "-m", folder + "/tally.py", "--runs", "40", "--steps", "10", "--json"]
    let found = ChildProcess.runWorkbench(
      explore + ["--against", folder + "/port.py", "--out", folder + "/found.yaml"], environment: environment)
    #expect(found.status == 1, "\(found.stdout)\(found.stderr)")
    let summary = try FrameValue.parse(json: Array(found.stdout.utf8))
    #expect(summary["found"]?["property"] == .string("two implementations of a screen agree"), "\(found.stdout)")
    #expect(summary["found"]?["failsUnderRun"] == .bool(true), "\(found.stdout)")
    #expect(summary["found"]?["steps"] == .integer(1), "\(found.stdout)")
    let written = try #require(readTextFile(folder + "/found.yaml"))
    #expect(written.contains("--against \(folder)/port.py"), "\(written)")
    #expect(written.contains("with port.py in its module's place"), "\(written)")
    let onOriginal = ChildProcess.runWorkbench(
      ["run", "-m", folder + "/tally.py", folder + "/found.yaml"], environment: environment)
    #expect(onOriginal.status == 0, "\(onOriginal.stdout)")
    let onPort = ChildProcess.runWorkbench(
      ["run", "-m", folder + "/port.py", folder + "/found.yaml"], environment: environment)
    #expect(onPort.status == 1, "\(onPort.stdout)")
    let faithful = ChildProcess.runWorkbench(
      explore + ["--against", folder + "/faithful.py", "--out", folder + "/none.yaml"], environment: environment)
    #expect(faithful.status == 0, "\(faithful.stdout)\(faithful.stderr)")
    // A module that stands in for nothing loaded is a usage error.
    let stray = ChildProcess.runWorkbench(
      ["explore", "--against", folder + "/port.py", "--runs", "1"], environment: environment)
    #expect(stray.status == 2, "\(stray.stdout)\(stray.stderr)")
    #expect(stray.stderr.contains("no module loaded registers its screens (tally)"), "\(stray.stderr)")
  }

  /// `--against` a port that crashes: the finding names the implementation that stopped, and
  /// the file written says it passes on the module explored and fails with the port in its
  /// place, as it does. (Before, it said "the module tally stopped" and that the file passes when
  /// run once, as if the modules did not behave the same on every run.)
  @Test func aPortThatCrashesIsNamedAndItsFileFailsWithIt() throws {
    let folder = makeTemporaryFolder()
    let environment: [String: String?] = ["WORKBENCH_KIT": repositoryRoot() + "/Kits/python"]
    for (name, crashing) in [("tally", false), ("crashing", true)] {
      writeTextFile(
        """
        #!/usr/bin/env python3
        import os, sys
        sys.path.insert(0, os.environ["WORKBENCH_KIT"])
        import workbench_module as wb

        module = wb.Module("tally", "1.0", "a number that adds up")
        module.document_kind("tally", samples={"sum": {"total": 0}})

        @module.screen("tally", kind="tally", fields=["total"])
        class Tally(wb.Screen):
            def frame(self):
                return {"total": self.window.document["total"]}

        @module.command("add", screens=["tally"], arguments=[wb.integer("n", 1, 9)])
        def add(window, n):
            if \(crashing ? "True" : "False"):
                os._exit(3)
            window.document = {"total": window.document["total"] + n}

        sys.exit(module.run())
        """, to: folder + "/\(name).py")
      chmod(folder + "/\(name).py", 0o755)
    }
    let found = ChildProcess.runWorkbench(
      [
        "explore", "-m", folder + "/tally.py", "--against", folder + "/crashing.py", "--runs", "10", "--steps", "5",
        "--out", folder + "/found.yaml",
      ], environment: environment)
    #expect(found.status == 1, "\(found.stdout)\(found.stderr)")
    #expect(found.stdout.contains("found that the host and its modules stay up does not hold"), "\(found.stdout)")
    #expect(
      found.stdout.contains(
        "  with crashing.py in its module's place: the module tally stopped while running `add`: it exited with status 3"
      ),
      "\(found.stdout)")
    #expect(
      found.stdout.contains("(it passes on the modules explored, and fails with crashing.py in its module's place"),
      "\(found.stdout)")
    let written = try #require(readTextFile(folder + "/found.yaml"))
    #expect(written.contains("# It passes on the modules explored, and fails with crashing.py in its module's place."))
    #expect(!written.contains("passes when run once"), "\(written)")
    let onOriginal = ChildProcess.runWorkbench(
      ["run", "-m", folder + "/tally.py", folder + "/found.yaml"], environment: environment)
    #expect(onOriginal.status == 0, "\(onOriginal.stdout)")
    let onPort = ChildProcess.runWorkbench(
      ["run", "-m", folder + "/crashing.py", folder + "/found.yaml"], environment: environment)
    #expect(onPort.status == 1, "\(onPort.stdout)")
  }

  /// `--coverage FILE` keeps to `--out`'s rules, in `explore` and in `run`: never over a file
  /// that is there without `--force`, never over a file the run read (a scenario, an `--always`
  /// file) or the one `--out` just wrote, never into a FIFO or a device, and a failure to write
  /// is exit 2 with the reason. (Before, it replaced whatever the path named, the scenario being
  /// run among them, and exited 0 when it could not write.)
  @Test func theCoverageFileIsWrittenAsOutsIs() throws {
    let folder = makeTemporaryFolder()
    writeTextFile("always:\n  feed:\n    count: {$between: [0, 1000]}\n", to: folder + "/always.yaml")
    writeTextFile(
      "scenario: A search\nwindows:\n  main: feed account\nsteps:\n  - main: search rent\n", to: folder + "/s.yaml")
    mkfifo(folder + "/fifo", 0o644)
    writeTextFile("kept", to: folder + "/there.json")
    let explore = ["explore", "--screens", "feed", "--runs", "2", "--steps", "3", "--out", folder + "/found.yaml"]
    func refused(_ arguments: [String], _ said: String, keeps file: String? = nil) {
      let before = file.flatMap(readTextFile)
      let result = ChildProcess.runWorkbench(arguments)
      #expect(result.status == 2, "\(arguments): \(result.stdout)\(result.stderr)")
      #expect(result.stderr.contains(said), "\(arguments): \(result.stderr)")
      if let file { #expect(readTextFile(file) == before, "\(file) was written over") }
    }
    refused(
      explore + ["--coverage", folder + "/there.json"], "is there already: say --force", keeps: folder + "/there.json")
    refused(
      explore + ["--always", folder + "/always.yaml", "--coverage", folder + "/always.yaml", "--force"],
      "is the --always file", keeps: folder + "/always.yaml")
    refused(explore + ["--coverage", "/dev/full", "--force"], "is not a regular file")
    refused(explore + ["--coverage", folder + "/fifo", "--force"], "is not a regular file")
    refused(
      ["run", folder + "/s.yaml", "--coverage", folder + "/s.yaml", "--force"], "is a scenario file this run read")
    #expect(readTextFile(folder + "/s.yaml")?.hasPrefix("scenario: A search") == true)
    refused(["run", folder + "/s.yaml", "--coverage", folder + "/there.json"], "is there already: say --force")
    let replaced = ChildProcess.runWorkbench([
      "run", folder + "/s.yaml", "--coverage", folder + "/there.json", "--force",
    ])
    #expect(replaced.status == 0, "\(replaced.stdout)\(replaced.stderr)")
    #expect(readTextFile(folder + "/there.json")?.hasPrefix("{") == true)
    // The file --out wrote (a rule every feed window breaks: found at once) is not then written
    // over by the coverage, --force or not.
    writeTextFile("always:\n  feed:\n    count: {$between: [-2, -1]}\n", to: folder + "/broken.yaml")
    writeTextFile("an older finding", to: folder + "/same.yaml")
    refused(
      ["explore", "--screens", "feed", "--runs", "2", "--steps", "3", "--always", folder + "/broken.yaml"]
        + ["--out", folder + "/same.yaml", "--coverage", folder + "/same.yaml", "--force"], "is the file --out wrote")
    #expect(readTextFile(folder + "/same.yaml")?.contains("scenario:") == true)
  }

  /// `--coverage FILE`: what the sessions covered, per module, as JSON that keeps to
  /// docs/coverage.schema.json; the same with `--jobs 2` as in one process; a command counted as
  /// never run exactly when it ran and was refused no time; the feed machine's transitions
  /// counted from the frames' `state`; a line per module on the console.
  @Test func coverageSaysWhatTheSessionsReached() throws {
    let folder = makeTemporaryFolder()
    let schemaText = try #require(readTextFile(repositoryRoot() + "/docs/coverage.schema.json"))
    let validator = SchemaValidator(root: try FrameValue.parse(json: Array(schemaText.utf8)))
    let arguments = ["explore", "--screens", "feed", "--seed", "4", "--out", folder + "/none.yaml"]
    let one = ChildProcess.runWorkbench(arguments + ["--runs", "30", "--coverage", folder + "/one.json"])
    #expect(one.status == 0, "\(one.stdout)\(one.stderr)")
    #expect(
      one.stdout.contains(
        /\n  coverage: ledger: \d+ of 16 commands run, \d+ carried out; feed: \d of 8 transitions taken\n/),
      "\(one.stdout)")
    let text = try #require(readTextFile(folder + "/one.json"))
    let coverage = try FrameValue.parse(json: Array(text.utf8))
    #expect(validator.validate(coverage).isEmpty, "\(validator.validate(coverage))")
    #expect(coverage["steps"] == .integer(30 * 30))
    let ledger = try #require(coverage["modules"]?["ledger"])
    #expect(coverage["modules"]?["catalog"] == nil, "only the modules of the screens explored")
    let taken = ledger["machines"]?["feed"]?["transitions"]?.elements?.filter { ($0["taken"]?.integerValue ?? 0) > 0 }
    #expect(taken?.contains { $0["from"] == "loading" && $0["to"] == "loaded" } == true, "\(text)")
    #expect((ledger["screens"]?["feed"]?.integerValue ?? 0) >= 30)
    // Dealt out to two processes, the sessions cover the same.
    let two = ChildProcess.runWorkbench(
      arguments + ["--runs", "30", "--coverage", folder + "/two.json", "--jobs", "2"])
    #expect(two.status == 0, "\(two.stdout)\(two.stderr)")
    #expect(readTextFile(folder + "/two.json") == text)
    // One short session leaves commands never run, and says which.
    let short = ChildProcess.runWorkbench(
      arguments + ["--runs", "1", "--steps", "3", "--coverage", folder + "/short.json", "--force"])
    let little = try FrameValue.parse(json: Array(try #require(readTextFile(folder + "/short.json")).utf8))
    let commands = try #require(little["modules"]?["ledger"]?["commands"])
    let never = Set(little["modules"]?["ledger"]?["neverRun"]?.elements?.compactMap(\.stringValue) ?? [])
    #expect(never.count >= 12, "\(short.stdout)")
    guard case .object(let all) = commands else { return }
    let refusedAlways = Set(
      little["modules"]?["ledger"]?["neverCarriedOut"]?.elements?.compactMap(\.stringValue) ?? [])
    for (name, counts) in all.members {
      let tried = (counts["ran"]?.integerValue ?? 0) + (counts["refused"]?.integerValue ?? 0)
      #expect((tried == 0) == never.contains(name), "\(name): \(counts.jsonText)")
      #expect((counts["ran"]?.integerValue == 0) == refusedAlways.contains(name), "\(name): \(counts.jsonText)")
    }
  }

  /// `run --coverage FILE`: what the scenarios covered, in the same schema as explore's (with
  /// `scenarios` for `sessions`), only for the modules whose windows they opened; the same with
  /// `--jobs 2`; a refused step (`fails:`) counted refused; the feed's transitions counted from
  /// the frames, the start's transition where a window opens past it.
  @Test func runCoverageSaysWhatTheScenariosReached() throws {
    let folder = makeTemporaryFolder()
    let schemaText = try #require(readTextFile(repositoryRoot() + "/docs/coverage.schema.json"))
    let validator = SchemaValidator(root: try FrameValue.parse(json: Array(schemaText.utf8)))
    writeTextFile(
      """
      scenario: Loads, fails, retries
      windows:
        main: feed account
      steps:
        - do: clock advance 1s
        - main: retry
          fails: does nothing now
        - do: network fail
        - main: refresh
        - do: clock advance 1s
        - main: retry
        - do: clock advance 1s
        - expect:
            main: {state: loaded}
      ---
      scenario: A search
      windows:
        main: feed account
      steps:
        - main: search rent
        - do: clock advance 1s
      """, to: folder + "/feed.yaml")
    let one = ChildProcess.runWorkbench(["run", "-j", "1", folder + "/feed.yaml", "--coverage", folder + "/one.json"])
    #expect(one.status == 0, "\(one.stdout)\(one.stderr)")
    #expect(
      one.stdout.contains("\ncoverage: ledger: 4 of 16 commands run, 4 carried out; feed: 6 of 8 transitions taken\n"),
      "\(one.stdout)")
    let text = try #require(readTextFile(folder + "/one.json"))
    let coverage = try FrameValue.parse(json: Array(text.utf8))
    #expect(validator.validate(coverage).isEmpty, "\(validator.validate(coverage))")
    #expect(coverage["scenarios"] == .integer(2) && coverage["steps"] == .integer(10), "\(text)")
    #expect(coverage["modules"]?["catalog"] == nil, "only the modules whose windows opened")
    let ledger = try #require(coverage["modules"]?["ledger"])
    #expect(ledger["commands"]?["retry"] == ["ran": 1, "refused": 1], "\(text)")
    #expect(ledger["commands"]?["search"] == ["ran": 1, "refused": 0], "\(text)")
    let untaken = ledger["machines"]?["feed"]?["transitionsNeverTaken"]?.elements ?? []
    #expect(untaken == [["from": "loading", "to": "empty"], ["from": "empty", "to": "loading"]], "\(text)")
    let two = ChildProcess.runWorkbench(["run", "-j", "2", folder + "/feed.yaml", "--coverage", folder + "/two.json"])
    #expect(two.status == 0, "\(two.stdout)\(two.stderr)")
    #expect(readTextFile(folder + "/two.json") == text)
  }

  /// Guided (the default), a session tries first what it has not carried out in its window's
  /// state and takes ids from what the window shows: on the ledger's feed it opens a
  /// transaction's detail, which drawn by chance alone (`--unguided`) it does not reach in the
  /// same sessions (an id from 0 to 1,000 rarely names one of the eight transactions).
  @Test func guidedSessionsReachWhatChanceAloneDoesNot() throws {
    let folder = makeTemporaryFolder()
    func carriedOut(_ extra: [String]) throws -> [String: Int] {
      let file = folder + "/coverage\(extra.count).json"
      let explored = ChildProcess.runWorkbench(
        [
          "explore", "--screens", "feed", "--seed", "3", "--runs", "50", "--out", folder + "/none.yaml", "--coverage",
          file,
        ]
          + extra)
      #expect(explored.status == 0, "\(explored.stdout)\(explored.stderr)")
      let coverage = try FrameValue.parse(json: Array(try #require(readTextFile(file)).utf8))
      guard case .object(let commands)? = coverage["modules"]?["ledger"]?["commands"] else { return [:] }
      return Dictionary(uniqueKeysWithValues: commands.members.map { ($0.key, $0.value["ran"]?.integerValue ?? 0) })
    }
    let guided = try carriedOut([])
    let unguided = try carriedOut(["--unguided"])
    #expect(unguided["detail"] == 0, "\(unguided)")
    #expect((guided["detail"] ?? 0) > 0, "\(guided)")
    #expect(guided.values.filter { $0 > 0 }.count > unguided.values.filter { $0 > 0 }.count, "\(guided) \(unguided)")
  }

  /// A sound module whose live source is a device that changes once (`wall-once`: the first
  /// `wall-later` of any session switches at once, the rest do nothing): the second run of a
  /// session sees no switch of its own, and is served the first's.
  @Test func aModuleThatKeepsItsRulesGivesNothing() throws {
    let out = makeTemporaryFolder() + "/none.yaml"
    let explored = ChildProcess.runWorkbench(
      ["explore", "-m", fixture, "--screens", "tally", "--runs", "10", "--steps", "10", "--out", out, "--json"],
      environment: ["WORKBENCH_FIXTURE": "wall-once"])
    #expect(explored.status == 0, "\(explored.stdout)\(explored.stderr)")
    let summary = try FrameValue.parse(json: Array(explored.stdout.utf8))
    #expect(summary["sessions"] == .integer(10))
    #expect(summary["steps"] == .integer(100))
    #expect(summary["found"] == .null)
    #expect(readTextFile(out) == nil)
  }

  @Test(arguments: [
    ["--runs", "0"], ["--time", "0s"], ["--seed", "-1"], ["--screens", "nope"], ["--steps", "x"], ["stray"],
  ])
  func wrongUsageExitsWithTwo(_ arguments: [String]) {
    let result = ChildProcess.runWorkbench(["explore"] + arguments)
    #expect(result.status == 2, "\(arguments): \(result.stdout)\(result.stderr)")
    #expect(result.stderr.hasPrefix("workbench explore: "), "\(result.stderr)")
  }
}
