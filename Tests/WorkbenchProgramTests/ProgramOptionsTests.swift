import Testing
import WorkbenchShell
import WorkbenchTestSupport

/// The program's own options are declared once: the parser, `--help` and the suggestions come
/// from the same list, and the workspace and modules may be named before a subcommand.
@Suite struct ProgramOptionsTests {
  @Test func helpListsEveryDeclaredOption() {
    let help = ChildProcess.runWorkbench(["--help"]).stdout
    for option in ShellOptions.all {
      #expect(help.contains("  " + option.synopsis), "\(option.synopsis) is missing from --help")
    }
    #expect(help.contains("-w, --workspace FILE"))
    #expect(help.contains("-m, --module PATH"))
  }

  @Test func anUnknownOptionGetsTheClosestKnownOne() {
    let typo = ChildProcess.runWorkbench(["--workspac", "x"])
    #expect(typo.status == 2)
    #expect(typo.stderr.contains("unknown option '--workspac'. Did you mean --workspace?"))
    let far = ChildProcess.runWorkbench(["--bogus"])
    #expect(far.stderr.contains("unknown option '--bogus'\n"), "no suggestion for a word close to nothing")
    let run = ChildProcess.runWorkbench(["run", "--jobz", "2", "x"])
    #expect(run.stderr.contains("unknown option '--jobz'. Did you mean --jobs?"))
  }

  @Test func theWorkspaceMayBeNamedBeforeASubcommand() {
    let folder = makeTemporaryFolder()
    let workspace = folder + "/w.sqlite"
    let before = ChildProcess.runWorkbench(["-w", workspace, "export", "library", folder + "/a.json"])
    #expect(before.status == 0, "\(before.stderr)")
    let after = ChildProcess.runWorkbench(["export", "library", folder + "/b.json", "-w", workspace])
    #expect(after.status == 0, "\(after.stderr)")
    #expect(readTextFile(folder + "/a.json") == readTextFile(folder + "/b.json"))
    let listed = ChildProcess.runWorkbench(["-w", workspace, "modules", "list"])
    #expect(listed.stdout == "no modules are loaded at start\n")
    let misplaced = ChildProcess.runWorkbench(["--json", "run", folder])
    #expect(misplaced.status == 2)
    #expect(misplaced.stderr.contains("--json is an option of the shell: put the options of run after it"))
  }
}
