import Testing
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

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

  /// A module first loaded by a relative path (`-m ./tally`) is named in the note by its whole
  /// path, which works from wherever the user is then (it said `-m ./tally` everywhere before,
  /// relative to a folder the user may no longer be in).
  @Test func theNoteNamesAPathThatWorksFromWhereTheUserIs() throws {
    let fixture = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
    let home = makeTemporaryFolder()
    let project = home + "/project"
    let elsewhere = home + "/elsewhere"
    for folder in [project, elsewhere] {
      _ = ChildProcess.run("/bin/mkdir", ["-p", folder], input: [], environment: [])
    }
    #expect(symlink(fixture, project + "/tally") == 0)
    func workbench(in folder: String, _ words: String) -> ProcessResult {
      ChildProcess.run(
        "/bin/sh", ["-c", "cd '\(folder)' && exec '\(ChildProcess.workbenchPath)' \(words)"], input: [],
        environment: ChildProcess.environment(["XDG_DATA_HOME": home + "/data", "XDG_STATE_HOME": home + "/state"]))
    }
    let tried = workbench(in: project, "-m ./tally -c 'open tally pokes p'")
    #expect(tried.status == 0, "\(tried.stderr)")
    let away = workbench(in: elsewhere, "-q -c 'open tally pokes'")
    #expect(away.stderr.contains("load it with `-m \(project)/tally`"), "\(away.stderr)")
    // As said, it loads from there.
    let loaded = workbench(in: elsewhere, "-q -m '\(project)/tally' -c 'open tally pokes'")
    #expect(loaded.status == 0, "\(loaded.stderr)")
  }
}
