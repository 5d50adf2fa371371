import WorkbenchCore
import WorkbenchModuleAPI

/// A minimal module for testing the host without any real feature module: a document holding
/// a number, and windows with a view-state step size.
struct CounterDocument: DocumentBody {
  var value: Int
}

struct CounterViewState: ViewStateValue {
  var step = 1
}

@MainActor
final class CounterScreen: ScreenModel {
  private(set) var document: CounterDocument
  private(set) var viewState: CounterViewState
  private(set) var replacements = 0

  init(document: CounterDocument, viewState: CounterViewState, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
  }

  func documentReplaced(_ document: CounterDocument) {
    self.document = document
    replacements += 1
  }

  func restore(_ viewState: CounterViewState) { self.viewState = viewState }

  func setStep(_ step: Int) { viewState.step = step }

  var frame: FrameValue { ["value": .integer(document.value), "step": .integer(viewState.step)] }
}

/// A kind of document no module registers.
struct OtherDocument: DocumentBody { var text: String }

struct CounterModule: FeatureModule {
  static let size = Argument<Int>.integer("size", in: 1...10)

  /// The value of the sample document `tally`.
  var sampleValue = 0

  var manifest: ModuleManifest { ModuleManifest(name: "counter", version: "1.0", summary: "a number") }

  @MainActor func register(into registrar: Registrar) {
    registrar.documentKind(
      CounterDocument.self, name: "counter", summary: "a number",
      samples: ["tally": CounterDocument(value: sampleValue)])
    registrar.screen(CounterScreen.self, name: "counter", documentKind: "counter", summary: "shows the number")
    registrar.command(
      CommandSpec(
        "step", arguments: [Self.size], summary: "set the step",
        scope: .window(screens: ["counter"])
      ) { context in
        try context.model(CounterScreen.self).setStep(context.arguments[Self.size])
        return .frame(try context.requireWindow().id)
      })
    registrar.command(
      CommandSpec("bump", summary: "add the step", scope: .window(screens: ["counter"])) { context in
        let screen = try context.model(CounterScreen.self)
        try context.commit(CounterDocument(value: screen.document.value + screen.viewState.step), summary: "bump")
        return .frame(try context.requireWindow().id)
      })
    registrar.command(
      CommandSpec(
        "mode", arguments: [Argument<String>.choice("kind", ["fast", "slow"])], summary: "choose a mode",
        scope: .window(screens: ["counter"])
      ) { _ in .nothing })
    // The window's document as a command reads it, as its own type and as one it is not.
    registrar.command(
      CommandSpec("peek", summary: "say the number", scope: .window(screens: ["counter"])) { context in
        .text(String(try context.document(CounterDocument.self).value))
      })
    registrar.command(
      CommandSpec("misread", summary: "read it as another kind", scope: .window(screens: ["counter"])) { context in
        .text(try context.document(OtherDocument.self).text)
      })
    // What a module's code gets as its session is the session's work, not the host behind it.
    registrar.command(
      CommandSpec("cast", summary: "try for the host") { context in
        let reached: [AnyObject?] = [context.session, context.services.work]
        return .text(reached.contains { $0 is Host } ? "the host" : "its work")
      })
    registrar.command(
      CommandSpec("fail", summary: "always rejected", scope: .window(screens: ["counter"])) { context in
        try context.model(CounterScreen.self).setStep(9)
        throw CommandError("the counter refuses")
      })
  }
}

/// A module whose command clashes with a host command.
struct ClashingModule: FeatureModule {
  var manifest: ModuleManifest { ModuleManifest(name: "clash", version: "1.0", summary: "bad") }
  @MainActor func register(into registrar: Registrar) {
    registrar.command(CommandSpec("open", summary: "clashes") { _ in .nothing })
  }
}

/// A module that says it runs as a process and can be restarted (it counts the restarts).
struct RestartableModule: FeatureModule {
  let restarts: RestartCounter
  var manifest: ModuleManifest { ModuleManifest(name: "ghostly", version: "1.0", summary: "restartable") }
  @MainActor func register(into registrar: Registrar) {
    let restarts = self.restarts
    registrar.restart { restarts.count += 1 }
  }
}

@MainActor
final class RestartCounter {
  var count = 0
}
