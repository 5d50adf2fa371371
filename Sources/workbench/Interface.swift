import BuiltInModules
import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarios
import WorkbenchShell

/// The program's command-line interface as data, from the same option tables `--help` prints:
/// shell completion scripts (`workbench completions bash|zsh|fish`) and the man page
/// (`workbench man`) are generated from it, so they cannot drift from the parser.
@MainActor
enum Interface {
  struct Option {
    var names: [String]
    var value: String?
    var help: String
  }

  /// The options of a parser's table that a user is meant to type: those without help are the
  /// program's own (a worker's `--file-queue`), never offered or listed.
  static func options<Target>(_ table: [ProgramOption<Target>]) -> [Option] {
    table.compactMap { option in option.help.map { Option(names: option.names, value: option.value, help: $0) } }
  }

  /// `--without-builtin NAME`, which the program reads before anything else.
  static let withoutBuiltIn = Option(
    names: ["--without-builtin"], value: "NAME",
    help: "leave out a built-in module (or all), so a module process of that name can stand in for it")

  static var shellOptions: [Option] {
    options(ShellOptions.all) + [
      withoutBuiltIn,
      Option(names: ["-h", "--help"], value: nil, help: "print this help"),
      Option(names: ["--version"], value: nil, help: "print the version"),
    ]
  }

  static var subcommands: [Subcommand] { Subcommands.all }

  static let helpOptions = [Option(names: ["-h", "--help"], value: nil, help: "print this subcommand's help")]

  /// Words a subcommand's operands are chosen from, where they are a fixed set: the shells of
  /// `completions`, the diagrams of `diagram` (the built-in modules'), the actions of `modules`.
  @MainActor static var operandWords: [String: [String]] {
    var words: [String: [String]] = ["completions": ["bash", "zsh", "fish"], "modules": ["list", "add", "remove"]]
    if let registry = try? ModuleRegistry(modules: builtInModules) {
      words["diagram"] = registry.diagramNames.map(\.name)
    }
    return words
  }

  /// `workbench --help`: the shell's usage and options, and every subcommand from the table.
  static var helpText: String {
    let width = (subcommands.map(\.name.count).max() ?? 0) + 3
    let lines = subcommands.map { "  " + $0.name.padded(to: width) + $0.summary }
    return """
      workbench: a plugin-based editing workbench with a scripting front end

      usage:
        workbench [options]            open the shell (reads commands from a pipe when stdin is not a terminal)
        workbench -c "CMD; CMD"        run commands and exit
        workbench --help | --version

      subcommands (`workbench SUBCOMMAND --help` for its usage and options):
      \(lines.joined(separator: "\n"))

      options:
      \(ProgramOptionParser.help(ShellOptions.all))
        --without-builtin NAME
                             leave out a built-in module (or all), so a module process of
                             that name can stand in for it; any subcommand takes it too
        -h, --help           print this help
        --version            print the version

      The shell restores the windows of the last session and saves them as it goes; from a pipe
      or with -c it starts without windows and saves only document edits. In the shell, type
      `help` for the commands. Exit codes: 0 success, 1 a command failed, 2 wrong usage.
      """
  }

  static func synopsis(of option: Option) -> String {
    option.names.joined(separator: ", ") + (option.value.map { " " + $0 } ?? "")
  }

  /// Option names that take a file or folder value.
  static let fileValues: Set = ["FILE", "PATH", "DIR"]

  // MARK: Completion scripts

  static func completions(for shell: String) -> String? {
    switch shell {
    case "bash": bash()
    case "zsh": zsh()
    case "fish": fish()
    default: nil
    }
  }

  static func words(_ options: [Option]) -> String { options.flatMap(\.names).joined(separator: " ") }

  static func bash() -> String {
    let all = shellOptions + subcommands.flatMap(\.options)
    let fileOptions = all.filter { $0.value.map(fileValues.contains) ?? false }.flatMap(\.names)
    let valueOptions = all.filter { $0.value != nil && !fileValues.contains($0.value!) }.flatMap(\.names)
    var cases = ""
    for subcommand in subcommands {
      let operands: String
      if subcommand.takesScenarioFiles {
        operands =
          #"COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.yaml' -- "$cur") $(compgen -f -X '!*.yml' -- "$cur"))"#
      } else if let words = operandWords[subcommand.name] {
        operands = "COMPREPLY=($(compgen -W \"\(words.joined(separator: " "))\" -- \"$cur\"))"
      } else {
        operands = #"COMPREPLY=($(compgen -f -- "$cur"))"#
      }
      cases += """
              \(subcommand.name))
                if [[ $cur == -* ]]; then
                  COMPREPLY=($(compgen -W "\(words(subcommand.options + helpOptions))" -- "$cur"))
                else
                  \(operands)
                fi ;;

        """
    }
    return """
      # bash completion for workbench (written by `workbench completions bash`)
      _workbench() {
        local cur prev sub i
        cur="${COMP_WORDS[COMP_CWORD]}"
        prev="${COMP_WORDS[COMP_CWORD-1]}"
        case "$prev" in
          \(fileOptions.joined(separator: "|"))) COMPREPLY=($(compgen -f -- "$cur")); return ;;
          \(valueOptions.joined(separator: "|"))) COMPREPLY=(); return ;;
        esac
        sub=""
        for ((i = 1; i < COMP_CWORD; i++)); do
          case "${COMP_WORDS[i]}" in
            \(subcommands.map(\.name).joined(separator: "|"))) sub="${COMP_WORDS[i]}"; break ;;
          esac
        done
        case "$sub" in
      \(cases)      *)
            if [[ $cur == -* ]]; then
              COMPREPLY=($(compgen -W "\(words(shellOptions))" -- "$cur"))
            else
              COMPREPLY=($(compgen -W "\(subcommands.map(\.name).joined(separator: " "))" -- "$cur"))
            fi ;;
        esac
      }
      complete -o filenames -F _workbench workbench

      """
  }

  static func zshQuote(_ text: String) -> String {
    text.replacing("'", with: "'\\''").replacing("[", with: "\\[").replacing("]", with: "\\]").replacing(
      ":", with: "\\:")
  }

  static func zshSpecs(_ options: [Option]) -> [String] {
    options.flatMap { option in
      option.names.map { name in
        let value =
          option.value.map { value in
            fileValues.contains(value) ? ":\(value.lowercased()):_files" : ":\(value.lowercased()):"
          }
          ?? ""
        return "'\(name)[\(zshQuote(option.help))]\(value)'"
      }
    }
  }

  static func zsh() -> String {
    var cases = ""
    for subcommand in subcommands {
      let operands = subcommand.takesScenarioFiles ? "'*:scenario file:_files -g \"*.y(a|)ml(-.)\"'" : "'*:file:_files'"
      let specs = zshSpecs(subcommand.options) + [operands]
      cases += "    (\(subcommand.name)) _arguments \\\n      " + specs.joined(separator: " \\\n      ") + " ;;\n"
    }
    let commands = subcommands.map { "'\($0.name):\(zshQuote($0.summary))'" }.joined(separator: " ")
    return """
      #compdef workbench
      # zsh completion for workbench (written by `workbench completions zsh`)
      _workbench() {
        local -a subcommands
        subcommands=(\(commands))
        if (( CURRENT == 2 )) && [[ ${words[2]} != -* ]]; then
          _describe 'subcommand' subcommands
          _arguments \(zshSpecs(shellOptions).joined(separator: " "))
          return
        fi
        case ${words[2]} in
      \(cases)    (*) _arguments \(zshSpecs(shellOptions).joined(separator: " ")) ;;
        esac
      }
      _workbench "$@"

      """
  }

  static func fishQuote(_ text: String) -> String {
    "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
  }

  static func fish() -> String {
    var lines = [
      "# fish completion for workbench (written by `workbench completions fish`)",
      "set -l subcommands \(subcommands.map(\.name).joined(separator: " "))",
      "complete -c workbench -f",
    ]
    for subcommand in subcommands {
      lines.append(
        "complete -c workbench -n \"not __fish_seen_subcommand_from $subcommands\" -a \(subcommand.name) -d \(fishQuote(subcommand.summary))"
      )
    }
    func line(_ option: Option, condition: String) -> String {
      var parts = ["complete -c workbench", "-n \(condition)"]
      for name in option.names {
        parts.append(name.hasPrefix("--") ? "-l \(name.dropFirst(2))" : "-s \(name.dropFirst())")
      }
      if let value = option.value { parts.append(fileValues.contains(value) ? "-r -F" : "-r") }
      parts.append("-d \(fishQuote(option.help))")
      return parts.joined(separator: " ")
    }
    for option in shellOptions {
      lines.append(line(option, condition: "\"not __fish_seen_subcommand_from $subcommands\""))
    }
    for subcommand in subcommands {
      for option in subcommand.options {
        lines.append(line(option, condition: "\"__fish_seen_subcommand_from \(subcommand.name)\""))
      }
      if subcommand.takesScenarioFiles {
        lines.append("complete -c workbench -n \"__fish_seen_subcommand_from \(subcommand.name)\" -F")
      }
    }
    lines.append("complete -c workbench -n \"__fish_seen_subcommand_from completions\" -a 'bash zsh fish'")
    return lines.joined(separator: "\n") + "\n"
  }

  // MARK: The manual page

  /// Text made safe for roff: backslashes and hyphens escaped, no line starting with a dot.
  static func roff(_ text: String) -> String {
    var escaped = text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
    if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
    return escaped
  }

  static func manOptions(_ options: [Option]) -> [String] {
    options.flatMap { option in
      let names = option.names.map { "\\fB\(roff($0))\\fR" }.joined(separator: ", ")
      let value = option.value.map { " \\fI\(roff($0))\\fR" } ?? ""
      return [".TP", names + value, roff(option.help)]
    }
  }

  static func manPage(version: String) -> String {
    var lines = [
      ".TH WORKBENCH 1 \"\" \"workbench \(version)\" \"User Commands\"",
      ".SH NAME",
      "workbench \\- a plugin\\-based editing workbench with a scripting front end",
      ".SH SYNOPSIS",
      ".B workbench",
      "[\\fIOPTIONS\\fR]",
    ]
    for subcommand in subcommands {
      lines += [".br", ".B workbench", roff(subcommand.synopsis)]
    }
    lines += [
      ".SH DESCRIPTION",
      "Without a subcommand, \\fBworkbench\\fR opens a shell on the workspace: feature modules register",
      "commands, windows show documents, and each command shows the frame of the window it ran in.",
      "On a terminal the shell has a prompt, history and completion; from a pipe or with \\fB\\-c\\fR it",
      "runs the lines it is given. Type \\fBhelp\\fR in the shell for its commands.",
      ".SH OPTIONS",
    ]
    lines += manOptions(shellOptions)
    lines.append(".SH SUBCOMMANDS")
    for subcommand in subcommands {
      lines += [".TP", "\\fBworkbench \(roff(subcommand.synopsis))\\fR", roff(subcommand.summary) + "."]
      if !subcommand.options.isEmpty {
        lines += [".RS"] + manOptions(subcommand.options) + [".RE"]
      }
    }
    lines += [
      ".SH \"EXIT STATUS\"",
      "The shell: 0 when every line ran, 1 when a line failed, 2 for usage errors.",
      "\\fBworkbench run\\fR: 0 when everything passed, 1 when a scenario failed, 2 for usage errors and",
      "files that could not be loaded, 5 when no scenario ran.",
      ".SH FILES",
      ".TP",
      "\\fI$XDG_DATA_HOME/workbench/workspace.sqlite\\fR",
      "The default workspace (\\fI~/.local/share/workbench/workspace.sqlite\\fR).",
      ".TP",
      "\\fI$XDG_STATE_HOME/workbench/history\\fR",
      "The shell's history (\\fI~/.local/state/workbench/history\\fR).",
      ".SH \"SEE ALSO\"",
      "The documentation in the source tree: docs/shell.md, docs/scenarios.md, docs/writing\\-a\\-module.md.",
    ]
    return lines.joined(separator: "\n") + "\n"
  }
}
