import WorkbenchModuleAPI

extension Host {
  /// Every command's spec with the name it is typed by: host commands, the front end's, then
  /// each module's commands qualified by the module's name.
  public var allCommands: [(name: String, spec: CommandSpec)] {
    let host = (HostCommands.all + registry.frontEndCommands).map { (name: $0.name, spec: $0) }
    let modules = manifests.flatMap { manifest in
      (moduleCommands[manifest.name] ?? [:]).values.sorted { $0.name < $1.name }
        .map { (name: "\(manifest.name).\($0.name)", spec: $0) }
    }
    return host + modules
  }

  func helpOverview(for window: Window?) -> String {
    CommandHelp(registry: registry).overview(screen: window?.screen)
  }

  func helpText(for name: String, in window: Window?) throws(CommandError) -> String {
    try CommandHelp(registry: registry).text(for: name, in: window.map { ($0.label, $0.screen.name) })
  }
}
