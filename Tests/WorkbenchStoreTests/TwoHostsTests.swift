import Catalog
import Testing
@_spi(Testing) import WorkbenchCore
import WorkbenchModuleAPI
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

  /// A removal refused because another process edited first brings in the document as it is,
  /// with the edit that process logged: the session must not believe it holds the current
  /// revision with the older snapshot, or its next whole save erases the other's edit.
  @Test func aRefusedRemovalTakesInTheEditsItHadNotSeen() throws {
    let first = try host()
    let second = try host()
    _ = try first.run(line: "rename 1 Logged by the first")
    _ = try first.run(line: "add Added by the first")
    let tokens = try CommandTokenizer.commands(in: "documents remove library force")[0]
    #expect(throws: CommandError.self) { try second.run(tokens) }
    #expect(second.document(named: "library")?.revision == 3)
    #expect(title(second, 1) == "Logged by the first")
    // A whole save (sort) and an add from the second keep the first's acknowledged edits.
    _ = try second.run(try CommandTokenizer.commands(in: "sort title")[0])
    _ = try second.run(try CommandTokenizer.commands(in: "add Added by the second")[0])
    let stored = try #require(try store().documents().first { $0.name == "library" })
    #expect(stored.body.contains("Logged by the first"))
    #expect(stored.body.contains("Added by the first"))
    #expect(stored.body.contains("Added by the second"))
  }

  /// The document a refused save hands back, or `nil` when it was saved.
  private func conflict(_ outcome: SaveOutcome) -> SessionRecord.Document? {
    if case .conflicted(let current) = outcome { return current }
    return nil
  }

  /// Every reader of a whole document gives it with the edits stored since its snapshot.
  @Test func everyReaderOfAWholeDocumentAppliesItsEdits() throws {
    let first = try host()
    _ = try first.run(line: "rename 2 Only in the edit log")
    #expect(try store().documentBody(named: "library").edits.count == 1)
    let readers: [(String, (WorkspaceStore) throws -> SessionRecord.Document?)] = [
      ("documents()", { try $0.documents().first { $0.name == "library" } }),
      ("document(named:)", { try $0.document(named: "library") }),
      ("changedDocuments", { try $0.changedDocuments(since: [:]).first { $0.name == "library" } }),
      (
        "a save's conflict",
        { conflict(try $0.saveDocument(name: "library", kind: "catalog", body: "{}", baseRevision: 1)) }
      ),
      (
        "a new document's conflict",
        { conflict(try $0.saveDocument(name: "library", kind: "catalog", body: "{}", baseRevision: 0)) }
      ),
      ("an edit's conflict", { conflict(try $0.appendEdit(name: "library", edit: "{}", baseRevision: 1)) }),
      ("a removal's conflict", { conflict(try $0.removeDocument(name: "library", baseRevision: 1)) }),
    ]
    for (name, read) in readers {
      let document = try read(try store())
      #expect(document?.revision == 2, "\(name)")
      #expect(document?.body.contains("Only in the edit log") == true, "\(name) gave the bare snapshot")
    }
  }

  /// A document of a kind no loaded module knows, with stored edits (a foreign or hand-edited
  /// row), is left as it is and stops nothing else: listing, opening and exporting the others.
  @Test func aDocumentNoModuleCanReadStopsNothingElse() throws {
    let first = try host()
    let raw = try WorkspaceStore(path: path)
    _ = try raw.saveDocument(name: "foreign", kind: "phrase", body: #"{"text":"hi"}"#, baseRevision: 0)
    _ = try raw.appendEdit(name: "foreign", edit: #"{"append":"!"}"#, baseRevision: 1)
    _ = try first.run(line: "documents")
    _ = try first.run(line: "rename 1 Still editable")
    #expect(title(first, 1) == "Still editable")
    let second = try host()
    _ = try second.run(line: "documents")
    #expect(title(second, 1) == "Still editable")
    var unreadable: [StoreError] = []
    let listed = try store().documents(unreadable: &unreadable)
    #expect(listed.map(\.name).contains("library"))
    #expect(unreadable.count == 1)
    #expect(unreadable.first?.message.contains("foreign") == true)
    #expect(throws: StoreError.self) { try store().document(named: "foreign") }
    let kept = try raw.documentBody(named: "foreign")
    #expect(kept.json == #"{"text":"hi"}"# && kept.edits == [#"{"append":"!"}"#])
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

  /// Two sessions interleave every kind of command that saves (an edit, a whole save, undo and
  /// redo, removing the document, importing it again), sometimes without looking first (as a
  /// process that saves between the other's read and write). After every step:
  /// - every stored document can be read whole;
  /// - a revision, once stored, never changes its content (nothing acknowledged is replaced);
  /// - each session holds, for the revision it believes it has, exactly what was stored at it
  ///   (a session with older content at a current revision would save over what it never saw).
  @Test(arguments: 0..<24)
  func interleavedSavesNeverLoseAcknowledgedWork(seed: Int) throws {
    var random = SplitMix64(seed: 0x7A0_5E55 &+ UInt64(seed))
    let hosts = [try host(), try host()]
    var stored: [Int: String] = [:]  // revision -> content stored at it ("" once removed)
    let importJSON = Array(#"{"books": [{"id": 1, "title": "Imported"}, {"id": 7, "title": "Seven"}]}"#.utf8)
    func someLine() -> String {
      let id = Int.random(in: 1...34, using: &random)
      switch Int.random(in: 0..<11, using: &random) {
      case 0, 1: return "rename \(id) Title \(Int.random(in: 0..<1000, using: &random))"
      case 2: return "add Book \(Int.random(in: 0..<1000, using: &random))"
      case 3: return "remove \(id)"
      case 4: return "move \(id) \(Int.random(in: 1...30, using: &random))"
      case 5: return "sort \(["title", "id", "reverse"].randomElement(using: &random)!)"
      case 6, 7: return "undo"
      case 8: return "redo"
      case 9: return "documents remove library force"
      default: return "import"
      }
    }
    for step in 0..<60 {
      let host = hosts[Int.random(in: 0..<2, using: &random)]
      let line = someLine()
      let tokens = try CommandTokenizer.commands(in: line)[0]
      let looks = Bool.random(using: &random)
      do throws(CommandError) {
        if line == "import" {
          if host.document(named: "library") == nil {
            try host.importDocument(named: "library", kind: "catalog", json: importJSON)
          }
        } else if host.document(named: "library") == nil {
          continue
        } else if looks {
          _ = try host.run(line: line)
        } else {
          _ = try host.run(tokens)
        }
      } catch {
        // Refusals and conflicts are expected; a document that can no longer be read is not.
        #expect(!error.message.contains("cannot be applied"), "seed \(seed) step \(step) `\(line)`: \(error.message)")
      }
      let context = "seed \(seed) step \(step) `\(line)`"
      var unreadable: [StoreError] = []
      _ = try store().documents(unreadable: &unreadable)
      #expect(unreadable.isEmpty, "\(context): \(unreadable.map(\.message))")
      let raw = try WorkspaceStore(path: path)
      raw.materializeEdits(with: try ModuleRegistry(modules: [CatalogModule()]))
      if let now = try raw.document(named: "library") {
        if let earlier = stored[now.revision] {
          #expect(earlier == now.body, "\(context): revision \(now.revision) changed its content")
        } else {
          stored[now.revision] = now.body
        }
      }
      for (number, session) in hosts.enumerated() {
        guard let held = try session.sessionRecord().documents.first(where: { $0.name == "library" }),
          let content = stored[held.revision]
        else { continue }
        #expect(
          content == held.body,
          "\(context): session \(number + 1) holds revision \(held.revision) with other content than was stored")
      }
    }
  }
}
