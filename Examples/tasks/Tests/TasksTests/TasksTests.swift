import Tasks
import Testing
import WorkbenchModuleKit

@MainActor
@Suite struct TasksTests {
  @Test func windowsShareTasksAndKeepTheirFilters() throws {
    let host = try Host(modules: [TasksModule()])
    _ = try host.run(line: "open tasks todo a; open tasks todo b; @a add Buy milk; @a done 1; @b filter open")
    #expect(host.window(named: "b")?.frame["items"]?.elements?.count == 1)
    #expect(host.window(named: "a")?.frame["open"] == 1)
  }

  @Test func badInputChangesNothing() throws {
    let host = try Host(modules: [TasksModule()])
    _ = try host.run(line: "open tasks todo a")
    #expect(throws: CommandError.self) { try host.run(line: "done 9") }
    #expect(host.document(named: "todo")?.revision == 1)
  }
}
