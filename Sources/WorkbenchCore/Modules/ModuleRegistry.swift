import WorkbenchModuleAPI

/// What a set of modules registered: their manifests, document kinds, screens and commands,
/// checked for clashes. Registering is done once; any number of hosts can share the result.
///
/// A module with an index (`FeatureModule.declaredIndex`) is registered the first time one of its
/// names is needed (its screen is opened, its command typed, its sample read), so a start that
/// uses the catalog does not build the ledger's commands; asking for everything (help,
/// completion of every name, diagrams) registers every module.
@MainActor
public struct ModuleRegistry {
  /// The registrations, filled in as modules are registered; shared by every copy.
  @MainActor final class Registrations {
    var documentKinds: [String: DocumentKind] = [:]
    var screenKinds: [String: ScreenKind] = [:]
    var moduleCommands: [String: [String: CommandSpec]] = [:]
    var restarts: [String: @MainActor () throws -> Void] = [:]
    var diagrams: [(module: String, name: String, draw: @MainActor () -> Diagram)] = []
    var factTypes: [String: FactType] = [:]
    var liveSources: [String] = []
    /// The modules that declared a live source.
    var modulesWithLiveSources: Set<String> = []
    /// The modules not registered yet, with their indexes, in load order.
    var waiting: [Waiting] = []
    /// Why a module's registration failed when it was registered late, by module, with the
    /// index it had.
    var failures: [String: (message: String, index: ModuleIndex)] = [:]
  }

  /// A module not registered yet: its name (asked of its manifest once), and its index. A
  /// class: the lookups that pass over it copy one reference, not a module and its index.
  final class Waiting {
    let name: String
    let module: any FeatureModule
    let index: ModuleIndex

    init(name: String, module: any FeatureModule, index: ModuleIndex) {
      self.name = name
      self.module = module
      self.index = index
    }
  }

  let registrations = Registrations()
  let manifests: [ModuleManifest]
  /// The commands the front end brings (the shell's `history`, `quit`...), in `help`'s order.
  private(set) var frontEndCommands: [CommandSpec] = []
  /// Where a command name leads, for running, checking, help and completion.
  public var router: CommandRouter { CommandRouter(registry: self) }

  /// The shape the values of a fact source must have, when its module declared one (facts of
  /// sources no module declares, an external module's, are not checked).
  public func factType(of source: String) -> FactType? { factTypes[source] }

  /// The same modules, registered once for both, with the commands a front end brings (the
  /// shell's): a session on it runs them, while one on `self` (a scenario's) refuses them with
  /// the reason the host keeps for each.
  ///
  /// - Throws: `RegistrationError` for a command that is not one the host reserves for front
  ///   ends.
  package func bringing(frontEnd commands: [CommandSpec]) throws(RegistrationError) -> ModuleRegistry {
    for spec in commands where HostCommands.frontEndReason(spec.name) == nil {
      throw RegistrationError(
        message: "the front end's command '\(spec.name)' is not one the host reserves for front ends "
          + "(\(HostCommands.frontEndOnly.map(\.name).joined(separator: ", ")))")
    }
    var registry = self
    registry.frontEndCommands = commands
    return registry
  }

  /// Registers `modules`, in order (a module with an index only when it is first needed).
  ///
  /// - Throws: `RegistrationError` when two modules claim one name, or a module's commands,
  ///   screens or document kinds clash.
  package init(modules: [any FeatureModule]) throws(RegistrationError) {
    var manifests: [ModuleManifest] = []
    // Lists, not dictionaries: a handful of names each, and no hashing at start.
    var shown: [(screen: String, kind: String)] = []
    var kinds: [String] = []
    // Every sample document's name, with its kind and module: a document name is the
    // workspace's, so two modules' samples of one name cannot both be there.
    var samples: [(name: String, kind: String, module: String)] = []
    func add(samples names: [String], kind: String, module: String) throws(RegistrationError) {
      for name in names {
        if let other = samples.first(where: { $0.name == name }) {
          throw RegistrationError(
            message: "the \(module) module's sample document '\(name)' (a \(kind) document) has the name of the "
              + "\(other.module) module's sample (a \(other.kind) document): a document's name is the workspace's, "
              + "so rename the \(module) module's sample")
        }
        samples.append((name, kind, module))
      }
    }
    for module in modules {
      let manifest = module.manifest
      guard !manifest.name.isEmpty, !manifest.name.contains(".") else {
        throw RegistrationError(message: "module name '\(manifest.name)' must be non-empty without dots")
      }
      guard !manifests.contains(where: { $0.name == manifest.name }) else {
        throw RegistrationError(message: "two modules are named '\(manifest.name)'")
      }
      manifests.append(manifest)
      guard let index = module.declaredIndex else {
        let before = (screens: Set(registrations.screenKinds.keys), kinds: Set(registrations.documentKinds.keys))
        try Self.register(module, into: registrations)
        for screen in registrations.screenKinds.values.sorted(by: { $0.name < $1.name })
        where !before.screens.contains(screen.name) {
          guard !shown.contains(where: { $0.screen == screen.name }) else {
            throw RegistrationError(message: "screen '\(screen.name)' is registered twice")
          }
          shown.append((screen.name, screen.documentKind))
        }
        for kind in registrations.documentKinds.keys.sorted() where !before.kinds.contains(kind) {
          guard !kinds.contains(kind) else {
            throw RegistrationError(message: "document kind '\(kind)' is registered twice")
          }
          kinds.append(kind)
          try add(
            samples: registrations.documentKinds[kind]?.samples.map(\.name) ?? [], kind: kind, module: manifest.name)
        }
        continue
      }
      // The clashes an index can show are found now, as a registration would find them.
      for screen in index.screens {
        guard !shown.contains(where: { $0.screen == screen.name }) else {
          throw RegistrationError(message: "screen '\(screen.name)' is registered twice")
        }
        shown.append((screen.name, screen.documentKind))
      }
      for kind in index.documentKinds {
        guard !kinds.contains(kind.name) else {
          throw RegistrationError(message: "document kind '\(kind.name)' is registered twice")
        }
        kinds.append(kind.name)
        try add(samples: kind.samples, kind: kind.name, module: manifest.name)
      }
      for name in index.commands where HostCommands.isReserved(name) {
        throw RegistrationError(message: "\(manifest.name).\(name) clashes with the host command '\(name)'")
      }
      registrations.waiting.append(Waiting(name: manifest.name, module: module, index: index))
    }
    // A screen may show a kind another module registers, but some module must.
    for screen in shown where !kinds.contains(screen.kind) {
      throw RegistrationError(message: "screen '\(screen.screen)' shows unknown document kind '\(screen.kind)'")
    }
    self.manifests = manifests
  }

  /// Registers one module now, into `registered`.
  private static func register(_ module: any FeatureModule, into registered: Registrations) throws(RegistrationError) {
    let manifest = module.manifest
    let registrar = Registrar(manifest: manifest)
    module.register(into: registrar)
    for kind in registrar.documentKinds {
      if let other = registered.documentKinds[kind.name] {
        throw RegistrationError(
          message: "document kind '\(kind.name)' is registered twice: the \(manifest.name) module's is the "
            + "\(other.module) module's kind already, so rename the \(manifest.name) module's")
      }
    }
    for screen in registrar.screenKinds {
      guard registered.screenKinds[screen.name] == nil else {
        throw RegistrationError(message: "screen '\(screen.name)' is registered twice")
      }
    }
    var own: [String: CommandSpec] = [:]
    for spec in registrar.commands {
      guard own[spec.name] == nil else {
        throw RegistrationError(message: "\(manifest.name) registers '\(spec.name)' twice")
      }
      guard !HostCommands.isReserved(spec.name) else {
        throw RegistrationError(message: "\(manifest.name).\(spec.name) clashes with the host command '\(spec.name)'")
      }
      own[spec.name] = spec
    }
    for diagram in registrar.diagrams {
      guard !registered.diagrams.contains(where: { $0.name == diagram.name }), diagram.name != "modules" else {
        throw RegistrationError(message: "diagram '\(diagram.name)' is registered twice")
      }
    }
    var facts: [String: FactType] = [:]
    for fact in registrar.facts {
      guard registered.factTypes[fact.source] == nil, facts[fact.source] == nil else {
        throw RegistrationError(message: "fact source '\(fact.source)' is declared twice")
      }
      facts[fact.source] = fact.type
    }
    // A module registered late must register what its index promised, and nothing else.
    if let index = module.declaredIndex {
      let found = ModuleIndex(
        screens: registrar.screenKinds.map { ($0.name, $0.documentKind) },
        documentKinds: registrar.documentKinds.map { ($0.name, $0.samples.map(\.name)) },
        commands: registrar.commands.map(\.name)
      ).sorted
      let promised = index.sorted
      guard found == promised else {
        throw RegistrationError(
          message: "\(manifest.name) registered other names than its index says: "
            + "index \(Self.describe(promised)), registered \(Self.describe(found))")
      }
    }
    for kind in registrar.documentKinds { registered.documentKinds[kind.name] = kind }
    for screen in registrar.screenKinds { registered.screenKinds[screen.name] = screen }
    registered.moduleCommands[manifest.name] = own
    registered.restarts[manifest.name] = registrar.restartAction
    for diagram in registrar.diagrams { registered.diagrams.append((manifest.name, diagram.name, diagram.draw)) }
    registered.factTypes.merge(facts) { first, _ in first }
    registered.liveSources += registrar.liveSources
    if !registrar.liveSources.isEmpty { registered.modulesWithLiveSources.insert(manifest.name) }
  }

  private static func describe(_ index: ModuleIndex) -> String {
    "screens " + index.screens.map { "\($0.name) (\($0.documentKind))" }.joined(separator: ", ")
      + "; documents " + index.documentKinds.map { "\($0.name) \($0.samples)" }.joined(separator: ", ")
      + "; commands " + index.commands.joined(separator: ", ")
  }

  /// Registers the waiting module named `name`, if it is one. A failure is kept and said where
  /// the module's names are asked for (`failure(of:)`), and the module stays unregistered.
  func registerModule(named name: String) {
    // A loop, not a closure: a closure formed on the main actor is checked to run there at
    // every call, and this is asked often.
    var found: Int?
    for position in registrations.waiting.indices where registrations.waiting[position].name == name {
      found = position
      break
    }
    guard let position = found else { return }
    let waiting = registrations.waiting.remove(at: position)
    do {
      try Self.register(waiting.module, into: registrations)
    } catch {
      registrations.failures[name] = (error.message, waiting.index)
    }
  }

  /// Registers every waiting module, in load order.
  func registerAll() {
    while let next = registrations.waiting.first { registerModule(named: next.name) }
  }

  /// Why the module named `name` could not be registered, if it could not.
  public func failure(of name: String) -> String? { registrations.failures[name]?.message }

  /// Why the screen named `name` is not there when its module's registration failed: the
  /// module and the reason.
  public func failure(ofScreen name: String) -> String? {
    guard let (module, failed) = registrations.failures.first(where: { $0.value.index.kind(ofScreen: name) != nil })
    else { return nil }
    return "screen '\(name)' is the \(module) module's, which could not be registered: \(failed.message)"
  }

  // MARK: Everything (registers every module)

  var documentKinds: [String: DocumentKind] {
    registerAll()
    return registrations.documentKinds
  }
  var screenKinds: [String: ScreenKind] {
    registerAll()
    return registrations.screenKinds
  }
  var moduleCommands: [String: [String: CommandSpec]] {
    registerAll()
    return registrations.moduleCommands
  }
  var restarts: [String: @MainActor () throws -> Void] {
    registerAll()
    return registrations.restarts
  }
  var moduleDiagrams: [(module: String, name: String, draw: @MainActor () -> Diagram)] {
    registerAll()
    return registrations.diagrams
  }
  /// The live sources the modules declared (`Registrar.liveSource`).
  public var liveSourceNames: [String] {
    registerAll()
    return registrations.liveSources
  }
  /// The modules that declared a live source: what they show may change on its own, in real
  /// time (a device's switch), whatever the steps.
  public var modulesWithLiveSources: Set<String> {
    registerAll()
    return registrations.modulesWithLiveSources
  }
  var factTypes: [String: FactType] {
    registerAll()
    return registrations.factTypes
  }

  // MARK: One name (registers the module it belongs to)

  /// The document kind named `name`, its module registered if it was waiting.
  func documentKind(named name: String) -> DocumentKind? {
    if let kind = registrations.documentKinds[name] { return kind }
    guard let owner = registrations.waiting.first(where: { $0.index.hasKind(name) }) else { return nil }
    registerModule(named: owner.name)
    return registrations.documentKinds[name]
  }

  /// The screen named `name`, its module registered if it was waiting.
  func screenKind(named name: String) -> ScreenKind? {
    if let screen = registrations.screenKinds[name] { return screen }
    guard let owner = registrations.waiting.first(where: { $0.index.kind(ofScreen: name) != nil }) else { return nil }
    registerModule(named: owner.name)
    return registrations.screenKinds[name]
  }

  /// The module that registers the document kind named `name`, without registering it.
  func owner(ofKind name: String) -> String? {
    registrations.documentKinds[name]?.module
      ?? registrations.waiting.first { $0.index.hasKind(name) }?.name
  }

  /// The module that registers the screen named `name`, without registering it.
  public func module(ofScreen name: String) -> String? {
    registrations.screenKinds[name]?.module
      ?? registrations.waiting.first { $0.index.kind(ofScreen: name) != nil }?.name
  }

  /// The commands of the module named `name`, registered if it was waiting; `nil` for no module.
  func commands(ofModule name: String) -> [String: CommandSpec]? {
    // Asked at every command a line names: a module registered already is answered at once.
    if let commands = registrations.moduleCommands[name] { return commands }
    registerModule(named: name)
    return registrations.moduleCommands[name] ?? (manifests.contains { $0.name == name } ? [:] : nil)
  }

  /// The names of the commands of each module, without registering any.
  var commandNames: [(module: String, names: [String])] {
    manifests.map { manifest in
      let names =
        registrations.moduleCommands[manifest.name].map { Array($0.keys) }
        ?? registrations.waiting.first { $0.name == manifest.name }?.index.commands ?? []
      return (manifest.name, names)
    }
  }

  /// The sample documents each document kind starts with, by name, without registering any
  /// module: `(name, kind)` pairs.
  var sampleNames: [(name: String, kind: String)] {
    var samples = registrations.documentKinds.values.flatMap { kind in kind.samples.map { ($0.name, kind.name) } }
    for entry in registrations.waiting {
      for kind in entry.index.documentKinds { samples += kind.samples.map { ($0, kind.name) } }
    }
    return samples.sorted { $0.0 < $1.0 }.map { (name: $0.0, kind: $0.1) }
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
