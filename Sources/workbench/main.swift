// The composition root: which modules, which front end. Option parsing comes first and the
// fast paths (--version, --help) return before any module or host is built.
import BuiltInModules
import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchExternalModules
import WorkbenchModuleAPI
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
// Whatever ends the program by a signal (SIGTERM, SIGHUP, Ctrl-C in a script or a run), the
// module processes and workers it started end with it, and it exits with the signal's status.
// The interactive shell takes Ctrl-C for itself as it starts.
ChildGroups.endOnTermination()

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
      exit(ExitCode.usage.code)
    }
    names.append(words[index + 1])
    index += 2
  }
  let known = builtInModules.map(\.manifest.name)
  for name in names where name != "all" && !known.contains(name) {
    StandardStreams.error(
      "workbench: --without-builtin \(name): no built-in module '\(name)'\(Suggestions.didYouMean(name, in: known)) "
        + "(built in: \(known.joined(separator: ", ")), or all)\n")
    exit(ExitCode.usage.code)
  }
  return (names.contains("all") ? [] : builtInModules.filter { !names.contains($0.manifest.name) }, names, rest)
}

let (chosenBuiltIns, builtInsLeftOut, arguments) = leavingOutBuiltIns(Array(CommandLine.arguments.dropFirst()))

if arguments.contains("--version") {
  print("workbench \(WorkbenchVersion.current)")
  exit(ExitCode.success.code)
}

/// The program's subcommand and its arguments. Options given before the subcommand's name go
/// with it, so `workbench -w FILE export DOC OUT` is `export` with `-w FILE`.
@MainActor func subcommand(of arguments: [String]) -> (subcommand: Subcommand, rest: [String])? {
  // The workspace and the modules mean the same to every subcommand; the shell's other options
  // do not (`--json` names a report file for `run`), so those must follow the name.
  let shared = Set(ProgramOption<ShellOptions>.workspaceNames + ProgramOption<ShellOptions>.moduleNames)
  var index = 0
  var misplaced: String?
  while index < arguments.count, arguments[index].hasPrefix("-") {
    if !shared.contains(arguments[index]) { misplaced = misplaced ?? arguments[index] }
    let takesValue = ShellOptions.all.first { $0.names.contains(arguments[index]) }?.value != nil
    index += takesValue ? 2 : 1
  }
  guard index < arguments.count, let subcommand = Subcommands.named(arguments[index]) else { return nil }
  if let misplaced {
    StandardStreams.error(
      "workbench: \(misplaced) is an option of the shell: put the options of \(subcommand.name) after it "
        + "(`workbench \(subcommand.name) --help`)\n")
    exit(ExitCode.usage.code)
  }
  return (subcommand, Array(arguments[..<index]) + Array(arguments[(index + 1)...]))
}

let wantsHelp = { (words: [String]) in words.contains("--help") || words.contains("-h") }
if let (subcommand, rest) = subcommand(of: arguments) {
  // `--help` with a subcommand is that subcommand's, made from its declaration.
  if wantsHelp(rest) {
    print(subcommand.help, terminator: "")
    exit(ExitCode.success.code)
  }
  // An option it does not take is refused, as its own parser refuses one.
  guard subcommand.loadsBuiltIns || builtInsLeftOut.isEmpty else {
    StandardStreams.error(
      "workbench \(subcommand.name): unknown option '--without-builtin': it loads no built-in module to leave out "
        + "(`workbench \(subcommand.name) --help`)\n")
    exit(ExitCode.usage.code)
  }
  let invocation = Invocation(
    command: subcommand.name, words: rest, builtIns: chosenBuiltIns, builtInsLeftOut: builtInsLeftOut)
  exit(subcommand.run(invocation).code)
}
if wantsHelp(arguments) {
  print(Interface.helpText)
  exit(ExitCode.success.code)
}
do {
  let options = try ShellOptions.parse(arguments)
  exit(Shell.run(options: options, modules: chosenBuiltIns).code)
} catch {
  StandardStreams.error("workbench: \(error.message)\nTry `workbench --help`.\n")
  exit(ExitCode.usage.code)
}
