import Testing
import WorkbenchTestSupport

/// A module tried once and not loaded since: its documents stay in the workspace, listed as
/// dormant with the module's name, removable; the shell notes them once (not an error at every
/// start); and a scenario or a command naming its screen says which module it is and how to
/// load it.
@Suite struct DormantModuleTests {
  @Test func documentsOfAModuleNotLoadedAreListedRemovableAndNotedOnce() throws {
    let fixture = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
    let data = makeTemporaryFolder()
    let environment: [String: String?] = ["XDG_DATA_HOME": data]
    func workbench(_ arguments: [String]) -> ProcessResult {
      ChildProcess.runWorkbench(arguments, environment: environment)
    }
    let tried = workbench(["-m", fixture, "-c", "open tally pokes p"])
    #expect(tried.status == 0, "\(tried.stderr)")

    let first = workbench(["-q", "-c", "documents"])
    #expect(first.status == 0)
    #expect(!first.stderr.contains("error"), "\(first.stderr)")
    #expect(first.stderr.hasPrefix("note: document 'pokes' (tally) belongs to a module that is not loaded"))
    #expect(first.stderr.contains("-m \(fixture)"), "\(first.stderr)")
    #expect(first.stdout.contains("pokes  tally  revision 1  dormant: the module fixture is not loaded\n"))

    let second = workbench(["-q", "-c", "documents"])
    #expect(second.stderr.isEmpty, "said again: \(second.stderr)")
    #expect(second.stdout.contains("pokes  tally"))

    let screen = workbench(["-q", "-c", "open tally pokes"])
    #expect(screen.stderr.contains("unknown screen 'tally' (it is a screen of the module fixture, which is not loaded"))
    let scenario = makeTemporaryFolder() + "/t.yaml"
    writeTextFile(
      "scenario: t\nwindows:\n  p: {screen: tally, document: pokes}\nsteps:\n  - do: documents\n", to: scenario)
    let run = workbench(["run", scenario])
    #expect(run.status == 2)
    #expect(run.stderr.contains("unknown screen 'tally' (it is a screen of the module fixture"), "\(run.stderr)")

    let removed = workbench(["-q", "-c", "documents remove pokes; documents"])
    #expect(removed.status == 0, "\(removed.stderr)")
    #expect(!removed.stdout.contains("pokes"), "\(removed.stdout)")
    #expect(!workbench(["-q", "-c", "documents"]).stdout.contains("pokes"))
  }
}
