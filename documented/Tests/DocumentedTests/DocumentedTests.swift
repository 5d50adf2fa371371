import Testing
import Documented
import WorkbenchModuleKit

@MainActor
@Suite struct DocumentedTests {
  @Test func addingUpdatesTheSharedNumber() throws {
    let host = try Host(modules: [DocumentedModule()])
    _ = try host.run(line: "open documented documented main; add 2; add")
    #expect(host.window(named: "main")?.frame["count"] == 3)
  }
}
