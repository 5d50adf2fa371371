import WorkbenchModuleAPI

/// The command reference in Markdown, generated from the specs (docs/commands.md).
public enum CommandReference {
  /// The reference for every command the host and its modules register.
  @MainActor public static func markdown(for host: Host) -> String {
    var lines = [
      "# Command reference",
      "",
      "Generated from the command specs by `workbench reference`; a test fails when this",
      "file and the specs disagree. Module commands run in a window of their module; from",
      "anywhere else type them as `module.command` or put `@WINDOW` in front.",
      "",
      "## Host commands",
      "",
    ]
    for spec in HostCommands.all { lines += section(spec, typed: spec.name) }
    if !host.registry.frontEndCommands.isEmpty {
      lines += [
        "## Shell commands", "", "The shell's own: a scenario that uses one is refused when it is checked.", "",
      ]
      for spec in host.registry.frontEndCommands { lines += section(spec, typed: spec.name) }
    }
    for manifest in host.manifests {
      lines += ["## \(manifest.name) \(manifest.version)", "", manifest.summary + ".", ""]
      let commands = host.allCommands.filter { $0.name.hasPrefix(manifest.name + ".") }
      for command in commands { lines += section(command.spec, typed: command.name) }
    }
    while lines.last == "" { lines.removeLast() }
    return lines.joined(separator: "\n") + "\n"
  }

  private static func section(_ spec: CommandSpec, typed: String) -> [String] {
    var lines = ["### `\(typed)`", "", "    \(spec.usage)", "", spec.summary + "."]
    if !spec.details.isEmpty { lines += ["", spec.details] }
    lines += argumentLines(spec.arguments, indent: "")
    if !spec.subcommands.isEmpty {
      lines += [""]
      for sub in spec.subcommands {
        lines.append("- `\(typed) \(sub.usage)`: \(sub.summary)")
        lines += argumentLines(sub.arguments, indent: "  ").dropFirst()
      }
    }
    lines.append("")
    return lines
  }

  private static func argumentLines(_ arguments: [ArgumentSpec], indent: String) -> [String] {
    guard !arguments.isEmpty else { return [] }
    return [""]
      + arguments.map { argument in
        let optional = argument.isOptional ? " (optional)" : ""
        return indent
          + "- `\(argument.usage)`\(optional): \(argument.help.isEmpty ? kindText(argument.kind) : argument.help)"
      }
  }

  private static func kindText(_ kind: ArgumentKind) -> String {
    switch kind {
    case .integer: return "a whole number"
    case .word: return "a word"
    case .rest: return "the rest of the line"
    case .choice(let words): return "one of " + words.joined(separator: ", ")
    case .window: return "a window"
    case .windowOr(let words): return "a window, or one of " + words.joined(separator: ", ")
    case .document: return "a document"
    case .screen: return "a screen"
    case .reference(let source): return "the id of a \(source.noun)"
    case .duration: return "a length of time with its unit: 300ms, 2s, 1.5s, 1m"
    case .file: return "a file name"
    case .command: return "a command name"
    }
  }
}
