import BuiltInModules
import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchExternalModules
import WorkbenchLanguageServer
import WorkbenchModuleAPI
import WorkbenchModuleProtocol
import WorkbenchModuleTools
import WorkbenchScenarios
import WorkbenchShell
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// What a subcommand is run with: the words after its name, and the built-in modules the
/// program keeps (`--without-builtin` left the others out; their names go to workers).
@MainActor struct Invocation {
  /// The subcommand's name, for its messages.
  var command: String
  var words: [String]
  var builtIns: [any FeatureModule]
  var builtInsLeftOut: [String]

  /// The words as options of `table`, applied to `target`, and the operands; `nil` after a
  /// usage error, said on standard error.
  func parse<Target>(_ table: [ProgramOption<Target>], into target: inout Target, operands allowed: Bool = true)
    -> [String]?
  {
    do throws(ProgramUsageError) {
      let operands = try ProgramOptionParser.parse(words, options: table, into: &target)
      if !allowed, let operand = operands.first {
        throw ProgramUsageError("\(command) takes no operands ('\(operand)')")
      }
      return operands
    } catch {
      StandardStreams.error("workbench \(command): \(error.message)\nTry `workbench \(command) --help`.\n")
      return nil
    }
  }

  /// For a subcommand whose only option is `-m PATH`: `body` gets its operands and the modules.
  func withModuleOption(_ body: ([String], [any FeatureModule]) -> ExitCode) -> ExitCode {
    var options = ModulePaths()
    guard let operands = parse(ModulePaths.options, into: &options) else { return .usage }
    return withModules(options.paths) { body(operands, $0) }
  }

  /// Runs `body` with the built-in modules and the external ones at `paths`, and ends the
  /// external modules' processes after it. A module that does not start is a usage error.
  func withModules(_ paths: [String], _ body: ([any FeatureModule]) -> ExitCode) -> ExitCode {
    let external = ExternalModules.load(paths)
    for problem in external.errors { StandardStreams.error("error: \(problem)\n") }
    if !external.errors.isEmpty {
      ExternalModules.shutdown(external.modules)
      return .usage
    }
    let modules = builtIns + external.modules
    let status = body(modules)
    ExternalModules.shutdown(modules)
    return status
  }
}

extension Invocation {
  /// `explore --against PATH`: the module at `path` loaded, and `modules` with it in the place
  /// of the module (built in or loaded) that registers the same screens; a usage error (exit 2)
  /// when it does not load or no module has its screens.
  func withModulesAgainst(
    _ path: String, _ modules: [any FeatureModule],
    _ body: ((modules: [any FeatureModule], name: String)) -> ExitCode
  ) -> ExitCode {
    let loaded = ExternalModules.load([path])
    for problem in loaded.errors { StandardStreams.error("workbench explore: --against: \(problem)\n") }
    guard loaded.errors.isEmpty, let against = loaded.modules.first as? ExternalModule else {
      ExternalModules.shutdown(loaded.modules)
      return .usage
    }
    defer { ExternalModules.shutdown(loaded.modules) }
    let screens = Set(against.known.screens)
    // The modules that register its screens (built in or loaded), by name.
    let registry = try? ModuleRegistry(modules: modules)
    let names = Set(screens.compactMap { registry?.module(ofScreen: $0) })
    guard !names.isEmpty else {
      StandardStreams.error(
        "workbench explore: --against \(path): no module loaded registers its screens "
          + "(\(screens.sorted().joined(separator: ", "))): load the module it stands in for, or leave it out\n")
      return .usage
    }
    let others = modules.filter { !names.contains($0.manifest.name) }
    return body((others + [against], path.split(separator: "/").last.map(String.init) ?? path))
  }
}

/// The modules a subcommand's `-m PATH` options name, for those that take no other option.
struct ModulePaths {
  var paths: [String] = []
  static let options: [ProgramOption<ModulePaths>] = [.modules(\.paths)]
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
    .workspace(\.workspace, help: "load the modules this workspace loads (default: the default workspace's)"),
    .flag(["--run-worker"], help: nil) { $0.runWorker = true },
  ]
}

/// `workbench diagram`'s options: Graphviz instead of Mermaid, and the modules whose diagrams
/// to offer.
struct DiagramOptions {
  var paths: [String] = []
  var dot = false
  static let options: [ProgramOption<DiagramOptions>] = [
    .flag(["--dot"], help: "Graphviz DOT instead of Mermaid") { $0.dot = true },
    .modules(\.paths),
  ]
}

/// Every subcommand, in the order `--help` lists them.
@MainActor
enum Subcommands {
  static var all: [Subcommand] {
    [
      Subcommand(
        "run", synopsis: "run [PATH...] [OPTIONS]",
        summary: "run scenario files like a test suite (Scenarios/ when no path is given)",
        details: "exit codes: 0 all passed, 1 a scenario failed, 2 usage or file errors, 5 no scenario ran",
        options: Interface.options(RunOptions.all), takesScenarioFiles: true, run: run),
      Subcommand(
        "report", synopsis: "report TRACEDIR... [--html FILE] [--junit FILE] [--json FILE] [--baseline DIR]",
        summary: "merge the traces of one or more runs into one report: HTML, JUnit XML or JSON",
        details: """
          Merges the traces `workbench run --trace DIR` wrote (several folders: the shards of a CI matrix)
          into one self-contained HTML report, and into JUnit XML and JSON as one run would have written
          them. With --baseline, the traces of a green run, a failed scenario shows the first step where a
          frame left the green run's.
          """,
        options: Interface.options(ReportOptions.all)
      ) { invocation in
        var options = ReportOptions()
        guard let folders = invocation.parse(ReportOptions.all, into: &options) else {
          return .usage
        }
        options.folders = folders
        return invocation.withModules(options.modulePaths) { ScenarioCommand.report(options, modules: $0) }
      },
      Subcommand(
        "diff", synopsis: "diff A B [-m PATH]...",
        summary: "compare two runs (trace folders, or scenario files run first) and name the first step that differs",
        details: TraceDiff.details, options: Interface.options(ModulePaths.options), takesScenarioFiles: true
      ) { $0.withModuleOption(TraceDiff.run) },
      Subcommand(
        "explore",
        synopsis:
          "explore [-m PATH]... [--seed N] [--runs N | --time 60s] [--steps N] [--screens NAMES] [--always FILE] "
          + "[--against MODULE] [--coverage FILE] [--jobs N] [--out FILE] [--force] [--json]",
        summary: "run random sessions against the modules, check properties any module keeps, shrink what breaks one",
        details: ExploreCommand.details, options: Interface.options(ExploreCommand.options)
      ) { invocation in
        var options = ExploreCommand.Options()
        guard invocation.parse(ExploreCommand.options, into: &options, operands: false) != nil else {
          return .usage
        }
        options.builtInsLeftOut = invocation.builtInsLeftOut
        return invocation.withModules(options.paths) { modules in
          // `--module FILE` explores that module's screens unless --screens says otherwise.
          if options.explorer.screens.isEmpty, !options.paths.isEmpty {
            options.explorer.screens = modules.compactMap { $0 as? ExternalModule }.flatMap(\.known.screens)
          }
          guard let path = options.againstPath else { return ExploreCommand.run(options, modules: modules) }
          return invocation.withModulesAgainst(path, modules) { against in
            ExploreCommand.run(options, modules: modules, against: against)
          }
        }
      },
      Subcommand(
        "check", synopsis: "check PATH... [-m PATH]...",
        summary: "load and check scenario files without running them",
        details: "exit codes: 0 every file loaded, 2 a file has errors (each said at its file:line:column)",
        options: Interface.options(ModulePaths.options), takesScenarioFiles: true
      ) { $0.withModuleOption(ScenarioCommand.check) },
      Subcommand(
        "lsp", synopsis: "lsp [-w FILE] [-m PATH]...",
        summary: "serve the Language Server Protocol on standard input and output, for editors (docs/editors.md)",
        options: Interface.options(LanguageServerOptions.options), run: languageServer),
      Subcommand(
        "reference", synopsis: "reference [-m PATH]... [--protocol-schema]",
        summary: "print the command reference in Markdown",
        options: Interface.options(ReferenceOptions.options)
      ) { invocation in
        var options = ReferenceOptions()
        guard invocation.parse(ReferenceOptions.options, into: &options, operands: false) != nil
        else { return .usage }
        if options.protocolSchema {
          StandardStreams.write(ProtocolSchema.text, to: STDOUT_FILENO)
          return .success
        }
        return invocation.withModules(options.paths) { Shell.printReference(modules: $0) }
      },
      Subcommand(
        "modules", synopsis: "modules list | add PATH | remove PATH",
        summary: "list, add or remove the external modules the workspace loads",
        options: Interface.options(ModuleSettings.options), loadsBuiltIns: false
      ) { ModuleSettings.run($0.words) },
      Subcommand(
        "module-check", synopsis: "module-check EXECUTABLE [--baseline FILE]",
        summary: "drive a module executable through the protocol and report each check (docs/protocol.md)",
        details: ModuleCheck.details, options: Interface.options(ModuleCheck.options)
      ) { invocation in
        // The names the built-ins take (those not left out), which the module's must not.
        let registry = try? ModuleRegistry(modules: invocation.builtIns)
        let taken = ModuleCheck.TakenNames(
          kinds: registry?.documentKindOwners ?? [], samples: registry?.sampleDocuments ?? [])
        return ModuleCheck.run(invocation.words, taken: taken)
      },
      Subcommand(
        "new-module", synopsis: "new-module NAME [--path DIR] [--language swift|python|javascript]",
        summary: "write a package with a new module, a test and a scenario",
        options: Interface.options(ModuleScaffold.options), loadsBuiltIns: false
      ) { ModuleScaffold.run($0.words, workbenchRoot: workbenchSourceRoot()) },
      Subcommand(
        "export", synopsis: "export DOCUMENT FILE", summary: "write a document of the workspace to a file",
        options: Interface.options(WorkspaceTransfer.options)
      ) { WorkspaceTransfer.run("export", $0.words, modules: $0.builtIns) },
      Subcommand(
        "import", synopsis: "import FILE", summary: "read documents from a file into the workspace",
        options: Interface.options(WorkspaceTransfer.options)
      ) { WorkspaceTransfer.run("import", $0.words, modules: $0.builtIns) },
      Subcommand(
        "diagram", synopsis: "diagram [NAME] [--dot]",
        summary: "print a diagram drawn from the code (the feed's state machine, the modules) as Mermaid or DOT",
        options: Interface.options(DiagramOptions.options), run: diagram),
      Subcommand(
        "completions", synopsis: "completions bash|zsh|fish", summary: "print a completion script for the shell named",
        options: [], loadsBuiltIns: false
      ) { invocation in
        guard invocation.words.count == 1, let script = Interface.completions(for: invocation.words[0]) else {
          StandardStreams.error("usage: workbench completions bash|zsh|fish\n")
          return .usage
        }
        print(script, terminator: "")
        return .success
      },
      Subcommand("man", synopsis: "man", summary: "print this manual page (roff)", options: [], loadsBuiltIns: false) {
        _ in
        print(Interface.manPage(version: WorkbenchVersion.current), terminator: "")
        return .success
      },
    ]
  }

  /// The subcommand named `name`.
  static func named(_ name: String) -> Subcommand? { all.first { $0.name == name } }

  /// `run`: its options parsed once; with `FILE:LINE --shell`, the shell's options too.
  static func run(_ invocation: Invocation) -> ExitCode {
    // The workers `run` starts leave out the same built-in modules.
    var words = invocation.words
    for left in invocation.builtInsLeftOut { words += ["--without-builtin", left] }
    var shellOptions = ShellOptions()
    var shellRows: Int?
    if words.contains("--shell") {
      let (shellWords, runWords) = ShellOptions.separating(words)
      do throws(ProgramUsageError) {
        if shellWords.contains(where: ProgramOption<ShellOptions>.workspaceNames.contains) {
          throw ProgramUsageError("run --shell opens the scenario's own session, in memory: it takes no -w")
        }
        shellOptions = try ShellOptions.parse(shellWords)
        if shellWords.contains("--rows") { shellRows = shellOptions.viewportRows }
      } catch {
        StandardStreams.error("workbench run --shell: \(error.message)\n")
        return .usage
      }
      words = runWords
    }
    let options: RunOptions
    do {
      options = try RunOptions.parse(words, cores: ScenarioCommand.cores())
    } catch {
      StandardStreams.error("workbench run: \(error.message)\nTry `workbench run --help`.\n")
      return .usage
    }
    return invocation.withModules(options.modulePaths) { modules in
      if options.opensShell {
        // `run FILE:LINE --shell`: the scenario's session up to that line, in the shell.
        switch OpenAtStep.start(options, modules: modules, frontEnd: Shell.commands, rows: shellRows) {
        case .success(let start):
          return Shell.run(session: start.session, introduction: start.introduction, options: shellOptions)
        case .failure(let status):
          return status
        }
      }
      guard options.watch else { return ScenarioCommand.run(options, modules: modules) }
      WatchLoop.run(paths: options.paths, modules: modules) { ScenarioCommand.run(options, modules: modules) }
    }
  }

  /// `lsp`: a language server for scenario files on standard input and output (docs/editors.md).
  /// The modules the workspace loads (`workbench modules add`; the default workspace, or
  /// `-w FILE`) are loaded too; one that does not start, or a workspace that cannot be read, is
  /// said on standard error (the editor's log) and left out.
  static func languageServer(_ invocation: Invocation) -> ExitCode {
    var options = LanguageServerOptions()
    guard invocation.parse(LanguageServerOptions.options, into: &options, operands: false) != nil else {
      return .usage
    }
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
      [SpawnedProcess.ownExecutable(), "lsp", "--run-worker"] + invocation.words.filter { $0 != "--run-worker" }
      + invocation.builtInsLeftOut.flatMap { ["--without-builtin", $0] }
    return invocation.withModules(paths) { modules in
      defer { ExternalModules.shutdown(settled.modules) }
      if options.runWorker { return LanguageServer.serveRun(modules: modules + settled.modules) }
      // A module rebuilt meanwhile is started again, and one that registers other commands,
      // screens or kinds is taken in (as the shell's --watch does), so the editor's completion,
      // hover and checks know them.
      // (In the background: a new build that is slow to say hello, or never does, holds up no
      // answer; until it has, the editor is answered from the registration before it.)
      let watcher = ModuleWatcher(modules: modules + settled.modules, inTheBackground: true)
      return LanguageServer.run(
        modules: modules + settled.modules, runs: .workers(worker),
        reregistration: {
          watcher.check()
          return watcher.registrationChanged ? try? watcher.registry() : nil
        }, awaiting: { watcher.awaitedDescriptors })
    }
  }

  /// `diagram [NAME] [--dot]`: the diagrams the modules draw from their code; without a name,
  /// the list of them.
  static func diagram(_ invocation: Invocation) -> ExitCode {
    var options = DiagramOptions()
    guard let operands = invocation.parse(DiagramOptions.options, into: &options) else {
      return .usage
    }
    return invocation.withModules(options.paths) { modules in
      guard let registry = try? ModuleRegistry(modules: modules) else { return .failure }
      let available = registry.diagramNames
      guard let name = operands.first, operands.count == 1 else {
        let width = (available.map(\.name.count).max() ?? 0) + 2
        print("usage: workbench diagram NAME [--dot]   (Mermaid, or Graphviz DOT with --dot)\n\ndiagrams:")
        // A module's names and labels are shown, never obeyed (escape sequences written visibly).
        for entry in available {
          print(TerminalText.visible("  " + entry.name.padded(to: width) + entry.summary))
        }
        return operands.isEmpty ? .success : .usage
      }
      guard let diagram = registry.diagram(named: name) else {
        let hint = Suggestions.didYouMean(name, in: available.map(\.name))
        StandardStreams.error(
          TerminalText.visible(
            "workbench diagram: no diagram '\(name)'\(hint) (diagrams: \(available.map(\.name).joined(separator: ", ")))"
          )
            + "\n")
        return .usage
      }
      print(TerminalText.visible(options.dot ? diagram.dot : diagram.mermaid), terminator: "")
      return .success
    }
  }

  /// The workbench package's folder, as this binary was built from (new modules depend on it).
  static func workbenchSourceRoot(file: String = #filePath) -> String {
    var parts = file.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Sources/workbench/Subcommands.swift
    return parts.joined(separator: "/")
  }
}
