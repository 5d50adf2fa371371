import Testing
import WorkbenchCore
import WorkbenchModuleAPI

/// A module's code reaches the documents of its own kinds and the windows on its own screens,
/// and nothing else: the host knows whose code runs (the module that registered the command, or
/// that set the timer), so no module can name another to write as it. (Before, `context.session`
/// listed every window and read and committed every document, and `admitWrite(…, by:)` trusted
/// the module name its caller passed.)
@MainActor
struct WhoWritesTests {
  /// A module that reaches for the counter module's document and screen.
  struct Thief: FeatureModule {
    struct Loot: DocumentBody {}
    final class Screen: ScreenModel {
      private(set) var document: Loot
      private(set) var viewState = Thief.State()
      init(document: Loot, viewState: Thief.State, environment: ScreenEnvironment) { self.document = document }
      func documentReplaced(_ document: Loot) { self.document = document }
      func restore(_ viewState: Thief.State) {}
      var frame: FrameValue { [:] }
    }
    struct State: ViewStateValue {}

    var manifest: ModuleManifest { ModuleManifest(name: "thief", version: "1", summary: "reaches too far") }

    func register(into registrar: Registrar) {
      registrar.documentKind(Loot.self, name: "loot", summary: "its own", samples: ["sack": Loot()])
      registrar.screen(Screen.self, name: "thief", documentKind: "loot", summary: "its window")
      func command(_ name: String, _ body: @escaping @MainActor (CommandContext) throws(CommandError) -> String) {
        registrar.command(
          CommandSpec(name, summary: name, scope: .anywhere) { context throws(CommandError) in
            .text(try body(context))
          })
      }
      command("peek") { context in
        let seen = [context.session.document(named: "tally"), context.session.document(named: "sack")]
        return seen.map { $0.map(\.name) ?? "-" }.joined(separator: " ") + "; windows "
          + context.session.windows.map(\.screenName).joined(separator: " ")
      }
      command("steal") { context throws(CommandError) in
        let tally = context.runtimeDocument("tally") ?? 0
        try context.session.commit(CounterDocument(value: 99), toDocument: "tally", ifAt: tally, summary: "stolen")
        return "stolen"
      }
      command("spawn") { context throws(CommandError) in
        _ = try context.session.openWindow(screen: "counter", document: "tally", name: nil)
        return "spawned"
      }
      command("later") { context in
        let work = context.services.work
        context.services.clock.schedule(after: .seconds(1)) {
          do throws(CommandError) {
            try work?.commit(CounterDocument(value: 77), toDocument: "tally", ifAt: 1, summary: "later")
          } catch {
            context.services.report(incident: error.message)
          }
        }
        return "set"
      }
    }
  }

  func host() throws -> Host {
    let host = try Host(modules: [CounterModule(), Thief()], clock: .virtual)
    _ = try host.run(line: "open counter tally c")
    _ = try host.run(line: "open thief sack t")
    return host
  }

  @Test func aModuleSeesOnlyItsOwnDocumentsAndWindows() throws {
    let host = try host()
    #expect(try host.run(line: "thief.peek") == [.text("- sack; windows thief")])
  }

  @Test func aModuleCannotWriteAnothersDocument() throws {
    let host = try host()
    #expect(throws: CommandError.self) { try host.run(line: "thief.steal") }
    do {
      _ = try host.run(line: "thief.steal")
    } catch {
      #expect(error.message.contains("the thief module may not write the document tally"), "\(error.message)")
    }
    #expect(host.document(named: "tally")?.revision == 1)
  }

  @Test func aModuleCannotOpenAWindowOnAnothersScreen() throws {
    let host = try host()
    do {
      _ = try host.run(line: "thief.spawn")
      Issue.record("the thief opened a window on the counter's screen")
    } catch {
      #expect(error.message.contains("may not open a window on counter's screen counter"), "\(error.message)")
    }
    #expect(host.windows.count == 2)
  }

  /// A timer runs as the module that set it, whatever the host runs when it fires.
  @Test func aTimerWritesAsTheModuleThatSetIt() throws {
    let host = try host()
    _ = try host.run(line: "thief.later")
    // What went wrong in the timer's work is the step that moved the clock's.
    do {
      _ = try host.run(line: "clock advance 2s")
      Issue.record("the thief's timer wrote the counter's document")
    } catch {
      #expect(error.message.contains("the thief module may not write the document tally"), "\(error.message)")
    }
    #expect(host.document(named: "tally")?.revision == 1)
  }
}

extension CommandContext {
  /// The revision of a document as the host holds it, read around the module's view (a test's
  /// way to name a revision the module could not see).
  @MainActor fileprivate func runtimeDocument(_ name: String) -> Int? { host.document(named: name)?.revision }
}
