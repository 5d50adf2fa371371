import WorkbenchModuleAPI

/// The editor module: text documents edited through drafts that are view state, saved by one
/// use case with three outcomes: saved, rejected, or conflicted.
public struct EditorModule: FeatureModule {
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(name: "editor", version: "1.0.0", summary: "Text documents edited through drafts, with conflicts")
  }

  // The names it registers, so a start registers the module only when one is first needed.
  // Written out, not read from the command specs: making them costs a start that never uses the
  // module more than all its other work (the registry refuses a registration that differs, and
  // a test registers every built-in).
  public var declaredIndex: ModuleIndex? {
    ModuleIndex(
      screens: [("editor", "text")], documentKinds: [("text", ["notes"])],
      commands: ["append", "delete", "discard", "insert", "lines", "replace", "resolve", "save", "title"])
  }

  @MainActor public func register(into registrar: Registrar) {
    registrar.register(
      document: TextDocument.self, kind: "text", summary: "a title and lines of text", samples: ["notes": .sample],
      screens: [
        .screen(EditorScreen.self, name: "editor", summary: "a line editor with a draft", render: EditorRendering.text)
      ],
      commands: EditorCommands.all)
  }
}
