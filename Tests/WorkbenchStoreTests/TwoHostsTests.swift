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
    let host = Host(
      registry: try ModuleRegistry(modules: [CatalogModule()]), restoring: record, addingMissingSamples: true,
      removedDocuments: try store.removedDocumentNames())
    try store.addMissing(
      try host.sessionRecord().documents.filter { document in
        !record.documents.contains { $0.name == document.name }
      })
    host.persistence = store
    if host.document(named: "library") != nil { _ = try host.run(line: "open catalog library main") }
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

  @Test func aRemovedDocumentLeavesTheOtherAndDoesNotComeBack() throws {
    let first = try host()
    let second = try host()
    // Shown in a window: refused, and nothing changes.
    #expect(throws: CommandError.self) { try first.run(line: "documents remove library") }
    #expect(first.document(named: "library") != nil)
    _ = try first.run(line: "documents remove library force")
    #expect(first.windows.isEmpty)
    #expect(first.document(named: "library") == nil)
    // The other process's window closes at its next command, saying why.
    _ = try second.run(line: "documents")
    #expect(second.document(named: "library") == nil)
    #expect(second.windows.isEmpty)
    #expect(second.restorationWarnings.contains { $0.message.contains("its document 'library' was removed") })
    // The next start does not bring the sample back; the name can be used again.
    let third = try host()
    #expect(third.document(named: "library") == nil)
    #expect(try WorkspaceStore(path: path).documents().map(\.name).contains("library") == false)
    try third.importDocument(named: "library", kind: "catalog", json: Array(#"{"books": []}"#.utf8))
    #expect(third.document(named: "library")?.revision == 3)
    #expect(try host().document(named: "library") != nil)
  }

  @Test func aRemovalOverAnEditItHasNotSeenIsRefused() throws {
    let first = try host()
    let second = try host()
    _ = try first.run(line: "rename 1 Changed")
    let tokens = try CommandTokenizer.commands(in: "documents remove library force")[0]
    #expect(throws: CommandError.self) { try second.run(tokens) }
    #expect(try WorkspaceStore(path: path).documents().contains { $0.name == "library" })
  }
}
