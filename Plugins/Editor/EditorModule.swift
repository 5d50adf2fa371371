import WorkbenchCore

/// The editor module: text documents edited through drafts that are view state, saved by one
/// use case with three outcomes: saved, rejected, or conflicted.
public struct EditorModule: FeatureModule {
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(name: "editor", version: "1.0.0", summary: "Text documents edited through drafts, with conflicts")
  }

  // The names it registers, so a start registers the module only when one is first needed: the
  // commands' from the list it registers (made, not run), the rest held to the registration by
  // a test.
  public var index: ModuleIndex? {
    ModuleIndex(
      screens: [("editor", "text")], documentKinds: [("text", ["notes"])],
      commands: EditorCommands.all.map(\.name).sorted())
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
