// The composition root: which modules, which front end. Option parsing comes first and the
// fast paths (--version, --help) return before any module or host is built.
import BuiltInModules
import WorkbenchCore
import WorkbenchScenarios
import WorkbenchShell

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.contains("--version") {
  print("workbench \(WorkbenchVersion.current)")
  exit(ExitCode.success)
}
if arguments.first != "run", arguments.contains("--help") || arguments.contains("-h") {
  print(ShellOptions.helpText)
  exit(ExitCode.success)
}

switch arguments.first {
case "reference": exit(Shell.printReference(modules: builtInModules))
case "run": exit(ScenarioCommand.run(Array(arguments.dropFirst()), modules: builtInModules))
case "check": exit(ScenarioCommand.check(Array(arguments.dropFirst()), modules: builtInModules))
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
