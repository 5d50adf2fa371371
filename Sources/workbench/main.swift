// The composition root: which modules, which front end. Option parsing comes first and the
// fast paths (--version, --help) return before any module or host is built.
import BuiltInModules
import WorkbenchCore
import WorkbenchExternalModules
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

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.contains("--version") {
  print("workbench \(WorkbenchVersion.current)")
  exit(ExitCode.success)
}
if arguments.first != "run", arguments.contains("--help") || arguments.contains("-h") {
  print(ShellOptions.helpText)
  exit(ExitCode.success)
}

/// The workbench package's folder, as this binary was built from (new modules depend on it).
func workbenchSourceRoot(file: String = #filePath) -> String {
  var parts = file.split(separator: "/", omittingEmptySubsequences: false)
  parts.removeLast(3)  // Sources/workbench/main.swift
  return parts.joined(separator: "/")
}

/// The built-in modules and the ones `--module PATH` names, for `run` and `check`.
@MainActor func modulesWithExternal(_ arguments: [String]) -> [any FeatureModule] {
  var paths: [String] = []
  for (index, argument) in arguments.enumerated() where ["--module", "-m"].contains(argument) {
    if index + 1 < arguments.count { paths.append(arguments[index + 1]) }
  }
  let external = ExternalModules.load(paths)
  for problem in external.errors { StandardStreams.error("error: \(problem)\n") }
  if !external.errors.isEmpty {
    ExternalModules.shutdown(external.modules)
    exit(ExitCode.usage)
  }
  return builtInModules + external.modules
}

/// Runs `body` with the built-in modules and the external ones `arguments` name, ends the
/// external modules' processes, and exits with what `body` returned.
@MainActor func exitRunning(withModulesFrom arguments: [String], _ body: ([any FeatureModule]) -> Int32) -> Never {
  let modules = modulesWithExternal(arguments)
  let status = body(modules)
  ExternalModules.shutdown(modules)
  exit(status)
}

switch arguments.first {
case "reference":
  let rest = Array(arguments.dropFirst())
  exitRunning(withModulesFrom: rest) { Shell.printReference(modules: $0) }
case "run":
  let rest = Array(arguments.dropFirst())
  exitRunning(withModulesFrom: rest) { ScenarioCommand.run(rest, modules: $0) }
case "check":
  let rest = Array(arguments.dropFirst())
  let paths = rest.enumerated().filter { index, word in
    !["--module", "-m"].contains(word) && (index == 0 || !["--module", "-m"].contains(rest[index - 1]))
  }.map(\.element)
  exitRunning(withModulesFrom: rest) { ScenarioCommand.check(paths, modules: $0) }
case "modules": exit(ModuleSettings.run(Array(arguments.dropFirst())))
case "new-module": exit(ModuleScaffold.run(Array(arguments.dropFirst()), workbenchRoot: workbenchSourceRoot()))
case "export", "import":
  exit(WorkspaceTransfer.run(arguments[0], Array(arguments.dropFirst()), modules: builtInModules))
default: break
}

do {
  let options = try ShellOptions.parse(arguments)
  exit(Shell.run(options: options, modules: builtInModules))
} catch {
  StandardStreams.error("workbench: \(error.message)\nTry `workbench --help`.\n")
  exit(ExitCode.usage)
}
