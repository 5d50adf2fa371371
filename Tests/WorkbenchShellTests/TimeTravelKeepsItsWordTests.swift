import Testing
import WorkbenchTestSupport

/// Time travel does what it says: a scenario opened at a line has the rest of its steps to go
/// forward to, going forward over a live step brings its change in, a command that failed keeps
/// the steps ahead, the preview shows the part of a long value that changed, a replay's module
/// starts are its own, and a step whose replay failed says so.
struct TimeTravelKeepsItsWordTests {
  let kettle = repositoryRoot() + "/Tests/ProcessModules/Kettle/kettle.pl"
  var fixture: String { String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module" }

  /// `run FILE:LINE --shell` says "after step 4 of 7": steps 5 to 7 are listed, not run yet, and
  /// `travel forward` runs them (it said the session was at its last step).
  @Test func aScenarioOpenedAtALineHasItsLaterStepsAhead() {
    let file = repositoryRoot() + "/Scenarios/ledger/money.yaml:13"
    let result = ChildProcess.runWorkbench(
      ["run", file, "--shell"],
      input: Array("travel steps\ntravel forward\ntravel forward 2\ntravel steps\ntravel forward\n".utf8))
    #expect(result.status == 1, "\(result.stderr)")  // the last `travel forward` is refused
    let out = result.stdout
    #expect(out.contains("after step 4 of 7"), "\(out)")
    #expect(out.contains("  5  expect: main  (") && out.contains("· not run yet"), "\(out)")
    #expect(out.contains("at step 5 of 7: expect: main"), "\(out)")
    #expect(out.contains("at step 7 of 7: expect: main"), "\(out)")
    #expect(result.stderr.contains("the session is at its last step"), "\(result.stderr)")
    // Once run, the steps are listed as any other, with what they changed.
    let listing = out.split(separator: "  0  (start)", omittingEmptySubsequences: false).last ?? ""
    #expect(!listing.contains("not run yet"), "\(listing)")
    #expect(listing.contains("→ 7  expect: main"), "\(listing)")
  }

  /// A change a live source saw once (a switch at the wall) comes in again when the session goes
  /// forward over its step: the module of a replay never sees it happen again.
  @Test func goingForwardOverALiveStepBringsItsChangeIn() {
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:", "-m", kettle],
      input: Array(
        "open kettle kettle k\nopen kettle kettle j\n@k wall\nframe j\ntravel back 1\ntravel forward\nframe j\n".utf8),
      environment: ["KETTLE_MODE": "wall-once"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("~ j.state: \"cold\" → \"on at the wall\""), "\(result.stdout)")
    let after =
      result.stdout.split(separator: "at step 4 of 4", omittingEmptySubsequences: false).map(String.init).last ?? ""
    #expect(after.contains("state: on at the wall"), "\(after)")
  }

  /// After `travel back`, a command that failed (`select 99`) changed nothing and keeps the steps
  /// ahead, as a typo does; one that changes something starts a branch.
  @Test func aFailedCommandKeepsTheStepsAhead() {
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:", "--keep-going"],
      input: Array(
        "open catalog library c\nselect 2\nselect 3\ntravel back 1\nselect 99\nselct 4\ntravel steps\ntravel forward\n"
          .utf8))
    #expect(result.stderr.contains("no book with id 99"), "\(result.stderr)")
    #expect(result.stdout.contains("  3  select 3"), "\(result.stdout)")
    #expect(result.stdout.contains("at step 3 of 3: select 3"), "\(result.stdout)")
    let branch = ChildProcess.runWorkbench(
      ["-w", ":memory:"],
      input: Array("open catalog library c\nselect 2\nselect 3\ntravel back 1\nselect 4\ntravel steps\n".utf8))
    let listing = branch.stdout.split(separator: "(start)", omittingEmptySubsequences: false).last ?? ""
    #expect(listing.contains("→ 3  select 4"), "\(branch.stdout)")
    #expect(!listing.contains("select 3"), "\(branch.stdout)")
  }

  /// The preview of what the next step changes cuts a long value where the two differ (it cut
  /// both at the same 57 characters, which were the same).
  @Test func thePreviewShowsThePartOfALongValueThatChanged() {
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:"], input: Array("open room home r\nroom living\nswitch 2 toggle\ntravel back 1\n".utf8))
    let line = result.stdout.split(separator: "\n").first { $0.contains("~ r.lights:") }.map(String.init) ?? ""
    let sides = line.split(separator: " → ", omittingEmptySubsequences: false).map(String.init)
    #expect(sides.count == 2, "\(result.stdout)")
    #expect(sides.first?.contains(#""on":false"#) == true && sides.last?.contains(#""on":true"#) == true, "\(line)")
  }

  /// A module that crashes on a command: every move replays the crash, and each replay has its own
  /// restarts (they were the live session's: from the third round trip the window was gone).
  @Test func aReplaysModuleStartsAreItsOwn() {
    var input = "open tally pokes t\n@t poke\nopen tally pokes u\n"
    for _ in 0..<4 { input += "travel to 1\ntravel to 3\n" }
    input += "windows\nframe u\n"
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:", "-m", fixture, "--keep-going"], input: Array(input.utf8),
      environment: ["WORKBENCH_FIXTURE": "trap"])
    #expect(result.stdout.hasSuffix("* [2 u] tally pokes\npokes: 0\nlabel: tally\n"), "\(result.stdout)")
  }

  /// A step that ran live but failed when replayed says so after the move.
  @Test func aStepWhoseReplayFailedSaysSo() {
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:", "-m", kettle],
      input: Array("open kettle kettle k\nboil 10\ntravel back 1\ntravel forward\n".utf8),
      environment: ["KETTLE_MODE": "boil-once"])
    #expect(
      result.stdout.contains("step 2 (boil 10) failed in the replay, not live: the module kettle stopped"),
      "\(result.stdout)")
  }
}
