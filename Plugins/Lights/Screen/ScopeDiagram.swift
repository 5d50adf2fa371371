import WorkbenchModuleAPI

extension LightsModule {
  /// The scopes a lights session resolves, drawn from a real one of its own, outside any host:
  /// the sample home's screen and a room screen on every room (the screens' own types, on one
  /// environment, so they share its bridge as a session's windows do), each frame projected
  /// (which resolves the scopes and connections it reads), then each screen's scope tree.
  @MainActor static var scopeDiagram: Diagram {
    var nodes: [String] = []
    var edges: [Diagram.Edge] = []
    var environment = ScreenEnvironment()
    environment.documentName = "home"
    environment.screenName = "home"
    let home = HomeScreen<LiveMode>(document: .sample, viewState: HomeViewState(), environment: environment)
    environment.screenName = "room"
    var rooms: [RoomScreen<LiveMode>] = []
    // The screens close at the end, so their connections are cancelled with them.
    defer {
      for room in rooms { room.windowClosed() }
      home.windowClosed()
    }
    _ = home.frame
    var lines = home.scopeTree()
    for room in home.typedFrame.rooms.map(\.id) {
      let screen = RoomScreen<LiveMode>(document: home.document, viewState: RoomViewState(), environment: environment)
      do {
        try screen.send(.roomChosen(room))
      } catch {
        continue
      }
      rooms.append(screen)
      _ = screen.frame
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
