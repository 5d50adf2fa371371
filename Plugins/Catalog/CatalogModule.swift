import WorkbenchModuleAPI

/// The catalog feature module: books in a shared document, and windows with their own query,
/// selection, viewport anchor and detail pane (MVC with explicit view state).
public struct CatalogModule: FeatureModule {
  /// The module.
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(
      name: "catalog", version: "1.0.0",
      summary: "Books in a shared catalog, with per-window search, selection and scrolling")
  }

  // The names it registers, so a start registers the module only when one is first needed.
  // Written out, not read from the command specs: making them costs a start that never uses the
  // module more than all its other work (the registry refuses a registration that differs, and
  // a test registers every built-in).
  public var declaredIndex: ModuleIndex? {
    ModuleIndex(
      screens: [("catalog", "catalog")], documentKinds: [("catalog", ["library"])],
      commands: [
        "add", "deselect", "detail", "move", "only-selected", "page", "query", "remove", "rename", "scroll", "select",
        "sort",
      ])
  }

  @MainActor public func register(into registrar: Registrar) {
    registrar.register(
      document: CatalogDocument.self, kind: "catalog", summary: "books with unique ids and titles",
      samples: ["library": .sampleLibrary],
      screens: [
        .screen(
          CatalogScreenModel.self, name: "catalog", summary: "a searchable list of books with a detail pane",
          render: CatalogRendering.text)
      ],
      commands: CatalogCommands.all)
  }
}
