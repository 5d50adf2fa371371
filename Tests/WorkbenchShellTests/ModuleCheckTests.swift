import Testing
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench module-check` drives a module through the protocol and says which checks pass.
struct ModuleCheckTests {
  let fixture = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"

  private func check(_ arguments: [String], mode: String = "ok") -> ProcessResult {
    ChildProcess.runWorkbench(["module-check", fixture] + arguments, environment: ["WORKBENCH_FIXTURE": mode])
  }

  @Test func aConformingModulePassesEveryCheck() {
    let result = check([])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    for line in [
      "✔ handshake", "✔ open tally", "✔ command poke", "✔ command label", "✔ refresh", "✔ refuses an unknown window",
      "✔ refuses an unknown request", "✔ close tally", "✔ one reply per request", "✔ shutdown",
      "✔ malformed message",
    ] {
      #expect(result.stdout.contains(line), "missing: \(line)\n\(result.stdout)")
    }
    #expect(result.stdout.contains("§4"))
    #expect(result.stdout.hasSuffix("13 passed, 0 failed\n"), "\(result.stdout)")
  }

  @Test(.enabled(if: !ChildProcess.isSanitized, "a trap is an exit under a sanitizer"))
  func aModuleThatCrashesOnACommandFailsItsChecks() {
    let result = check([], mode: "trap")
    #expect(result.status == 1, "\(result.stdout)")
    #expect(result.stdout.contains("✘ command poke"), "\(result.stdout)")
    #expect(result.stdout.contains("`poke`: a reply; it closed the connection (it exited or crashed)"))
  }

  @Test func aBaselineCannotGoStale() throws {
    let folder = makeTemporaryFolder()
    writeTextFile("# known failures\nrefresh\n", to: folder + "/baseline")
    let stale = check(["--baseline", folder + "/baseline"])
    #expect(stale.status == 1)
    #expect(stale.stdout.contains("in the baseline, but passes now: remove it from the baseline"), "\(stale.stdout)")
    writeTextFile("no such check\n", to: folder + "/unknown")
    let unknown = check(["--baseline", folder + "/unknown"])
    #expect(unknown.status == 1)
    #expect(unknown.stdout.contains("no such check ran"))
    let missing = ChildProcess.runWorkbench(["module-check", folder + "/nothing-here"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("is not an executable file"))
  }

  @Test func aModuleThatAnswersTwiceFails() {
    let result = check([], mode: "twice")
    #expect(result.status == 1, "\(result.stdout)")
    #expect(result.stdout.contains("✘ one reply per request"), "\(result.stdout)")
    #expect(result.stdout.contains("more came after: command"), "\(result.stdout)")
  }

  @Test(arguments: [("ok-reply", "got `ok`"), ("no-frame", "`frame` as an object"), ("bad-facts", "`facts` as a list")])
  func aReplyOfTheWrongKindFails(mode: String, message: String) {
    let result = check([], mode: mode)
    #expect(result.status == 1, "\(result.stdout)")
    #expect(result.stdout.contains("✘ command poke"), "\(result.stdout)")
    #expect(result.stdout.contains(message), "\(result.stdout)")
  }

  /// module-check ends the module's process group, as the shell's shutdown does: a child the
  /// module started does not outlive the check.
  @Test func whatTheModuleStartedEndsWithTheCheck() throws {
    let folder = makeTemporaryFolder()
    let result = ChildProcess.runWorkbench(
      ["module-check", fixture],
      environment: ["WORKBENCH_FIXTURE": "fork", "WORKBENCH_FIXTURE_PID_FILE": folder + "/pids"])
    #expect(result.status == 0, "\(result.stdout)")
    let pids = (readTextFile(folder + "/pids") ?? "").split(separator: "\n").compactMap { pid_t($0) }
    #expect(!pids.isEmpty)
    for pid in pids { #expect(processEnds(pid), "the module's child \(pid) outlived module-check") }
  }
}
