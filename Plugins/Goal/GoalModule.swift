import WorkbenchModuleAPI

/// The reading goal module: MVC roles, with a goal the workspace owns and windows that show and
/// complete it, or hold a draft of their own.
public struct GoalModule: FeatureModule {
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(name: "goal", version: "1.0.0", summary: "A reading goal shared by every window that shows it")
  }

  // The names it registers, so a start registers the module only when one is first needed.
  // Written out, not read from the command specs: making them costs a start that never uses the
  // module more than all its other work (the registry refuses a registration that differs, and
  // a test registers every built-in).
  public var declaredIndex: ModuleIndex? {
    ModuleIndex(
      screens: [("goal", "goal")], documentKinds: [("goal", ["reading"])],
      commands: ["complete", "discard", "save", "target"])
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
