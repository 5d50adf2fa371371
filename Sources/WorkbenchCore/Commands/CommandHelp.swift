import WorkbenchModuleAPI

/// Help for commands, as a value made from the modules' registration: what `help` prints in a
/// window, and what an editor shows when the cursor is on a command, with no session needed.
@MainActor
public struct CommandHelp {
  let registry: ModuleRegistry

  /// Help from the commands `registry` holds.
  public init(registry: ModuleRegistry) { self.registry = registry }

  /// Every command, the host's first, then each module's (`help` with no name), for a window
  /// showing `screen` (`nil`: none is open).
  package func overview(screen: ScreenKind?) -> String {
    var lines = ["Host commands:"]
    lines += HostCommands.all.flatMap { Self.helpRow($0.usage, $0.summary) }
    if !registry.frontEndCommands.isEmpty {
      lines += ["", "Shell commands:"]
      lines += registry.frontEndCommands.flatMap { Self.helpRow($0.usage, $0.summary) }
    }
    for manifest in registry.manifests {
      let commands = (registry.moduleCommands[manifest.name] ?? [:]).values.sorted { $0.name < $1.name }
      guard !commands.isEmpty else { continue }
      let here = screen?.module == manifest.name ? " (in this window)" : ""
      lines.append("")
      lines.append("\(manifest.name) commands\(here), also typed as \(manifest.name).NAME:")
      lines += commands.flatMap { Self.helpRow($0.usage, $0.summary) }
    }
    lines.append("")
    lines.append("Put @WINDOW in front of a command to run it in another window. `help COMMAND` for more.")
    return lines.joined(separator: "\n")
  }

  /// `help NAME` in `window` (its label and the screen it shows; `nil`: no window is open): the
  /// usage, summary, details, arguments and subcommands, and where it runs when not here.
  public func text(for name: String, in window: (label: String, screen: String)?) throws(CommandError) -> String {
    let spec: CommandSpec
    let typed: String
    var note: String?
    switch registry.router.route(name, screen: window?.screen) {
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
