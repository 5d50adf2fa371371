import WorkbenchModuleAPI

/// The lights module: a smart-home panel built on scopes and connections. Windows declare what
/// they need by key path; a live container (a simulated bridge) or a preview container
/// (constants and initial values) decides where values come from.
public struct LightsModule: FeatureModule {
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(name: "lights", version: "1.0.0", summary: "Rooms and lights on scopes and connections")
  }

  // The names it registers, so a start registers the module only when one is first needed.
  // Written out, not read from the command specs: making them costs a start that never uses the
  // module more than all its other work (the registry refuses a registration that differs, and
  // a test registers every built-in).
  public var declaredIndex: ModuleIndex? {
    ModuleIndex(
      screens: [("home", "home"), ("preview-home", "home"), ("room", "home"), ("preview-room", "home")],
      documentKinds: [("home", ["home"])],
      commands: ["bridge", "detect", "dim", "enter", "page", "room", "scopes", "switch"])
  }

  @MainActor public func register(into registrar: Registrar) {
    registrar.diagram("scopes") { Self.scopeDiagram }
    registrar.register(
      document: HomeDocument.self, kind: "home", summary: "the rooms and lights a home bridge starts with",
      samples: ["home": .sample],
      screens: [
        .screen(
          HomeScreen<LiveMode>.self, name: "home", summary: "the rooms of a home, live", render: LightsRendering.home),
        .screen(
          HomeScreen<PreviewMode>.self, name: "preview-home", summary: "the rooms of a home, from preview values",
          render: LightsRendering.home),
        .screen(
          RoomScreen<LiveMode>.self, name: "room", summary: "the lights of a room, live", render: LightsRendering.room),
        .screen(
          RoomScreen<PreviewMode>.self, name: "preview-room", summary: "the lights of a room, from preview values",
          render: LightsRendering.room),
      ],
      commands: LightsCommands.all)
    let light = FactType.object([
      ("id", .integer(Int.min...Int.max)), ("name", .text), ("on", .boolean), ("brightness", .integer(0...100)),
    ])
    registrar.fact(
      "bridge.state",
      .object([
        ("reachable", .boolean),
        ("rooms", .list(.object([("id", .text), ("name", .text), ("lights", .list(light))]))),
      ]),
      summary: "a bridge's rooms and lights when recording started")
    registrar.fact("bridge.detected", .text, summary: "the name of a light a bridge found")
  }
}
