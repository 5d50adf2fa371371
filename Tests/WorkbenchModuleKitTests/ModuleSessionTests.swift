import Catalog
import Testing
import WorkbenchCore
import WorkbenchModuleKit

/// The Swift kit's side of the conversation, driven request by request as a module process's
/// pipes would drive it: the built-in catalog, unchanged, answers as a module.
@MainActor
struct ModuleSessionTests {
  static func open(_ session: ModuleSession, key: String, id: Int, body: FrameValue) -> FrameValue {
    session.handle([
      "type": "open", "id": .integer(id), "session": 1, "now": 0, "key": .string(key), "screen": "catalog",
      "document": "library", "kind": "catalog", "revision": 1, "state": .null, "body": body, "rows": 5,
    ])
  }

  static func command(_ session: ModuleSession, key: String, id: Int, _ line: String, _ arguments: FrameValue)
    -> FrameValue
  {
    session.handle([
      "type": "command", "id": .integer(id), "session": 1, "now": 0, "key": .string(key), "screen": "catalog",
      "document": "library", "kind": "catalog", "revision": 1, "state": .null, "line": .string(line),
      "arguments": arguments,
    ])
  }

  /// The hello says what the module has; a command's result carries the window's frame, its text
  /// and its view state; another window on the same document whose frame the command changed
  /// comes back as an update, with its view state, and one whose frame did not move does not.
  @Test func aCommandAnswersForItsWindowAndUpdatesTheOthersThatMoved() throws {
    let session = try ModuleSession(module: CatalogModule(), version: 2)
    let hello = session.hello()
    #expect(hello["type"] == "hello")
    #expect(hello["screens"]?.elements?.contains { $0["name"] == "catalog" } == true, "\(hello)")
    let body = try #require(hello["samples"]?.elements?.first { $0["name"] == "library" }?["body"])
    #expect(Self.open(session, key: "w1", id: 1, body: body)["type"] == "result")
    #expect(Self.open(session, key: "w2", id: 2, body: body)["type"] == "result")

    let selected = Self.command(session, key: "w1", id: 3, "select 2", ["id": 2])
    #expect(selected["type"] == "result", "\(selected)")
    #expect(selected["frame"]?["selected"] == 2)
    #expect(selected["state"]?.stringValue?.contains("\"selectedID\":2") == true, "\(selected)")
    // Selecting is w1's own view state: w2 shows what it showed.
    #expect(selected["updates"] == nil, "\(selected)")

    let added = Self.command(session, key: "w1", id: 4, "add Solaris", ["title": "Solaris"])
    #expect(added["type"] == "result", "\(added)")
    let update = try #require(added["updates"]?.elements?.first, "\(added)")
    #expect(update["key"] == "w2")
    #expect(update["frame"]?["total"] == added["frame"]?["total"])
    // w2's view state did not change: the state it carries is the one it had.
    #expect(update["state"]?.stringValue?.contains("selectedID") == false, "\(update)")
  }

  /// A command the host names (protocol 2) runs by its name and the arguments the host bound:
  /// the line is not read again, so what it says does not decide what runs. Without a name (a
  /// protocol 1 host) the line is read, as it was.
  @Test func aNamedCommandRunsWithTheHostsArgumentsNotItsLine() throws {
    let session = try ModuleSession(module: CatalogModule(), version: 2)
    let body = try #require(session.hello()["samples"]?.elements?.first { $0["name"] == "library" }?["body"])
    #expect(Self.open(session, key: "w1", id: 1, body: body)["type"] == "result")
    var named = Self.command(session, key: "w1", id: 2, "select 2", ["id": 3])
    #expect(named["frame"]?["selected"] == 2, "the line, with no command named: \(named)")
    func select(_ id: Int, request: Int) -> FrameValue {
      [
        "type": "command", "id": .integer(request), "session": 1, "now": 0, "key": "w1", "screen": "catalog",
        "document": "library", "kind": "catalog", "revision": 1, "state": .null, "command": "select",
        "line": "select 2", "arguments": ["id": .integer(id)],
      ]
    }
    named = session.handle(select(3, request: 3))
    #expect(named["frame"]?["selected"] == 3, "\(named)")
    // The arguments are checked where they run, as words are.
    let refused = session.handle(select(999, request: 4))
    #expect(refused["type"] == "error", "\(refused)")
    #expect(refused["message"]?.stringValue?.contains("999") == true, "\(refused)")
  }

  /// A request that does not read is answered with an error naming what is wrong, and the
  /// session answers the next one.
  @Test func aMalformedRequestIsAnErrorAndTheSessionGoesOn() throws {
    let session = try ModuleSession(module: CatalogModule(), version: 2)
    let body = try #require(session.hello()["samples"]?.elements?.first { $0["name"] == "library" }?["body"])
    let broken = session.handle(["type": "command", "id": 1, "session": 1, "now": 0, "line": "select 2"])
    #expect(broken["type"] == "error", "\(broken)")
    #expect(Self.open(session, key: "w1", id: 2, body: body)["type"] == "result")
  }
}
