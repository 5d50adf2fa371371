extension Host {
  /// Checks, without running anything, that `name` is a command a window showing `screen` can
  /// run (any host command, the screen's module's commands, or a qualified `module.command`);
  /// with no screen, that it is a host command or a qualified one.
  ///
  /// - Returns: `nil` when it is, otherwise the message to report (with a suggestion).
  public func problemWithCommand(named name: String, inScreen screen: String?) -> String? {
    if hostCommands[name] != nil { return nil }
    let module = screen.flatMap { screenKinds[$0]?.module }
    switch qualifiedCommand(name) {
    case .found: return nil
    case .unknown(let problem): return problem
    case .unqualified: break
    }
    if let module, moduleCommands[module]?[name] != nil { return nil }
    var candidates = Array(hostCommands.keys)
    if let module { candidates += moduleCommands[module]?.keys.map { $0 } ?? [] }
    let owners = moduleCommands.filter { $0.value[name] != nil }.map(\.key).sorted()
    if owners.count == 1, let spec = moduleCommands[owners[0]]?[name], case .anywhere = spec.scope { return nil }
    if let owner = owners.first {
      let place = screen.map { "a \($0) window" } ?? "a host step (`do:`)"
      return "'\(name)' is a command of \(owner), not of \(place): run it in a \(owner) window or as \(owner).\(name)"
    }
    return "unknown command '\(name)'" + suggestion(name, in: candidates)
  }

  /// When `name` (run in a window showing `screen`) opens a window: the position of the
  /// argument holding its name and the screen it shows.
  public func windowOpened(byCommand name: String, inScreen screen: String?) -> (argument: Int, screen: String)? {
    let module = screen.flatMap { screenKinds[$0]?.module }
    var spec: CommandSpec?
    switch qualifiedCommand(name) {
    case .found(_, let found): spec = found
    case .unknown: spec = nil
    case .unqualified: spec = module.flatMap { moduleCommands[$0]?[name] }
    }
    guard let spec, let opens = spec.opensWindow, let screen, let opened = opens.screens[screen],
      let index = spec.arguments.firstIndex(where: { $0.name == opens.nameArgument })
    else { return nil }
    return (index, opened)
  }

  /// The screen a document kind's windows use, for the first screen that shows it.
  public func screen(named name: String) -> (name: String, documentKind: String)? {
    screenKinds[name].map { ($0.name, $0.documentKind) }
  }

  /// The kind of the document named `name`, if it exists.
  public func documentKind(of name: String) -> String? { documents[name]?.kind }

  /// How a command name reads as `module.command`.
  enum QualifiedLookup {
    /// The name has no dot.
    case unqualified
    /// The module and its command.
    case found(module: String, spec: CommandSpec)
    /// The module or the command does not exist; the message says which, with a suggestion.
    case unknown(String)
  }

  /// Looks up a qualified `module.command` name.
  func qualifiedCommand(_ name: String) -> QualifiedLookup {
    guard let dot = name.firstIndex(of: ".") else { return .unqualified }
    let moduleName = String(name[..<dot])
    let commandName = String(name[name.index(after: dot)...])
    guard let commands = moduleCommands[moduleName] else {
      return .unknown("no module named '\(moduleName)'" + suggestion(moduleName, in: moduleCommands.keys))
    }
    guard let spec = commands[commandName] else {
      return .unknown("\(moduleName) has no command '\(commandName)'" + suggestion(commandName, in: commands.keys))
    }
    return .found(module: moduleName, spec: spec)
  }
}
