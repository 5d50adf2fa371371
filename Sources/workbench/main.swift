// The composition root: which modules, which front end. Option parsing comes first and the
// fast paths (--version, --help) return before any module or host is built.
import BuiltInModules
import WorkbenchCore
import WorkbenchExternalModules
import WorkbenchModuleProtocol
import WorkbenchScenarios
import WorkbenchShell
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// A module process or a reader of our output that goes away must not end the program: writes
// to it fail with EPIPE instead, and each writer handles that (a module is stopped, output ends).
signal(SIGPIPE, SIG_IGN)

/// `--without-builtin NAME` (repeatable, or `all`), anywhere on the line: those built-in
/// modules are left out, so an external module of the same name stands in for one (the ports
/// the protocol 2 tests run). `run` is given the names back, for its workers.
func leavingOutBuiltIns(_ words: [String]) -> (modules: [any FeatureModule], names: [String], rest: [String]) {
  var rest: [String] = []
  var names: [String] = []
  var index = 0
  while index < words.count {
    guard words[index] == "--without-builtin" else {
      rest.append(words[index])
      index += 1
      continue
    }
    guard index + 1 < words.count else {
      StandardStreams.error("workbench: --without-builtin needs a module's name (or all)\n")
      exit(ExitCode.usage)
    }
    names.append(words[index + 1])
    index += 2
  }
  let known = builtInModules.map(\.manifest.name)
  for name in names where name != "all" && !known.contains(name) {
    StandardStreams.error(
      "workbench: --without-builtin \(name): no built-in module '\(name)'\(Suggestions.didYouMean(name, in: known)) "
        + "(built in: \(known.joined(separator: ", ")), or all)\n")
    exit(ExitCode.usage)
  }
  return (names.contains("all") ? [] : builtInModules.filter { !names.contains($0.manifest.name) }, names, rest)
}

let (chosenBuiltIns, builtInsLeftOut, arguments) = leavingOutBuiltIns(Array(CommandLine.arguments.dropFirst()))

if arguments.contains("--version") {
  print("workbench \(WorkbenchVersion.current)")
  exit(ExitCode.success)
}

/// The workbench package's folder, as this binary was built from (new modules depend on it).
func workbenchSourceRoot(file: String = #filePath) -> String {
  var parts = file.split(separator: "/", omittingEmptySubsequences: false)
  parts.removeLast(3)  // Sources/workbench/main.swift
  return parts.joined(separator: "/")
}

/// The modules a subcommand's `-m PATH` options name (declared once, for `check` and
/// `reference`; `run` has them among its own options).
struct ModulePaths {
  var paths: [String] = []
  static let options: [ProgramOption<ModulePaths>] = [.modules(\.paths)]

  /// The paths `-m PATH` names, and every other word as it was, options included: for a
  /// subcommand that parses its own options (`report --html FILE`).
  static func extract(_ arguments: [String], command: String) -> (paths: [String], rest: [String]) {
    var paths: [String] = []
    var rest: [String] = []
    var index = 0
    while index < arguments.count {
      let word = arguments[index]
      if ProgramOption<ModulePaths>.moduleNames.contains(word) {
        guard index + 1 < arguments.count, !arguments[index + 1].isEmpty else {
          StandardStreams.error("workbench \(command): \(word) needs PATH\n")
          exit(ExitCode.usage)
        }
        paths.append(arguments[index + 1])
        index += 2
      } else {
        rest.append(word)
        index += 1
      }
    }
    return (paths, rest)
  }

  /// The paths and the other words of `arguments`; a usage error ends the program.
  static func parse(_ arguments: [String], command: String) -> (paths: [String], operands: [String]) {
    var parsed = ModulePaths()
    let operands = parseOptions(arguments, options, into: &parsed, command: command)
    return (parsed.paths, operands)
  }
}

/// The operands of a subcommand's `arguments`, its options applied to `target`. A usage error
/// (an unknown option, a missing value, an operand where it takes none) ends the program.
func parseOptions<Target>(
  _ arguments: [String], _ options: [ProgramOption<Target>], into target: inout Target, command: String,
  operands allowed: Bool = true
) -> [String] {
  do throws(ProgramUsageError) {
    let operands = try ProgramOptionParser.parse(arguments, options: options, into: &target)
    if !allowed, let operand = operands.first {
      throw ProgramUsageError("\(command) takes no operands ('\(operand)')")
    }
    return operands
  } catch {
    StandardStreams.error("workbench \(command): \(error.message)\n")
    exit(ExitCode.usage)
  }
}

/// `workbench reference`'s options: the modules whose commands to list (`-m PATH`), or the
/// protocol's JSON Schema instead (`--protocol-schema`, what docs/protocol.schema.json holds).
struct ReferenceOptions {
  var paths: [String] = []
  var protocolSchema = false
  static let options: [ProgramOption<ReferenceOptions>] = [
    .modules(\.paths),
    .flag(
      ["--protocol-schema"],
      help: "print the JSON Schema of the module protocol's messages instead (docs/protocol.schema.json)"
    ) { $0.protocolSchema = true },
  ]
}

/// `workbench lsp`'s options: the modules to load besides the workspace's (`-m PATH`), and the
/// workspace whose modules to load (`-w FILE`; the default workspace without it).
struct LanguageServerOptions {
  var paths: [String] = []
  var workspace: String?
  /// A worker of the server's: one run, its request on standard input (the server starts it).
  var runWorker = false
  static let options: [ProgramOption<LanguageServerOptions>] = [
    .modules(\.paths),
    .value(
      ["-w", "--workspace"], "FILE", help: "load the modules this workspace loads (default: the default workspace's)"
    ) {
      $0.workspace = $1
    },
    .flag(["--run-worker"], help: nil) { $0.runWorker = true },
  ]
}

/// Runs `body` with the built-in modules and the external ones at `paths`, ends the external
/// modules' processes, and exits with what `body` returned. A module that does not start ends
/// the program with a usage error.
@MainActor func exitRunning(withModules paths: [String], _ body: ([any FeatureModule]) -> Int32) -> Never {
  let external = ExternalModules.load(paths)
  for problem in external.errors { StandardStreams.error("error: \(problem)\n") }
  if !external.errors.isEmpty {
    ExternalModules.shutdown(external.modules)
    exit(ExitCode.usage)
  }
  let modules = chosenBuiltIns + external.modules
  let status = body(modules)
  ExternalModules.shutdown(modules)
  exit(status)
}

/// The program's subcommand and its arguments. Options given before the subcommand's name go
/// with it, so `workbench -w FILE export DOC OUT` is `export` with `-w FILE`.
@MainActor func subcommand(of arguments: [String]) -> (name: String, rest: [String])? {
  let names = Set(Interface.subcommands.map(\.name))
  // The workspace and the modules mean the same to every subcommand; the shell's other options
  // do not (`--json` names a report file for `run`), so those must follow the name.
  let shared = Set(["-w", "--workspace"] + ProgramOption<ModulePaths>.moduleNames)
  var index = 0
  var misplaced: String?
  while index < arguments.count, arguments[index].hasPrefix("-") {
    if !shared.contains(arguments[index]) { misplaced = misplaced ?? arguments[index] }
    let takesValue = ShellOptions.all.first { $0.names.contains(arguments[index]) }?.value != nil
    index += takesValue ? 2 : 1
  }
  guard index < arguments.count, names.contains(arguments[index]) else { return nil }
  let name = arguments[index]
  if let misplaced {
    StandardStreams.error(
      "workbench: \(misplaced) is an option of the shell: put the options of \(name) after it "
        + "(`workbench \(name) --help`)\n")
    exit(ExitCode.usage)
  }
  return (name, Array(arguments[..<index]) + Array(arguments[(index + 1)...]))
}

let named = subcommand(of: arguments)
let wantsHelp = { (words: [String]) in words.contains("--help") || words.contains("-h") }
// `--help` without a subcommand is the program's; with one, that subcommand's (run, report and
// module-check print their own, fuller one).
if named == nil, wantsHelp(arguments) {
  print(Interface.helpText)
  exit(ExitCode.success)
}
if let (name, rest) = named, wantsHelp(rest), !["run", "report", "module-check", "diff"].contains(name),
  let table = Interface.subcommand(named: name)
{
  print(Interface.help(for: table), terminator: "")
  exit(ExitCode.success)
}

switch named {
case (let name, let rest)? where name == "reference":
  var options = ReferenceOptions()
  _ = parseOptions(rest, ReferenceOptions.options, into: &options, command: "reference", operands: false)
  if options.protocolSchema {
    StandardStreams.write(ProtocolSchema.text, to: STDOUT_FILENO)
    exit(ExitCode.success)
  }
  exitRunning(withModules: options.paths) { Shell.printReference(modules: $0) }
case (let name, var rest)? where name == "run":
  // The workers `run` starts leave out the same built-in modules.
  for left in builtInsLeftOut { rest += ["--without-builtin", left] }
  // `run FILE:LINE --shell` takes the shell's options too (`--rows 5`, `--json`, `-c`).
  var shellOptions = ShellOptions()
  var shellRows: Int?
  if rest.contains("--shell") {
    let (shellWords, runWords) = ShellOptions.separating(rest)
    do throws(ShellUsageError) {
      if shellWords.contains("-w") || shellWords.contains("--workspace") {
        throw ShellUsageError("run --shell opens the scenario's own session, in memory: it takes no -w")
      }
      shellOptions = try ShellOptions.parse(shellWords)
      if shellWords.contains("--rows") { shellRows = shellOptions.viewportRows }
    } catch {
      StandardStreams.error("workbench run --shell: \(error.message)\n")
      exit(ExitCode.usage)
    }
    rest = runWords
  }
  // A line `run` cannot parse is reported by `run` itself, with its help.
  let parsed = try? RunOptions.parse(rest, cores: 1)
  let paths = parsed?.modulePaths ?? []
  exitRunning(withModules: paths) { modules in
    if let parsed, parsed.opensShell {
      // `run FILE:LINE --shell`: the scenario's session up to that line, in the shell.
      switch OpenAtStep.start(parsed, modules: modules, rows: shellRows) {
      case .success(let start):
        return Shell.run(session: start.session, introduction: start.introduction, options: shellOptions)
      case .failure(let status):
        return status.code
      }
    }
    guard let parsed, parsed.watch else { return ScenarioCommand.run(rest, modules: modules) }
    WatchLoop.run(paths: parsed.paths.isEmpty ? ["Scenarios"] : parsed.paths, modules: modules) {
      ScenarioCommand.run(rest, modules: modules)
    }
  }
case (let name, let rest)? where name == "report":
  // `report` parses its own options (`--html`, `--baseline`); only the modules are taken here.
  let (paths, operands) = ModulePaths.extract(rest, command: "report")
  exitRunning(withModules: paths) { ScenarioCommand.report(operands, modules: $0) }
case (let name, let rest)? where name == "lsp":
  // A language server for scenario files on standard input and output (docs/editors.md). The
  // modules the workspace loads (`workbench modules add`; the default workspace, or `-w FILE`)
  // are loaded too; one that does not start, or a workspace that cannot be read, is said on
  // standard error (the editor's log) and left out.
  var options = LanguageServerOptions()
  _ = parseOptions(rest, LanguageServerOptions.options, into: &options, command: "lsp", operands: false)
  let paths = options.paths
  let remembered: [String]
  do {
    remembered = try ModuleSettings.paths(ofWorkspaceAt: options.workspace)
  } catch {
    StandardStreams.error("workbench lsp: \(error.message): its modules are not loaded\n")
    remembered = []
  }
  let settled = ExternalModules.load(remembered.filter { !paths.contains($0) })
  for problem in settled.errors { StandardStreams.error("workbench lsp: \(problem) (left out)\n") }
  // Runs go to workers: this program again, with the same options (so the same modules), one
  // run each; the server answers the editor meanwhile and ends a worker to cancel its run.
  let worker =
    [SpawnedProcess.ownExecutable(), "lsp", "--run-worker"] + rest.filter { $0 != "--run-worker" }
    + builtInsLeftOut.flatMap { ["--without-builtin", $0] }
  exitRunning(withModules: paths) { modules in
    defer { ExternalModules.shutdown(settled.modules) }
    if options.runWorker { return LanguageServer.serveRun(modules: modules + settled.modules) }
    return LanguageServer.run(modules: modules + settled.modules, runs: .workers(worker))
  }
case (let name, let rest)? where name == "diff":
  // Two runs compared: traces, or scenario files run here first.
  let (paths, operands) = ModulePaths.extract(rest, command: "diff")
  exitRunning(withModules: paths) { TraceDiff.run(operands, modules: $0) }
case (let name, let rest)? where name == "check":
  let (paths, files) = ModulePaths.parse(rest, command: "check")
  exitRunning(withModules: paths) { ScenarioCommand.check(files, modules: $0) }
case (let name, let rest)? where name == "modules": exit(ModuleSettings.run(rest))
case (let name, let rest)? where name == "completions":
  guard rest.count == 1, let script = Interface.completions(for: rest[0]) else {
    StandardStreams.error("usage: workbench completions bash|zsh|fish\n")
    exit(ExitCode.usage)
  }
  print(script, terminator: "")
  exit(ExitCode.success)
case (let name, let rest)? where name == "diagram":
  let (paths, operands) = ModulePaths.parse(rest.filter { $0 != "--dot" }, command: "diagram")
  let dot = rest.contains("--dot")
  exitRunning(withModules: paths) { modules in
    guard let registry = try? ModuleRegistry(modules: modules) else { return ExitCode.failure }
    let available = registry.diagramNames
    guard let name = operands.first, operands.count == 1 else {
      let width = (available.map(\.name.count).max() ?? 0) + 2
      print("usage: workbench diagram NAME [--dot]   (Mermaid, or Graphviz DOT with --dot)\n\ndiagrams:")
      // A module's names and labels are shown, never obeyed (escape sequences written visibly).
      for entry in available {
        print(
          TerminalText.visible(
            "  " + entry.name + String(repeating: " ", count: max(0, width - entry.name.count)) + entry.summary))
      }
      return operands.isEmpty ? ExitCode.success : ExitCode.usage
    }
    guard let diagram = registry.diagram(named: name) else {
      let hint = Suggestions.didYouMean(name, in: available.map(\.name))
      StandardStreams.error(
        TerminalText.visible(
          "workbench diagram: no diagram '\(name)'\(hint) (diagrams: \(available.map(\.name).joined(separator: ", ")))")
          + "\n")
      return ExitCode.usage
    }
    print(TerminalText.visible(dot ? diagram.dot : diagram.mermaid), terminator: "")
    return ExitCode.success
  }
case (let name, _)? where name == "man":
  print(Interface.manPage(version: WorkbenchVersion.current), terminator: "")
  exit(ExitCode.success)
case (let name, let rest)? where name == "module-check": exit(ModuleCheck.run(rest))
case (let name, let rest)? where name == "new-module":
  exit(ModuleScaffold.run(rest, workbenchRoot: workbenchSourceRoot()))
case (let name, let rest)?: exit(WorkspaceTransfer.run(name, rest, modules: chosenBuiltIns))  // export, import
case nil: break
}

do {
  let options = try ShellOptions.parse(arguments)
  exit(Shell.run(options: options, modules: chosenBuiltIns))
} catch {
  StandardStreams.error("workbench: \(error.message)\nTry `workbench --help`.\n")
  exit(ExitCode.usage)
}
