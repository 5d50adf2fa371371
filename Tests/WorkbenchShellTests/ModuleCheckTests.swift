import Testing
import WorkbenchTestSupport

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
      "✔ refuses an unknown request", "✔ close tally", "✔ shutdown", "✔ malformed message",
    ] {
      #expect(result.stdout.contains(line), "missing: \(line)\n\(result.stdout)")
    }
    #expect(result.stdout.contains("§4"))
    #expect(result.stdout.hasSuffix("12 passed, 0 failed\n"), "\(result.stdout)")
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
}
