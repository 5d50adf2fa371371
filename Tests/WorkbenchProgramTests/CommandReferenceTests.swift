import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchShell
import WorkbenchTestSupport

@MainActor
@Suite struct CommandReferenceTests {
  /// docs/commands.md is generated from the specs; regenerate it with
  /// `swift run workbench reference > docs/commands.md` when this fails.
  @Test func docsCommandsMatchesTheSpecs() throws {
    let generated = try Shell.reference(modules: builtInModules)
    let checkedIn = readTextFile(repositoryRoot() + "/docs/commands.md")
    #expect(checkedIn == generated, "docs/commands.md is stale: run `swift run workbench reference > docs/commands.md`")
  }

  @Test func theBinaryPrintsTheSameReference() throws {
    let result = ChildProcess.runWorkbench(["reference"])
    #expect(result.status == 0)
    #expect(result.stdout == (try Shell.reference(modules: builtInModules)))
  }
}
