import Editor
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleKit

/// The Swift kit says what a window holds unsaved (`unsaved`, §20) from the screen's own
/// `UnsavedWork`, and carries out `leave`: the built-in editor, run on the kit as a module
/// process would run it, keeps a draft until it is saved or discarded.
@MainActor
struct UnsavedWorkTests {
  @Test func theSwiftKitSaysAndLeavesAWindowsUnsavedWork() throws {
    let session = try ModuleSession(module: EditorModule(), version: 2)
    let hello = session.hello()
    let sample = try #require(hello["samples"]?.elements?.first { $0["name"] == "notes" })
    let opened = session.handle([
      "type": "open", "id": 1, "session": 1, "now": 0, "key": "w1", "screen": "editor", "document": "notes",
      "kind": "text", "revision": 1, "state": .null, "body": sample["body"] ?? .null, "rows": 20,
    ])
    #expect(opened["type"] == "result", "\(opened)")
    #expect(opened["unsaved"] == nil || opened["unsaved"] == .null, "\(opened)")
    let typed = session.handle([
      "type": "command", "id": 2, "session": 1, "now": 0, "key": "w1", "screen": "editor", "document": "notes",
      "kind": "text", "revision": 1, "state": .null, "line": "append a thought", "arguments": ["text": "a thought"],
    ])
    #expect(typed["unsaved"]?.stringValue?.contains("unsaved changes to 'Reading notes'") == true, "\(typed)")
    let saved = session.handle(["type": "leave", "id": 3, "session": 1, "now": 0, "key": "w1", "choice": "save"])
    #expect(saved["type"] == "result", "\(saved)")
    #expect(saved["commit"]?.stringValue?.contains("a thought") == true, "\(saved)")
    #expect(saved["unsaved"] == nil || saved["unsaved"] == .null, "\(saved)")
    // A draft dropped: no commit, nothing unsaved.
    _ = session.handle([
      "type": "command", "id": 4, "session": 1, "now": 0, "key": "w1", "screen": "editor", "document": "notes",
      "kind": "text", "revision": 2, "state": .null, "line": "append another", "arguments": ["text": "another"],
    ])
    let dropped = session.handle(["type": "leave", "id": 5, "session": 1, "now": 0, "key": "w1", "choice": "discard"])
    #expect(dropped["commit"] == nil || dropped["commit"] == .null, "\(dropped)")
    #expect(dropped["unsaved"] == nil || dropped["unsaved"] == .null, "\(dropped)")
  }
}
