import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchTestSupport

@MainActor
@Suite struct CommandReferenceTests {
  /// docs/commands.md is generated from the specs; regenerate it with
  /// `swift run workbench reference > docs/commands.md` when this fails.
  @Test func docsCommandsMatchesTheSpecs() throws {
    let host = try Host(modules: builtInModules)
    let generated = CommandReference.markdown(for: host)
    let checkedIn = readTextFile(repositoryRoot() + "/docs/commands.md")
    #expect(checkedIn == generated, "docs/commands.md is stale: run `swift run workbench reference > docs/commands.md`")
  }

  @Test func theBinaryPrintsTheSameReference() throws {
    let host = try Host(modules: builtInModules)
    let result = ChildProcess.runWorkbench(["reference"])
    #expect(result.status == 0)
    #expect(result.stdout == CommandReference.markdown(for: host))
  }
}
