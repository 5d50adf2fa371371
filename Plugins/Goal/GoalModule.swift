import WorkbenchCore

/// The reading goal module: MVC roles, with a goal the workspace owns and windows that show and
/// complete it, or hold a draft of their own.
public struct GoalModule: FeatureModule {
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(name: "goal", version: "1.0.0", summary: "A reading goal shared by every window that shows it")
  }

  @MainActor public func register(into registrar: Registrar) {
    registrar.documentKind(
      GoalDocument.self, name: "goal", summary: "a reading goal: a positive target and progress",
      samples: ["reading": .sample])
    registrar.screen(
      GoalScreen.self, name: "goal", documentKind: "goal", summary: "progress towards a reading goal",
      render: GoalRendering.text)
    for command in GoalCommands.all { registrar.command(command) }
  }
}

enum GoalCommands {
  static let screens = ["goal"]
  static let all = [complete, target, save, discard]

  static let complete = CommandSpec(
    "complete", summary: "Complete one book: on the shared goal, or on this window's draft",
    details: "Completing past the target is rejected with a message, whoever asks.", scope: .window(screens: screens)
  ) { context in
    let screen = try context.model(GoalScreen.self)
    let committed: GoalDocument?
    do throws(GoalFailure) {
      committed = try screen.completeTapped()
    } catch {
      throw CommandError(GoalScreen.sentence(error.description))
    }
    if let committed { try context.commit(committed, summary: "complete a book") }
    return .frame(try context.requireWindow().id)
  }

  static let target = CommandSpec(
    "target", arguments: [ArgumentSpec("books", .integer(), help: "the new target, 1 or more")],
    summary: "Set a new target in this window's draft (saved only by `save`)", scope: .window(screens: screens)
  ) { context in
    let screen = try context.model(GoalScreen.self)
    do throws(GoalFailure) {
      try screen.targetChosen(context.arguments.integer("books") ?? 0)
    } catch {
      throw CommandError(GoalScreen.sentence(error.description))
    }
    return .frame(try context.requireWindow().id)
  }

  static let save = CommandSpec(
    "save", arguments: [ArgumentSpec("force", .choice(["force"]), optional: true, help: "replace a goal that moved")],
    summary: "Save this window's draft as the shared goal", scope: .window(screens: screens)
  ) { context in
    let screen = try context.model(GoalScreen.self)
    try context.commit(
      try screen.draftForSaving(force: context.arguments.text("force") == "force"), summary: "save the draft goal")
    screen.draftEnded()
    return .frame(try context.requireWindow().id)
  }

  static let discard = CommandSpec(
    "discard", summary: "Drop this window's draft; the shared goal is unchanged", scope: .window(screens: screens)
  ) { context in
    let screen = try context.model(GoalScreen.self)
    guard screen.viewState.draft != nil else { throw CommandError("there is no draft to discard in this window") }
    screen.draftEnded()
    return .frame(try context.requireWindow().id)
  }
}
