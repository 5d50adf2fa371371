import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

@testable import WorkbenchExternalModules

#if canImport(Glibc)
  import Glibc
#endif

/// A window on a module process shows the text the module sent with its frame, and once the
/// module is gone, why: never the last text it sent.
@MainActor struct ProxyTextTests {
  let fixture = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"

  @Test func aWindowShowsTheModulesTextAndThenThatTheModuleStopped() throws {
    let module = try ExternalModule(path: fixture)
    defer { module.shutdown() }
    let host = try Host(modules: [module], clock: .virtual)
    _ = try host.run(line: "open tally pokes t; poke 2; label mine")
    let window = try #require(host.window(named: "t"))
    #expect(window.text == "pokes: 2 (mine)", "\(window.text)")
    #expect(window.frameAndText.text() == window.text)
    let pid = module.process.pid
    try #require(pid > 0)
    kill(pid, SIGKILL)
    // Seen ended by the window's next look, once the kernel has it as ended.
    var shown = window.text
    for _ in 0..<200 where !shown.contains("the module stopped") {
      usleep(5_000)
      shown = window.text
    }
    #expect(shown.contains("the module stopped"), "\(shown)")
    #expect(!shown.contains("pokes: 2"), "\(shown)")
  }
}
