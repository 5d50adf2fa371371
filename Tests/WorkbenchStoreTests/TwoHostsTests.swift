import Catalog
import Testing
import WorkbenchCore
import WorkbenchTestSupport

@testable import WorkbenchStore

/// Two hosts on one workspace file, as two shells would be.
@MainActor
@Suite struct TwoHostsTests {
  let path = makeTemporaryFolder() + "/workspace.sqlite"

  private func host() throws -> Host {
    let store = try WorkspaceStore(path: path)
    let record = try store.loadSession(includingWindows: false)
    let host = try Host(modules: [CatalogModule()], restoring: record, addingMissingSamples: true)
    try store.addMissing(
      try host.sessionRecord().documents.filter { document in
        !record.documents.contains { $0.name == document.name }
      })
    host.persistence = store
    _ = try host.run(line: "open catalog library main")
    return host
  }

  private func title(_ host: Host, _ id: Int) -> String? {
    host.window(named: "main")?.frame["rows"]?.elements?.first { $0["id"]?.integerValue == id }?["title"]?.stringValue
  }

  @Test func aChangeInOneIsSeenByTheOtherAtItsNextCommand() throws {
    let first = try host()
    let second = try host()
    _ = try first.run(line: "rename 1 Swift, Fifth Edition")
    #expect(title(second, 1) == "The Swift Programming Language")  // not yet: no command since
    _ = try second.run(line: "windows")
    #expect(title(second, 1) == "Swift, Fifth Edition")
    #expect(second.document(named: "library")?.revision == 2)
  }

  @Test func aConflictingSaveIsDetectedNotLost() throws {
    let first = try host()
    let second = try host()
    _ = try first.run(line: "rename 1 From the first")
    // The second host edits without having looked (`run(tokens)` skips the check a line makes).
    let tokens = try CommandTokenizer.commands(in: "rename 1 From the second")[0]
    do {
      _ = try second.run(tokens)
      Issue.record("the stale edit was saved")
    } catch {
      #expect(error.message.contains("was changed elsewhere"))
    }
    #expect(title(second, 1) == "From the first")  // it now shows the version that won
    let stored = try WorkspaceStore(path: path).documents().first { $0.name == "library" }
    #expect(stored?.body.contains("From the first") == true)
    #expect(stored?.revision == 2)
  }
}
