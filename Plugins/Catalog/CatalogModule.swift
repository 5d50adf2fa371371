import WorkbenchCore

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

  // The names it registers, so a start registers the module only when one is first needed: the
  // commands' from the list it registers (made, not run), the rest held to the registration by
  // a test.
  public var index: ModuleIndex? {
    ModuleIndex(
      screens: [("catalog", "catalog")], documentKinds: [("catalog", ["library"])],
      commands: CatalogCommands.all.map(\.name).sorted())
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
