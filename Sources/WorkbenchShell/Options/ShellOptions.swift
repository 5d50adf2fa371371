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
  /// Colour: decided from the terminal and `NO_COLOR` unless forced off.
  public var colorAllowed = true
  /// Rows a list shows at once.
  public var viewportRows = 20
  /// The workspace file; `nil` for the default one, `:memory:` for none on disk.
  public var workspace: String?
  /// Modules to run as processes, besides the workspace's list.
  public var modulePaths: [String] = []

  /// The defaults.
  public init() {}

  /// Parses the shell's options (everything after the program name).
  ///
  /// - Throws: `ShellUsageError` for an unknown option or a missing value.
  public static func parse(_ arguments: [String]) throws(ShellUsageError) -> ShellOptions {
    var options = ShellOptions()
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
      switch argument {
      case "-c", "--command":
        guard let value = iterator.next() else { throw ShellUsageError("\(argument) needs the commands to run") }
        options.commands = value
      case "--echo": options.echo = true
      case "--keep-going": options.keepGoing = true
      case "--json": options.json = true
      case "--no-color": options.colorAllowed = false
      case "--module", "-m":
        guard let value = iterator.next(), !value.isEmpty else { throw ShellUsageError("--module needs an executable") }
        options.modulePaths.append(value)
      case "--workspace", "-w":
        guard let value = iterator.next(), !value.isEmpty else { throw ShellUsageError("--workspace needs a file") }
        options.workspace = value
      case "--rows":
        guard let value = iterator.next(), let rows = Int(value), rows > 0 else {
          throw ShellUsageError("--rows needs a positive number")
        }
        options.viewportRows = rows
      default:
        let known = [
          "-c", "--command", "--echo", "--keep-going", "--json", "--no-color", "--rows", "--help", "--version",
        ]
        let hint = known.min { editCost(argument, $0) < editCost(argument, $1) }.map { ". Did you mean \($0)?" } ?? ""
        throw ShellUsageError("unknown option '\(argument)'\(hint)")
      }
    }
    return options
  }

  private static func editCost(_ a: String, _ b: String) -> Int {
    let common = zip(a, b).prefix { $0 == $1 }.count
    return max(a.count, b.count) - common
  }

  /// The text of `workbench --help`.
  public static let helpText = """
    workbench: a plugin-based editing workbench with a scripting front end

    usage:
      workbench [options]            open the shell (reads commands from a pipe when stdin is not a terminal)
      workbench -c "CMD; CMD"        run commands and exit
      workbench run PATH... [opts]   run scenario files like a test suite (`workbench run --help`)
      workbench check PATH...        check scenario files without running them
      workbench export DOC FILE      write a document of the workspace to a JSON file
      workbench import FILE          read a document from a JSON file into the workspace
      workbench modules add|remove|list [PATH]   the modules every start loads (workspace setting)
      workbench new-module NAME [--path DIR]     create a package for a new module
      workbench reference            print the command reference (docs/commands.md)
      workbench --help | --version

    options:
      -c, --command CMDS   run these commands (separated by ;) instead of reading input
      --echo               echo each command before its output (pipes and -c)
      --keep-going         go on after an error (pipes and -c); the exit code still says it failed
      --json               print frames as JSON lines
      --no-color           no colour (also when NO_COLOR is set or output is not a terminal)
      --rows N             rows a list shows at once (default 20)
      -m, --module PATH    also load the module built as the executable PATH (repeatable)
      -w, --workspace FILE the workspace database (default: $XDG_DATA_HOME/workbench/workspace.sqlite;
                           :memory: keeps nothing)

    The shell restores the windows of the last session and saves them when it ends; from a pipe
    or with -c it starts without windows and saves only document edits. In the shell, type
    `help` for the commands. Exit codes: 0 success, 1 a command failed, 2 wrong usage.
    """
}

/// A mistake in how the program was invoked; exits with code 2.
public struct ShellUsageError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What is wrong.
  public let message: String
  init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// The exit codes the program uses.
public enum ExitCode {
  /// Everything worked.
  public static let success: Int32 = 0
  /// A command failed.
  public static let failure: Int32 = 1
  /// The program was invoked wrongly.
  public static let usage: Int32 = 2
}
