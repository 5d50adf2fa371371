import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
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
    /// Whether each session steers by what it has tried (`ExploreGuide`); `--unguided` draws
    /// every command by chance alone.
    public var guided = true
    /// The most session time a session covers (`--horizon`): its `clock advance` steps are
    /// drawn on the scales of the timers pending (the next one, twice it, ten times it) and of
    /// a day (while no timer is due within 86.4 s), never past it.
    public var horizon: Duration = .seconds(2 * 86_400)

    public init() {}
  }

  /// One step of a generated session: a command drawn as values (a spec, typed values, the
  /// window it names), run in its own window (`w1: select 2`) or as a step of the session's that
  /// names its window (`@w2 select 3`) or none (`settle`). It is bound where it runs; nothing of
  /// it is text until a file is written or a failure is said.
  public struct DrawnStep: Sendable {
    /// The step's own window (`w1:`); `nil` for a step of the session's.
    public var window: String?
    /// The command, as values.
    public var call: CommandCall

    /// A step that runs `call` in the window `window` (`nil`: a step of the session's, the call
    /// naming its window if it runs in one).
    public init(window: String?, call: CommandCall) {
      self.window = window
      self.call = call
      if let window { self.call.target = .label(window) }
    }

    /// The step's command as a scenario writes it: the call's text, with its window in front
    /// when the step has none of its own.
    public var line: String { window == nil ? call.textNamingWindow : call.text }

    /// The window the command runs in, by label, when it names one.
    public var target: String? {
      if case .label(let label) = call.target { return label }
      return nil
    }
  }

  /// A generated session: its windows and its steps (one command each), and after which
  /// steps (0-based) the second run is rebuilt from its documents and view state.
  public struct Session: Sendable {
    public var windows: [WindowSeed]
    public var steps: [DrawnStep]
    /// The steps after which the second run's windows are opened again from their documents and
    /// view states (`reopen`; the first run's are not), in order.
    public var rebuilds: [Int] = []
    /// After its last step, the first run moves this many steps back in time and as many
    /// forward again (`travel back N`, `travel forward N`), and must be the session it was.
    public var travel: Int?

    /// A session of `windows` running `steps`, whose second run is rebuilt after `rebuilds`.
    public init(windows: [WindowSeed], steps: [DrawnStep], rebuilds: [Int] = []) {
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
      session.travel = travel.map { min($0, session.steps.count) }.flatMap { $0 > 0 ? $0 : nil }
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
      case travelIsSame = "a session moved back in time and forward again is the same session"
    }
    public var property: Property
    public var step: Int
    public var detail: String
    /// The windows it is about: the one whose frame broke an `always:` expectation; the two
    /// that disagree.
    public var windows: [String] = []

    /// A failure of `property` after step `step` (0-based), said in `detail`, about `windows`.
    public init(property: Property, step: Int, detail: String, windows: [String] = []) {
      self.property = property
      self.step = step
      self.detail = detail
      self.windows = windows
    }
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
    /// How many sessions' checks ended at a rebuild that could not be compared (`Outcome`).
    public var endedAtRebuild = 0
    /// Why the first of them ended there, in words.
    public var endedAtRebuildWhy: String?
    /// How many moves back in time and forward again were compared.
    public var travels = 0
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
      if outcome.endedAtRebuild { endedAtRebuild += 1 }
      if endedAtRebuildWhy == nil { endedAtRebuildWhy = outcome.endedAtRebuildWhy }
      travels += outcome.travels
      coverage.add(outcome.coverage)
    }
  }

  public let registry: ModuleRegistry
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
  /// Each screen's commands as the guide chooses among them: a command, or one subcommand of it
  /// (`network latency`), with its name and words (made once).
  let choices: [String: [(name: String, words: [String], spec: CommandSpec)]]
  /// The host's commands explore calls (`undo`, `clock advance`, `travel back`...), by their
  /// path's words, looked up once.
  let hostSpecs: [String: CommandSpec]
  /// The screens whose windows open again from their document and view state and end up where
  /// they were, served the answers the run took and caught up with the work they start (a
  /// ledger feed fetches its rows again as it opens): sessions whose windows are all on these are
  /// rebuilt and compared (`rebuiltIsSame`); the others only by `relaunch` steps.
  let rebuildable: Set<String>
  /// The screens of `rebuildable` whose windows start work on the session's clock as they open
  /// (a load): opened again only while no timer waits, so catching up finishes what the run's
  /// windows had finished too.
  let catchingUp: Set<String>
  /// Why each screen explored that is not in `rebuildable` is not, in words (`it asks the
  /// outside world as it opens (network.answer)`).
  let notRebuildable: [String: String]
  /// The screens windows open on, each with the sample documents of its kind (found once).
  let screens: [(name: String, documents: [String])]
  /// With `Options.coverage`: what counts what the sessions covered.
  let tracker: CoverageTracker?

  /// An explorer of the modules `registry` holds; with `against`, the second run of each
  /// session runs on those modules instead, and must show what the first shows.
  public init(registry: ModuleRegistry, options: Options, against: (registry: ModuleRegistry, name: String)? = nil) {
    self.registry = registry
    self.against = against
    self.options = options
    self.deadline = options.time.map { ContinuousClock.now + $0 }
    self.invariants = Dictionary(grouping: options.invariants.map { ($0, $0.expected.frameValue) }, by: \.0.screen)
    let commands = registry.moduleCommandsByScreen()
    self.commands = commands
    var hostSpecs: [String: CommandSpec] = [:]
    for path in Self.hostPaths {
      var spec: CommandSpec?
      if case .success(let route)? = path.first.map({ registry.router.route($0, screen: nil) }) { spec = route.spec }
      for name in path.dropFirst() { spec = spec?.chosenSubcommand(name) }
      hostSpecs[path.joined(separator: " ")] = spec
    }
    self.hostSpecs = hostSpecs
    self.choices = commands.mapValues { specs in
      specs.flatMap { route in
        route.subcommands.isEmpty
          ? [(route.name, [route.name], route)]
          : route.subcommands.map {
            (route.name + " " + $0.name, [route.name, $0.name], route.chosenSubcommand($0.name) ?? $0)
          }
      }
    }
    let screens = Self.screens(of: registry, among: options.screens)
    self.screens = screens
    self.tracker = options.coverage ? CoverageTracker(registry: registry) : nil
    // Two implementations side by side are compared as they are: no window is opened again.
    let (quiet, catchingUp, why) =
      against == nil ? Self.screensRebuiltQuietly(screens.map(\.name), registry: registry) : ([], [], [:])
    self.rebuildable = quiet
    self.catchingUp = catchingUp
    self.notRebuildable = why
  }

  /// Counts what a step covered: the module command it ran (and its arguments' edges), and the
  /// state every window on a screen with a state machine moved to.
  func cover(_ ran: FirstStep, in session: WorkbenchSession, _ outcome: inout Outcome) {
    let call = ran.step.call
    let integers = call.arguments.compactMapValues { value -> Int? in
      if case .integer(let number) = value { return number }
      return value.textValue.flatMap { Int($0) }
    }
    // Explore draws a window's commands from its screen's module's own.
    let module = ran.target.flatMap { session.host.window(named: $0) }.flatMap {
      registry.module(ofScreen: $0.screen.name)
    }
    let command = CoveredCommand(spec: call.spec, module: module, integers: integers)
    tracker?.stepped(
      [(command, ran.target)], refused: ran.refusal != nil, before: ran.before.mapValues(\.frame),
      host: session.host, into: &outcome.coverage)
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

  /// Why each of `screensNotReopened` is not opened again, in words, in the same order.
  public var whyNotReopened: [(screen: String, reason: String)] {
    screensNotReopened.map { ($0, notRebuildable[$0] ?? "it could not be tried") }
  }

  /// The screens of `names` (each with a sample document) whose window, opened again in place,
  /// ends up where it was: what it asks the outside world as it opens is served the answers the
  /// session took, and the work it starts on the session's clock (a load) is caught up with at
  /// once (`Host.reopenWindows`); those of them that start such work (`catchingUp`) are opened
  /// again only while no timer waits. Only the screens explored
  /// are tried: each try opens a window, on a module process too.
  static func screensRebuiltQuietly(_ names: [String], registry: ModuleRegistry)
    -> (quiet: Set<String>, catchingUp: Set<String>, why: [String: String])
  {
    var quiet: Set<String> = []
    var catchingUp: Set<String> = []
    var why: [String: String] = [:]
    let samples = registry.sampleDocuments
    let here = SourceLocation(file: "<explore>", line: 1, column: 1)
    for screen in registry.screens where names.contains(screen.name) {
      guard let document = samples.first(where: { $0.kind == screen.documentKind }) else {
        why[screen.name] = "no sample document of its kind (\(screen.documentKind)) to try it on"
        continue
      }
      let window = WindowSeed(name: "w1", screen: screen.name, document: document.name, location: here)
      guard
        let session = try? WorkbenchSession.starting(
          Scenario(name: "probe", location: here, windows: [window], steps: []), registry: registry)
      else {
        why[screen.name] = "its window did not open on the sample document \(document.name)"
        continue
      }
      defer {
        session.end()
        session.finish()
      }
      // A timer that sets itself again (every midnight) never settles: what waits then must
      // wait the same after the window opens again.
      _ = try? session.host.clock.settle(within: .seconds(60), flush: session.host.services.scheduler)
      let before = timers(session)
      let mark = session.host.clock.timerMark
      if let problem = session.host.reopenWindows(session.host.windows.map(\.id)).first {
        why[screen.name] = "opened again, it failed: \(problem)"
        continue
      }
      let caughtUp = session.host.clock.timerMark > mark
      if let incident = session.takeIncidents().first {
        why[screen.name] = "opened again, its module said: \(incident)"
      } else if timers(session) != before {
        let started = session.host.clock.waitingTimers.filter { $0.number > mark }
        why[screen.name] =
          !started.isEmpty && session.host.clock.timersToCatchUp(since: mark).isEmpty
          ? "it starts work on the session's clock as it opens, and its module's kit does not run a timer before "
            + "its time, which catching up with that work needs (a kit from before hello `catchUp`, §14: update it)"
          : caughtUp && before.isEmpty
            ? "the work it starts on the session's clock as it opens does not end (a timer that sets itself again "
              + "at once?)"
            : "opened again, it leaves other timers waiting than before (\(session.host.clock.pendingSummary))"
      } else {
        quiet.insert(screen.name)
        if caughtUp { catchingUp.insert(screen.name) }
      }
    }
    return (quiet, catchingUp, why)
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
    for step in session.steps { try? live.run(step.call, frontEnd: QuietFrontEnd()) }
  }

  /// Runs a session's steps on two hosts side by side, comparing after each step the frames
  /// of the windows whose frame may have moved, checking nothing else: what the replay property
  /// alone costs, the floor under every other check. Returns whether the frames agreed.
  public func runTwiceComparingFrames(_ session: Session) -> Bool {
    guard let one = try? start(session), let other = try? start(session) else { return false }
    defer {
      one.end()
      other.end()
    }
    var agreed = true
    var compared: [String: Int] = [:]
    for step in session.steps {
      try? one.run(step.call, frontEnd: QuietFrontEnd())
      try? other.run(step.call, frontEnd: QuietFrontEnd())
      for (first, second) in zip(one.host.windows, other.host.windows) {
        if let stamp = first.frameStamp, compared[first.label] == stamp { continue }
        agreed = agreed && first.frame == second.frame
        compared[first.label] = first.frameStamp
      }
    }
    return agreed
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
    report.failure = check(shrunk, secondRun: Self.needsSecondRun(failure.property)).failure ?? failure
    return report
  }
}
