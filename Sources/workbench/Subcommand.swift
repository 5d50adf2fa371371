import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI

/// One subcommand of the program, declared once: its name, synopsis and summary, its options
/// (from the same table its parser reads), what more its `--help` says, and what it does. The
/// dispatch in main.swift, `--help`, the man page and the completion scripts are all made from
/// these declarations (`Subcommands.all`), so none of them can name an option another lacks.
@MainActor struct Subcommand {
  var name: String
  var synopsis: String
  var summary: String
  /// What `--help` says after the summary: what the operands are, its exit codes.
  var details: String
  /// Its options, made when asked for: dispatch reads only the names, and a start should not
  /// pay for every subcommand's option table.
  private var makeOptions: @MainActor () -> [Interface.Option]
  /// Every option it takes: its own table's, and `--without-builtin` where it loads the built-in
  /// modules (read before dispatch, so no table of its own holds it).
  var options: [Interface.Option] { makeOptions() + (loadsBuiltIns ? [Interface.withoutBuiltIn] : []) }
  /// Whether it loads the built-in modules, so `--without-builtin` means something to it (one that
  /// does not refuses the option).
  var loadsBuiltIns: Bool
  /// Whether its operands are scenario files (completion offers YAML files and folders).
  var takesScenarioFiles: Bool
  /// Runs it with the words after its name (`--help` is answered before).
  var run: @MainActor (Invocation) -> ExitCode

  init(
    _ name: String, synopsis: String, summary: String, details: String = "",
    options: @autoclosure @escaping @MainActor () -> [Interface.Option], takesScenarioFiles: Bool = false,
    loadsBuiltIns: Bool = true, run: @escaping @MainActor (Invocation) -> ExitCode
  ) {
    self.loadsBuiltIns = loadsBuiltIns
    self.name = name
    self.synopsis = synopsis
    self.summary = summary
    self.details = details
    self.makeOptions = options
    self.takesScenarioFiles = takesScenarioFiles
    self.run = run
  }

  /// `workbench NAME --help`: the usage, the summary, the details and every option.
  var help: String {
    let options = self.options + Interface.helpOptions
    let width = (options.map { Interface.synopsis(of: $0).count }.max() ?? 0) + 3
    let lines = options.map { "  " + Interface.synopsis(of: $0).padded(to: width) + $0.help }
    let more = details.isEmpty ? "" : details + "\n\n"
    return "usage: workbench \(synopsis)\n\n\(summary).\n\n\(more)options:\n" + lines.joined(separator: "\n") + "\n"
  }
}

extension String {
  func padded(to width: Int) -> String {
    count >= width ? self + " " : self + String(repeating: " ", count: width - count)
  }
}
