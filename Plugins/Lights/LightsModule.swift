import WorkbenchCore

/// The lights module: a smart-home panel built on scopes and connections. Windows declare what
/// they need by key path; a live container (a simulated bridge) or a preview container
/// (constants and initial values) decides where values come from.
public struct LightsModule: FeatureModule {
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(name: "lights", version: "1.0.0", summary: "Rooms and lights on scopes and connections")
  }

  @MainActor public func register(into registrar: Registrar) {
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
  }
}
