import WorkbenchCore

/// The reading goal module: MVC roles, with a goal the workspace owns and windows that show and
/// complete it, or hold a draft of their own.
public struct GoalModule: FeatureModule {
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(name: "goal", version: "1.0.0", summary: "A reading goal shared by every window that shows it")
  }

  // The names it registers, so a start registers the module only when one is first needed: the
  // commands' from the list it registers (made, not run), the rest held to the registration by
  // a test.
  public var index: ModuleIndex? {
    ModuleIndex(
      screens: [("goal", "goal")], documentKinds: [("goal", ["reading"])],
      commands: GoalCommands.all.map(\.name).sorted())
  }

  @MainActor public func register(into registrar: Registrar) {
    registrar.register(
      document: GoalDocument.self, kind: "goal", summary: "a reading goal: a positive target and progress",
      samples: ["reading": .sample],
      screens: [
        .screen(GoalScreen.self, name: "goal", summary: "progress towards a reading goal", render: GoalRendering.text)
      ],
      commands: GoalCommands.all)
  }
}
