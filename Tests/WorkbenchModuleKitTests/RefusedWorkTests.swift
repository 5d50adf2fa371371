import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleKit

/// A refused piece of work changes nothing in the Swift kit either (§5): a command with no
/// window that commits and then refuses leaves the module's copy of the document as the host
/// holds it, so the next work's commit is made from that copy, not from the refused one.
@MainActor
struct RefusedWorkTests {
  struct Tally: DocumentBody {
    var count: Int
  }

  struct TallyState: ViewStateValue {}

  final class TallyScreen: ScreenModel {
    private(set) var document: Tally
    private(set) var viewState: TallyState

    init(document: Tally, viewState: TallyState, environment: ScreenEnvironment) {
      self.document = document
      self.viewState = viewState
    }

    func documentReplaced(_ document: Tally) { self.document = document }
    func restore(_ viewState: TallyState) { self.viewState = viewState }
    var frame: FrameValue { ["count": .integer(document.count)] }
  }

  struct TallyModule: FeatureModule {
    var manifest: ModuleManifest { ModuleManifest(name: "tally", version: "1.0", summary: "a count") }

    func register(into registrar: Registrar) {
      registrar.documentKind(Tally.self, name: "tally", summary: "a count", samples: ["tally": Tally(count: 0)])
      registrar.screen(TallyScreen.self, name: "tally", documentKind: "tally", summary: "the count")
      /// Adds `by` to the tally, with no window: through the session's work, as a timer would.
      func add(_ name: String, by: Int, refusing: Bool) {
        registrar.command(
          CommandSpec(name, summary: "add \(by) to the tally", scope: .anywhere) { context throws(CommandError) in
            guard let shown = context.session.document(named: "tally"), let tally = shown.body as? Tally else {
              throw CommandError("no tally")
            }
            try context.session.commit(
              Tally(count: tally.count + by), toDocument: "tally", ifAt: shown.revision, summary: name)
            if refusing { throw CommandError("\(name) refused after it wrote") }
            return .nothing
          })
      }
      add("wreck", by: 76, refusing: true)
      add("bump", by: 1, refusing: false)
    }
  }

  static func anywhere(_ name: String, id: Int) -> FrameValue {
    [
      "type": "command", "id": .integer(id), "session": 1, "now": 0, "command": .string(name), "line": .string(name),
      "arguments": [:],
    ]
  }

  @Test func aRefusedCommandWithNoWindowLeavesTheDocumentAsTheHostHoldsIt() throws {
    let session = try ModuleSession(module: TallyModule(), version: 2)
    let opened = session.handle([
      "type": "open", "id": 1, "session": 1, "now": 0, "key": "w1", "screen": "tally", "document": "tally",
      "kind": "tally", "revision": 1, "state": .null, "body": #"{"count":0}"#, "rows": 20,
    ])
    #expect(opened["frame"]?["count"] == 0, "\(opened)")
    let refused = session.handle(Self.anywhere("wreck", id: 2))
    #expect(refused["type"] == "error", "\(refused)")
    #expect(refused["message"]?.stringValue?.contains("wreck refused after it wrote") == true, "\(refused)")
    #expect(refused["commits"] == nil, "\(refused)")
    // Before, the refused write stayed in the kit's copy, and this commit was made on top of it
    // (a count of 77, from the host's revision 1).
    let bumped = session.handle(Self.anywhere("bump", id: 3))
    let commit = try #require(bumped["commits"]?.elements?.first, "\(bumped)")
    #expect(commit["revision"] == 1, "\(bumped)")
    #expect(commit["body"]?.stringValue?.contains(#""count":1"#) == true, "\(bumped)")
  }
}
