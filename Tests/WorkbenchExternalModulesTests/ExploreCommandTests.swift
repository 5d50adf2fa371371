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

  @Test func aModuleThatKeepsItsRulesGivesNothing() throws {
    let out = makeTemporaryFolder() + "/none.yaml"
    let explored = ChildProcess.runWorkbench([
      "explore", "-m", fixture, "--screens", "tally", "--runs", "10", "--steps", "10", "--out", out, "--json",
    ])
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
