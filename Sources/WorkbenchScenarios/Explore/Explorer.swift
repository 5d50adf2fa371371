import WorkbenchCore
import WorkbenchScenarioFormat
import WorkbenchSession

/// Random sessions against the loaded modules, built from what they declare: windows on their
/// screens and sample documents, commands from each window's specs, arguments from their kinds
/// (ids from what the window shows, through the resolver's completion). After every step,
/// properties that hold for any module are checked; a session that breaks one is shrunk to a
/// small scenario that fails the same way under `workbench run`.
@MainActor
public struct Explorer {
  /// What to explore, and how much.
  public struct Options: Sendable {
    /// Where the random sequence starts: the same seed, modules and options give the same
    /// sessions.
    public var seed: UInt64 = 1
    /// How many sessions at most.
    public var runs = 100
    /// How long the whole run may take, shrinking included (checked between the steps of a
    /// session and between shrinking's tries); `nil`: no limit. The sessions are the same as
    /// without it, in the same order: a slower machine runs fewer.
    public var time: Duration? = nil
    /// Commands in each session.
    public var steps = 30
    /// The screens to open windows on; every screen with a sample document when empty.
    public var screens: [String] = []
    /// The modules' own rules: what every window on a screen shows after every step.
    public var invariants: [Invariant] = []
    /// The command line that runs this exploration (`workbench --without-builtin ledger explore
    /// --module ./notes.py --screens notes`), without `--seed` and `--runs`, which the file's
    /// heading adds: pasted, it finds the same failure. `nil`: `workbench explore`.
    public var command: String?
    /// Whether to keep what the sessions covered (`--coverage`).
    public var coverage = false

    public init() {}
  }

  /// A generated session: its windows and its steps (one command a line), and after which
  /// steps (0-based) the second run is rebuilt from its documents and view state.
  public struct Session: Sendable {
    public var windows: [WindowSeed]
    public var steps: [(window: String?, line: String)]
    /// The steps after which the second run's windows are opened again from their documents and
    /// view states (`reopen`; the first run's are not), in order.
    public var rebuilds: [Int] = []

    /// A session of `windows` running `steps`, whose second run is rebuilt after `rebuilds`.
    public init(windows: [WindowSeed], steps: [(window: String?, line: String)], rebuilds: [Int] = []) {
      self.windows = windows
      self.steps = steps
      self.rebuilds = rebuilds
    }

    /// The session without the steps `range` holds (rebuilds after them go too; later ones move).
    func removingSteps(_ range: Range<Int>) -> Session {
      removingSteps { range.contains($0) }
    }

    /// The session without the steps whose index `isRemoved`, its rebuilds moved with them: a
    /// rebuild after a step taken out comes after the last step kept before it (none before it:
    /// it goes).
    func removingSteps(where isRemoved: (Int) -> Bool) -> Session {
      var session = Session(windows: windows, steps: [])
      // For each step, the place of the last step kept up to it (-1: none yet).
      var place: [Int] = []
      for (index, step) in steps.enumerated() {
        if !isRemoved(index) { session.steps.append(step) }
        place.append(session.steps.count - 1)
      }
      var moved: [Int] = []
      for rebuild in rebuilds where rebuild < place.count && place[rebuild] >= 0 {
        if moved.last != place[rebuild] { moved.append(place[rebuild]) }
      }
      session.rebuilds = moved
      return session
    }
  }

  /// A property a session broke: which, after which step (0-based), and what was seen.
  public struct Failure: Sendable, Equatable {
    public enum Property: String, Sendable {
      case staysUp = "the host and its modules stay up"
      case refusalChangesNothing = "a refused command changes nothing"
      case replaysEqual = "a session replays with equal frames"
      case windowsAgree = "windows on one document agree after settle"
      case always = "every window meets its screen's always: expectation"
      case rebuiltIsSame = "a window rebuilt from its document and view state is the same window"
      case implementationsAgree = "two implementations of a screen agree"
      case undoRestores = "after undo a window shows what it showed before the command undone"
      case redoRestores = "after redo a window shows what it showed after the command redone"
    }
    public var property: Property
    public var step: Int
    public var detail: String
    /// The windows it is about: the one whose frame broke an `always:` expectation; the two
    /// that disagree.
    public var windows: [String] = []
  }

  /// What a run of explore found: how many sessions and steps ran, and the first failure with
  /// its shrunk session.
  public struct Report: Sendable {
    public var sessions = 0
    public var steps = 0
    /// Steps whose command was refused (a word out of range, an id not there, a rule kept).
    public var refused = 0
    public var checks = 0
    /// How many times a session's second run was rebuilt from its documents and view state.
    public var rebuilds = 0
    /// How many undos and redos were compared with the change they take back or bring back.
    public var historyChecks = 0
    /// What the sessions covered, with `Options.coverage`.
    public var coverage = ExploreCoverage()
    public var failure: Failure?
    public var original: Session?
    public var shrunk: Session?
    public var failingSeed: UInt64?
    /// The number of the failing session (0-based): `--runs` one more finds it again.
    public var failingRun: Int?
    /// What `--time` cut short, in words (`nil`: nothing): the last session, or the shrinking.
    public var cutShort: String?
    /// What else the run has to say about itself (a worker process that died, and what became of
    /// its sessions).
    public var notes: [String] = []

    /// Nothing run yet.
    public init() {}

    /// Counts a session's steps, refusals and checks.
    public mutating func add(_ outcome: Outcome) {
      sessions += 1
      steps += outcome.stepsRun
      refused += outcome.refused
      checks += outcome.checks
      rebuilds += outcome.rebuiltAfter.count
      historyChecks += outcome.historyChecks
      coverage.add(outcome.coverage)
    }
  }

  let registry: ModuleRegistry
  /// `--against`: the modules the second run of each session runs on instead (one module in
  /// the place of the one that registers the same screens), and what to call it.
  let against: (registry: ModuleRegistry, name: String)?
  let options: Options
  /// When the run's time (`options.time`) is up, counted from when the explorer was made.
  let deadline: ContinuousClock.Instant?
  /// The `always:` expectations by screen, each with its expected frame (made once, not at
  /// every step).
  let invariants: [String: [(invariant: Invariant, expected: FrameValue)]]
  /// Each screen's module's own commands (those its screen adds to the host's), found once.
  let commands: [String: [CommandSpec]]
  /// The screens whose windows open again from their document and view state without asking
  /// the outside world anything or starting work (a ledger feed fetches its rows again as it
  /// opens, which a run whose window stayed open does not): sessions whose windows are all on
  /// these are rebuilt and compared (`rebuiltIsSame`); the others only by `relaunch` steps.
  let rebuildable: Set<String>
  /// With `Options.coverage`: each screen's module, and the screens with a state machine.
  let modules: [String: String]
  let machineScreens: Set<String>

  /// An explorer of the modules `registry` holds; with `against`, the second run of each
  /// session runs on those modules instead, and must show what the first shows.
  public init(registry: ModuleRegistry, options: Options, against: (registry: ModuleRegistry, name: String)? = nil) {
    self.registry = registry
    self.against = against
    self.options = options
    self.deadline = options.time.map { ContinuousClock.now + $0 }
    self.invariants = Dictionary(grouping: options.invariants.map { ($0, $0.expected.frameValue) }, by: \.0.screen)
    let hostNames = Set(registry.router.names(forScreen: nil))
    var commands: [String: [CommandSpec]] = [:]
    for screen in registry.screens {
      commands[screen.name] = registry.router.names(forScreen: screen.name).filter { !hostNames.contains($0) }
        .compactMap { name in
          guard case .success(let route) = registry.router.route(name, screen: screen.name) else { return nil }
          // A command of the module for another of its screens is not this window's.
          if case .window(let screens) = route.spec.scope, !screens.contains(screen.name) { return nil }
          return route.spec
        }
    }
    self.commands = commands
    var modules: [String: String] = [:]
    var machineScreens: Set<String> = []
    if options.coverage {
      for screen in registry.screens {
        modules[screen.name] = registry.module(ofScreen: screen.name)
        if ExploreCoverage.machine(of: screen.name, in: registry) != nil { machineScreens.insert(screen.name) }
      }
    }
    self.modules = modules
    self.machineScreens = machineScreens
    // Two implementations side by side are compared as they are: no window is opened again.
    self.rebuildable = against == nil ? Self.screensRebuiltQuietly(registry: registry) : []
  }

  /// Counts what a step covered: the module command it ran (and its arguments' edges), and the
  /// state every window on a screen with a state machine moved to.
  private func cover(
    _ step: (window: String?, line: String), target: String?, refused: Bool,
    before: [String: (stamp: Int?, frame: FrameValue)], in session: WorkbenchSession, _ outcome: inout Outcome
  ) {
    var ranIn: String?
    if let target, let window = session.host.window(named: target), let module = modules[window.screen.name],
      outcome.coverage.ran(
        Self.words(of: step), screen: window.screen.name, module: module, commands: commands[window.screen.name] ?? [],
        refused: refused), !refused
    {
      ranIn = window.label
    }
    for window in session.host.windows where machineScreens.contains(window.screen.name) {
      guard let module = modules[window.screen.name] else { continue }
      outcome.coverage.observed(
        screen: window.screen.name, module: module, before: before[window.label]?.frame, after: window.frame,
        ranHere: ranIn == window.label)
    }
  }

  /// What `report` covered as JSON (docs/coverage.schema.json), on the screens explored.
  public func coverageJSON(of report: Report) -> FrameValue {
    let json = report.coverage.json(registry: registry, screens: screens.map(\.name), commands: commands)
    guard case .object(let object) = json else { return json }
    return .object(
      FrameObject(
        members: [("sessions", .integer(report.sessions)), ("steps", .integer(report.steps))] + object.members))
  }

  /// The screens explored whose windows are not opened again (`rebuildable` lacks them), by name.
  public var screensNotReopened: [String] {
    against == nil ? screens.map(\.name).filter { !rebuildable.contains($0) } : []
  }

  /// The screens (with a sample document) whose window, settled and opened again in place,
  /// asks no fact and starts no timer as it opens again.
  static func screensRebuiltQuietly(registry: ModuleRegistry) -> Set<String> {
    var quiet: Set<String> = []
    let samples = registry.sampleDocuments
    let here = SourceLocation(file: "<explore>", line: 1, column: 1)
    // A module with live sources changes what it shows on its own, in real time: a window opened
    // again may show a change the other run has not taken in yet.
    let live = registry.modulesWithLiveSources
    for screen in registry.screens where !live.contains(registry.module(ofScreen: screen.name) ?? "") {
      guard let document = samples.first(where: { $0.kind == screen.documentKind }) else { continue }
      let window = WindowSeed(name: "w1", screen: screen.name, document: document.name, location: here)
      guard
        let session = try? WorkbenchSession.starting(
          Scenario(name: "probe", location: here, windows: [window], steps: []), registry: registry)
      else { continue }
      defer {
        session.end()
        session.finish()
      }
      guard (try? session.host.clock.settle(within: .seconds(60), flush: session.host.services.scheduler)) != nil,
        session.host.clock.pendingTimers == 0
      else { continue }
      session.facts.startRecording(capturingStates: false)
      guard session.host.reopenWindows(session.host.windows.map(\.id)).isEmpty else { continue }
      if session.host.clock.pendingTimers == 0, session.facts.takeRecorded().isEmpty,
        session.takeIncidents().isEmpty
      {
        quiet.insert(screen.name)
      }
    }
    return quiet
  }

  /// Runs `options.runs` sessions (each from its own seed, derived from the run's), stops at the
  /// first that breaks a property and shrinks it. `progress` hears after each session.
  public func explore(progress: (Report) -> Void = { _ in }) -> Report {
    var report = Report()
    let failing = explore(part: 0, of: 1) { run, outcome in
      report.add(outcome)
      if outcome.cutShort { report.cutShort = Self.sessionCutShort(run: run, outcome: outcome) }
      if outcome.failure == nil { progress(report) }
    }
    if let (run, session, failure) = failing {
      report.failingSeed = seed(ofRun: run)
      report.failingRun = run
      report = shrunk(report, session: session, failure: failure)
    }
    progress(report)
    return report
  }

  /// Runs the sessions numbered `part`, `part + parts`, … (0-based, of `options.runs`), each
  /// told to `each` as it ends, until one breaks a property; returns its number, the session
  /// and what it broke. Each session's seed depends only on its number, so parts run apart find
  /// what one run finds.
  public func explore(
    part: Int, of parts: Int, from first: Int = 0, before end: Int = .max, each: (_ run: Int, Outcome) -> Void
  ) -> (
    run: Int, session: Session, failure: Failure
  )? {
    var seeds = SplitMix64(seed: options.seed)
    for run in 0..<min(options.runs, end) {
      let seed = seeds.next()
      guard run % parts == part, run >= first else { continue }
      if isOutOfTime { break }
      var random = SplitMix64(seed: seed)
      guard let (session, outcome) = generateAndCheck(&random) else { break }
      each(run, outcome)
      if let failure = outcome.failure { return (run, session, failure) }
      if outcome.cutShort { break }
    }
    return nil
  }

  /// Whether the run's time (`--time`) is up.
  var isOutOfTime: Bool { deadline.map { ContinuousClock.now >= $0 } ?? false }

  /// What a session cut short by `--time` says.
  static func sessionCutShort(run: Int, outcome: Outcome) -> String {
    "--time ran out in session \(run + 1), after \(outcome.stepsRun) of its steps (they are counted)"
  }

  /// The sessions numbered `0..<count` as explore generates them (the first that breaks a
  /// property ends the list): what `runOnce` runs, to measure what the checks cost.
  public func sessions(_ count: Int) -> [Session] {
    var sessions: [Session] = []
    for run in 0..<count {
      var random = SplitMix64(seed: seed(ofRun: run))
      guard let (session, outcome) = generateAndCheck(&random) else { break }
      sessions.append(session)
      if outcome.failure != nil { break }
    }
    return sessions
  }

  /// Runs a session's steps once through one host, checking nothing: the floor explore's
  /// checks are measured against.
  public func runOnce(_ session: Session) {
    guard let live = try? start(session) else { return }
    defer { live.end() }
    for step in session.steps { try? live.run(step.line, in: step.window, frontEnd: QuietFrontEnd()) }
  }

  /// The seed of session number `run`.
  func seed(ofRun run: Int) -> UInt64 {
    var seeds = SplitMix64(seed: options.seed)
    for _ in 0..<run { _ = seeds.next() }
    return seeds.next()
  }

  /// `report` with session number `run` generated again, its failure found and shrunk. A
  /// session that does not fail again is reported as it failed the first time (`detail`), with
  /// nothing to shrink.
  public func finish(_ report: Report, failingRun run: Int, detail: String? = nil) -> Report {
    var report = report
    let seed = seed(ofRun: run)
    var random = SplitMix64(seed: seed)
    report.failingSeed = seed
    report.failingRun = run
    guard let (session, outcome) = generateAndCheck(&random), let failure = outcome.failure else {
      report.failure = Failure(
        property: .replaysEqual, step: 0,
        detail: "session \(run + 1) failed (\(detail ?? "in another process")), and passed when generated again: "
          + "the modules do not behave the same on every run")
      return report
    }
    return shrunk(report, session: session, failure: failure)
  }

  /// `report` with its failure: `session`, what it broke, and the session shrunk.
  func shrunk(_ report: Report, session: Session, failure: Failure) -> Report {
    var report = report
    report.original = session
    let (shrunk, tries, cut) = shrinkWithinTime(session, failing: failure)
    report.shrunk = shrunk
    if cut {
      report.cutShort =
        "--time ran out while shrinking, after \(tries) tr\(tries == 1 ? "y" : "ies"): the file holds the smallest "
        + "session found by then (\(shrunk.steps.count) of \(session.steps.count) steps)"
      report.failure = failure
      if let step = shrunkStep(shrunk, original: session, failure: failure) { report.failure?.step = step }
      return report
    }
    report.failure = check(shrunk).failure ?? failure
    return report
  }

  // MARK: Generating

  /// The screens windows open on, each with the sample documents of its kind.
  var screens: [(name: String, documents: [String])] {
    let samples = registry.sampleDocuments
    return registry.screens.compactMap { screen in
      guard options.screens.isEmpty || options.screens.contains(screen.name) else { return nil }
      let documents = samples.filter { $0.kind == screen.documentKind }.map(\.name)
      return documents.isEmpty ? nil : (screen.name, documents)
    }
  }

  /// A random session: 1–4 windows (two on one document often), then `options.steps` commands,
  /// each drawn against the session as the steps before it left it (so ids come from what its
  /// windows show), and checked as it runs.
  func generateAndCheck(_ random: inout SplitMix64) -> (Session, Outcome)? {
    let screens = self.screens
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
    let outcome = run(
      windows: windows, steps: options.steps,
      rebuildingAfter: { _, refused in rebuildDraws.chance(12) || refused },
      next: { _, live, undoable in
        // Right after a change a window can undo, often its undo; after that undo, its redo.
        if let undoable, random.chance(undoable.undone ? 50 : 10) {
          let step: (window: String?, line: String) = (
            undoable.window, (undoable.undone ? "redo" : "undo") + (undoable.history == .view ? " view" : "")
          )
          session.steps.append(step)
          return step
        }
        let window = windows[random.below(windows.count)]
        var step: (window: String?, line: String) = (window.name, command(in: window, live: live, &random))
        switch random.below(40) {
        // Now and then a step of the session's own: everything pending settles, or the session
        // is relaunched from what it saved.
        case 0: step = (nil, "settle")
        case 1: step = (nil, "relaunch")
        // Or the command is run from elsewhere, naming its window (`@w2 select 3`).
        case 2, 3: step = (nil, "@\(window.name) " + step.line)
        default: break
        }
        session.steps.append(step)
        return step
      })
    session.rebuilds = outcome.rebuiltAfter
    return (session, outcome)
  }

  /// A command line for `window`: one of its screen's commands, `undo`/`redo`, or `clock
  /// advance`, with arguments drawn from their kinds.
  func command(in window: WindowSeed, live: WorkbenchSession, _ random: inout SplitMix64) -> String {
    switch random.below(20) {
    case 0: return "undo"
    case 1: return "redo"
    case 2: return "clock advance " + random.pick(["10ms", "250ms", "1s", "5s"])
    default: break
    }
    guard let specs = commands[window.screen], !specs.isEmpty else { return "undo" }
    let route = random.pick(specs)
    var words = [route.name]
    var spec = route
    if !spec.subcommands.isEmpty {
      spec = random.pick(spec.subcommands)
      words.append(spec.name)
    }
    for argument in spec.arguments {
      if argument.isOptional, random.chance(35) { break }
      let typed = "@\(window.name) " + words.joined(separator: " ") + " "
      words.append(value(for: argument, typed: typed, live: live, &random))
    }
    return words.map(CommandTokenizer.quoted).joined(separator: " ")
  }

  /// A value of an argument's kind: numbers across and at the edges of their range, choices,
  /// ids and windows the session has (the resolver's completion), words.
  func value(for argument: ArgumentSpec, typed: String, live: WorkbenchSession, _ random: inout SplitMix64)
    -> String
  {
    // Asked only for the kinds that take what the session offers (it costs a resolve).
    var offered: [String] { live.host.completions(for: typed) }
    switch argument.kind {
    case .integer(let range):
      let bounds = range ?? -5...1000
      let near: [Int] = [bounds.lowerBound, bounds.upperBound, 0, 1, 2, 3].filter { bounds.contains($0) }
      if random.chance(60) {
        let offered = offered
        if !offered.isEmpty { return random.pick(offered) }
      }
      if random.chance(50), !near.isEmpty { return String(random.pick(near)) }
      return String(Int.random(in: bounds, using: &random))
    case .reference:
      let offered = offered
      return random.chance(90) && !offered.isEmpty ? random.pick(offered) : random.pick(["0", "999999", "x"])
    case .choice, .window, .windowOr, .document, .screen:
      let offered = offered
      return offered.isEmpty ? "x" : random.pick(offered)
    case .duration:
      return random.pick(["1ms", "100ms", "1s", "30s"])
    case .word, .rest:
      return random.pick(["the", "a", "Dune", "x y", "42", "Война", ""])
    }
  }

  // MARK: Checking

  /// What running a session found.
  public struct Outcome: Sendable {
    public var failure: Failure?
    public var stepsRun = 0
    public var refused = 0
    public var checks = 0
    /// Whether `--time` ran out before the session's last step.
    public var cutShort = false
    /// What the session covered, with `Options.coverage`.
    public var coverage = ExploreCoverage()
    /// The steps after which the second run was rebuilt from its documents and view state.
    public var rebuiltAfter: [Int] = []
    /// Undos and redos compared with what the window showed before or after the change.
    public var historyChecks = 0
    /// Rebuilds after which a window asked the outside world for something as it opened again,
    /// so the session's checks ended there.
    public var inconclusiveRebuilds = 0
  }

  /// A fresh session set up as `session` begins.
  func start(_ session: Session, on registry: ModuleRegistry? = nil) throws(CommandError) -> WorkbenchSession {
    try WorkbenchSession.starting(scenario(of: session, steps: 0), registry: registry ?? self.registry)
  }

  /// Runs a session twice, checking after every step that nothing crashed or was reported,
  /// that a refused command left every frame and document as they were, and that the second
  /// run, a replay of the first's recording, shows the first's frames.
  public func check(_ session: Session) -> Outcome {
    let rebuilds = Set(session.rebuilds)
    return run(
      windows: session.windows, steps: session.steps.count, rebuildingAfter: { index, _ in rebuilds.contains(index) },
      next: { index, _, _ in session.steps[index] })
  }

  /// Runs `count` steps, each given by `next` (its index, and the first run's session as the
  /// steps before left it), on two sessions side by side, checking after each.
  private func run(
    windows: [WindowSeed], steps count: Int, rebuildingAfter rebuilds: (_ step: Int, _ refused: Bool) -> Bool,
    next: (Int, WorkbenchSession, Undoable?) -> (window: String?, line: String)
  ) -> Outcome {
    var outcome = Outcome()
    let session = Session(windows: windows, steps: [])
    guard let first = try? start(session), let second = try? start(session, on: against?.registry) else {
      outcome.failure = Failure(property: .staysUp, step: 0, detail: "the session could not be set up")
      return outcome
    }
    defer {
      first.end()
      second.end()
    }
    // The second run replays the first: every fact the first takes from outside (an answer, a
    // service's state, a live source's change) is kept, and served to the second at the same
    // step, so the two differ only where the module itself does.
    // Two implementations (`--against`) each ask their own simulated world, live: one may ask
    // a fact a step earlier than the other, which a recording replayed whole allows.
    if against == nil {
      first.facts.startRecording(capturingStates: false)
      second.facts.startReplaying()
    }
    if options.coverage {
      for window in first.host.windows {
        guard let module = modules[window.screen.name] else { continue }
        outcome.coverage.opened(
          screen: window.screen.name, module: module, hasMachine: machineScreens.contains(window.screen.name),
          frame: window.frame)
      }
    }
    // Each window's frame stamp when its frames were last compared: a window whose stamp
    // stayed in both runs shows what it showed then, and is not compared again.
    var compared: [String: (first: Int, second: Int)] = [:]
    // Once the second run has been rebuilt, a difference between the runs is the rebuild's,
    // and what a window counts of its own life, or shows of a refusal, may differ.
    var rebuilt = false
    // Two implementations may differ in what a window counts of its life and what it loaded.
    var ignored: (Window) -> [String] =
      against == nil ? { _ in [] } : { $0.screen.lifetimeFields + $0.screen.ownFields }
    // The last step's change that `undo` (or `undo view`) in its window takes back next.
    var undoable: Undoable?
    var historyChecked = false
    for index in 0..<count {
      if isOutOfTime {
        outcome.cutShort = true
        return outcome
      }
      // What live sources said since the last step comes in first (as before an expectation),
      // so the frames before a step are those the step starts from.
      let liveTaken = first.facts.liveChangesTaken.count
      first.host.services.takeWaitingLiveChanges()
      let step = next(index, first, undoable)
      // The window the step runs in, and its view state before, for the undo properties.
      let target = Self.window(of: step)
      let viewBefore = target.flatMap { first.host.window(named: $0) }?.viewStateSnapshot
      let before = Self.stampedFrames(of: first.host)
      let revisionsBefore = first.host.documentRevisions.mapValues(\.revision)
      var refusal: CommandError?
      do {
        try first.run(step.line, in: step.window, frontEnd: QuietFrontEnd())
      } catch {
        refusal = error
      }
      // What the first took in from live sources (before the step, or as its line began), the
      // second takes in before it too: the first's, not what its own sources say.
      if against == nil {
        second.facts.serve(first.facts.takeRecorded())
        for _ in liveTaken..<max(liveTaken, first.facts.liveChangesTaken.count) {
          second.host.services.takeLiveChanges()
        }
      } else {
        second.host.services.takeWaitingLiveChanges()
      }
      var secondRefusal: CommandError?
      do {
        try second.run(step.line, in: step.window, frontEnd: QuietFrontEnd())
      } catch {
        secondRefusal = error
      }
      outcome.stepsRun += 1
      if options.coverage { cover(step, target: target, refused: refusal != nil, before: before, in: first, &outcome) }
      let revisionsAfter = first.host.documentRevisions.mapValues(\.revision)
      let differs: Failure.Property =
        against != nil ? .implementationsAgree : rebuilt ? .rebuiltIsSame : .replaysEqual
      // Where the second run differs from the first, in words.
      let differsWhere =
        against.map { " with \($0.name) in its place" }
        ?? (rebuilt ? " in the run rebuilt from the same documents and view state" : " in a replay of it")
      // A module that stopped (crashed, hung, broke the protocol) is no refusal.
      let stopped = [refusal, secondRefusal].compactMap { $0 }.filter { $0.stoppedModule != nil }.map(\.message)
      let incidents = stopped + first.takeIncidents() + second.takeIncidents()
      outcome.checks += 3
      if let incident = incidents.first {
        outcome.failure = Failure(property: .staysUp, step: index, detail: incident)
        return outcome
      }
      // Refused in one run and not in the other: said before what followed from it.
      if (refusal == nil) != (secondRefusal == nil) || (against == nil && refusal?.message != secondRefusal?.message) {
        outcome.failure = Failure(
          property: differs, step: index,
          detail: "`\(step.line)` " + Self.outcome(of: refusal) + " in one run, and "
            + Self.outcome(of: secondRefusal) + differsWhere)
        return outcome
      }
      if let divergence = second.facts.divergence {
        outcome.failure = Failure(
          property: against == nil ? .replaysEqual : .implementationsAgree, step: index,
          detail: "after `\(step.line)`, a replay of the session's recording went another way"
            + (against.map { " with \($0.name) in its module's place" } ?? "") + ": \(divergence)")
        return outcome
      }
      if refusal?.message != secondRefusal?.message {
        outcome.failure = Failure(
          property: differs, step: index,
          detail: "`\(step.line)` " + Self.outcome(of: refusal) + " in one run, and "
            + Self.outcome(of: secondRefusal) + differsWhere)
        return outcome
      }
      if refusal != nil { outcome.refused += 1 }
      // A command that failed after doing part of its work, as its help says it may (`settle`
      // past its limit), is not a refusal: what it did stays.
      if let refusal, !refusal.isPartial {
        // What a screen shows about a refusal (its refusal fields) may change; nothing else.
        let changedWindow = first.host.windows.first { window in
          guard let was = before[window.label] else { return true }
          if let stamp = window.frameStamp, stamp == was.stamp { return false }
          let allowed = window.screen.refusalFields
          return Self.withoutFields(allowed, window.frame) != Self.withoutFields(allowed, was.frame)
        }
        if let changed = changedWindow {
          outcome.failure = Failure(
            property: .refusalChangesNothing, step: index,
            detail: "`\(step.line)` was refused (\(refusal.message)) and window \(changed.label)'s frame changed")
          return outcome
        }
        if revisionsAfter != revisionsBefore {
          outcome.failure = Failure(
            property: .refusalChangesNothing, step: index,
            detail: "`\(step.line)` was refused (\(refusal.message)) and a document's revision moved")
          return outcome
        }
      }
      if revisionsAfter != second.host.documentRevisions.mapValues(\.revision) {
        outcome.failure = Failure(
          property: differs, step: index,
          detail: "after `\(step.line)`, the documents' revisions are "
            + Self.revisions(first.host) + " in one run and " + Self.revisions(second.host) + differsWhere)
        return outcome
      }
      let replayed = second.host.windows
      let original = first.host.windows
      guard original.map(\.label) == replayed.map(\.label) else {
        outcome.failure = Failure(
          property: differs, step: index,
          detail: "after `\(step.line)`, the windows are \(original.map(\.label)) in one run and "
            + "\(replayed.map(\.label)) in a replay of the same steps")
        return outcome
      }
      for (one, other) in zip(original, replayed) {
        if let stamps = compared[one.label], let a = one.frameStamp, let b = other.frameStamp,
          stamps == (a, b)
        {
          continue
        }
        let frame = one.frame
        let again = other.frame
        if Self.withoutFields(ignored(one), frame) != Self.withoutFields(ignored(one), again) {
          outcome.failure = Failure(
            property: differs, step: index,
            detail: against.map { against in
              "after `\(step.line)`, window \(one.label) shows another frame with \(against.name) in its module's place"
                + Self.difference(
                  Self.withoutFields(ignored(one), frame), Self.withoutFields(ignored(one), again),
                  first: "with the module explored", second: "with \(against.name)")
            }
              ?? (rebuilt
                ? "after `\(step.line)`, window \(one.label) shows another frame where the windows were opened again "
                  + "from their documents and view states (`reopen`)"
                  + Self.difference(
                    Self.withoutFields(ignored(one), frame), Self.withoutFields(ignored(one), again),
                    first: "where they stayed open", second: "where they were opened again")
                : "after `\(step.line)`, window \(one.label) shows another frame in a replay of the same steps"
                  + Self.difference(frame, again)),
            windows: [one.label])
          return outcome
        }
        // The module's own rules, on a frame that moved.
        for (invariant, expected) in invariants[one.screen.name] ?? [] {
          outcome.checks += 1
          let problems = FrameMatcher.differences(expected: expected, actual: frame)
          if let problem = problems.first {
            outcome.failure = Failure(
              property: .always, step: index,
              detail: "after `\(step.line)`, window \(one.label) does not meet the always: expectation of "
                + "\(one.screen.name) (\(invariant.location)): \(one.label).\(problem)",
              windows: [one.label])
            return outcome
          }
        }
        if let a = one.frameStamp, let b = other.frameStamp { compared[one.label] = (a, b) }
      }
      if step.window == nil, step.line == "settle", refusal == nil, let disagreement = Self.disagreement(in: first.host)
      {
        outcome.checks += 1
        outcome.failure = Failure(
          property: .windowsAgree, step: index,
          detail: "after `settle`, windows \(disagreement.0) and \(disagreement.1) show one document with one view "
            + "state, and different frames" + disagreement.difference,
          windows: [disagreement.0, disagreement.1])
        return outcome
      }
      // Undo shows what the window showed before the command it undoes, and redo what it showed
      // after, when the undo comes right after a command that changed only the document (or
      // only the window's view state) and nothing else moved in between.
      let (found, next) = checkHistory(
        step: step, index: index, target: target, undoable: undoable, refused: refusal != nil, host: first.host,
        before: before, viewBefore: viewBefore, revisionsBefore: revisionsBefore, revisionsAfter: revisionsAfter,
        historyChecked: &historyChecked)
      undoable = next
      if historyChecked {
        outcome.historyChecks += 1
        historyChecked = false
      }
      if let found {
        outcome.checks += 1
        outcome.failure = found
        return outcome
      }
      // The seed's first rule: a window is its document and its view state. After a refusal,
      // and at steps the session chose, the second run's windows are made again from their
      // documents and view states (`reopen`: new screen models, a module process told the
      // windows closed and opened) and must show what the first shows, then and at every later
      // step.
      guard rebuilds(index, refusal != nil), canReopen(first), Self.timers(first) == Self.timers(second) else {
        continue
      }
      if let problem = second.host.reopenWindows(second.host.windows.map(\.id)).first {
        outcome.failure = Failure(
          property: .rebuiltIsSame, step: index,
          detail: "after `\(step.line)`, \(problem)")
        return outcome
      }
      outcome.rebuiltAfter.append(index)
      if let incident = second.takeIncidents().first {
        outcome.failure = Failure(property: .staysUp, step: index, detail: incident)
        return outcome
      }
      // A window that asked the outside world for something as it opened again (which the
      // first run, whose windows stayed open, did not ask) cannot be compared from here.
      if second.facts.divergence != nil || Self.timers(first) != Self.timers(second) {
        outcome.inconclusiveRebuilds += 1
        return outcome
      }
      rebuilt = true
      compared = [:]
      ignored = { $0.screen.lifetimeFields + $0.screen.refusalFields }
      outcome.checks += 1
      for (one, other) in zip(first.host.windows, second.host.windows) {
        let frame = Self.withoutFields(ignored(one), one.frame)
        let again = Self.withoutFields(ignored(one), other.frame)
        if one.label != other.label || frame != again {
          outcome.failure = Failure(
            property: .rebuiltIsSame, step: index,
            detail: "after `\(step.line)`, window \(one.label) opened again from its document and view state "
              + "(`reopen`) shows another frame"
              + Self.difference(frame, again, first: "before", second: "opened again"),
            windows: [one.label])
          return outcome
        }
      }
    }
    return outcome
  }

  /// A change the last step made in one window that `undo` takes back: what the window showed
  /// before and after it, and whether it has been undone (then `redo` brings it back).
  struct Undoable {
    enum History { case document, view }
    var window: String
    var history: History
    var before: FrameValue
    var after: FrameValue
    /// The document's revision before the change and after it.
    var revisionBefore: Int
    var revisionAfter: Int
    /// The revision of the window's document after the change (or after its undo).
    var revision: Int
    var undone = false
  }

  /// Two frames without the top-level fields that show the document's revision (an undo is a
  /// new revision, so such a field moves on): those holding `expected` in the first and `now`
  /// in the second.
  static func withoutRevisionFields(_ first: FrameValue?, _ second: FrameValue?, expected: Int, now: Int) -> (
    FrameValue?, FrameValue?
  ) {
    guard case .object(let one)? = first, case .object(let other)? = second else { return (first, second) }
    let moved = one.members.filter { $0.value == .integer(expected) && other[$0.key] == .integer(now) }.map(\.key)
    return (withoutFields(moved, first), withoutFields(moved, second))
  }

  /// The window a step runs in, by label: its own, or the one its line names (`@w2 undo`).
  static func window(of step: (window: String?, line: String)) -> String? {
    if let window = step.window { return window }
    guard let commands = try? CommandTokenizer.commands(in: step.line), commands.count == 1 else { return nil }
    return commands[0].windowPrefix.window
  }

  /// A step's words after its `@WINDOW`, for telling `undo`, `undo view`, `redo` apart.
  static func words(of step: (window: String?, line: String)) -> [String] {
    guard let commands = try? CommandTokenizer.commands(in: step.line), commands.count == 1 else { return [] }
    return commands[0].windowPrefix.rest.map(\.text)
  }

  /// Checks an `undo` or `redo` against the change it takes back or brings back; returns what
  /// broke (or `nil`) and the change the next step may undo or redo.
  private func checkHistory(
    step: (window: String?, line: String), index: Int, target: String?, undoable: Undoable?, refused: Bool,
    host: Host, before: [String: (stamp: Int?, frame: FrameValue)], viewBefore: ViewStateSnapshot?,
    revisionsBefore: [String: Int], revisionsAfter: [String: Int], historyChecked: inout Bool
  ) -> (Failure?, Undoable?) {
    // Work under way (a load a search started, a timer) lands later, and is not the history's:
    // a change that leaves some, or an undo that starts some, is not compared.
    guard let target, let window = host.window(named: target), host.clock.pendingTimers == 0 else { return (nil, nil) }
    let words = Self.words(of: step)
    // What a window loaded is its own (`ownFields`), not its history's.
    let ignored = window.screen.lifetimeFields + window.screen.refusalFields + window.screen.ownFields
    let frame = Self.withoutFields(ignored, window.frame)
    let revision = revisionsAfter[window.documentName] ?? 0
    if var undoable, undoable.window == window.label,
      revisionsBefore[window.documentName] == undoable.revision
    {
      let suffix = undoable.history == .view ? ["view"] : []
      let undoing = words == ["undo"] + suffix && !undoable.undone
      let redoing = words == ["redo"] + suffix && undoable.undone
      if undoing || redoing {
        let (expected, shown) = Self.withoutRevisionFields(
          Self.withoutFields(ignored, undoing ? undoable.before : undoable.after), frame,
          expected: undoing ? undoable.revisionBefore : undoable.revisionAfter, now: revision)
        let property: Failure.Property = undoing ? .undoRestores : .redoRestores
        if refused {
          return (
            Failure(
              property: property, step: index,
              detail: "`\(step.line)` was refused right after a change it should take \(undoing ? "back" : "again")",
              windows: [window.label]), nil
          )
        }
        if shown != expected {
          return (
            Failure(
              property: property, step: index,
              detail:
                "after `\(step.line)`, window \(window.label) shows another frame than \(undoing ? "before" : "after") "
                + "the command it \(undoing ? "undid" : "redid")"
                + Self.difference(expected, shown, first: undoing ? "before" : "after", second: "now"),
              windows: [window.label]), nil
          )
        }
        undoable.undone = undoing
        undoable.revision = revision
        historyChecked = true
        return (nil, undoable)
      }
    }
    // A command of the window's module (not `clock advance`, whose timers may change anything)
    // that changed the document and not the window's view state, or the other way round, can
    // be undone next.
    guard !refused, commands[window.screen.name]?.contains(where: { $0.name == words.first }) == true,
      let was = before[window.label]?.frame,
      let viewBefore
    else { return (nil, nil) }
    let documentMoved = revisionsBefore[window.documentName] != revision
    let viewMoved = viewBefore != window.viewStateSnapshot
    guard documentMoved != viewMoved else { return (nil, nil) }
    return (
      nil,
      Undoable(
        window: window.label, history: documentMoved ? .document : .view, before: was, after: window.frame,
        revisionBefore: revisionsBefore[window.documentName] ?? 0, revisionAfter: revision, revision: revision)
    )
  }

  /// Whether a session's windows are all on screens that open again quietly (asking nothing
  /// of the outside world, starting no work as they open).
  func canReopen(_ session: WorkbenchSession) -> Bool {
    session.host.windows.allSatisfy { rebuildable.contains($0.screen.name) }
  }

  /// When a session's timers are due: windows opened again must leave them as they were (a
  /// window that sets its timer again from its view state sets the same one), or the two runs
  /// can no longer be compared step by step.
  static func timers(_ session: WorkbenchSession) -> [Duration] {
    session.host.clock.waitingTimers.map(\.due).sorted()
  }

  /// What a step did, in words: `ran`, `was refused (MESSAGE)`.
  static func outcome(of refusal: CommandError?) -> String {
    refusal.map { "was refused (\($0.message))" } ?? "ran"
  }

  /// A host's documents' revisions, in words (`library 3, notes 1`).
  static func revisions(_ host: Host) -> String {
    host.documentRevisions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.revision)" }.joined(separator: ", ")
  }

  /// Two windows on one document and screen, with equal view states, whose frames differ
  /// (fields about a window's own life aside): one of them missed a change.
  static func disagreement(in host: Host) -> (String, String, difference: String)? {
    var seen: [String: Window] = [:]
    for window in host.windows {
      guard let state = try? window.viewStateJSON() else { continue }
      let key = window.documentName + "\u{0}" + window.screen.name + "\u{0}" + state
      guard let other = seen[key] else {
        seen[key] = window
        continue
      }
      let ignored = window.screen.lifetimeFields + window.screen.ownFields
      let frame = withoutFields(ignored, window.frame)
      let otherFrame = withoutFields(ignored, other.frame)
      if frame != otherFrame { return (other.label, window.label, difference(otherFrame, frame)) }
    }
    return nil
  }

  /// Each window's frame with the stamp it was projected at.
  static func stampedFrames(of host: Host) -> [String: (stamp: Int?, frame: FrameValue)] {
    var frames: [String: (stamp: Int?, frame: FrameValue)] = [:]
    for window in host.windows { frames[window.label] = (window.frameStamp, window.frame) }
    return frames
  }

  /// Where two frames differ first, in words (`: finished 1, then 2`; with words for the two
  /// frames, `: finished 1 before, 2 opened again`), or nothing.
  static func difference(
    _ first: FrameValue?, _ second: FrameValue?, first one: String? = nil, second other: String? = nil
  )
    -> String
  {
    guard case .object(let members)? = first, case .object(let others)? = second else { return "" }
    for (key, value) in members.members where others[key] != value {
      let was = String(value.jsonText.prefix(60))
      let then = others[key].map { String($0.jsonText.prefix(60)) } ?? "nothing"
      guard let one, let other else { return ": \(key) \(was), then \(then)" }
      return ": \(key) \(was) \(one), \(then) \(other)"
    }
    return ""
  }

  /// A frame without some of its top-level fields.
  static func withoutFields(_ fields: [String], _ frame: FrameValue?) -> FrameValue? {
    guard !fields.isEmpty, case .object(let object)? = frame else { return frame }
    return .object(FrameObject(members: object.members.filter { !fields.contains($0.key) }))
  }

  /// The session as a scenario, with its first `steps` steps.
  func scenario(of session: Session, steps count: Int? = nil, name: String = "explore") -> Scenario {
    let here = SourceLocation(file: "<explore>", line: 1, column: 1)
    let steps = session.steps.prefix(count ?? session.steps.count).map { step in
      Step(action: step.window.map { .command(window: $0, line: step.line) } ?? .host(line: step.line), location: here)
    }
    return Scenario(name: name, location: here, windows: session.windows, steps: Array(steps))
  }
}
