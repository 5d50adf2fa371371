import WorkbenchCore
import WorkbenchModuleAPI

/// What a run of explore covered, per module: the commands run (and refused), the screens
/// windows opened on, the whole-number arguments tried at and across their range's edges, and
/// for a screen with a state machine (a module's diagram named as the screen, whose frames name
/// the state in `state`, as the ledger's feed does) the states reached and transitions taken.
///
/// Kept as counts under flat keys, so the counts of sessions run apart (`--jobs`) add up to
/// those of one run; `json(registry:)` lays them out with what was never reached.
public struct ExploreCoverage: Sendable, Equatable {
  /// Counts by key: the parts of a key are joined by `Self.separator`.
  public private(set) var counts: [String: Int] = [:]

  static let separator: Character = "\u{1F}"

  public init() {}

  /// Counts kept as `json` of a worker gave them.
  public init(counts: [String: Int]) { self.counts = counts }

  mutating func count(_ parts: String...) {
    let key = parts.joined(separator: String(Self.separator))
    counts[key] = OutsideNumbers.saturatingSum(counts[key] ?? 0, 1)
  }

  /// Adds another run's counts to these.
  public mutating func add(_ other: ExploreCoverage) {
    for (key, value) in other.counts { counts[key] = OutsideNumbers.saturatingSum(counts[key] ?? 0, value) }
  }

  /// The counts whose key starts with `parts`, by the rest of their key.
  func counts(under parts: String...) -> [[String]: Int] {
    var result: [[String]: Int] = [:]
    for (key, value) in counts {
      let split = key.split(separator: Self.separator, omittingEmptySubsequences: false).map(String.init)
      guard split.count > parts.count, Array(split.prefix(parts.count)) == parts else { continue }
      result[Array(split.dropFirst(parts.count)), default: 0] += value
    }
    return result
  }

  // MARK: Taking it in

  /// A window of `module` opened on `screen`, showing `frame`, with the screen's state machine
  /// if it has one. A window that shows another state than the machine's start as it opens
  /// came through the start: a transition from it straight to that state is counted taken
  /// (the feed opens `loading`, having `appeared` from `idle`).
  mutating func opened(screen: String, module: String, machine: Diagram?, frame: FrameValue) {
    count(module, "screen", screen)
    guard let machine, let state = frame["state"]?.stringValue else { return }
    if let start = machine.start, start != state, machine.edges.contains(where: { $0.from == start && $0.to == state })
    {
      count(module, "state", screen, start)
      count(module, "transition", screen, start, state)
    }
    count(module, "state", screen, state)
  }

  /// A command of the module's that ran in a window on `screen`, refused or not, with its
  /// whole numbers by argument: the command by its full name, and each number by its place in
  /// its range (at or across its edges).
  mutating func ran(_ command: CoveredCommand, screen: String, module: String, refused: Bool) {
    let name = command.spec.name
    count(module, "command", name, refused ? "refused" : "ran")
    for argument in command.spec.arguments {
      guard case .integer(let range?) = argument.kind, let value = command.integers[argument.name] else { continue }
      let edge =
        value < range.lowerBound
        ? "below"
        : value > range.upperBound
          ? "above" : value == range.lowerBound ? "atLowest" : value == range.upperBound ? "atHighest" : "within"
      count(module, "argument", name + " " + argument.name, edge)
    }
  }

  /// A window on a screen with a state machine after a step: the state its frame names now,
  /// and the transition from the one before, when it moved or when `ranHere` (a command of the
  /// module ran in it, which may have taken a transition back to the same state).
  mutating func observed(screen: String, module: String, before: FrameValue?, after: FrameValue, ranHere: Bool) {
    guard let state = after["state"]?.stringValue, let was = before?["state"]?.stringValue else { return }
    guard was != state || ranHere else { return }
    count(module, "state", screen, state)
    count(module, "transition", screen, was, state)
  }

  /// The state machine of `screen`: its module's diagram of that name, when it is one.
  @MainActor static func machine(of screen: String, in registry: ModuleRegistry) -> Diagram? {
    guard registry.moduleDiagramNames.contains(screen), let diagram = registry.diagram(named: screen),
      diagram.isStateMachine
    else { return nil }
    return diagram
  }

  // MARK: Saying it

  /// The coverage as JSON (docs/coverage.schema.json): per module of the screens explored, the
  /// commands run and never run, the screens opened, the arguments' edges, and each machine's
  /// states and transitions, reached or not.
  @MainActor
  public func json(registry: ModuleRegistry, screens: [String], commands: [String: [CommandSpec]]) -> FrameValue {
    var modules: [(key: String, value: FrameValue)] = []
    let byModule = Dictionary(grouping: screens) { registry.module(ofScreen: $0) ?? "" }
    for (module, moduleScreens) in byModule.sorted(by: { $0.key < $1.key }) where !module.isEmpty {
      var names: [String] = []
      for screen in moduleScreens {
        for spec in commands[screen] ?? [] {
          let all = spec.subcommands.isEmpty ? [spec.name] : spec.subcommands.map { spec.name + " " + $0.name }
          for name in all where !names.contains(name) { names.append(name) }
        }
      }
      let ran = counts(under: module, "command")
      let commandValues: [(key: String, value: FrameValue)] = names.map { name in
        (
          name,
          [
            "ran": .integer(ran[[name, "ran"]] ?? 0), "refused": .integer(ran[[name, "refused"]] ?? 0),
          ]
        )
      }
      let neverRun = names.filter { (ran[[$0, "ran"]] ?? 0) + (ran[[$0, "refused"]] ?? 0) == 0 }
      let neverCarriedOut = names.filter { (ran[[$0, "ran"]] ?? 0) == 0 }
      let opened = counts(under: module, "screen")
      let arguments = counts(under: module, "argument")
      let argumentNames = Set(arguments.keys.compactMap(\.first)).sorted()
      let argumentValues: [(key: String, value: FrameValue)] = argumentNames.map { name in
        (
          name,
          .object(
            FrameObject(
              members: ["below", "atLowest", "within", "atHighest", "above"].map {
                ($0, .integer(arguments[[name, $0]] ?? 0))
              }))
        )
      }
      var machines: [(key: String, value: FrameValue)] = []
      for screen in moduleScreens.sorted() {
        guard let machine = Self.machine(of: screen, in: registry) else { continue }
        let states = counts(under: module, "state", screen)
        let taken = counts(under: module, "transition", screen)
        var pairs: [(from: String, to: String)] = []
        for edge in machine.edges where !pairs.contains(where: { $0 == (edge.from, edge.to) }) {
          pairs.append((edge.from, edge.to))
        }
        let transitions: [FrameValue] = pairs.map { pair in
          ["from": .string(pair.from), "to": .string(pair.to), "taken": .integer(taken[[pair.from, pair.to]] ?? 0)]
        }
        machines.append(
          (
            screen,
            [
              "states": .object(FrameObject(members: machine.nodes.map { ($0, .integer(states[[$0]] ?? 0)) })),
              "statesNeverReached": .list(machine.nodes.filter { (states[[$0]] ?? 0) == 0 }.map(FrameValue.string)),
              "transitions": .list(transitions),
              "transitionsNeverTaken": .list(
                pairs.filter { (taken[[$0.from, $0.to]] ?? 0) == 0 }.map {
                  ["from": .string($0.from), "to": .string($0.to)]
                }),
            ]
          ))
      }
      modules.append(
        (
          module,
          [
            "commands": .object(FrameObject(members: commandValues)),
            "neverRun": .list(neverRun.map(FrameValue.string)),
            "neverCarriedOut": .list(neverCarriedOut.map(FrameValue.string)),
            "screens": .object(
              FrameObject(members: moduleScreens.sorted().map { ($0, .integer(opened[[$0]] ?? 0)) })),
            "arguments": .object(FrameObject(members: argumentValues)),
            "machines": .object(FrameObject(members: machines)),
          ]
        ))
    }
    return ["modules": .object(FrameObject(members: modules))]
  }

  /// The coverage of scenarios run (`run --coverage`) as JSON (docs/coverage.schema.json): the
  /// modules whose windows they opened, with every screen of those modules.
  @MainActor
  public func runJSON(registry: ModuleRegistry, scenarios: Int, steps: Int) -> FrameValue {
    let touched = Set(counts.keys.compactMap { $0.split(separator: Self.separator).first.map(String.init) })
    let screens = registry.screens.map(\.name).filter { touched.contains(registry.module(ofScreen: $0) ?? "") }
    let json = json(registry: registry, screens: screens, commands: registry.moduleCommandsByScreen())
    guard case .object(let object) = json else { return json }
    return .object(
      FrameObject(members: [("scenarios", .integer(scenarios)), ("steps", .integer(steps))] + object.members))
  }

  /// One line per module: `ledger: 16 of 16 commands run, 12 carried out; feed: 8 of 8
  /// transitions taken` (a command refused every time it ran was run, not carried out).
  public static func summary(of json: FrameValue) -> [String] {
    guard case .object(let modules)? = json["modules"] else { return [] }
    return modules.members.map { module, value in
      var commands = 0
      if case .object(let object)? = value["commands"] { commands = object.members.count }
      let never = value["neverRun"]?.elements?.count ?? 0
      let refusedAlways = value["neverCarriedOut"]?.elements?.count ?? 0
      var line = "\(module): \(commands - never) of \(commands) commands run, \(commands - refusedAlways) carried out"
      if case .object(let machines)? = value["machines"] {
        for (screen, machine) in machines.members {
          let all = machine["transitions"]?.elements?.count ?? 0
          let untaken = machine["transitionsNeverTaken"]?.elements?.count ?? 0
          line += "; \(screen): \(all - untaken) of \(all) transitions taken"
        }
      }
      return line
    }
  }
}
