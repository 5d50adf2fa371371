import Tasks
import Testing
import WorkbenchModuleKit
import WorkbenchModuleTesting

@MainActor
@Suite struct TasksTests {
  @Test func windowsShareTasksAndKeepTheirFilters() throws {
    let session = try TestSession(modules: [TasksModule()])
    try session.run("open tasks todo a; open tasks todo b; @a add Buy milk; @a done 1; @b filter open")
    #expect(session.frame(of: "b")?["items"]?.elements?.count == 1)
    #expect(session.frame(of: "a")?["open"] == 1)
  }

  @Test func undoTakesBackADoneInEveryWindow() throws {
    let session = try TestSession(modules: [TasksModule()])
    try session.run("open tasks todo a; open tasks todo b; @b filter done; @a done 1")
    #expect(session.frame(of: "b")?["items"]?.elements?.count == 1)
    try session.run("@a undo")
    #expect(session.frame(of: "b")?["items"]?.elements?.count == 0)
    #expect(session.frame(of: "a")?["open"] == 1)
  }

  @Test func badInputChangesNothing() throws {
    let session = try TestSession(modules: [TasksModule()])
    try session.run("open tasks todo a")
    #expect(throws: CommandError.self) { try session.run("done 9") }
    #expect(session.document(named: "todo")?.revision == 1)
  }
}
