import Testing
import WorkbenchCore
import WorkbenchTestSupport

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
    #expect(written.hasPrefix("# Found by `workbench explore --seed 3`"), "\(written)")
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
        "--json",
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
          jobs, "--out", folder + "/found.yaml", "--json",
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

  /// A mistake in an `--always` file is a usage error that says where.
  @Test func aBrokenAlwaysFileSaysWhere() throws {
    let always = makeTemporaryFolder() + "/always.yaml"
    writeTextFile("always:\n  tallly:\n    count: 1\n", to: always)
    let explored = ChildProcess.runWorkbench(["explore", "-m", fixture, "--always", always])
    #expect(explored.status == 2, "\(explored.stdout)\(explored.stderr)")
    #expect(explored.stderr.hasPrefix("workbench explore: \(always):2:3: no screen 'tallly'"), "\(explored.stderr)")
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
