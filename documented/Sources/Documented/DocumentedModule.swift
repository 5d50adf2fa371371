import WorkbenchModuleKit

/// A counter: a shared number and windows that add to it.
public struct DocumentedDocument: DocumentBody {
  public var count: Int
  public init(count: Int) { self.count = count }
}

/// A window's own choice: how much `add` adds.
public struct DocumentedViewState: ViewStateValue {
  public var step = 1
  public init() {}
}

@MainActor
public final class DocumentedScreen: ScreenModel {
  public private(set) var document: DocumentedDocument
  public private(set) var viewState: DocumentedViewState

  public init(document: DocumentedDocument, viewState: DocumentedViewState, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
  }

  public func documentReplaced(_ document: DocumentedDocument) { self.document = document }
  public func restore(_ viewState: DocumentedViewState) { self.viewState = viewState }

  public var frame: FrameValue { ["count": .integer(document.count), "step": .integer(viewState.step)] }
  /// The frame's fields: a scenario expecting another one is refused before it runs.
  public static var frameFields: [String]? { ["count", "step"] }
}

public struct DocumentedModule: FeatureModule {
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(name: "documented", version: "0.1.0", summary: "A counter, as a starting point")
  }

  @MainActor public func register(into registrar: Registrar) {
    registrar.register(
      document: DocumentedDocument.self, kind: "documented", summary: "a number",
      samples: ["documented": DocumentedDocument(count: 0)],
      screens: [.screen(DocumentedScreen.self, name: "documented", summary: "the number")],
      commands: [DocumentedCommands.add])
  }
}

/// The module's commands, and the keys their handlers read their arguments by.
enum DocumentedCommands {
  static let amount = Argument<Int>.integer("amount", in: 1...1000, help: "left out: the window's step").optional

  static let add = CommandSpec(
    "add", arguments: [amount], summary: "Add to the shared number", scope: .window(screens: ["documented"])
  ) { context in
    let screen = try context.model(DocumentedScreen.self)
    let added = context.arguments[amount] ?? screen.viewState.step
    try context.commit(DocumentedDocument(count: screen.document.count + added), summary: "add")
    return .frame(try context.requireWindow().id)
  }
}
