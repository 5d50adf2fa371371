import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

@testable import WorkbenchStore

/// A start reads no document bodies; a document is decoded when first needed, and one nobody
/// changed is never written again.
@MainActor struct LazyDocumentsTests {
  @Test func aDocumentThatCannotBeReadIsFoundWhenOpenedAndKeptAsItWas() throws {
    let folder = makeTemporaryFolder()
    let path = folder + "/w.sqlite"
    let unusual = #"{ "books" : [ {"title": "Spaced out", "id": 1} ] }"#
    do {
      let store = try WorkspaceStore(path: path)
      _ = try store.saveDocument(name: "bad", kind: "catalog", body: #"{"books": 5}"#, baseRevision: 0)
      _ = try store.saveDocument(name: "odd", kind: "catalog", body: unusual, baseRevision: 0)
    }
    // Listing needs no body: no warning about the broken one.
    let listed = ChildProcess.runWorkbench(["-w", path, "-c", "documents"])
    #expect(listed.status == 0, "\(listed.stderr)")
    #expect(listed.stdout.contains("bad  catalog  revision 1"))
    #expect(listed.stderr.isEmpty, "\(listed.stderr)")
    // Opening it says which document and what is wrong.
    let opened = ChildProcess.runWorkbench(["-w", path, "-c", "open catalog bad"])
    #expect(opened.status == 1)
    #expect(opened.stderr.contains("document 'bad' could not be read"), "\(opened.stderr)")
    #expect(opened.stderr.contains("kept in the workspace, untouched"))
    // Opening and reading the other one, then leaving, writes neither back.
    let read = ChildProcess.runWorkbench(["-w", path, "-c", "open catalog odd; query spaced; relaunch"])
    #expect(read.status == 0, "\(read.stderr)")
    #expect(read.stdout.contains("Spaced out"))
    let store = try WorkspaceStore(path: path)
    let documents = try store.documents()
    #expect(documents.first { $0.name == "bad" }?.body == #"{"books": 5}"#)
    #expect(documents.first { $0.name == "odd" }?.body == unusual)
    #expect(documents.first { $0.name == "odd" }?.revision == 1)
  }

  @Test func aStartDecodesOnlyWhatItsWindowsShow() throws {
    let path = makeTemporaryFolder() + "/w.sqlite"
    let store = try WorkspaceStore(path: path)
    _ = try store.saveDocument(
      name: "other", kind: "catalog", body: #"{"books": [{"id": 1, "title": "A"}]}"#, baseRevision: 0)
    let record = try store.loadSession(includingBodies: false)
    #expect(record.documents.allSatisfy { $0.body.isEmpty })
    var reads: [String] = []
    let host = Host(
      registry: try ModuleRegistry(modules: builtInModules), restoring: record,
      bodies: { name throws(CommandError) -> StoredDocument in
        reads.append(name)
        return StoredDocument(revision: 1, json: "")
      })
    #expect(host.documentNames == ["other"])
    #expect(reads.isEmpty)
  }
}
