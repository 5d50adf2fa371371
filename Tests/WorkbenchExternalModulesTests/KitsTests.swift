import Testing
import WorkbenchModuleAPI
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// One module, three kits: the countdown of Examples/countdown on the Swift, Python and
/// JavaScript kits passes the same scenarios and shows the same frames after every step; and a
/// module `new-module --language javascript` writes runs as printed, on the kit it carries.
/// Whether the wall clock says 2026-01-01 (the scenarios' default day), when a test cannot tell a
/// replay on the default from one on the wall's day.
enum CalendarDayNow {
  static var isNewYear2026: Bool {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return now.tv_sec / 86_400 == 1_767_225_600 / 86_400
  }
}

struct KitsTests {
  static let examples = repositoryRoot() + "/Examples/countdown"
  static let binaries = String(ChildProcess.workbenchPath.dropLast("workbench".count))
  /// The countdown on each kit.
  static let countdowns = [
    ("swift", binaries + "countdown-module"), ("python", examples + "/countdown.py"),
    ("javascript", examples + "/countdown.js"),
  ]

  /// Runs `scenarios` on each kit's module, expecting `passed` scenarios to pass on each, and
  /// holds every kit's trace of every scenario to the first kit's; `also` runs for each module.
  private func sameFramesOnEveryKit(
    _ modules: [(String, String)], scenarios: String, passed: Int, also: (String, String) -> Void = { _, _ in }
  ) throws {
    var traces: [(kit: String, folder: String)] = []
    for (kit, module) in modules {
      let folder = makeTemporaryFolder() + "/" + kit
      let run = ChildProcess.runWorkbench(["run", "-m", module, scenarios, "--trace", folder])
      #expect(run.status == 0, "\(kit): \(run.stdout)\(run.stderr)")
      #expect(run.stdout.hasSuffix("\(passed) passed, 0 failed\n"), "\(kit): \(run.stdout)")
      traces.append((kit, folder))
      also(kit, module)
    }
    let names = folderEntries(traces[0].folder)
    #expect(names.count == passed + 1, "\(names)")  // the scenarios and the frames
    for (kit, folder) in traces.dropFirst() {
      #expect(folderEntries(folder) == names, "\(kit)")
      for name in names {
        let trace = try #require(traceWithoutTimings(folder + "/" + name), "\(kit) \(name)")
        #expect(trace == traceWithoutTimings(traces[0].folder + "/" + name), "\(kit) \(name)")
      }
    }
  }

  @Test func theCountdownShowsTheSameFramesAfterEveryStepOnEveryKit() throws {
    try sameFramesOnEveryKit(Self.countdowns, scenarios: Self.examples + "/Scenarios", passed: 5)
  }

  static let draftsFolder = repositoryRoot() + "/Tests/ProcessModules/Drafts"
  /// Notes with an autosave on each kit.
  static let drafts = [
    ("swift", binaries + "drafts-module"), ("python", draftsFolder + "/drafts.py"),
    ("javascript", draftsFolder + "/drafts.js"),
  ]

  /// An undo puts back what the command it takes back did to its window's timers, on every kit:
  /// `undo view` after `discard` brings the draft and its autosave back, due when it was (the
  /// host tells the module in the `restore`, §18), and the autosave saves the draft. (The
  /// autosave did not come back: the draft stayed unsaved.)
  @Test func undoPutsBackAWindowsTimersOnEveryKit() throws {
    try sameFramesOnEveryKit(Self.drafts, scenarios: Self.draftsFolder + "/Scenarios", passed: 4)
  }

  static let habitsFolder = repositoryRoot() + "/Examples/habits"
  /// The habits on each kit.
  static let habits = [
    ("swift", binaries + "habits-module"), ("python", habitsFolder + "/habits.py"),
    ("javascript", habitsFolder + "/habits.js"),
  ]

  /// The session's calendar reaches every kit (each request's `date`): the habits pass the same
  /// scenarios (a day that passes at midnight, a missed day, the default date, a relaunch that
  /// goes on from the date it was at) with the same frames after every step on each. (No kit had
  /// a date: a day could not be kept across sessions, nor shown passing.)
  @Test func theHabitsShowTheSameDaysOnEveryKit() throws {
    try sameFramesOnEveryKit(Self.habits, scenarios: Self.habitsFolder + "/Scenarios", passed: 5) { kit, module in
      // Its timer every midnight is a recurring one, not a loop (module-check called it a loop
      // once its hundred timers were spent and a later request fired none).
      let check = ChildProcess.runWorkbench(["module-check", module])
      #expect(check.status == 0, "\(kit): \(check.stdout)\(check.stderr)")
      #expect(check.stdout.contains("100 fired over 100 days, more due: a recurring timer"), "\(kit): \(check.stdout)")
    }
  }

  /// A recording made in the shell keeps the session's calendar (`date:`, the wall time the
  /// shell started at), so its replay, days later, reads the days it was made on: on each kit
  /// the replay passes, its expectation naming tomorrow's date, as `clock advance 1d` in the
  /// shell (which turns its clock virtual) made it. (It replayed on 2026-01-01, and the shell
  /// refused `clock advance`: midnight could not be seen in it.)
  @Test(arguments: habits)
  func aRecordingMadeInTheShellReplaysItsDates(kit: String, module: String) throws {
    let folder = makeTemporaryFolder()
    let recording = folder + "/habit.yaml"
    let shell = ChildProcess.runWorkbench(
      ["-m", module, "-w", ":memory:"],
      input: Array(
        "record start \(recording)\nopen habits routine h\ndone 1\nclock advance 1d\ndone 1\nrecord stop\n".utf8))
    #expect(shell.status == 0, "\(kit): \(shell.stdout)\(shell.stderr)")
    #expect(shell.stdout.contains("the session runs on virtual time from here"), "\(kit): \(shell.stdout)")
    let text = try #require(readTextFile(recording), "\(kit)")
    let date = try #require(text.firstMatch(of: /\ndate: ([0-9T:.Z-]+)\n/), "\(kit): \(text)")
    let tomorrow = try #require(CalendarDate(parsing: String(date.1)), "\(kit): \(text)").milliseconds / 86_400_000 + 1
    let day = CalendarDate(milliseconds: tomorrow * 86_400_000).description.prefix(10)
    #expect(text.contains("- do: clock advance 1d"), "\(kit): \(text)")
    #expect(text.contains("today: \(day)"), "\(kit): \(text)")
    let replay = ChildProcess.runWorkbench(["run", "-m", module, recording])
    #expect(replay.status == 0, "\(kit): \(replay.stdout)\(replay.stderr)\n\(text)")
  }

  /// Recording starts beside the timer every midnight that an open habits window keeps waiting
  /// (it was refused: "recording starts from a settled session … give a longer time: settle
  /// 14029s", and a longer settle only met the next midnight), says the timer still waits, and
  /// replays, the window setting it again as it opens; the row `done` changed is checked.
  @Test(arguments: habits)
  func recordingStartsBesideTheMidnightTimer(kit: String, module: String) throws {
    let recording = makeTemporaryFolder() + "/habit.yaml"
    let shell = ChildProcess.runWorkbench(
      ["-m", module, "-w", ":memory:"],
      input: Array("open habits routine h\nrecord start \(recording)\ndone 1\nrecord stop\n".utf8))
    #expect(shell.status == 0, "\(kit): \(shell.stdout)\(shell.stderr)")
    #expect(shell.stdout.contains("note: still waiting: 1 timer, the next in "), "\(kit): \(shell.stdout)")
    let text = try #require(readTextFile(recording), "\(kit)")
    #expect(text.contains("rows: [{id: 1, streak: 1, doneToday: true}, 2]"), "\(kit): \(text)")
    let replay = ChildProcess.runWorkbench(["run", "-m", module, recording])
    #expect(replay.status == 0, "\(kit): \(replay.stdout)\(replay.stderr)\n\(text)")
    // A recording with facts settles its set-up for up to a minute; the midnight timer waits
    // past it, as it did when recording started (the set-up failed: "nothing was due within 1m").
    let withFacts = makeTemporaryFolder() + "/facts.yaml"
    writeTextFile(
      "scenario: Facts and midnight\ndate: 2026-12-07T09:00:00Z\nfacts: {}\nwindows:\n  h: habits routine\nsteps:\n"
        + "  - h: done 1\n  - expect:\n      h: {rows: [{id: 1, doneToday: true}, {id: 2}]}\n", to: withFacts)
    let settled = ChildProcess.runWorkbench(["run", "-m", module, withFacts])
    #expect(settled.status == 0, "\(kit): \(settled.stdout)\(settled.stderr)")
  }

  /// A move in time in the shell replays on the shell session's calendar: the day shown after
  /// `travel back` is the one shown live (the replay showed 2026-01-01, the scenarios' default).
  @Test func travelInTheShellKeepsItsDates() throws {
    let shell = ChildProcess.runWorkbench(
      ["-m", Self.binaries + "habits-module", "-w", ":memory:"],
      input: Array("open habits routine h\ndone 1\ntravel back 1\n".utf8))
    #expect(shell.status == 0, "\(shell.stdout)\(shell.stderr)")
    let days = shell.stdout.matches(of: /\n(\d{4}-\d{2}-\d{2})\n/).map { String($0.1) }
    #expect(days.count == 3 && Set(days).count == 1, "\(shell.stdout)")
    #expect(days.first != "2026-01-01" || CalendarDayNow.isNewYear2026, "\(shell.stdout)")
  }

  /// Two sessions on one module process keep their documents apart. `workbench explore` runs
  /// each random session twice side by side on the same module process; with seed 1 the
  /// countdown showed another frame in the second run within three sessions, on every kit: each
  /// kit kept one copy of a document for the whole process, and the host one record of the body
  /// it had sent, so one session's `seconds 1` or finished countdown leaked into the other's.
  @Test(arguments: countdowns)
  func twoSessionsOnOneModuleProcessKeepTheirDocumentsApart(_ countdown: (kit: String, module: String)) {
    let found = makeTemporaryFolder() + "/found.yaml"
    let run = ChildProcess.runWorkbench([
      "explore", "-m", countdown.module, "--screens", "countdown", "--seed", "1", "--runs", "10", "--steps", "50",
      "--out", found,
    ])
    #expect(run.status == 0, "\(countdown.kit): \(run.stdout)\(run.stderr)\(readTextFile(found) ?? "")")
    #expect(run.stdout.hasPrefix("explored 10 sessions (500 steps"), "\(countdown.kit): \(run.stdout)")
  }

  /// A command that sets a document to what it already holds commits nothing, on every kit: a
  /// second `seconds 1` leaves the egg at revision 2 (the Swift kit made revision 3, found by
  /// `explore --against`).
  @Test(arguments: countdowns)
  func aCommitThatChangesNothingMakesNoRevision(_ countdown: (kit: String, module: String)) {
    let run = ChildProcess.runWorkbench([
      "-w", ":memory:", "-m", countdown.module, "-c", "open countdown egg c; seconds 1; seconds 1; documents",
    ])
    #expect(run.status == 0, "\(countdown.kit): \(run.stdout)\(run.stderr)")
    #expect(run.stdout.contains("egg  countdown  revision 2 "), "\(countdown.kit): \(run.stdout)")
  }

  /// The scaffold's module runs on the kit it carries (node_modules/workbench-module), with no
  /// other kit to be found.
  @Test func aScaffoldedJavaScriptModuleWorksAsPrinted() {
    let folder = makeTemporaryFolder()
    let created = ChildProcess.runWorkbench(["new-module", "tally", "--language", "javascript", "--path", folder])
    #expect(created.status == 0, "\(created.stderr)")
    #expect(created.stdout.contains("module-check ./tally.js"))
    let kit = readTextFile(folder + "/tally/node_modules/workbench-module/workbench-module.js")
    #expect(kit == readTextFile(repositoryRoot() + "/Kits/javascript/workbench-module.js"))
    let module = folder + "/tally/tally.js"
    let alone: [String: String?] = ["NODE_PATH": nil]
    let run = ChildProcess.runWorkbench(["run", "--module", module, folder + "/tally/Scenarios"], environment: alone)
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    let check = ChildProcess.runWorkbench(["module-check", module], environment: alone)
    #expect(check.status == 0, "\(check.stdout)")
  }

  /// Each kit's README shows a counter module in 30 lines: it is the file a reader saves, and it
  /// passes module-check and counts now and later (a timer's commit) in a scenario.
  @Test(arguments: [("python", "counter.py"), ("javascript", "counter.js")])
  func theModuleInAKitsReadmeWorksAsShown(kit: String, file: String) throws {
    let readme = try #require(readTextFile(repositoryRoot() + "/Kits/\(kit)/README.md"))
    let fence = kit == "python" ? "```python\n" : "```js\n"
    let start = try #require(readme.firstRange(of: fence))
    let end = try #require(readme[start.upperBound...].firstRange(of: "```"))
    let code = String(readme[start.upperBound..<end.lowerBound])
    #expect(code.split(separator: "\n", omittingEmptySubsequences: false).count <= 31, "about 30 lines: \(code)")
    let folder = makeTemporaryFolder()
    writeTextFile(code, to: folder + "/" + file)
    chmod(folder + "/" + file, 0o755)
    writeTextFile(
      """
      scenario: The README's counter counts now and later
      windows:
        c: counter counter
      steps:
        - c: add 2
        - c: later 500
        - expect:
            c: {count: 2, pending: 1}
        - do: clock advance 499ms
        - expect:
            c: {count: 2, pending: 1}
        - do: clock advance 1ms
        - expect:
            c: {count: 3, pending: 0}

      """, to: folder + "/counter.yaml")
    let run = ChildProcess.runWorkbench(["run", "-m", folder + "/" + file, folder + "/counter.yaml"])
    #expect(run.status == 0, "\(kit): \(run.stdout)\(run.stderr)")
    let check = ChildProcess.runWorkbench(["module-check", folder + "/" + file])
    #expect(check.status == 0, "\(kit): \(check.stdout)")
  }
}
