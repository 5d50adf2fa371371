extension Host {
  /// Every command's spec with the name it is typed by: host commands, then each module's
  /// commands qualified by the module's name.
  public var allCommands: [(name: String, spec: CommandSpec)] {
    let host = HostCommands.all.map { (name: $0.name, spec: $0) }
    let modules = manifests.flatMap { manifest in
      (moduleCommands[manifest.name] ?? [:]).values.sorted { $0.name < $1.name }
        .map { (name: "\(manifest.name).\($0.name)", spec: $0) }
    }
    return host + modules
  }

  /// The names of the commands every window has.
  public var hostCommandNames: Set<String> { Set(hostCommands.keys) }

  func helpOverview(for window: Window?) -> String {
    var lines = ["Host commands:"]
    lines += HostCommands.all.map { "  " + $0.usage.padded(to: 34) + $0.summary }
    for manifest in manifests {
      let commands = (moduleCommands[manifest.name] ?? [:]).values.sorted { $0.name < $1.name }
      guard !commands.isEmpty else { continue }
      let here = window?.screen.module == manifest.name ? " (in this window)" : ""
      lines.append("")
      lines.append("\(manifest.name) commands\(here), also typed as \(manifest.name).NAME:")
      lines += commands.map { "  " + $0.usage.padded(to: 34) + $0.summary }
    }
    lines.append("")
    lines.append("Put @WINDOW in front of a command to run it in another window. `help COMMAND` for more.")
    return lines.joined(separator: "\n")
  }

  func helpText(for name: String, in window: Window?) throws(CommandError) -> String {
    let spec: CommandSpec
    let typed: String
    if let found = hostCommands[name] {
      (spec, typed) = (found, name)
    } else if let found = allCommands.first(where: { $0.name == name }) {
      (spec, typed) = (found.spec, found.name)
    } else if let module = window?.screen.module, let found = moduleCommands[module]?[name] {
      (spec, typed) = (found, "\(module).\(name)")
    } else if let found = allCommands.first(where: { $0.spec.name == name }) {
      (spec, typed) = (found.spec, found.name)
    } else {
      throw CommandError("no command '\(name)'" + suggestion(name, in: commandNames(for: window)))
    }
    var lines = ["usage: \(spec.usage)", "", spec.summary]
    if typed != spec.name { lines.append("(also typed as \(typed))") }
    if !spec.details.isEmpty { lines += ["", spec.details] }
    if !spec.arguments.isEmpty {
      lines += ["", "arguments:"]
      lines += spec.arguments.map { "  " + $0.usage.padded(to: 20) + $0.help }
    }
    return lines.joined(separator: "\n")
  }
}

extension String {
  func padded(to width: Int) -> String {
    count >= width ? self + " " : self + String(repeating: " ", count: width - count)
  }
}
