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
    let reserved = Set(HostCommands.all.map(\.name))
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
        guard !reserved.contains(spec.name) else {
          throw RegistrationError(message: "\(manifest.name).\(spec.name) clashes with the host command '\(spec.name)'")
        }
        own[spec.name] = spec
      }
      commands[manifest.name] = own
      restarts[manifest.name] = registrar.restartAction
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
    self.router = CommandRouter(moduleCommands: commands, screenKinds: screens)
  }
}
