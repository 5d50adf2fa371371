import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSession
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Runs one scenario on a fresh host: its own in-memory session, a virtual clock that starts at
/// zero, and window numbers from 1, so a scenario gives the same result in any order, in any
/// process, every time.
@MainActor
public struct ScenarioRunner {
  /// How snapshots and exhaustive checking behave.
  public struct Options: Sendable {
    /// Write missing or changed golden files instead of failing.
    public var updateSnapshots = false
    /// Check every scenario exhaustively, whatever it says.
    public var exhaustive = false
    /// Keep a log of the steps run (`run -v`).
    public var logsSteps = false
    /// Keep a trace of every step, with the frames (`run --trace`, `run --html`).
    public var traces = false
    /// Count what each scenario covered (`run --coverage`): `ScenarioResult.coverage`.
    public var coverage = false
    /// Leave the frames of traces for the caller to resolve (`ScenarioTrace.resolveFrames`), as
    /// a run writing traces does on its output queue.
    var leavesTraceFramesUnresolved = false

    public init(updateSnapshots: Bool = false, exhaustive: Bool = false, logsSteps: Bool = false, traces: Bool = false)
    {
      self.updateSnapshots = updateSnapshots
      self.exhaustive = exhaustive
      self.logsSteps = logsSteps
      self.traces = traces
    }
  }

  let options: Options
  /// The modules registered once, for every scenario's host.
  let registry: Result<ModuleRegistry, RegistrationError>
  /// With `Options.coverage`: what counts what each scenario covered.
  let tracker: CoverageTracker?
  /// The frames this runner's traces have rendered, shared across its scenarios.
  let traceFrames = TraceFrameCache()
  /// Told after each step of a scenario that ran (how many ran, out of how many, and the step),
  /// for progress: the language server's runs report through it.
  public var stepFinished: (@MainActor (_ count: Int, _ total: Int, _ step: Step) -> Void)?

  /// A runner for scenarios on these modules.
  public init(modules: [any FeatureModule], options: Options = Options()) {
    self.options = options
    do {
      let registered = try ModuleRegistry(modules: modules)
      registry = .success(registered)
      tracker = options.coverage ? CoverageTracker(registry: registered) : nil
    } catch {
      registry = .failure(error)
      tracker = nil
    }
  }

  /// A runner for scenarios on modules already registered (shared with the loader).
  public init(registry: ModuleRegistry, options: Options = Options()) {
    self.options = options
    self.registry = .success(registry)
    self.tracker = options.coverage ? CoverageTracker(registry: registry) : nil
  }

  struct StepFailure: Error {
    var message: String
    var details: [String] = []
    var column: Int? = nil
  }

  struct FailedStep: Error {
    var failure: StepFailure
    var step: Step?
  }

  /// Runs a scenario to its end or its first failing step.
  public func run(_ scenario: Scenario) -> ScenarioResult {
    let start = monotonicSeconds()
    var result = ScenarioResult(
      file: scenario.location.file, name: scenario.name, location: scenario.identity, duration: 0, stepsRun: 0,
      failure: nil, snapshotsWritten: [], snapshotsUsed: [])
    if scenario.row != nil { result.isRow = true }
    if !scenario.tags.isEmpty { result.tags = scenario.tags }
    var recorder = options.traces ? TraceRecorder(scenario: scenario) : nil
    do {
      // A scenario marked `skip:` runs no step, and says why.
      if let reason = scenario.skip {
        result.skipped = reason
      } else {
        try runSteps(of: scenario, result: &result, recorder: &recorder)
      }
    } catch {
      var location = error.step?.location ?? scenario.location
      if let column = error.failure.column { location.column += column - 1 }
      result.failure = ScenarioFailure(
        location: location, step: error.step?.summary ?? "set-up", message: error.failure.message,
        details: error.failure.details, origin: error.step?.origin ?? [])
    }
    result.duration = monotonicSeconds() - start
    if var recorder {
      recorder.finish(result: result)
      result.trace = recorder.trace
      if !options.leavesTraceFramesUnresolved {
        result.trace?.resolveFrames(with: traceFrames)
        result.trace?.captures = nil  // used, and made on this thread
      }
    }
    return result
  }

  private func runSteps(of scenario: Scenario, result: inout ScenarioResult, recorder: inout TraceRecorder?)
    throws(FailedStep)
  {
    var state = RunState(scenario: scenario, exhaustive: options.exhaustive || scenario.isExhaustive)
    if scenario.holdsRebuilt || scenario.holdsReplayed { state.framesAfterSteps = [] }
    do {
      try runSteps(of: scenario, state: &state, result: &result, recorder: &recorder)
    } catch {
      // The session ends whatever happened: a module hears of it now, in this scenario.
      state.session?.finish()
      throw error
    }
    // A module that stops as the session ends (told `end`) fails this scenario, not the next.
    if let incident = state.session?.finish().first {
      throw FailedStep(failure: StepFailure(message: incident), step: scenario.steps.last)
    }
    guard let frames = state.framesAfterSteps else { return }
    if scenario.holdsReplayed { try checkRelation(.replayed, of: scenario, frames: frames) }
    if scenario.holdsRebuilt { try checkRelation(.rebuilt, of: scenario, frames: frames) }
  }

  func runSteps(
    of scenario: Scenario, state: inout RunState, result: inout ScenarioResult, recorder: inout TraceRecorder?
  ) throws(FailedStep) {
    recorder?.begin()
    do {
      state.session = try setUp(scenario)
    } catch {
      recorder?.end(
        kind: "set-up", text: "set-up", location: scenario.location.description, origin: [], host: nil,
        outcome: "failed", message: error.message, details: error.details)
      throw FailedStep(failure: error, step: nil)
    }
    state.session.facts.keepsServedFacts = recorder != nil
    // A scenario that travels in time keeps its steps, each a step (expectations too), as a
    // scenario opened in the shell at a step does: `travel back 2` goes back two of them.
    var journal: SessionJournal?
    if scenario.steps.contains(where: \.travels), let registry = try? registry.get() {
      var origin = scenario
      origin.steps = []
      journal = SessionJournal(
        origin: origin, label: "the set-up of \"\(scenario.name)\" (\(scenario.location))", registry: registry,
        frames: state.session.host.framesByLabel)
    }
    recorder?.end(
      kind: "set-up", text: "set-up: \(scenario.documents.count) documents, \(scenario.windows.count) windows",
      location: scenario.location.description, origin: [], host: state.session.host, outcome: "passed",
      facts: state.session.facts.takeServedFacts())
    state.frames = state.session.host.framesByLabel
    if state.framesAfterSteps != nil { state.framesAfterSteps?.append(Self.comparableFrames(state.session.host)) }
    var coverage = ExploreCoverage()
    tracker?.opened(state.session.host, into: &coverage)
    defer { if tracker != nil { result.coverage = coverage.counts } }
    for step in scenario.steps {
      recorder?.begin()
      state.output = []
      defer {
        if recorder != nil {
          let facts = state.session.facts.takeServedFacts()
          let failed = state.stepFailure
          recorder?.end(
            kind: step.kindName, source: step, origin: step.origin,
            host: state.session.host,
            outcome: failed != nil ? "failed" : (step.failure != nil ? "expected-failure" : "passed"),
            message: failed?.message ?? state.expectedFailureMessage, details: failed?.details ?? [],
            output: state.output, facts: facts)
        }
        state.stepFailure = nil
        state.expectedFailureMessage = nil
      }
      if state.exhaustive, step.isAction, let uncovered = state.uncoveredReport() {
        throw FailedStep(
          failure: StepFailure(message: uncovered.message, details: uncovered.details), step: state.lastActionStep)
      }
      if options.logsSteps {
        result.stepLog = (result.stepLog ?? []) + ["\(step.location.line):\(step.location.column)  \(step.summary)"]
      }
      let framesBefore = tracker?.framesBefore(state.session.host) ?? [:]
      let clock = state.session.host.clock.now
      // A move in time moves the journal; every other step is kept in it.
      let travels = journal != nil && step.travels
      if travels { state.session.journal = journal }
      defer { if travels { state.session.journal = nil } }
      do {
        try perform(step, state: &state, result: &result)
        try checkReplay(state.session)
        try checkIncidents(state.session)
      } catch {
        state.stepFailure = (error.message, error.details)
        throw FailedStep(failure: error, step: step)
      }
      if let journal, !travels {
        journal.stepRan(
          step, label: step.summary, clockAtStart: clock, host: state.session.host,
          failure: state.expectedFailureMessage)
      }
      if let tracker {
        Self.cover(
          step, refused: state.expectedFailureMessage != nil, before: framesBefore, state.session.host, tracker,
          &coverage)
      }
      result.stepsRun += 1
      if state.framesAfterSteps != nil { state.framesAfterSteps?.append(Self.comparableFrames(state.session.host)) }
      stepFinished?(result.stepsRun, scenario.steps.count, step)
      guard state.exhaustive else { continue }
      if case .expect(let expectations) = step.action {
        state.cover(expectations)
      } else if step.isAction {
        state.recordChanges(now: state.session.host.framesByLabel, after: step)
      }
    }
    if state.exhaustive, let uncovered = state.uncoveredReport() {
      throw FailedStep(
        failure: StepFailure(message: uncovered.message, details: uncovered.details), step: state.lastActionStep)
    }
    if let unused = state.session.facts.firstUnused() {
      throw FailedStep(
        failure: StepFailure(
          message: "the replay diverged from its recording: \(unused)",
          details: Self.divergenceAdvice),
        step: scenario.steps.last)
    }
  }

  /// Counts what a step that ran covered: each command of its line in the window it ran in (the
  /// step's, the one it names, or the focused one), as the loader read it, and the states
  /// windows moved to.
  private static func cover(
    _ step: Step, refused: Bool, before: [String: FrameValue], _ host: Host, _ tracker: CoverageTracker,
    _ coverage: inout ExploreCoverage
  ) {
    guard step.line != nil else { return }
    let commands = step.commands.compactMap { command -> (command: CoveredCommand, window: String?)? in
      if let bound = command.resolution?.command {
        return (CoveredCommand(bound), bound.window?.label ?? host.focusedWindow?.label)
      }
      guard let resolved = command.unbound else { return nil }
      return (CoveredCommand(resolved), resolved.window?.label ?? host.focusedWindow?.label)
    }
    tracker.stepped(commands, refused: refused, before: before, host: host, into: &coverage)
  }

  private static let divergenceAdvice = [
    "    a replay serves each window's recorded answers in order; it diverges when its steps ask for",
    "    other answers than the recording saw. Record the session again if its steps were edited.",
  ]

  /// A scenario opened at a step: its session, live, with the steps that led there kept for
  /// time travel.
  public struct Opened {
    /// The session after the steps, on the scenario's virtual clock and in-memory workspace,
    /// with the recording's remaining facts.
    public var session: WorkbenchSession
    /// How many steps ran.
    public var stepsRun: Int
    /// The steps that failed on the way (the run goes on past them), each with its place, message
    /// and details.
    public var failures: [ScenarioFailure]
  }

  /// Runs `scenario`'s first `count` steps and hands over the session they leave, as
  /// `workbench run FILE:LINE --shell` opens it. A failing step does not stop the run: it is
  /// reported, and the steps after it run, so the session is where the scenario's steps take it.
  ///
  /// - Throws: `CommandError` when the modules or the set-up fail.
  public func open(_ scenario: Scenario, steps count: Int) throws(CommandError) -> Opened {
    let registry: ModuleRegistry
    switch self.registry {
    case .success(let registered): registry = registered
    case .failure(let error): throw CommandError("the modules failed to register: \(error.message)")
    }
    var state = RunState(scenario: scenario, exhaustive: false)
    state.session = try WorkbenchSession.starting(scenario, registry: registry)
    var origin = scenario
    origin.steps = []
    let journal = SessionJournal(
      origin: origin, label: "the set-up of \"\(scenario.name)\" (\(scenario.location))", registry: registry,
      frames: state.session.host.framesByLabel)
    var result = ScenarioResult(
      file: scenario.location.file, name: scenario.name, location: scenario.identity, duration: 0, stepsRun: 0,
      failure: nil, snapshotsWritten: [], snapshotsUsed: [])
    var failures: [ScenarioFailure] = []
    for step in scenario.steps.prefix(max(0, count)) {
      let clock = state.session.host.clock.now
      var failure: StepFailure?
      // A move in time moves the journal (the steps are kept here, one a step, not as lines).
      let travels = step.travels
      if travels { state.session.journal = journal }
      defer { if travels { state.session.journal = nil } }
      do {
        try perform(step, state: &state, result: &result)
        try checkReplay(state.session)
        try checkIncidents(state.session)
      } catch {
        failure = error
      }
      if let failure {
        var location = step.location
        if let column = failure.column { location.column += column - 1 }
        failures.append(
          ScenarioFailure(
            location: location, step: step.summary, message: failure.message, details: failure.details,
            origin: step.origin))
      }
      if !travels {
        journal.stepRan(
          step, label: step.summary, clockAtStart: clock, host: state.session.host, failure: failure?.message)
      }
      result.stepsRun += 1
      stepFinished?(result.stepsRun, min(count, scenario.steps.count), step)
    }
    // The steps after the line are there to go forward to; each runs when the session first
    // moves to it, its expectation checked as a run checks it.
    for step in scenario.steps.dropFirst(max(0, count)) { journal.stepAhead(step, label: step.summary) }
    journal.expectationCheck = { step, session in
      guard case .expect(let expectations) = step.action else { return nil }
      let details = Self.mismatches(of: expectations, in: session.host)
      return details.isEmpty
        ? nil : "the frames do not match the expectation: " + details.prefix(3).joined(separator: " ")
    }
    journal.isScenario = true
    state.session.journal = journal
    state.session.canRecord = true
    return Opened(session: state.session, stepsRun: result.stepsRun, failures: failures)
  }

  private func checkIncidents(_ session: WorkbenchSession) throws(StepFailure) {
    let incidents = session.takeIncidents()
    guard !incidents.isEmpty else { return }
    throw StepFailure(message: incidents.joined(separator: "\n"))
  }

  /// Fails the step at which a replay asked for a fact its recording does not have.
  private func checkReplay(_ session: WorkbenchSession) throws(StepFailure) {
    if let divergence = session.facts.divergence {
      throw StepFailure(
        message: "the replay diverged from its recording: \(divergence)", details: Self.divergenceAdvice)
    }
  }

  // MARK: Set-up

  private func setUp(_ scenario: Scenario) throws(StepFailure) -> WorkbenchSession {
    switch registry {
    case .success(let registry):
      do throws(CommandError) {
        return try WorkbenchSession.starting(scenario, registry: registry)
      } catch {
        throw StepFailure(message: error.message)
      }
    case .failure(let error):
      throw StepFailure(message: "the modules failed to register: \(error.message)")
    }
  }

  // MARK: Steps

  private func perform(_ step: Step, state: inout RunState, result: inout ScenarioResult) throws(StepFailure) {
    switch step.action {
    case .command(let window, let line):
      try runCommands(line, in: window, step: step, state: &state)
    case .host(let line):
      try runCommands(line, in: nil, step: step, state: &state)
    case .expect(let expectations):
      // What live sources said changed since the last command is in the windows first (a
      // replay has none: its recorded changes come in at its `live` steps).
      state.session.host.services.takeWaitingLiveChanges()
      // A module gone since the last step is said as such, before its windows' frames are.
      for window in expectations.map(\.window) { _ = state.session.host.window(named: window)?.frame }
      try checkIncidents(state.session)
      let details = Self.mismatches(of: expectations, in: state.session.host)
      if !details.isEmpty {
        throw StepFailure(message: "the frames do not match the expectation", details: details)
      }
    case .snapshot(let windows):
      try snapshot(windows, step: step, state: &state, result: &result)
    }
  }

  /// How the windows of `host` differ from an expectation: each field's path, then what was
  /// expected and what is there (empty when they match).
  static func mismatches(of expectations: [(window: String, expected: YAMLNode)], in host: Host) -> [String] {
    var details: [String] = []
    for (window, expected) in expectations {
      guard let actual = host.window(named: window)?.frame else {
        details.append(
          "\(window): the window is not open" + Suggestions.didYouMean(window, in: host.windows.map(\.label)))
        continue
      }
      var mismatches: [FrameMatcher.Mismatch] = []
      FrameMatcher.compare(expected: expected.frameValue, actual: actual, path: window, into: &mismatches)
      for mismatch in mismatches {
        details.append("\(mismatch.path)")
        details.append("    expected: \(mismatch.expected)")
        details.append("    actual:   \(mismatch.actual)")
      }
    }
    return details
  }

  private func runCommands(_ line: String, in window: String?, step: Step, state: inout RunState) throws(StepFailure) {
    var failure: CommandError? = nil
    let frontEnd = ScenarioFrontEnd()
    do throws(CommandError) {
      // The commands as the loader read them: the line is not read a second time.
      try state.session.run(line, commands: step.boundCommands, in: window, frontEnd: frontEnd)
    } catch {
      failure = error
    }
    state.output += frontEnd.output
    switch (failure, step.failure) {
    case (nil, nil):
      return
    case (nil, let matcher?):
      throw StepFailure(message: "expected this step to fail with \(matcher), and it succeeded")
    case (let error?, nil):
      throw StepFailure(message: error.message, column: window == nil ? error.column : nil)
    case (let error?, let matcher?):
      state.expectedFailureMessage = error.message
      if !matcher.matches(error.message) {
        throw StepFailure(
          message: "the step failed, but not as expected",
          details: ["    expected: \(matcher)", "    actual:   '\(error.message)'"])
      }
    }
  }

  // MARK: Snapshots

  private func snapshot(_ windows: [String], step: Step, state: inout RunState, result: inout ScenarioResult)
    throws(StepFailure)
  {
    var texts: [String] = []
    for name in windows {
      guard let window = state.session.host.window(named: name) else {
        let labels = state.session.host.windows.map(\.label)
        throw StepFailure(message: "no window '\(name)' is open" + Suggestions.didYouMean(name, in: labels))
      }
      texts.append(state.session.host.renderText(of: window))
    }
    let text = texts.joined(separator: "\n\n") + "\n"
    state.snapshotCount += 1
    let path = SnapshotPaths.path(for: state.scenario, number: state.snapshotCount)
    result.snapshotsUsed.append(path)
    let existing = try? FileSystem.read(path)
    if let existing, String(decoding: existing, as: UTF8.self) == text { return }
    if options.updateSnapshots {
      guard FileSystem.write(text, to: path) else { throw StepFailure(message: "could not write the snapshot \(path)") }
      result.snapshotsWritten.append(path)
      return
    }
    guard let existing else {
      throw StepFailure(
        message: "no snapshot at \(path) yet: run with --update-snapshots to record it",
        details: text.split(separator: "\n", omittingEmptySubsequences: false).map { "+ " + $0 })
    }
    throw StepFailure(
      message: "the text differs from the snapshot \(path) (run with --update-snapshots if the change is right)",
      details: LineDiff.lines(expected: String(decoding: existing, as: UTF8.self), actual: text))
  }
}

/// Where a scenario's snapshots live: beside the file, in `__snapshots__/FILE-STEM/`, named
/// after the scenario and numbered in order.
public enum SnapshotPaths {
  /// The golden file of a scenario's `number`th snapshot.
  public static func path(for scenario: Scenario, number: Int) -> String {
    let file = scenario.location.file
    return folder(for: file) + "/" + slug(scenario.name) + "-\(number).txt"
  }

  /// The folder of a scenario file's snapshots.
  public static func folder(for file: String) -> String {
    let name = file.split(separator: "/").last.map(String.init) ?? file
    let stem = name.split(separator: ".").first.map(String.init) ?? name
    return FileSystem.folder(of: file) + "/__snapshots__/" + stem
  }

  static func slug(_ name: String) -> String {
    var result = ""
    for character in name.lowercased() {
      if character.isLetter || character.isNumber {
        result.append(character)
      } else if !result.hasSuffix("-") {
        result.append("-")
      }
    }
    while result.hasSuffix("-") { result.removeLast() }
    return result.isEmpty ? "scenario" : result
  }
}

package func monotonicSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

extension Step {
  /// Whether the step acts (as opposed to checking).
  var isAction: Bool {
    switch action {
    case .command, .host: return true
    case .expect, .snapshot: return false
    }
  }

  /// Whether one of its commands moves in time (`travel back 2`): the run keeps its steps.
  var travels: Bool {
    commands.contains { command in
      guard let resolved = command.resolved, resolved.module == nil else { return false }
      return resolved.spec.name == "travel" || resolved.spec.name.hasPrefix("travel ")
    }
  }

  /// What kind of step it is, for traces.
  var kindName: String {
    switch action {
    case .command: return "command"
    case .host: return "host"
    case .expect: return "expect"
    case .snapshot: return "snapshot"
    }
  }

  /// The step as written, expectations in full, for traces.
  var traceText: String {
    guard case .expect(let expectations) = action else { return summary }
    return "expect: " + expectations.map { "\($0.window): \($0.expected.frameValue.jsonText)" }.joined(separator: ", ")
  }

  /// The step on one line, for reports.
  package var summary: String {
    switch action {
    case .command(let window, let line): return "\(window): \(line)"
    case .host(let line): return "do: \(line)"
    case .expect(let expectations): return "expect: " + expectations.map(\.window).joined(separator: ", ")
    case .snapshot(let windows): return "snapshot: " + windows.joined(separator: ", ")
    }
  }
}

/// A scenario as the session's front end: what commands print is kept for `expect: output`,
/// and what only a shell does (asking, sourcing, quitting) fails the step, saying why.
@MainActor
final class ScenarioFrontEnd: SessionFrontEnd {
  /// The text commands printed, in order.
  private(set) var output: [String] = []

  func show(_ output: CommandOutput, reports: Bool) throws(CommandError) {
    switch output {
    case .text(let text), .textWithFrames(let text, _): self.output.append(text)
    case .listing(let text, _): self.output.append(text)
    default: break
    }
  }

  func relaunched(warnings: [RestorationWarning]) throws(CommandError) {
    if let warning = warnings.first {
      throw CommandError("relaunch could not restore everything: \(warning.message)")
    }
  }

  func unsavedWork(_ question: UnsavedWorkQuestion) throws(CommandError) {
    throw CommandError(question.message)
  }

  func carryOut(_ request: FrontEndRequest) throws(CommandError) {
    throw CommandError("`source`, `history` and `set` work in the shell; a scenario lists its steps itself")
  }

  func quit() throws(CommandError) {
    throw CommandError("`quit` ends a shell session; a scenario ends after its last step")
  }

  func problem(_ message: String) { output.append(message) }
}
