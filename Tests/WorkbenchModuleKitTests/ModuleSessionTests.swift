import Catalog
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
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

  /// Each window's updates go under the key the host gave it, through closes and a key given
  /// again: a closed window gets none, and a key opened again names the new window.
  @Test func updatesGoUnderEachWindowsOwnKeyThroughClosesAndKeysGivenAgain() throws {
    let session = try ModuleSession(module: CatalogModule(), version: 2)
    let body = try #require(session.hello()["samples"]?.elements?.first { $0["name"] == "library" }?["body"])
    var request = 0
    func open(_ key: String) {
      request += 1
      #expect(Self.open(session, key: key, id: request, body: body)["type"] == "result")
    }
    /// The keys of the windows a book added in w1 updated.
    func updatedByAnAdd() -> [String] {
      request += 1
      let added = Self.command(session, key: "w1", id: request, "add Solaris", ["title": "Solaris"])
      #expect(added["type"] == "result", "\(added)")
      #expect(added["opened"] == nil && added["closed"] == nil, "\(added)")
      return (added["updates"]?.elements ?? []).compactMap { $0["key"]?.stringValue }.sorted()
    }
    open("w1")
    open("w2")
    #expect(updatedByAnAdd() == ["w2"])
    request += 1
    let closed = session.handle(["type": "close", "id": .integer(request), "session": 1, "now": 0, "key": "w2"])
    #expect(closed["type"] == "ok", "\(closed)")
    open("w3")
    #expect(updatedByAnAdd() == ["w3"])
    open("w2")
    #expect(updatedByAnAdd() == ["w2", "w3"])
    // w3 opened again under its own key: the window it named is gone, the new one takes it.
    open("w3")
    #expect(updatedByAnAdd() == ["w2", "w3"])
  }

  /// Windows the module's own work closes go to the host as `closed`, by the keys the host knows
  /// them by, once; with none closed, none is said.
  @Test func windowsTheModuleClosesAreSaidByTheirKeys() throws {
    let session = try ModuleSession(module: DeskModule(), version: 2)
    func request(_ id: Int, _ key: String, _ type: String, _ more: [(String, FrameValue)] = []) -> FrameValue {
      var members: [(key: String, value: FrameValue)] = [
        ("type", .string(type)), ("id", .integer(id)), ("session", 1), ("now", 0), ("key", .string(key)),
        ("screen", "desk"), ("document", "desk"), ("kind", "desk"), ("revision", 1), ("state", .null),
      ]
      members += more.map { (key: $0.0, value: $0.1) }
      return session.handle(.object(FrameObject(members: members)))
    }
    for (id, key) in ["w1", "w2", "w3"].enumerated() {
      let opened = request(id + 1, key, "open", [("body", "{\"pages\":1}"), ("rows", 5)])
      #expect(opened["type"] == "result", "\(opened)")
    }
    let kept = request(4, "w1", "command", [("line", "tidy 1"), ("command", "tidy"), ("arguments", ["keep": 3])])
    #expect(kept["type"] == "result", "\(kept)")
    #expect(kept["closed"] == nil, "nothing closed: \(kept)")
    let tidied = request(5, "w1", "command", [("line", "tidy 1"), ("command", "tidy"), ("arguments", ["keep": 1])])
    #expect(tidied["closed"] == ["w2", "w3"], "\(tidied)")
    let again = request(6, "w1", "command", [("line", "tidy 1"), ("command", "tidy"), ("arguments", ["keep": 1])])
    #expect(again["closed"] == nil, "said once: \(again)")
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

/// A module whose one command closes windows by its own work: `tidy N` keeps the first N
/// windows of the session open and closes the rest.
struct DeskModule: FeatureModule {
  struct Desk: DocumentBody { var pages: Int }
  struct DeskState: ViewStateValue {}
  struct DeskFrame: FrameRecord {
    var pages = 0
    static let fields: FrameFields<DeskFrame> = [FrameField("pages", \.pages, "pages on the desk")]
  }
  @MainActor final class DeskScreen: FramedScreen {
    private(set) var document: Desk
    private(set) var viewState: DeskState
    init(document: Desk, viewState: DeskState, environment: ScreenEnvironment) {
      self.document = document
      self.viewState = viewState
    }
    func documentReplaced(_ document: Desk) { self.document = document }
    func restore(_ viewState: DeskState) { self.viewState = viewState }
    var typedFrame: DeskFrame { DeskFrame(pages: document.pages) }
  }
  static let keep = Argument<Int>.integer("keep", in: 1...10)

  var manifest: ModuleManifest { ModuleManifest(name: "desk", version: "1.0", summary: "a desk that tidies itself") }

  @MainActor func register(into registrar: Registrar) {
    registrar.documentKind(Desk.self, name: "desk", summary: "a desk", samples: ["desk": Desk(pages: 1)])
    registrar.screen(DeskScreen.self, name: "desk", documentKind: "desk", summary: "a desk") { frame in
      "\(frame.pages) pages"
    }
    registrar.command(
      CommandSpec(
        "tidy", arguments: [Self.keep], summary: "close all but the first windows", scope: .window(screens: ["desk"])
      ) { context in
        for window in context.session.windows.dropFirst(context.arguments[Self.keep]) {
          context.session.closeWindow(window.id)
        }
        return .frame(try context.requireWindow().id)
      })
  }
}
