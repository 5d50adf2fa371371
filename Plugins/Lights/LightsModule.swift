import WorkbenchCore

/// The lights module: a smart-home panel built on scopes and connections. Windows declare what
/// they need by key path; a live container (a simulated bridge) or a preview container
/// (constants and initial values) decides where values come from.
public struct LightsModule: FeatureModule {
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(name: "lights", version: "1.0.0", summary: "Rooms and lights on scopes and connections")
  }

  // The names it registers, so a start registers the module only when one is first needed (a
  // test holds the index to the registration).
  public var index: ModuleIndex? {
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

extension LightsModule {
  /// The scopes a lights session resolves, drawn from a real one: a host with the sample home,
  /// a home window and a room window on every room (opened through the host's API, with the
  /// screens' own types), each frame projected (which resolves the scopes and connections it
  /// reads), then each window's scope tree.
  @MainActor static var scopeDiagram: Diagram {
    var nodes: [String] = []
    var edges: [Diagram.Edge] = []
    guard let host = try? Host(modules: [LightsModule()], clock: .virtual),
      let home = try? host.openWindow(screen: "home", document: "home"),
      let homeWindow = home.anyModel as? HomeScreen<LiveMode>
    else {
      return Diagram(title: "the scopes of a lights session", nodes: [], edges: [])
    }
    // The windows close at the end, so their connections are cancelled with them.
    defer { for window in host.windows { host.closeWindow(window.id) } }
    let environment = host.screenEnvironment(for: home.documentName)
    _ = home.frame
    var lines = homeWindow.scopeTree()
    for room in home.frame["rooms"]?.elements?.compactMap({ $0["id"]?.stringValue }) ?? [] {
      let screen = RoomScreen<LiveMode>(
        document: homeWindow.document, viewState: RoomViewState(), environment: environment)
      do {
        try screen.send(.roomChosen(room))
      } catch {
        continue
      }
      guard let window = try? host.openWindow(screen, screen: "room", document: home.documentName) else { continue }
      _ = window.frame
      lines += screen.scopeTree().dropFirst()
    }
    // Indentation is nesting: each line hangs from the nearest line above indented less.
    var parents: [(indent: Int, node: String)] = []
    // Scopes only: their connections' values would make one node of every equal value.
    for line in lines where line.contains("Scope") {
      let indent = line.prefix { $0 == " " }.count
      let node = String(line.dropFirst(indent))
      while let last = parents.last, last.indent >= indent { parents.removeLast() }
      if !nodes.contains(node) { nodes.append(node) }
      if let parent = parents.last, !edges.contains(where: { $0.from == parent.node && $0.to == node }) {
        edges.append(Diagram.Edge(from: parent.node, to: node))
      }
      parents.append((indent, node))
    }
    return Diagram(title: "the scopes and connections of a lights session", nodes: nodes, edges: edges)
  }
}
