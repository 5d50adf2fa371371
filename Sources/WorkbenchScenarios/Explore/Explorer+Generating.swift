import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSession

// Random sessions, drawn step by step against the session as it is.
extension Explorer {
  // MARK: Generating

  /// The screens of `registry` among `names` (all when empty) that windows open on, each with
  /// the sample documents of its kind.
  static func screens(of registry: ModuleRegistry, among names: [String]) -> [(name: String, documents: [String])] {
    let samples = registry.sampleDocuments
    return registry.screens.compactMap { screen in
      guard names.isEmpty || names.contains(screen.name) else { return nil }
      let documents = samples.filter { $0.kind == screen.documentKind }.map(\.name)
      return documents.isEmpty ? nil : (screen.name, documents)
    }
  }

  /// A random session: 1–4 windows (two on one document often), then `options.steps` commands,
  /// each drawn against the session as the steps before it left it (so ids come from what its
  /// windows show), and checked as it runs.
  func generateAndCheck(_ random: inout SplitMix64) -> (Session, Outcome)? {
    guard !screens.isEmpty else { return nil }
    var windows: [WindowSeed] = []
    let here = SourceLocation(file: "<explore>", line: 1, column: 1)
    for index in 0..<random.below(4) + 1 {
      if let previous = windows.last, random.chance(40) {
        windows.append(
          WindowSeed(
            name: "w\(index + 1)", screen: previous.screen, document: previous.document, location: here))
        continue
      }
      let screen = screens[random.below(screens.count)]
      windows.append(
        WindowSeed(
          name: "w\(index + 1)", screen: screen.name,
          document: screen.documents[random.below(screen.documents.count)], location: here))
    }
    var session = Session(windows: windows, steps: [])
    // Where the second run is rebuilt: after every refusal, and after one step in eight, drawn
    // from a sequence of its own (the session's steps are those of a run without rebuilds).
    var plan = random
    var rebuildDraws = SplitMix64(seed: plan.next() ^ 0x7265_6275_696C_6473)
    // Whether the session ends with a move back in time and forward again, and how far.
    var travelDraws = SplitMix64(seed: plan.next() ^ 0x7472_6176_656C)
    let travel = travelDraws.chance(12) ? 1 + travelDraws.below(options.steps) : nil
    var guide = ExploreGuide()
    let outcome = run(
      windows: windows, steps: options.steps, covering: options.coverage, travel: travel,
      rebuildingAfter: { _, refused in
        guide.finished(refused: refused)
        return rebuildDraws.chance(12) || refused
      },
      next: { _, live, undoable in
        // Right after a change a window can undo, often its undo; after that undo, its redo.
        if let undoable, random.chance(undoable.undone ? 50 : 10) {
          let history: [String: ArgumentValue] = undoable.history == .view ? ["history": .text("view")] : [:]
          let step = DrawnStep(
            window: undoable.window, call: hostCall(undoable.undone ? "redo" : "undo", arguments: history))
          session.steps.append(step)
          return step
        }
        let window = windows[random.below(windows.count)]
        var step = DrawnStep(window: window.name, call: command(in: window, live: live, guide: &guide, &random))
        switch random.below(40) {
        // Now and then a step of the session's own: everything pending settles, or the session
        // is relaunched from what it saved.
        // (The command drawn then does not run: the guide is told nothing of it.)
        case 0:
          step = DrawnStep(window: nil, call: hostCall("settle"))
          guide.drop()
        case 1:
          step = DrawnStep(window: nil, call: hostCall("relaunch"))
          guide.drop()
        // Or the command is run from elsewhere, naming its window (`@w2 select 3`).
        case 2, 3: step = DrawnStep(window: nil, call: step.call)
        default: break
        }
        session.steps.append(step)
        return step
      })
    session.rebuilds = outcome.rebuiltAfter
    session.travel = travel.map { min($0, session.steps.count) }
    return (session, outcome)
  }

  /// The paths of the host's commands explore calls.
  static let hostPaths: [[String]] = [
    ["undo"], ["redo"], ["settle"], ["relaunch"], ["live"], ["clock", "advance"], ["travel", "back"],
    ["travel", "forward"],
  ]

  /// The host's command at `path` (`"travel", "back"`, one of `hostPaths`) as a call with
  /// `arguments`.
  func hostCall(_ path: String..., arguments: [String: ArgumentValue] = [:]) -> CommandCall {
    // A path not looked up is refused where it runs, as any unknown command is.
    let spec =
      hostSpecs[path.joined(separator: " ")] ?? CommandSpec(path.joined(separator: " "), summary: "") { _ in .nothing }
    return CommandCall(path: path, spec: spec, arguments: arguments)
  }

  /// How long a `clock advance` lets pass: a moment (10 ms to 5 s), or on the scale of the
  /// session's own timers (the next one exactly, twice it, ten times it) or of a day (a timer at
  /// midnight, a streak; not while a timer is due within 86.4 s), never past the horizon; a
  /// session at its horizon moves a millisecond.
  package func wait(in live: WorkbenchSession, _ random: inout SplitMix64) -> String {
    let moments = ["10ms", "250ms", "1s", "5s"]
    let left = options.horizon - live.host.clock.now
    guard random.chance(25) else { return random.pick(moments) }
    let day = Duration.seconds(86_400)
    let next = live.host.clock.untilNextTimer.flatMap { $0 > .zero ? $0 : nil }
    var scaled = next.map { [$0, $0 * 2, $0 * 10] } ?? []
    // A day, unless a timer is due so soon that a day would fire it, and what it sets again,
    // more than a thousand times: a window that ticks every second took 86,400 round trips to
    // its module in each run of a session.
    if next.map({ $0 * 1000 >= day }) ?? true { scaled.append(day) }
    let fitting = scaled.filter { $0 <= left }
    guard !fitting.isEmpty else { return left >= .seconds(5) ? random.pick(moments) : "1ms" }
    return "\(random.pick(fitting).wholeMilliseconds)ms"
  }

  /// A command for `window`: one of its screen's commands, `undo`/`redo`, or `clock advance`,
  /// with arguments drawn as values of their kinds. Guided (`Options.guided`), half the time a
  /// command not yet carried out in the state the window is in comes first (`ExploreGuide`).
  func command(
    in window: WindowSeed, live: WorkbenchSession, guide: inout ExploreGuide, _ random: inout SplitMix64
  ) -> CommandCall {
    func waiting() -> CommandCall {
      hostCall("clock", "advance", arguments: ["duration": .text(wait(in: live, &random))])
    }
    switch random.below(20) {
    case 0: return hostCall("undo")
    case 1: return hostCall("redo")
    case 2: return waiting()
    default: break
    }
    // Guided, time someone waits on (a load, a debounce) is let pass more often.
    if options.guided, random.chance(15), live.host.clock.pendingTimers > 0 { return waiting() }
    guard let specs = commands[window.screen], !specs.isEmpty else { return hostCall("undo") }
    let shown = options.guided ? live.host.window(named: window.name)?.frame ?? .null : .null
    var call: CommandCall
    if options.guided, random.chance(50), let all = choices[window.screen] {
      let place = ExploreGuide.place(of: shown, screen: window.screen)
      let untried = all.filter { guide.isUntried($0.name, at: place) }
      let choice = untried.isEmpty ? random.pick(all) : random.pick(untried)
      guide.chose(choice.name, at: place)
      call = CommandCall(path: choice.words, spec: choice.spec, target: .label(window.name))
    } else {
      let route = random.pick(specs)
      call = CommandCall(path: [route.name], spec: route, target: .label(window.name))
      if !route.subcommands.isEmpty {
        let sub = random.pick(route.subcommands)
        call.path.append(sub.name)
        call.spec = route.chosenSubcommand(sub.name) ?? sub
      }
      if options.guided {
        guide.chose(call.path.joined(separator: " "), at: ExploreGuide.place(of: shown, screen: window.screen))
      }
    }
    // What the window shows, found the first time an argument wants it.
    var found: (numbers: [Int], words: [String])?
    func values() -> (numbers: [Int], words: [String]) {
      if let found { return found }
      let made = ExploreGuide.values(in: shown)
      found = made
      return made
    }
    for (position, argument) in call.spec.arguments.enumerated() {
      if argument.isOptional, random.chance(35) { break }
      // Guided, now and then a value the window shows: an id in a row, a name.
      switch argument.kind {
      case .integer, .reference:
        if options.guided, random.chance(25), !values().numbers.isEmpty {
          let number = random.pick(values().numbers)
          call.arguments[argument.name] = Self.isWholeNumber(argument.kind) ? .integer(number) : .text(String(number))
          continue
        }
      case .word, .rest:
        if options.guided, random.chance(25), !values().words.isEmpty {
          call.arguments[argument.name] = .text(random.pick(values().words))
          continue
        }
      default: break
      }
      // What completion offers where the argument goes, in the session as it is.
      let partial = call
      let offered = {
        live.host.resolver.completions(
          of: live.host.resolver.partial(partial, at: position, in: live.host.directory), in: live.host.directory)
      }
      call.arguments[argument.name] = value(for: argument, offered: offered, &random)
    }
    return call
  }

  /// Whether an argument of `kind` is a whole number as a value (a number, not a word).
  static func isWholeNumber(_ kind: ArgumentKind) -> Bool {
    if case .integer = kind { return true }
    return false
  }

  /// A value of an argument's kind: numbers across and at the edges of their range, choices,
  /// ids and windows the session has (the resolver's completion), words.
  func value(for argument: ArgumentSpec, offered candidates: () -> [String], _ random: inout SplitMix64)
    -> ArgumentValue
  {
    // Asked only for the kinds that take what the session offers (a reference's ids are read
    // from the window's model).
    var offered: [String] { candidates() }
    switch argument.kind {
    case .integer(let range):
      let bounds = range ?? -5...1000
      let near: [Int] = [bounds.lowerBound, bounds.upperBound, 0, 1, 2, 3].filter { bounds.contains($0) }
      // Completion offers no whole numbers; the draw is kept, so a seed makes the sessions it made.
      _ = random.chance(60)
      if random.chance(50), !near.isEmpty { return .integer(random.pick(near)) }
      return .integer(Int.random(in: bounds, using: &random))
    case .reference:
      let offered = offered
      return .text(random.chance(90) && !offered.isEmpty ? random.pick(offered) : random.pick(["0", "999999", "x"]))
    case .choice, .window, .windowOr, .document, .screen, .command:
      let offered = offered
      return .text(offered.isEmpty ? "x" : random.pick(offered))
    case .duration:
      return .text(random.pick(["1ms", "100ms", "1s", "30s"]))
    case .word, .rest, .file:
      return .text(random.pick(["the", "a", "Dune", "x y", "42", "Война", ""]))
    }
  }
}
