import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI

/// How the shell was asked to run, parsed from the command line.
public struct ShellOptions: Equatable, Sendable {
  /// Commands given with `-c`, run instead of reading standard input.
  public var commands: String?
  /// Echo each command before its output when reading from a pipe.
  public var echo = false
  /// Go on after an error when reading from a pipe (the exit code still reports it).
  public var keepGoing = false
  /// Print frames as JSON lines.
  public var json = false
  /// How lists print (`--output`): text, json, csv or table.
  public var output: String?
  /// Print only what commands are run for (`frame`, `state`, `show`, lists, help) and errors,
  /// not the frame every command shows after acting.
  public var quiet = false
  /// Colour: decided from the terminal and `NO_COLOR` unless forced off.
  public var colorAllowed = true
  /// Rows a list shows at once.
  public var viewportRows = 20
  /// The workspace file; `nil` for the default one, `:memory:` for none on disk.
  public var workspace: String?
  /// Modules to run as processes, besides the workspace's list.
  public var modulePaths: [String] = []
  /// Start a module again when its executable changes, reopening its windows.
  public var watch = false

  /// The defaults.
  public init() {}

  /// The shell's options, declared once: the parser and `--help` are made from these.
  public static let all: [ProgramOption<ShellOptions>] = [
    .value(["-c", "--command"], "CMDS", help: "run these commands (separated by ;) instead of reading input") {
      $0.commands = $1
    },
    .flag(["--echo"], help: "echo each command before its output (pipes and -c)") { $0.echo = true },
    .flag(["--keep-going"], help: "go on after an error (pipes and -c); the exit code still says it failed") {
      $0.keepGoing = true
    },
    .flag(["--json"], help: "print frames as JSON lines") { $0.json = true },
    .value(["--output"], "MODE", help: "print lists (documents, windows, modules) as text, json, csv or table") {
      options, mode throws(ProgramUsageError) in
      guard ["text", "json", "csv", "table"].contains(mode) else {
        throw ProgramUsageError("--output is text, json, csv or table, not '\(mode)'")
      }
      options.output = mode
      if mode == "json" { options.json = true }
    },
    .flag(["-q", "--quiet"], help: "print only what was asked for (frame, state, show, lists) and errors") {
      $0.quiet = true
    },
    .flag(["--no-color"], help: "no colour (also when NO_COLOR is set or output is not a terminal)") {
      $0.colorAllowed = false
    },
    .value(["--rows"], "N", help: "rows a list shows at once (default 20)") {
      options, value throws(ProgramUsageError) in
      guard let rows = Int(value), rows > 0 else { throw ProgramUsageError("--rows needs a positive number") }
      options.viewportRows = rows
    },
    .modules(\.modulePaths),
    .flag(
      ["--watch"], help: "with --module, in the shell: start a module again when it is rebuilt, reopening its windows"
    ) {
      $0.watch = true
    },
    .workspace(\.workspace, help: "the workspace file (default: under $XDG_DATA_HOME/workbench; :memory: keeps none)"),
  ]

  /// The options of `workbench run FILE:LINE --shell` that are the shell's (how it prints and
  /// reads: `--rows`, `--json`, `-q`, `-c`, `--keep-going`...), taken out of `words` with their
  /// values; the rest stays for `run` (the file, `-m`, `--without-builtin`). `-w` is refused
  /// there: the session is the scenario's, in memory.
  public static func separating(_ words: [String]) -> (shell: [String], rest: [String]) {
    let moved = all.filter { !Set(ProgramOption<ShellOptions>.moduleNames).isSuperset(of: $0.names) }
    var shell: [String] = []
    var rest: [String] = []
    var index = 0
    while index < words.count {
      let word = words[index]
      if let option = moved.first(where: { $0.names.contains(word) }) {
        let taken = option.value == nil ? 1 : 2
        shell += words[index..<min(words.count, index + taken)]
        index += taken
      } else {
        rest.append(word)
        index += 1
      }
    }
    return (shell, rest)
  }

  /// Parses the shell's options (everything after the program name).
  ///
  /// - Throws: `ProgramUsageError` for an unknown option, a missing value or a stray word.
  public static func parse(_ arguments: [String]) throws(ProgramUsageError) -> ShellOptions {
    var options = ShellOptions()
    let operands = try ProgramOptionParser.parse(arguments, options: all, into: &options)
    if let word = operands.first {
      throw ProgramUsageError("'\(word)' is neither a subcommand of workbench nor an option")
    }
    return options
  }
}
