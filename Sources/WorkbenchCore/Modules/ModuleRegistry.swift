/// What a set of modules registered: their manifests, document kinds, screens and commands,
/// checked for clashes. Registering is done once; any number of hosts can share the result.
@MainActor
public struct ModuleRegistry {
  let manifests: [ModuleManifest]
  let documentKinds: [String: DocumentKind]
  let screenKinds: [String: ScreenKind]
  let moduleCommands: [String: [String: CommandSpec]]
  /// How to start again the modules that run as processes, by module name.
  let restarts: [String: @MainActor () throws -> Void]
  /// Where a command name leads, for running, checking, help and completion.
  public let router: CommandRouter
  /// The diagrams modules draw, by name, with the module that offers each.
  let moduleDiagrams: [(module: String, name: String, draw: @MainActor () -> Diagram)]
  /// The shapes of the recorded facts the modules declared, by source.
  let factTypes: [String: FactType]

  /// The shape the values of a fact source must have, when its module declared one (facts of
  /// sources no module declares, an external module's, are not checked).
  public func factType(of source: String) -> FactType? { factTypes[source] }

  /// Registers `modules`, in order.
  ///
  /// - Throws: `RegistrationError` when two modules claim one name, or a module's commands,
  ///   screens or document kinds clash.
  public init(modules: [any FeatureModule]) throws(RegistrationError) {
    var manifests: [ModuleManifest] = []
    var kinds: [String: DocumentKind] = [:]
    var screens: [String: ScreenKind] = [:]
    var commands: [String: [String: CommandSpec]] = [:]
    var restarts: [String: @MainActor () throws -> Void] = [:]
    var diagrams: [(module: String, name: String, draw: @MainActor () -> Diagram)] = []
    var factTypes: [String: FactType] = [:]
    let reserved = HostCommands.byName
    for module in modules {
      let manifest = module.manifest
      guard !manifest.name.isEmpty, !manifest.name.contains(".") else {
        throw RegistrationError(message: "module name '\(manifest.name)' must be non-empty without dots")
      }
      guard commands[manifest.name] == nil else {
        throw RegistrationError(message: "two modules are named '\(manifest.name)'")
      }
      let registrar = Registrar(manifest: manifest)
      module.register(into: registrar)
      for kind in registrar.documentKinds {
        guard kinds[kind.name] == nil else {
          throw RegistrationError(message: "document kind '\(kind.name)' is registered twice")
        }
        kinds[kind.name] = kind
      }
      for screen in registrar.screenKinds {
        guard screens[screen.name] == nil else {
          throw RegistrationError(message: "screen '\(screen.name)' is registered twice")
        }
        screens[screen.name] = screen
      }
      var own: [String: CommandSpec] = [:]
      for spec in registrar.commands {
        guard own[spec.name] == nil else {
          throw RegistrationError(message: "\(manifest.name) registers '\(spec.name)' twice")
        }
        guard reserved[spec.name] == nil else {
          throw RegistrationError(message: "\(manifest.name).\(spec.name) clashes with the host command '\(spec.name)'")
        }
        own[spec.name] = spec
      }
      commands[manifest.name] = own
      restarts[manifest.name] = registrar.restartAction
      for diagram in registrar.diagrams {
        guard !diagrams.contains(where: { $0.name == diagram.name }), diagram.name != "modules" else {
          throw RegistrationError(message: "diagram '\(diagram.name)' is registered twice")
        }
        diagrams.append((manifest.name, diagram.name, diagram.draw))
      }
      for fact in registrar.facts {
        guard factTypes[fact.source] == nil else {
          throw RegistrationError(message: "fact source '\(fact.source)' is declared twice")
        }
        factTypes[fact.source] = fact.type
      }
      manifests.append(manifest)
    }
    for screen in screens.values where kinds[screen.documentKind] == nil {
      throw RegistrationError(message: "screen '\(screen.name)' shows unknown document kind '\(screen.documentKind)'")
    }
    self.manifests = manifests
    self.documentKinds = kinds
    self.screenKinds = screens
    self.moduleCommands = commands
    self.restarts = restarts
    self.moduleDiagrams = diagrams
    self.factTypes = factTypes
    self.router = CommandRouter(moduleCommands: commands, screenKinds: screens)
  }
}

extension ModuleRegistry {
  /// The diagrams there are: `modules` (what each module registers), then the modules' own.
  public var diagramNames: [(name: String, summary: String)] {
    [("modules", "the modules with the document kinds, screens and commands each registers")]
      + moduleDiagrams.map { ($0.name, "from the \($0.module) module: " + $0.draw().title) }
  }

  /// The modules' own diagrams, each drawn once, with their names.
  public func drawModuleDiagrams() -> [(name: String, diagram: Diagram)] {
    moduleDiagrams.map { ($0.name, $0.draw()) }
  }

  /// The names of the diagrams modules contribute, without drawing them.
  public var moduleDiagramNames: [String] { moduleDiagrams.map(\.name) }

  /// The diagram named `name`, drawn now; `nil` when there is none.
  public func diagram(named name: String) -> Diagram? {
    if name == "modules" { return modulesDiagram() }
    return moduleDiagrams.first { $0.name == name }?.draw()
  }

  /// Each module with the document kinds, screens and commands it registers.
  func modulesDiagram() -> Diagram {
    var nodes: [String] = []
    var edges: [Diagram.Edge] = []
    for manifest in manifests {
      let module = "module " + manifest.name
      nodes.append(module)
      for kind in documentKinds.values.filter({ $0.module == manifest.name }).map(\.name).sorted() {
        nodes.append("document " + kind)
        edges.append(.init(from: module, to: "document " + kind, label: "registers"))
      }
      for screen in screenKinds.values.filter({ $0.module == manifest.name }).sorted(by: { $0.name < $1.name }) {
        nodes.append("screen " + screen.name)
        edges.append(.init(from: module, to: "screen " + screen.name, label: "registers"))
        edges.append(.init(from: "screen " + screen.name, to: "document " + screen.documentKind, label: "shows"))
      }
      let names = (moduleCommands[manifest.name] ?? [:]).keys.sorted()
      if !names.isEmpty {
        let commands = "commands of \(manifest.name): " + names.joined(separator: ", ")
        nodes.append(commands)
        edges.append(.init(from: module, to: commands, label: "registers"))
      }
    }
    return Diagram(title: "the modules and what each registers", nodes: nodes, edges: edges)
  }
}
