import Catalog
import Testing
import WorkbenchCore
import WorkbenchTestSupport

@testable import WorkbenchStore

/// Two hosts on one workspace file, as two shells would be.
@MainActor
@Suite struct TwoHostsTests {
  let path = makeTemporaryFolder() + "/workspace.sqlite"

  /// The workspace, able to give whole documents whose edits are logged.
  private func store() throws -> WorkspaceStore {
    let store = try WorkspaceStore(path: path)
    let registry = try ModuleRegistry(modules: [CatalogModule()])
    store.materializeEdits(with: registry)
    return store
  }

  private func host() throws -> Host {
    let store = try store()
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
    let stored = try store().documents().first { $0.name == "library" }
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
    #expect(try store().documents().map(\.name).contains("library") == false)
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
    #expect(try store().documents().contains { $0.name == "library" })
  }

  /// A rename is stored as an edit in the log, not as the whole catalog: the snapshot stays,
  /// a later start applies the edit, a reader of the whole document gets it applied, and the
  /// log is folded into a new snapshot when it grows long.
  @Test func editsAreStoredAsEditsAndFoldedIntoSnapshots() throws {
    let first = try host()
    let snapshot = try store().documentBody(named: "library").json
    _ = try first.run(line: "rename 1 Swift, Fifth Edition; remove 2; add A New Book")
    let stored = try store().documentBody(named: "library")
    #expect(stored.json == snapshot, "the snapshot was rewritten")
    #expect(stored.edits.count == 3)
    #expect(stored.edits[0] == #"{"rename":{"id":1,"title":"Swift, Fifth Edition"}}"#)
    #expect(stored.revision == 4)
    // Another start reads the snapshot and applies the edits.
    let second = try host()
    #expect(title(second, 1) == "Swift, Fifth Edition")
    #expect(second.document(named: "library")?.revision == 4)
    #expect(try store().documents().first { $0.name == "library" }?.body.contains("A New Book") == true)
    // Undo is stored whole (it is not one edit from the current body), and starts a new log.
    _ = try first.run(line: "undo")
    #expect(try store().documentBody(named: "library").edits.isEmpty)
    // Past the limit, the next save writes a snapshot.
    for index in 0..<300 { _ = try first.run(line: "rename 3 Title \(index)") }
    let folded = try store().documentBody(named: "library")
    #expect(folded.edits.count < 300 && folded.edits.count >= 300 - 257, "\(folded.edits.count)")
    #expect(try host().document(named: "library")?.revision == first.document(named: "library")?.revision)
    #expect(title(try host(), 3) == "Title 299")
  }
}
