import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

@testable import WorkbenchExternalModules

/// One module process serves every session of a run or an explore, thousands of them: what the
/// host keeps about the process's windows and documents is the sessions alive, not every
/// session it ever served (each request looked through all of them: exploring 200 sessions took
/// 2.6 times as long as 100).
@MainActor struct ManySessionsTests {
  let fixture = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"

  @Test func whatAProcessKeepsIsTheSessionsAlive() throws {
    let module = try ExternalModule(path: fixture)
    defer { module.shutdown() }
    for round in 0..<40 {
      let host = try Host(modules: [module], clock: .virtual)
      _ = try host.run(line: "open tally pokes t\(round); poke 2; open tally pokes u\(round); poke 1")
      #expect(host.window(named: "t\(round)")?.text.hasPrefix("pokes: 3") == true)
    }
    // The last session's two windows, and at most the one before it (its end is noticed at the
    // next request).
    #expect(module.process.screens.count <= 4, "\(module.process.screens.count) windows kept")
    #expect(module.process.documentsHanded.count <= 2, "\(module.process.documentsHanded.count) documents kept")
  }
}
