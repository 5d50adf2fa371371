import WorkbenchModuleAPI

/// Help for commands, as a value made from the modules' registration: what `help` prints in a
/// window, and what an editor shows when the cursor is on a command, with no session needed.
@MainActor
public struct CommandHelp {
  let registry: ModuleRegistry

  /// Help from the commands `registry` holds.
  public init(registry: ModuleRegistry) { self.registry = registry }

  /// `help` with no name, for a window showing `screen`: the host's and the shell's commands,
  /// then the window's module's, and the other modules by name (`help MODULE` lists theirs).
  /// With no window open (`nil`), every module's commands.
  package func overview(screen: ScreenKind?) -> String {
    var lines = ["Host commands:"]
    lines += HostCommands.all.flatMap { Self.helpRow($0.usage, $0.summary) }
    if !registry.frontEndCommands.isEmpty {
      lines += ["", "Shell commands:"]
      lines += registry.frontEndCommands.flatMap { Self.helpRow($0.usage, $0.summary) }
    }
    var others: [String] = []
    for manifest in registry.manifests where !(registry.moduleCommands[manifest.name] ?? [:]).isEmpty {
      if let screen, screen.module != manifest.name {
        others.append(manifest.name)
        continue
      }
      lines.append("")
      lines += moduleListing(manifest.name, here: screen != nil)
    }
    lines.append("")
    if !others.isEmpty {
      lines.append(
        "The commands of \(others.joined(separator: ", ")) run in their windows: `help MODULE` lists them.")
    }
    lines.append("Put @WINDOW in front of a command to run it in another window. `help COMMAND` for more.")
    return lines.joined(separator: "\n")
  }

  /// A module's commands under their heading (`help catalog`).
  private func moduleListing(_ module: String, here: Bool) -> [String] {
    let commands = (registry.moduleCommands[module] ?? [:]).values.sorted { $0.name < $1.name }
    return ["\(module) commands\(here ? " (in this window)" : ""), also typed as \(module).NAME:"]
      + commands.flatMap { Self.helpRow($0.usage, $0.summary) }
  }

  /// `help NAME` in `window` (its label and the screen it shows; `nil`: no window is open): the
  /// usage, summary, details, arguments and subcommands, and where it runs when not here.
  public func text(for name: String, in window: (label: String, screen: String)?) throws(CommandError) -> String {
    let spec: CommandSpec
    let typed: String
    var note: String?
    let route = registry.router.route(name, screen: window?.screen)
    // A module's name (that no command has) lists the module's commands.
    if case .failure(.unknown) = route, registry.moduleCommands[name]?.isEmpty == false {
      return moduleListing(name, here: false).joined(separator: "\n")
    }
    switch route {
    case .success(let route):
      spec = route.spec
      typed = route.module.map { "\($0).\(route.spec.name)" } ?? name
    case .failure(.otherModules(let name, let owners)):
      // Help explains a command wherever it is asked for, and says where it runs.
      guard let found = registry.moduleCommands[owners[0]]?[name] else {
        throw CommandError("no command '\(name)'")
      }
      spec = found
      typed = "\(owners[0]).\(name)"
      let here = window.map { "window \($0.label) shows \($0.screen)" } ?? "no window is open"
      note =
        "(a command of \(owners.joined(separator: ", ")), and \(here): run it in such a window, or as "
        + owners.map { "\($0).\(name)" }.joined(separator: " or ") + ")"
    case .failure(.unknown(let name, let suggestion)):
      throw CommandError("no command '\(name)'" + Suggestions.sentence(for: suggestion))
    case .failure(let refusal):
      throw CommandError(refusal.message(place: ""))
    }
    var lines = ["usage: \(spec.usage)", "", spec.summary]
    if let note {
      lines.append(note)
    } else if typed != spec.name {
      lines.append("(also typed as \(typed))")
    }
    if !spec.details.isEmpty { lines += ["", spec.details] }
    if !spec.arguments.isEmpty {
      lines += ["", "arguments:"]
      lines += spec.arguments.map { "  " + $0.usage.padded(to: 20) + $0.help }
    }
    if !spec.subcommands.isEmpty {
      lines += ["", "subcommands:"]
      for sub in spec.subcommands {
        lines += Self.helpRow("\(spec.name) \(sub.usage)", sub.summary)
        lines += sub.arguments.filter { !$0.help.isEmpty }.map { "      " + $0.usage.padded(to: 16) + $0.help }
      }
    }
    return lines.joined(separator: "\n")
  }
}

extension CommandHelp {
  /// The width of the usage column of help listings.
  static let usageColumn = 34

  /// A help row: the usage, then the summary in its column; a usage too long for the column
  /// has the line to itself and the summary goes under it, in the column, so the summaries stay
  /// aligned.
  static func helpRow(_ usage: String, _ summary: String) -> [String] {
    guard usage.count >= usageColumn - 1 else { return ["  " + usage.padded(to: usageColumn) + summary] }
    return ["  " + usage, "  " + String(repeating: " ", count: usageColumn) + summary]
  }
}

extension String {
  func padded(to width: Int) -> String {
    count >= width ? self + " " : self + String(repeating: " ", count: width - count)
  }
}
