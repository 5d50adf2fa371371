import WorkbenchModuleAPI

/// Where a command name leads: one lookup, with one set of rules, for running a command,
/// checking a scenario before it runs, `help` and completion. Each caller phrases the reason a
/// name leads nowhere in its own words.
///
/// The rules, in order, for a name typed in a window showing a screen of module M:
/// 1. `module.command` names one module's command (or says which part is unknown);
/// 2. a host command, or one the front end brought (a session without the front end, a
///    scenario's, refuses its commands with the reason the host keeps for each);
/// 3. a command of M;
/// 4. a command of exactly one module that may run anywhere;
/// 5. otherwise a command of other modules is refused (run it in their window, or qualified),
///    and anything else is unknown.
///
/// A module is registered only when a name leads into it (see `ModuleRegistry`): its own
/// command typed in its window, its qualified name, or a name only it has.
@MainActor
public struct CommandRouter {
  /// The modules whose commands it routes to (the host's own are `HostCommands`).
  let registry: ModuleRegistry

  /// A command a name leads to.
  public struct Route {
    /// The command's spec.
    public let spec: CommandSpec
    /// The module that registered it; `nil` for a host command.
    public let module: String?
  }

  /// Why a name leads to no command.
  public enum Refusal: Error, Equatable {
    /// `module.command` with no such module.
    case unknownModule(String, suggestion: String?)
    /// `module.command` with no such command in that module.
    case unknownModuleCommand(module: String, command: String, suggestion: String?)
    /// A command of other modules than the window's.
    case otherModules(name: String, owners: [String])
    /// No command by that name; the closest one that would work here, if any.
    case unknown(String, suggestion: String?)
    /// A command only a front end runs (the shell's `history`), in a session without it; why.
    case frontEndOnly(name: String, reason: String)
  }

  /// Finds the command `name` leads to when typed in a window showing `screen` (`nil`: no
  /// window, or a scenario's host step).
  public func route(_ name: String, screen: String?) -> Result<Route, Refusal> {
    if let dot = name.firstIndex(of: ".") {
      let moduleName = String(name[..<dot])
      let commandName = String(name[name.index(after: dot)...])
      guard let commands = registry.commands(ofModule: moduleName) else {
        return .failure(
          .unknownModule(
            moduleName, suggestion: Suggestions.closest(to: moduleName, in: registry.manifests.map(\.name))))
      }
      guard let spec = commands[commandName] else {
        return .failure(
          .unknownModuleCommand(
            module: moduleName, command: commandName,
            suggestion: Suggestions.closest(to: commandName, in: commands.keys)))
      }
      return .success(Route(spec: spec, module: moduleName))
    }
    if let spec = HostCommands.spec(named: name) { return .success(Route(spec: spec, module: nil)) }
    let module = screen.flatMap { registry.module(ofScreen: $0) }
    if let module, let spec = registry.commands(ofModule: module)?[name] {
      return .success(Route(spec: spec, module: module))
    }
    let owners = registry.commandNames.filter { $0.names.contains(name) }.map(\.module).sorted()
    if owners.count == 1, let spec = registry.commands(ofModule: owners[0])?[name], case .anywhere = spec.scope {
      return .success(Route(spec: spec, module: owners[0]))
    }
    if !owners.isEmpty { return .failure(.otherModules(name: name, owners: owners)) }
    // A front end's command: looked up last, as no module may take its name (registration
    // refuses it), so a module's command pays nothing for it.
    if let reason = HostCommands.frontEndReason(name) {
      guard let spec = registry.frontEndCommands.first(where: { $0.name == name }) else {
        return .failure(.frontEndOnly(name: name, reason: reason))
      }
      return .success(Route(spec: spec, module: nil))
    }
    return .failure(.unknown(name, suggestion: Suggestions.closest(to: name, in: names(forScreen: screen))))
  }

  /// Every name that leads somewhere from a window showing `screen`: host commands, the front
  /// end's, the screen's module's commands, and every qualified `module.command`.
  public func names(forScreen screen: String?) -> [String] {
    var names = Array(HostCommands.names) + registry.frontEndCommands.map(\.name)
    let all = registry.commandNames
    if let module = screen.flatMap({ registry.module(ofScreen: $0) }),
      let own = all.first(where: { $0.module == module })
    {
      names += own.names
    }
    for (module, commands) in all { names += commands.map { "\(module).\($0)" } }
    return names.sorted()
  }
}

extension CommandRouter.Refusal {
  /// The reason in words, for callers with nothing to add; `place` says where the name was
  /// typed (`window left shows editor`, `a host step`).
  public func message(place: String) -> String {
    switch self {
    case .unknownModule(let module, let suggestion):
      return "no module named '\(module)'" + Suggestions.sentence(for: suggestion)
    case .unknownModuleCommand(let module, let command, let suggestion):
      return "\(module) has no command '\(command)'" + Suggestions.sentence(for: suggestion)
    case .otherModules(let name, let owners):
      let qualified = owners.map { "\($0).\(name)" }.joined(separator: " or ")
      return "'\(name)' is a command of \(owners.joined(separator: ", ")), and \(place): run it with @WINDOW in "
        + "front or as \(qualified)"
    case .unknown(let name, let suggestion):
      return "unknown command '\(name)'" + Suggestions.sentence(for: suggestion)
    case .frontEndOnly(_, let reason):
      return reason
    }
  }

}
