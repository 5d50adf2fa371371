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

    public init() {}
  }

  /// A generated session: its windows and its steps (one command a line).
  public struct Session: Sendable {
    public var windows: [WindowSeed]
    public var steps: [(window: String?, line: String)]
  }

  /// A property a session broke: which, after which step (0-based), and what was seen.
  public struct Failure: Sendable, Equatable {
    public enum Property: String, Sendable {
      case staysUp = "the host and its modules stay up"
      case refusalChangesNothing = "a refused command changes nothing"
      case replaysEqual = "a session replays with equal frames"
      case windowsAgree = "windows on one document agree after settle"
      case always = "every window meets its screen's always: expectation"
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
    }
  }

  let registry: ModuleRegistry
  let options: Options
  /// When the run's time (`options.time`) is up, counted from when the explorer was made.
  let deadline: ContinuousClock.Instant?
  /// The `always:` expectations by screen, each with its expected frame (made once, not at
  /// every step).
  let invariants: [String: [(invariant: Invariant, expected: FrameValue)]]
  /// Each screen's module's own commands (those its screen adds to the host's), found once.
  let commands: [String: [CommandSpec]]

  /// An explorer of the modules `registry` holds.
  public init(registry: ModuleRegistry, options: Options) {
    self.registry = registry
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
    let outcome = run(windows: windows, steps: options.steps) { _, live in
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
    }
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
  }

  /// A fresh session set up as `session` begins.
  func start(_ session: Session) throws(CommandError) -> WorkbenchSession {
    try WorkbenchSession.starting(scenario(of: session, steps: 0), registry: registry)
  }

  /// Runs a session twice, checking after every step that nothing crashed or was reported,
  /// that a refused command left every frame and document as they were, and that the second
  /// run, a replay of the first's recording, shows the first's frames.
  public func check(_ session: Session) -> Outcome {
    run(windows: session.windows, steps: session.steps.count) { index, _ in session.steps[index] }
  }

  /// Runs `count` steps, each given by `next` (its index, and the first run's session as the
  /// steps before left it), on two sessions side by side, checking after each.
  private func run(
    windows: [WindowSeed], steps count: Int,
    next: (Int, WorkbenchSession) -> (window: String?, line: String)
  ) -> Outcome {
    var outcome = Outcome()
    let session = Session(windows: windows, steps: [])
    guard let first = try? start(session), let second = try? start(session) else {
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
    first.facts.startRecording(capturingStates: false)
    second.facts.startReplaying()
    // Each window's frame stamp when its frames were last compared: a window whose stamp
    // stayed in both runs shows what it showed then, and is not compared again.
    var compared: [String: (first: Int, second: Int)] = [:]
    for index in 0..<count {
      if isOutOfTime {
        outcome.cutShort = true
        return outcome
      }
      // What live sources said since the last step comes in first (as before an expectation),
      // so the frames before a step are those the step starts from.
      let liveTaken = first.facts.liveChangesTaken.count
      first.host.services.takeWaitingLiveChanges()
      let step = next(index, first)
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
      second.facts.serve(first.facts.takeRecorded())
      for _ in liveTaken..<max(liveTaken, first.facts.liveChangesTaken.count) {
        second.host.services.takeLiveChanges()
      }
      var secondRefusal: CommandError?
      do {
        try second.run(step.line, in: step.window, frontEnd: QuietFrontEnd())
      } catch {
        secondRefusal = error
      }
      outcome.stepsRun += 1
      // A module that stopped (crashed, hung, broke the protocol) is no refusal.
      let stopped = [refusal, secondRefusal].compactMap { $0 }.filter { $0.stoppedModule != nil }.map(\.message)
      let incidents = stopped + first.takeIncidents() + second.takeIncidents()
      outcome.checks += 3
      if let incident = incidents.first {
        outcome.failure = Failure(property: .staysUp, step: index, detail: incident)
        return outcome
      }
      if let divergence = second.facts.divergence {
        outcome.failure = Failure(
          property: .replaysEqual, step: index,
          detail: "after `\(step.line)`, a replay of the session's recording went another way: \(divergence)")
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
        if first.host.documentRevisions.mapValues(\.revision) != revisionsBefore {
          outcome.failure = Failure(
            property: .refusalChangesNothing, step: index,
            detail: "`\(step.line)` was refused (\(refusal.message)) and a document's revision moved")
          return outcome
        }
      }
      let replayed = second.host.windows
      let original = first.host.windows
      guard original.map(\.label) == replayed.map(\.label) else {
        outcome.failure = Failure(
          property: .replaysEqual, step: index,
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
        if frame != again {
          outcome.failure = Failure(
            property: .replaysEqual, step: index,
            detail: "after `\(step.line)`, window \(one.label) shows another frame in a replay of the same steps"
              + Self.difference(frame, again))
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
    }
    return outcome
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

  /// Where two frames differ first, in words (`: finished 1, then 2`), or nothing.
  static func difference(_ first: FrameValue?, _ second: FrameValue?) -> String {
    guard case .object(let one)? = first, case .object(let other)? = second else { return "" }
    for (key, value) in one.members where other[key] != value {
      return
        ": \(key) \(value.jsonText.prefix(60)), then \(other[key].map { String($0.jsonText.prefix(60)) } ?? "nothing")"
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
