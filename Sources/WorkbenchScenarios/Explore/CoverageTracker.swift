import WorkbenchCore
import WorkbenchModuleAPI

/// Counts into an `ExploreCoverage` what a session does, step by step: the windows it opens,
/// the module commands it runs (refused or not) and the states its windows on a screen with a
/// state machine move through. Explore and `run --coverage` count through it, so both files
/// mean the same.
@MainActor
public struct CoverageTracker {
  /// Each screen's module's own commands (those its screen adds to the host's).
  let commands: [String: [CommandSpec]]
  /// Each screen's module, and the screens with a state machine.
  let modules: [String: String]
  /// The state machines of screens that have one, by screen.
  let machines: [String: Diagram]

  public init(registry: ModuleRegistry) {
    commands = registry.moduleCommandsByScreen()
    var modules: [String: String] = [:]
    var machines: [String: Diagram] = [:]
    for screen in registry.screens {
      modules[screen.name] = registry.module(ofScreen: screen.name)
      machines[screen.name] = ExploreCoverage.machine(of: screen.name, in: registry)
    }
    self.modules = modules
    self.machines = machines
  }

  /// The windows `host` has open, as a session starts.
  public func opened(_ host: Host, into coverage: inout ExploreCoverage) {
    for window in host.windows { opened(window, into: &coverage) }
  }

  func opened(_ window: Window, into coverage: inout ExploreCoverage) {
    guard let module = modules[window.screen.name] else { return }
    coverage.opened(
      screen: window.screen.name, module: module, machine: machines[window.screen.name], frame: window.frame)
  }

  /// The frames a step starts from, of the windows the coverage follows the states of.
  public func framesBefore(_ host: Host) -> [String: FrameValue] {
    var frames: [String: FrameValue] = [:]
    for window in host.windows where machines[window.screen.name] != nil {
      frames[window.label] = window.frame
    }
    return frames
  }

  /// A step that ran `commands` (each with the window it ran in), refused at its last or not,
  /// starting from `before` (`framesBefore`): the module commands it ran, and the state every
  /// window on a screen with a state machine moved to. Windows it opened are counted as opened.
  public func stepped(
    _ commands: [(command: CoveredCommand, window: String?)], refused: Bool, before: [String: FrameValue],
    host: Host, into coverage: inout ExploreCoverage
  ) {
    var ranIn: String?
    for (index, ran) in commands.enumerated() {
      // A refused step was refused at its last command that ran; those before it ran.
      let label = self.ran(
        ran.command, in: ran.window, refused: refused && index == commands.count - 1, host: host, into: &coverage)
      ranIn = label ?? ranIn
    }
    observed(before: before, ranIn: ranIn, host: host, into: &coverage)
  }

  /// A command that ran in the window labelled `target`: the window's label when it was one of
  /// that window's module's commands and was not refused.
  func ran(
    _ command: CoveredCommand, in target: String?, refused: Bool, host: Host, into coverage: inout ExploreCoverage
  ) -> String? {
    guard let target, let window = host.window(named: target), let module = modules[window.screen.name],
      command.module == module,
      commands[window.screen.name]?.contains(where: { $0.name == command.commandName }) == true
    else { return nil }
    coverage.ran(command, screen: window.screen.name, module: module, refused: refused)
    return refused ? nil : window.label
  }

  /// The state every window on a screen with a state machine moved to from `before`, a
  /// transition taken where a command ran in it (`ranIn`) or its state changed.
  func observed(before: [String: FrameValue], ranIn: String?, host: Host, into coverage: inout ExploreCoverage) {
    for window in host.windows {
      guard let machine = machines[window.screen.name], let module = modules[window.screen.name] else { continue }
      guard let was = before[window.label] else {
        coverage.opened(screen: window.screen.name, module: module, machine: machine, frame: window.frame)
        continue
      }
      coverage.observed(
        screen: window.screen.name, module: module, before: was, after: window.frame, ranHere: ranIn == window.label)
    }
  }
}

extension ModuleRegistry {
  /// Each screen's module's own commands (those its screen adds to the host's), by screen: what
  /// explore draws from and what coverage counts.
  @MainActor
  func moduleCommandsByScreen() -> [String: [CommandSpec]] {
    let hostNames = Set(router.names(forScreen: nil))
    var commands: [String: [CommandSpec]] = [:]
    for screen in screens {
      commands[screen.name] = router.names(forScreen: screen.name).filter { !hostNames.contains($0) }
        .compactMap { name in
          guard case .success(let route) = router.route(name, screen: screen.name) else { return nil }
          // A command of the module for another of its screens is not this window's.
          if case .window(let screens) = route.spec.scope, !screens.contains(screen.name) { return nil }
          return route.spec
        }
    }
    return commands
  }
}

/// A command as coverage counts it: its spec (a subcommand's, for one), its module, and its
/// whole-number arguments by name, whether it bound (a scenario's step, explore's draw) or was
/// refused as it bound (a number out of its range).
public struct CoveredCommand {
  /// The command or subcommand that ran.
  public var spec: CommandSpec
  /// The module that registered it; `nil` for a host command.
  public var module: String?
  /// Its whole-number arguments, by name.
  public var integers: [String: Int]

  /// A command with its numbers.
  public init(spec: CommandSpec, module: String?, integers: [String: Int]) {
    self.spec = spec
    self.module = module
    self.integers = integers
  }

  /// A bound command.
  public init(_ command: BoundCommand) {
    var integers: [String: Int] = [:]
    for (name, value) in command.arguments.values {
      if case .integer(let number) = value { integers[name] = number }
    }
    self.init(spec: command.spec, module: command.module, integers: integers)
  }

  /// A command whose words resolved but did not bind: each word of a whole-number argument read
  /// as the number it is, if it is one.
  public init(_ command: ResolvedCommand) {
    var integers: [String: Int] = [:]
    for (argument, word) in command.wordsByArgument {
      if case .integer = argument.kind, let number = Int(word.text) { integers[argument.name] = number }
    }
    self.init(spec: command.spec, module: command.module, integers: integers)
  }

  /// The name of the command the window's module registered (`network`, for `network fail`).
  var commandName: String { String(spec.name.prefix { $0 != " " }) }
}
