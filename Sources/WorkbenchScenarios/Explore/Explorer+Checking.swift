import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSession

// Each session run twice side by side (or once, for a property judged on the first run), with
// the properties checked after every step.
extension Explorer {
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
    /// Whether the session's checks ended at a rebuild whose windows asked the outside world for
    /// something, or set a timer, as they opened again (the two runs cannot be compared from
    /// there).
    public var endedAtRebuild = false
    /// Why the checks ended there, in words.
    public var endedAtRebuildWhy: String?
    /// Moves back in time and forward again compared with the session before them.
    public var travels = 0
    /// Whether the first run took a fact from outside (an answer, a service's state): a move in
    /// time asks the outside world again, so such a session is not moved.
    var askedOutside = false
  }

  /// A fresh session set up as `session` begins.
  package func start(_ session: Session, on registry: ModuleRegistry? = nil) throws(CommandError) -> WorkbenchSession {
    try WorkbenchSession.starting(scenario(of: session, steps: 0), registry: registry ?? self.registry)
  }

  /// Runs a session twice, checking after every step that nothing crashed or was reported,
  /// that a refused command left every frame and document as they were, and that the second
  /// run, a replay of the first's recording, shows the first's frames.
  ///
  /// Without `secondRun`, only the first run is made: what the properties judged on it alone
  /// need (a refusal, a module's rule, windows agreeing, undo), at half the cost, as shrinking
  /// such a failure does.
  public func check(_ session: Session, secondRun: Bool = true) -> Outcome {
    let rebuilds = Set(session.rebuilds)
    return run(
      windows: session.windows, steps: session.steps.count, secondRun: secondRun, travel: session.travel,
      rebuildingAfter: { index, _ in rebuilds.contains(index) }, next: { index, _, _ in session.steps[index] })
  }

  /// Runs `count` steps, each given by `next` (its index, and the first run's session as the
  /// steps before left it), on two sessions side by side, checking after each.
  func run(
    windows: [WindowSeed], steps count: Int, secondRun: Bool = true, covering: Bool = false, travel: Int? = nil,
    rebuildingAfter rebuilds: (_ step: Int, _ refused: Bool) -> Bool,
    next: (Int, WorkbenchSession, Undoable?) -> DrawnStep
  ) -> Outcome {
    var outcome = Outcome()
    let session = Session(windows: windows, steps: [])
    guard let first = try? start(session) else {
      outcome.failure = Failure(property: .staysUp, step: 0, detail: "the session could not be set up")
      return outcome
    }
    defer { first.end() }
    // A session that ends with a move in time keeps its steps, as the shell does (two
    // implementations side by side are compared as they are).
    let travel = against == nil ? travel : nil
    if travel != nil {
      first.journal = SessionJournal(
        origin: scenario(of: session, steps: 0), label: "the session explored", registry: registry,
        frames: first.host.framesByLabel)
    }
    guard secondRun else {
      // What it takes from outside is kept, to know whether it may move in time.
      if travel != nil { first.facts.startRecording(capturingStates: false) }
      return travelled(first, back: travel, outcome: runAlone(first, steps: count, next: next, outcome: outcome))
    }
    guard let second = try? start(session, on: against?.registry) else {
      outcome.failure = Failure(property: .staysUp, step: 0, detail: "the session could not be set up")
      return outcome
    }
    defer { second.end() }
    // The second run replays the first: every fact the first takes from outside (an answer, a
    // service's state, a live source's change) is kept, and served to the second at the same
    // step, so the two differ only where the module itself does.
    // Two implementations (`--against`) each ask their own simulated world, live: one may ask
    // a fact a step earlier than the other, which a recording replayed whole allows.
    if against == nil {
      first.facts.startRecording(capturingStates: false)
      second.facts.startReplaying()
    }
    if covering { tracker?.opened(first.host, into: &outcome.coverage) }
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
    for index in 0..<count {
      if isOutOfTime {
        outcome.cutShort = true
        return outcome
      }
      let ran = runFirst(first, index: index, undoable: undoable, next: next)
      let (liveTaken, step, before, revisionsBefore, refusal) = (
        ran.liveTaken, ran.step, ran.before, ran.revisionsBefore, ran.refusal
      )
      // What the first took in from live sources (before the step, or as its line began), the
      // second takes in before it too: the first's, not what its own sources say.
      if against == nil {
        let taken = first.facts.takeRecorded()
        if taken.contains(where: { !$0.key.isLiveChanges }) { outcome.askedOutside = true }
        second.facts.serve(taken)
        for _ in liveTaken..<max(liveTaken, first.facts.liveChangesTaken.count) {
          second.host.services.takeLiveChanges()
        }
      } else {
        second.host.services.takeWaitingLiveChanges()
      }
      var secondRefusal: CommandError?
      do {
        try second.run(step.call, takingLiveChanges: false, frontEnd: QuietFrontEnd())
      } catch {
        secondRefusal = error
      }
      outcome.stepsRun += 1
      if covering { cover(ran, in: first, &outcome) }
      let revisionsAfter = first.host.revisionsByDocument
      let differs: Failure.Property =
        against != nil ? .implementationsAgree : rebuilt ? .rebuiltIsSame : .replaysEqual
      // Where the second run differs from the first, in words (made only for a failure).
      var differsWhere: String {
        against.map { " with \($0.name) in its place" }
          ?? (rebuilt ? " in the run rebuilt from the same documents and view state" : " in a replay of it")
      }
      // A module that stopped (crashed, hung, broke the protocol) is no refusal. With two
      // implementations, one that stopped in the second run is the other implementation.
      func stops(_ refused: CommandError?, _ session: WorkbenchSession) -> [String] {
        [refused].compactMap { $0 }.filter { $0.stoppedModule != nil }.map(\.message) + session.takeIncidents()
      }
      let secondStops = stops(secondRefusal, second).map { incident in
        against.map { "with \($0.name) in its module's place: \(incident)" } ?? incident
      }
      let incidents = stops(refusal, first) + secondStops
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
      if refusal != nil { outcome.refused += 1 }
      if let found = Self.refusalFailure(
        step: step, index: index, refusal: refusal, host: first.host, before: before,
        revisionsBefore: revisionsBefore, revisionsAfter: revisionsAfter)
      {
        outcome.failure = found
        return outcome
      }
      if revisionsAfter != second.host.revisionsByDocument {
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
        let shown = Self.withoutFields(ignored(one), frame)
        let again = Self.withoutFields(ignored(one), other.frame)
        if shown != again {
          // Where the two frames come from, in words.
          let (place, first, second): (String, String?, String?) =
            if let against {
              ("with \(against.name) in its module's place", "with the module explored", "with \(against.name)")
            } else if rebuilt {
              (
                "where the windows were opened again from their documents and view states (`reopen`)",
                "where they stayed open", "where they were opened again"
              )
            } else {
              ("in a replay of the same steps", nil, nil)
            }
          outcome.failure = Failure(
            property: differs, step: index,
            detail: "after `\(step.line)`, window \(one.label) shows another frame \(place)"
              + Self.difference(shown, again, first: first, second: second),
            windows: [one.label])
          return outcome
        }
        // The module's own rules, on a frame that moved.
        if let found = alwaysFailure(of: one, frame: frame, step: step, index: index, checks: &outcome.checks) {
          outcome.failure = found
          return outcome
        }
        if let a = one.frameStamp, let b = other.frameStamp { compared[one.label] = (a, b) }
      }
      if let found = Self.agreementFailure(step: step, index: index, refused: refusal != nil, host: first.host) {
        outcome.checks += 1
        outcome.failure = found
        return outcome
      }
      // Undo shows what the window showed before the command it undoes, and redo what it showed
      // after, when the undo comes right after a command that changed only the document (or
      // only the window's view state) and nothing else moved in between.
      let history = checkHistory(
        ran, index: index, undoable: undoable, host: first.host, revisionsAfter: revisionsAfter)
      undoable = history.next
      if history.compared { outcome.historyChecks += 1 }
      if let found = history.failure {
        outcome.checks += 1
        outcome.failure = found
        return outcome
      }
      // The seed's first rule: a window is its document and its view state. After a refusal,
      // and at steps the session chose, the second run's windows are made again from their
      // documents and view states (`reopen`: new screen models, a module process told the
      // windows closed and opened) and must show what the first shows, then and at every later
      // step.
      // Windows that start work as they open (a load) are opened again only while none waits
      // in the run, so catching up with theirs finishes what the run had finished too.
      let waiting = Self.timers(first)
      guard rebuilds(index, refusal != nil), canReopen(first), waiting == Self.timers(second),
        waiting.isEmpty || !first.host.windows.contains(where: { catchingUp.contains($0.screen.name) })
      else {
        continue
      }
      // What the windows ask as they open again is served the answers the run took, and what
      // they start on the clock is caught up with at once: a feed loads its rows again and
      // shows what it showed.
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
      // A window that asked the outside world something new as it opened again (which the
      // run never took), or whose work does not end, cannot be compared from here.
      if second.facts.divergence != nil || Self.timers(first) != Self.timers(second) {
        outcome.endedAtRebuild = true
        outcome.endedAtRebuildWhy =
          second.facts.divergence
          ?? "their timers are due at \(Self.timers(second).map(SessionClock.describe)) where the run's are at "
          + "\(Self.timers(first).map(SessionClock.describe))"
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
    return travelled(first, back: travel, outcome: outcome)
  }

  /// `outcome`, with the first run moved `back` steps back in time and as many forward again
  /// after its last step (a session that passed every other check): every window must show
  /// what it showed before the move (lifetime fields aside, which a replay does not live again)
  /// and every document keep its revision.
  func travelled(_ first: WorkbenchSession, back: Int?, outcome given: Outcome) -> Outcome {
    var outcome = given
    guard let back, let position = first.journal?.position, position > 0, outcome.failure == nil, !outcome.cutShort
    else { return outcome }
    // A move in time replays the steps and asks the outside world again (it serves again what
    // live sources said, not the answers facts gave): a session that took any is not moved.
    guard !outcome.askedOutside, !first.facts.takeRecorded().contains(where: { !$0.key.isLiveChanges }) else {
      return outcome
    }
    let steps = min(back, position)
    let index = outcome.stepsRun - 1
    func shown() -> [(String, FrameValue)] {
      takeLiveChanges(first)
      return first.host.windows.map { ($0.label, Self.withoutFields($0.screen.lifetimeFields, $0.frame) ?? $0.frame) }
    }
    let before = shown()
    let revisions = first.host.revisionsByDocument
    outcome.checks += 1
    do {
      try first.run(hostCall("travel", "back", arguments: ["count": .integer(steps)]), frontEnd: QuietFrontEnd())
      try first.run(hostCall("travel", "forward", arguments: ["count": .integer(steps)]), frontEnd: QuietFrontEnd())
    } catch {
      outcome.failure = Failure(
        property: .travelIsSame, step: index,
        detail: "`travel back \(steps)` then `travel forward \(steps)` was refused: \(error.message)")
      return outcome
    }
    if let incident = first.takeIncidents().first {
      outcome.failure = Failure(property: .staysUp, step: index, detail: incident)
      return outcome
    }
    let after = shown()
    guard before.map(\.0) == after.map(\.0) else {
      outcome.failure = Failure(
        property: .travelIsSame, step: index,
        detail: "after `travel back \(steps)` and `travel forward \(steps)`, the windows are \(after.map(\.0)), "
          + "not \(before.map(\.0))")
      return outcome
    }
    for ((label, frame), (_, again)) in zip(before, after) where frame != again {
      outcome.failure = Failure(
        property: .travelIsSame, step: index,
        detail: "after `travel back \(steps)` and `travel forward \(steps)`, window \(label) shows another frame"
          + Self.difference(frame, again, first: "before", second: "after"),
        windows: [label])
      return outcome
    }
    if revisions != first.host.revisionsByDocument {
      outcome.failure = Failure(
        property: .travelIsSame, step: index,
        detail: "after `travel back \(steps)` and `travel forward \(steps)`, the documents' revisions are "
          + Self.revisions(first.host) + ", not as before")
    }
    outcome.travels += 1
    return outcome
  }

  /// Takes in what the session's live sources said, as an expectation does. A session that keeps
  /// its steps (it will move in time) takes them in as a `live` line, the shell's way, so a
  /// move brings them in again at their step.
  func takeLiveChanges(_ session: WorkbenchSession) {
    guard session.journal != nil else {
      session.host.services.takeWaitingLiveChanges()
      return
    }
    if session.host.services.liveChangesWaitWhenAsked() {
      try? session.run(hostCall("live"), frontEnd: QuietFrontEnd())
    }
  }

  /// A step of the first run, with what the checks need from before it.
  struct FirstStep {
    /// How many live changes the first run had taken before this step.
    var liveTaken: Int
    /// How many it had taken after the step (a `live` step takes some; no other does, as live
    /// changes come in between steps): an undo after more were taken is not the history's alone.
    var liveTakenAfter = 0
    var step: DrawnStep
    /// The window the step runs in (its own, or the one its command names), and its view state
    /// before, for the undo properties and the coverage.
    var target: String?
    var viewBefore: ViewStateSnapshot?
    var before: [String: (stamp: Int?, frame: FrameValue)]
    var revisionsBefore: [String: Int]
    /// When the session's timers were due before the step: a step that set or cancelled one
    /// changed what comes later, besides its window's history.
    var timersBefore: [Duration] = []
    /// The timers that waited before the step, by number, with the window that set each.
    var timerWindowsBefore: [(number: Int, window: Int?)] = []
    /// How many history steps had moved their window's timers before the step.
    var historyTimerMovesBefore = 0
    var refusal: CommandError?
  }

  /// Runs the next step on the first run: what live sources said since the last step comes in
  /// first (as before an expectation), so the frames before a step are those it starts from.
  private func runFirst(
    _ first: WorkbenchSession, index: Int, undoable: Undoable?,
    next: (Int, WorkbenchSession, Undoable?) -> DrawnStep
  ) -> FirstStep {
    let liveTaken = first.facts.liveChangesTaken.count
    takeLiveChanges(first)
    let step = next(index, first, undoable)
    let target = step.target
    var ran = FirstStep(
      liveTaken: liveTaken, step: step, target: target,
      viewBefore: target.flatMap { first.host.window(named: $0) }?.viewStateSnapshot,
      before: Self.stampedFrames(of: first.host), revisionsBefore: first.host.revisionsByDocument,
      timersBefore: Self.timers(first), timerWindowsBefore: first.host.clock.waitingTimerWindows,
      historyTimerMovesBefore: first.host.clock.historyTimerMoves)
    // Live changes come in before the step (above) and never as its line begins: the frames
    // before it then hold them, so a refusal or an undo is judged on what the command did, and
    // the replay, which takes the first's groups before its step, takes them at the same point
    // (inside the line they would land after its due timers, before them in the replay).
    do {
      try first.run(step.call, takingLiveChanges: false, frontEnd: QuietFrontEnd())
    } catch {
      ran.refusal = error
    }
    ran.liveTakenAfter = first.facts.liveChangesTaken.count
    return ran
  }

  /// `run` without its second run: the first run alone, with the properties judged on it.
  private func runAlone(
    _ first: WorkbenchSession, steps count: Int,
    next: (Int, WorkbenchSession, Undoable?) -> DrawnStep,
    outcome given: Outcome
  ) -> Outcome {
    var outcome = given
    var undoable: Undoable?
    var compared: [String: Int] = [:]
    for index in 0..<count {
      if isOutOfTime {
        outcome.cutShort = true
        return outcome
      }
      let ran = runFirst(first, index: index, undoable: undoable, next: next)
      let (step, before, revisionsBefore, refusal) = (ran.step, ran.before, ran.revisionsBefore, ran.refusal)
      outcome.stepsRun += 1
      let revisionsAfter = first.host.revisionsByDocument
      let stopped = refusal?.stoppedModule != nil ? [refusal?.message ?? ""] : []
      if let incident = (stopped + first.takeIncidents()).first {
        outcome.failure = Failure(property: .staysUp, step: index, detail: incident)
        return outcome
      }
      if refusal != nil { outcome.refused += 1 }
      var failure = Self.refusalFailure(
        step: step, index: index, refusal: refusal, host: first.host, before: before,
        revisionsBefore: revisionsBefore, revisionsAfter: revisionsAfter)
      for window in first.host.windows where failure == nil {
        if let stamp = window.frameStamp, compared[window.label] == stamp { continue }
        failure = alwaysFailure(of: window, frame: window.frame, step: step, index: index, checks: &outcome.checks)
        if let stamp = window.frameStamp { compared[window.label] = stamp }
      }
      failure = failure ?? Self.agreementFailure(step: step, index: index, refused: refusal != nil, host: first.host)
      if failure == nil {
        let history = checkHistory(
          ran, index: index, undoable: undoable, host: first.host, revisionsAfter: revisionsAfter)
        undoable = history.next
        failure = history.failure
      }
      if let failure {
        outcome.failure = failure
        return outcome
      }
    }
    return outcome
  }
}
