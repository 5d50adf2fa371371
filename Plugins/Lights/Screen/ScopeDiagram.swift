import WorkbenchCore

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
      let homeWindow = home.model(as: HomeScreen<LiveMode>.self)
    else {
      return Diagram(title: "the scopes of a lights session", nodes: [], edges: [])
    }
    // The windows close at the end, so their connections are cancelled with them.
    defer { for window in host.windows { host.closeWindow(window.id) } }
    let environment = host.screenEnvironment(for: home.documentName)
    _ = home.frame
    var lines = homeWindow.scopeTree()
    for room in homeWindow.typedFrame.rooms.map(\.id) {
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
