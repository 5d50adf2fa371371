import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSession

extension Explorer {
  /// The smallest session found that breaks the same property: the steps after the failure
  /// dropped (and the rebuilds, for a property not theirs), windows on one screen and document
  /// merged and `@WINDOW` commands run in their windows, runs of steps taken out (halves,
  /// quarters, … single steps), windows taken out with their steps, rebuilds taken out, numbers
  /// made smaller and waits shorter, each kept only when the session still fails the same way.
  public func shrink(_ session: Session, failing failure: Failure) -> Session {
    shrinkWithinTime(session, failing: failure).session
  }

  /// `shrink`, within the run's time: past it, no more tries are made, and the smallest session
  /// found by then is returned, with how many tries were made and whether time cut it short.
  func shrinkWithinTime(_ session: Session, failing failure: Failure) -> (
    session: Session, tries: Int, cutShort: Bool
  ) {
    var tries = 0
    var cutShort = false
    // A property judged on the first run alone is shrunk on the first run alone.
    let needsSecondRun = Self.needsSecondRun(failure.property)
    // Sessions tried that did not fail: taking out any one of 150 equal steps gives one session,
    // run once.
    var passed: Set<String> = []
    func failing(_ candidate: Session) -> Failure? {
      guard !cutShort else { return nil }
      let key = Self.key(of: candidate)
      guard !passed.contains(key) else { return nil }
      guard !isOutOfTime else {
        cutShort = true
        return nil
      }
      tries += 1
      let outcome = check(candidate, secondRun: needsSecondRun)
      // A try that time cut short shows nothing either way.
      if outcome.cutShort { cutShort = true }
      guard let found = outcome.failure, found.property == failure.property else {
        if !outcome.cutShort { passed.insert(key) }
        return nil
      }
      return found
    }
    var current = session.removingSteps { $0 > failure.step }
    // Windows opened again matter only to the property they check: without them every try is
    // cheaper.
    if failure.property != .rebuiltIsSame, !current.rebuilds.isEmpty {
      var candidate = current
      candidate.rebuilds = []
      if let found = failing(candidate) { current = candidate.removingSteps { $0 > found.step } }
    }
    // Runs of steps taken out: halves, quarters, … single steps.
    func removeSteps() {
      var chunk = max(1, current.steps.count / 2)
      while true {
        var start = 0
        var removed = false
        while start < current.steps.count {
          let candidate = current.removingSteps(start..<min(start + chunk, current.steps.count))
          if !candidate.steps.isEmpty, let found = failing(candidate) {
            current = candidate.removingSteps { $0 > found.step }
            removed = true
          } else {
            start += chunk
          }
        }
        if chunk == 1 && !removed { break }
        if !removed { chunk = max(1, chunk / 2) }
      }
    }
    // Fewer windows: one whose steps move to an earlier window on the same screen and document
    // (it shows the same, so its steps mean the same there). Before steps are taken out one by
    // one: steps alike in one window make one session whichever is taken out, tried once.
    func mergeWindows() {
      for window in current.windows.reversed() where current.windows.count > 1 {
        guard
          let other = current.windows.first(where: {
            $0.name != window.name && $0.screen == window.screen && $0.document == window.document
          })
        else { continue }
        var candidate = current
        candidate.windows.removeAll { $0.name == window.name }
        candidate.steps = current.steps.map { step in
          if step.window == window.name { return DrawnStep(window: other.name, call: step.call) }
          guard step.window == nil, step.target == window.name else { return step }
          var moved = step
          moved.call.target = .label(other.name)
          return moved
        }
        if failing(candidate) != nil { current = candidate }
      }
    }
    mergeWindows()
    // Commands run from elsewhere (`@w1 lap`) run in their windows instead (`w1: lap`), when the
    // session still fails so: more steps then read alike.
    if current.steps.contains(where: { $0.window == nil && $0.target != nil }) {
      var candidate = current
      candidate.steps = current.steps.map { step in
        guard step.window == nil, let window = step.target else { return step }
        return DrawnStep(window: window, call: step.call)
      }
      if failing(candidate) != nil { current = candidate }
    }
    removeSteps()
    // Steps that meant something apart may mean nothing in one window, and taken out, leave
    // windows to merge.
    mergeWindows()
    if current.windows.count < session.windows.count { removeSteps() }
    // Fewer windows: one taken out with the steps run in it.
    for window in current.windows.map(\.name).reversed() where current.windows.count > 1 {
      let steps = current.steps
      var candidate = current.removingSteps { steps[$0].window == window }
      candidate.windows.removeAll { $0.name == window }
      if !candidate.steps.isEmpty, failing(candidate) != nil { current = candidate }
    }
    // Fewer rebuilds: each tried without.
    for rebuild in current.rebuilds.reversed() where current.rebuilds.count > 1 {
      var candidate = current
      candidate.rebuilds.removeAll { $0 == rebuild }
      if failing(candidate) != nil { current = candidate }
    }
    // A shorter move in time (the move belongs only to the property it checks).
    if let travel = current.travel {
      for steps in 0..<travel where failure.property == .travelIsSame || steps == 0 {
        var candidate = current
        candidate.travel = steps == 0 ? nil : steps
        if failing(candidate) != nil {
          current = candidate
          break
        }
      }
    }
    // Smaller numbers, shorter waits: each argument that is one, by its kind, tried smaller.
    for index in current.steps.indices {
      for argument in current.steps[index].call.spec.arguments {
        guard let value = current.steps[index].call.arguments[argument.name] else { continue }
        for smaller in Self.smaller(than: value, of: argument.kind) {
          var candidate = current
          candidate.steps[index].call.arguments[argument.name] = smaller
          if failing(candidate) != nil {
            current = candidate
            break
          }
        }
      }
    }
    return (current, tries, cutShort)
  }

  /// Whether a property compares the second run with the first (the others are judged on the
  /// first run alone; a module that stops may stop in either).
  static func needsSecondRun(_ property: Failure.Property) -> Bool {
    [.staysUp, .replaysEqual, .rebuiltIsSame, .implementationsAgree].contains(property)
  }

  /// A session as one text (its windows, steps and rebuilds): equal texts run alike.
  static func key(of session: Session) -> String {
    let windows = session.windows.map { "\($0.name) \($0.screen) \($0.document)" }
    let steps = session.steps.map { "\($0.window ?? "-") \($0.line)" }
    return (windows + ["|"] + steps + ["|"] + session.rebuilds.map(String.init) + ["|", "\(session.travel ?? 0)"])
      .joined(separator: "\n")
  }

  /// The step the shrunk session fails at, when time ran out before it could be checked again:
  /// its last step (shrinking keeps the steps up to the failure).
  func shrunkStep(_ shrunk: Session, original: Session, failure: Failure) -> Int? {
    shrunk.steps.isEmpty ? nil : shrunk.steps.count - 1
  }

  /// Smaller values to try in place of an argument's, by its kind: a whole number's (or a
  /// whole-number id's) 0, 1 and half; a length of time's 1ms. A value that is neither stays.
  static func smaller(than value: ArgumentValue, of kind: ArgumentKind) -> [ArgumentValue] {
    switch kind {
    case .integer, .reference:
      let number: Int? =
        if case .integer(let number) = value { number } else { value.textValue.flatMap { Int($0) } }
      guard let number, number != 0 else { return [] }
      let tried = [0, 1, number / 2].filter { $0 != number }
      var unique: [Int] = []
      for candidate in tried where !unique.contains(candidate) { unique.append(candidate) }
      return unique.map { candidate in
        if case .integer = value { return .integer(candidate) }
        return .text(String(candidate))
      }
    case .duration:
      guard let text = value.textValue, text != "1ms" else { return [] }
      return [.text("1ms")]
    default:
      return []
    }
  }

  /// The file to write for `report`, and whether `workbench run` fails on it: it is run once
  /// here, as the runner runs it. A session that fails only in a replay (the second run, served
  /// the first one's facts) is written, when run once passes, as a recording of its first run
  /// (`facts:`), whose replay under the runner meets what explore met; when the runner passes
  /// either way, the file says so at its top. With `--against`, `failsOnlyAgainst` says that it
  /// passes on the modules explored and fails with the other implementation in its place.
  public func written(for report: Report) -> (
    text: String, failsUnderRun: Bool, failsOnlyAgainst: Bool, failsOtherwise: String?
  )? {
    // Two implementations: the file passes on the modules explored and fails on the other
    // (where they differ, or where the other stopped).
    if let property = report.failure?.property, [.implementationsAgree, .staysUp].contains(property), let against,
      let text = scenarioText(for: report)
    {
      let failsHere = runnerOutcome(text, of: report.failure) != .passes
      // A module explored that stopped by itself: the file fails on it, as any other would.
      if property == .staysUp, failsHere { return (text, true, false, nil) }
      let failsThere = failsUnderRunner(text, as: report.failure, registry: against.registry)
      let note =
        failsHere
        ? "# This file fails on the modules explored too: the difference is not the two implementations' alone."
        : failsThere
          ? "# It passes on the modules explored, and fails with \(against.name) in its module's place."
          : "# Run once by `workbench run`, it passes on both: the difference showed only in the sessions explore ran."
      return (noted(text, note), failsThere && !failsHere, failsThere && !failsHere, nil)
    }
    // A replay's failure is the recording's first: its frames hold what the facts said, which
    // another live run would not say again.
    if report.failure?.property == .replaysEqual, let recording = scenarioText(for: report, asRecording: true),
      failsUnderRunner(recording, as: report.failure)
    {
      return (recording, true, false, nil)
    }
    guard let text = scenarioText(for: report) else { return nil }
    // Out of time, the file is written as it is, unchecked, and says so.
    if isOutOfTime {
      return (
        noted(
          text,
          "# Not run through `workbench run` before it was written: --time ran out. Run it to see whether it fails."
        ), false, false, nil
      )
    }
    switch runnerOutcome(text, of: report.failure) {
    case .failsAsFound:
      return (text, true, false, nil)
    case .failsOtherwise(let how):
      // A file that fails for another reason is no regression test of this finding: it says
      // so, and how, rather than passing for one.
      return (
        noted(
          text,
          "# Run once by `workbench run`, this scenario fails, but not as explore found: \(TerminalText.visible(how)). "
            + "The finding is in the comment above; please report the difference."), false, false, how
      )
    case .doesNotLoad(let problem):
      // Every file explore writes loads; one that does not is explore's own bug, said at its top
      // rather than passed off as a file the runner passes.
      return (
        noted(
          text,
          "# This file does not load (\(TerminalText.visible(problem))): explore wrote it wrong; please report it."),
        false, false, nil
      )
    case .passes:
      return (
        noted(
          text,
          "# Run once by `workbench run`, this scenario passes: the failure showed only in the sessions explore ran "
            + "(the modules do not behave the same on every run, or only a replay shows it)."), false, false, nil
      )
    }
  }

  /// `text` with `note` under the comment that heads it (the file is not made again).
  private func noted(_ text: String, _ note: String) -> String {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let heading = lines.firstIndex { !$0.hasPrefix("#") } ?? lines.endIndex
    lines.insert(Substring(note), at: heading)
    return lines.joined(separator: "\n")
  }

  /// The commands of a file explore wrote (its steps that run something, expectations aside):
  /// the count a summary gives, which is the file's, not the session's it was written from.
  public func commandSteps(inFile text: String) -> Int? {
    guard let file = try? ScenarioLoader(registry: registry).load(bytes: Array(text.utf8), path: "<explore>") else {
      return nil
    }
    return file.scenarios.reduce(0) { count, scenario in
      count
        + scenario.steps.count {
          switch $0.action {
          case .command, .host: true
          case .expect, .snapshot: false
          }
        }
    }
  }

  /// How the runner says `holds: rebuilt` is broken (`ScenarioRunner.checkRebuilt`).
  static let rebuiltMessage = "a window rebuilt from its document and view state is not the same window"
  /// How the runner says `holds: replayed` is broken.
  static let replayedMessage = "a session does not replay with equal frames"

  /// What the runner makes of a scenario file explore wrote.
  package enum RunnerOutcome: Equatable {
    case passes
    /// It fails where explore put the finding: at the file's last step (the command a module
    /// stopped in, or the expectation after the failing command), in a window the finding names;
    /// for a replay's finding, also at the command whose replay diverged.
    case failsAsFound
    /// It fails, at another step or in another window: said in words (`line 7, \`w1: done
    /// 2\`: done today already`).
    case failsOtherwise(String)
    case doesNotLoad(String)
  }

  /// Runs a scenario file's text once (on `registry`, or the explorer's) and says whether it
  /// fails as `failure` was found: where and in which window, not only whether.
  package func runnerOutcome(_ text: String, of failure: Failure?, registry given: ModuleRegistry? = nil)
    -> RunnerOutcome
  {
    let registry = given ?? self.registry
    let file: ScenarioFile
    do {
      file = try ScenarioLoader(registry: registry).load(bytes: Array(text.utf8), path: "<explore>")
    } catch {
      return .doesNotLoad(error.description)
    }
    let runner = ScenarioRunner(registry: registry)
    for scenario in file.scenarios {
      guard let found = runner.run(scenario).failure else { continue }
      let last = scenario.steps.last?.location.line
      // A replay's finding may show at its command, which asks the recording for what it lacks;
      // an undo's or redo's, at the undo or redo itself when it was refused.
      let atCommand: Set<Failure.Property> = [.replaysEqual, .undoRestores, .redoRestores]
      let command =
        failure.map { atCommand.contains($0.property) } == true ? scenario.steps.dropLast().last?.location.line : nil
      let windows = failure?.windows ?? []
      let inItsWindow =
        windows.isEmpty || found.details.isEmpty
        || windows.contains { found.details[0].hasPrefix($0 + ".") || found.details[0].hasPrefix($0 + ":") }
      if found.location.line == command || (found.location.line == last && inItsWindow) { return .failsAsFound }
      // A rebuild finding's file checks the relation at every step from the first `reopen` on:
      // the same relation broken in the same window, at the finding's step or before it.
      if failure?.property == .rebuiltIsSame, found.message.hasPrefix(Self.rebuiltMessage), inItsWindow {
        return .failsAsFound
      }
      if failure?.property == .replaysEqual, found.message.hasPrefix(Self.replayedMessage), inItsWindow {
        return .failsAsFound
      }
      let detail =
        found.details.isEmpty
        ? "" : " (" + found.details.prefix(3).map { String($0.drop { $0 == " " }) }.joined(separator: " ") + ")"
      return .failsOtherwise(
        "at line \(found.location.line), `\(found.step)`: \(found.message)\(detail)"
          + (found.location.line == last ? ", not in \(windows.joined(separator: " or "))" : ""))
    }
    return .passes
  }

  /// Whether the runner fails on a scenario file's text as `failure` was found.
  func failsUnderRunner(_ text: String, as failure: Failure?, registry given: ModuleRegistry? = nil) -> Bool {
    runnerOutcome(text, of: failure, registry: given) == .failsAsFound
  }

  /// The shrunk session as a scenario file that fails the same way under `workbench run`, with
  /// a comment naming the seed, the property and how long the session was. `asRecording` keeps
  /// the facts its first run took (`facts:`), so the runner replays them; `nil` when it took
  /// none.
  public func scenarioText(for report: Report, asRecording: Bool = false) -> String? {
    guard let failure = report.failure, let session = report.shrunk, let original = report.original else {
      return nil
    }
    var scenario = self.scenario(of: session, steps: failure.step, name: "explore: \(failure.property.rawValue)")
    // The first run, recorded: what its steps took from outside, and the frames they showed
    // with those facts (another live run may be told other things).
    var recorded: [(key: String, value: FrameValue)]?
    if asRecording {
      let run = framesAndFacts(session, steps: failure.step + 1, recording: true)
      guard !run.facts.isEmpty else { return nil }
      scenario.facts = run.facts
      recorded = run.frames
    }
    // A step that was refused says so (`fails:`), as a scenario must.
    for (index, message) in refusals(of: session, steps: failure.step).enumerated() {
      if let message { scenario.steps[index].failure = .substring(message) }
    }
    let here = SourceLocation(file: "<explore>", line: 1, column: 1)
    let failing = session.steps[min(failure.step, session.steps.count - 1)]
    let action: Step.Action =
      failing.window.map { .command(window: $0, line: failing.line) } ?? .host(line: failing.line)
    // The failing step as it ran: refused, it says so (`fails:`), or the file would not load (a
    // number across its range is refused when the file is checked) or would fail there instead.
    var failingStep: Step {
      Step(
        action: action, location: here, failure: refusalMessage(of: session, at: failure.step).map { .substring($0) })
    }
    switch failure.property {
    case .staysUp:
      // The step a module stopped in fails under the runner: that is the finding, not a refusal.
      scenario.steps.append(Step(action: action, location: here))
    case .refusalChangesNothing:
      // The frames before, the refusal, then the same frames: the last expectation fails.
      let frames = framesAfter(session, steps: failure.step)
      let expectation = Step(
        action: .expect(frames.map { ($0.key, YAMLNode($0.value, at: here)) }), location: here)
      scenario.steps.append(expectation)
      let message = refusalMessage(of: session, at: failure.step) ?? ""
      scenario.steps.append(Step(action: action, location: here, failure: .substring(message)))
      scenario.steps.append(expectation)
    case .rebuiltIsSame:
      // A relation, not a value: `holds: rebuilt` runs the file again without its `reopen`
      // steps and compares every window after every step, so the file passes on a sound module
      // and fails on the bug, where a window made again shows another frame.
      scenario.steps.append(failingStep)
      scenario.holdsRebuilt = true
      // The windows opened again, after the steps they follow (last first, so the places hold).
      for rebuild in session.rebuilds.reversed() where rebuild <= failure.step {
        scenario.steps.insert(Step(action: .host(line: "reopen"), location: here), at: rebuild + 1)
      }
    case .implementationsAgree:
      // What the modules explored show: the file passes on them and fails with the other.
      scenario.steps.append(failingStep)
      scenario.steps.append(
        expectation(of: session, after: failure) {
          registry.lifetimeFields(ofScreen: $0) + registry.ownFields(ofScreen: $0)
        })
    case .undoRestores, .redoRestores:
      // The window as it was before the command undone (or after the command redone): the frame
      // two steps back for an undo, one step back for a redo, which is the step before either.
      // An undo refused right after the change is the finding, not a refusal to expect: the
      // step is written without `fails:`, so the file fails on the bug and passes on the fix.
      scenario.steps.append(Step(action: action, location: here))
      let window = failure.windows.first ?? ""
      let screen = session.windows.first { $0.name == window }?.screen ?? ""
      let back = failure.property == .undoRestores ? 1 : 0
      let frames = framesAfter(session, steps: max(0, failure.step - back))
      if let frame = frames.first(where: { $0.key == window }) {
        let shown = Self.withoutFields(registry.lifetimeFields(ofScreen: screen), frame.value) ?? frame.value
        scenario.steps.append(Step(action: .expect([(window, YAMLNode(shown, at: here))]), location: here))
      }
    case .travelIsSame:
      // The session's last step, a move back in time and forward again, then what its windows
      // showed before the move: the expectation fails where the session came back otherwise.
      scenario.steps.append(failingStep)
      let back = session.travel ?? 1
      scenario.steps.append(Step(action: .host(line: "travel back \(back)"), location: here))
      scenario.steps.append(Step(action: .host(line: "travel forward \(back)"), location: here))
      scenario.steps.append(expectation(of: session, after: failure, leavingOut: registry.lifetimeFields(ofScreen:)))
    case .replaysEqual:
      scenario.steps.append(failingStep)
      if let recorded {
        // A recording's first run: its frames hold what the facts said, which its replay under
        // the runner must show again.
        scenario.steps.append(
          Step(action: .expect(recorded.map { ($0.key, YAMLNode($0.value, at: here)) }), location: here))
      } else {
        // Nothing from outside: a relation, not the frames one run showed. The runner runs the
        // steps twice and compares every window after every step.
        scenario.holdsReplayed = true
      }
    case .always:
      // The window's screen's own expectation, as the module wrote it.
      scenario.steps.append(failingStep)
      let window = failure.windows.first ?? ""
      let screen = session.windows.first { $0.name == window }?.screen ?? ""
      let expected = (invariants[screen] ?? []).map { (window, $0.invariant.expected) }
      scenario.steps.append(Step(action: .expect(expected), location: here))
    case .windowsAgree:
      // The first window is expected to show what the second shows.
      scenario.steps.append(failingStep)
      let frames = framesAfter(session, steps: failure.step + 1, keepingRefusalFields: true)
      if failure.windows.count == 2, let other = frames.first(where: { $0.key == failure.windows[1] }) {
        let screen = session.windows.first { $0.name == other.key }?.screen ?? ""
        let ignored = registry.lifetimeFields(ofScreen: screen) + registry.ownFields(ofScreen: screen)
        let shown = Self.withoutFields(ignored, other.value) ?? other.value
        scenario.steps.append(
          Step(action: .expect([(failure.windows[0], YAMLNode(shown, at: here))]), location: here))
      }
    }
    guard let body = try? ScenarioWriter().text(of: scenario, data: nil) else { return nil }
    let seed = report.failingSeed.map { "session seed \($0), " } ?? ""
    // One comment line each, whatever the detail holds; module text with its control
    // characters shown, as a file with them in a comment does not load.
    let detail = TerminalText.visible(failure.detail.split(whereSeparator: \.isNewline).joined(separator: " "))
    // The whole command, so that pasting it finds the same session: `--runs` reaches it.
    let command =
      TerminalText.visible(options.command ?? "workbench explore") + " --seed \(options.seed)"
      + (options.command == nil && options.steps != Options().steps ? " --steps \(options.steps)" : "")
      + (report.failingRun.map { " --runs \($0 + 1)" } ?? "")
    return """
      # Found by `\(command)` (\(seed)property: \(failure.property.rawValue)).
      # \(detail)
      # Shrunk from \(Self.count(original.steps.count, "step")) in \(Self.count(original.windows.count, "window")) to \
      \(session.steps.count) in \(session.windows.count).

      """ + body
  }

  /// An expectation of the frames the windows a failure names (every window when it names none)
  /// show after its step, without the fields `leavingOut` gives for each window's screen.
  private func expectation(of session: Session, after failure: Failure, leavingOut: (String) -> [String]) -> Step {
    let here = SourceLocation(file: "<explore>", line: 1, column: 1)
    let frames = framesAfter(session, steps: failure.step + 1).filter {
      failure.windows.isEmpty || failure.windows.contains($0.key)
    }
    let shown = frames.map { frame in
      let screen = session.windows.first { $0.name == frame.key }?.screen ?? ""
      return (frame.key, YAMLNode(Self.withoutFields(leavingOut(screen), frame.value) ?? frame.value, at: here))
    }
    return Step(action: .expect(shown), location: here)
  }

  /// `1 step`, `3 steps`.
  static func count(_ number: Int, _ noun: String) -> String {
    "\(number) \(noun)\(number == 1 ? "" : "s")"
  }

  /// Every window's frame after the first `steps` steps, by window, in window order.
  private func framesAfter(_ session: Session, steps count: Int, keepingRefusalFields: Bool = false)
    -> [(key: String, value: FrameValue)]
  {
    framesAndFacts(session, steps: count, keepingRefusalFields: keepingRefusalFields).frames
  }

  /// Every window's frame after the first `steps` steps, and with `recording` the facts those
  /// steps took from outside, recorded from the start (with the states of the services there),
  /// by key in order.
  private func framesAndFacts(
    _ session: Session, steps count: Int, keepingRefusalFields: Bool = false, recording: Bool = false
  ) -> (frames: [(key: String, value: FrameValue)], facts: [SessionFacts.Key: [FrameValue]]) {
    guard let live = try? start(session) else { return ([], [:]) }
    defer { live.end() }
    if recording { live.facts.startRecording() }
    for step in session.steps.prefix(count) { try? live.run(step.call, frontEnd: QuietFrontEnd()) }
    // As an expectation sees them (live sources' changes taken in), without what a screen
    // shows about a refusal, which a refusal may change.
    live.host.services.takeWaitingLiveChanges()
    let shown = live.host.framesByLabel
    let frames = session.windows.compactMap { window in
      Self.withoutFields(
        keepingRefusalFields ? [] : registry.refusalFields(ofScreen: window.screen), shown[window.name]
      ).map { (key: window.name, value: $0) }
    }
    var facts: [SessionFacts.Key: [FrameValue]] = [:]
    if recording {
      for entry in live.facts.stopRecording() { facts[entry.key, default: []].append(entry.value) }
    }
    return (frames, facts)
  }

  /// The message the step at `index` is refused with, after the steps before it.
  private func refusalMessage(of session: Session, at index: Int) -> String? {
    refusals(of: session, steps: index + 1).last ?? nil
  }

  /// What each of the first `count` steps was refused with (`nil`: it ran).
  private func refusals(of session: Session, steps count: Int) -> [String?] {
    guard let live = try? start(session) else { return [] }
    defer { live.end() }
    return session.steps.prefix(count).map { step -> String? in
      do throws(CommandError) {
        try live.run(step.call, frontEnd: QuietFrontEnd())
        return nil
      } catch {
        return error.message
      }
    }
  }
}
