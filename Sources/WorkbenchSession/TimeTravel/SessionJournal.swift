import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioModel

/// The steps of a shell session, kept so the session can be moved to any of them
/// (`travel back`, `travel forward`, `travel to`): where the session started (a scenario's
/// set-up, or the workspace's documents and windows as the shell found them) and, for each
/// line typed since (or each scenario step the session was opened after), the commands it ran,
/// the session's time before it and every window's frame after it.
///
/// Moving is a deterministic replay: a new session is set up from the start as a scenario is,
/// and the commands of the steps before the target run again on a virtual clock moved to the
/// time each step began. Forward from where the session is, only the steps in between run.
/// Typing a command after `travel back` starts a new branch: the steps after it are dropped,
/// as an editor's undo drops what was undone.
@MainActor
public final class SessionJournal {
  /// One step of the session: a line typed, or a scenario's step.
  public struct Entry: Sendable {
    /// What was typed, or the scenario step as one line (`left: select 2`).
    public var label: String
    /// Where a scenario's step was written (`file:line:column`); `nil` for a typed line.
    public var location: String?
    /// The commands it ran, as scenario steps (a question's answer is in the words).
    var steps: [Step]
    /// The session's time before it began (`nil` for a scenario's step not run yet).
    var clockAtStart: Duration?
    /// Every open window's frame after it, by window label.
    public internal(set) var frames: [String: FrameValue]
    /// What the step failed with, when it failed (a scenario's expectation, a command's error).
    public var failure: String?
    /// Whether it ran: a scenario opened at a step has the steps after it too, which run when
    /// the session is moved forward to them.
    public internal(set) var ran = true
  }

  /// Where every replay starts: a scenario's set-up (its steps are run before the entries, not
  /// counted as steps of their own).
  private(set) var origin: Scenario
  let registry: ModuleRegistry
  /// For a session on a workspace: the documents it started with, by name (kind and revision),
  /// and the bodies of those that changed since, as they were before their first change. The
  /// others are read when the session first moves (`settleOrigin`), not at the start.
  private var startingDocuments: (names: [String: (kind: String, revision: Int)], before: [String: DocumentAsItWas])?
  /// Those documents, settled (`settleOrigin`): as the workspace stored them, decoded by a
  /// replay only when it needs them.
  private var originStored: [DocumentAsItWas] = []
  /// What the session started from, for the listing (`the scenario "…"`, `the workspace`).
  let originLabel: String
  /// Whether the session was opened at a scenario's step: a recording made in it begins with
  /// that scenario's set-up and the steps that led to where it is.
  public var isScenario = false
  /// The frames when the session started.
  private var originFrames: [String: FrameValue]
  /// Every window's frame where the session started, by label.
  public var startFrames: [String: FrameValue] { originFrames }
  /// The steps, oldest first.
  public private(set) var entries: [Entry] = []
  /// How many steps the session is past: `entries.count` unless it went back.
  public private(set) var position = 0
  /// How many steps were kept since the session started, branches included (steps a branch
  /// dropped count too): what was done since a point, whatever moves came between.
  public private(set) var stepsKept = 0
  /// The session's time when it left its last step for another (a move from the end): the
  /// last step is shown as it was then.
  private var leftAt: Duration?
  /// The step being made by the line that is running.
  private var pending: Entry?
  /// How deep lines run inside each other (`source` runs its file's lines inside its own).
  private var depth = 0
  /// While a replay runs, nothing it does is kept.
  private var replaying = false
  /// The live changes the session took, in order: a move in time brings each in again at its
  /// step (the session's when it was at its last step; kept while it is behind).
  private var liveChanges: [(scope: String, group: FrameValue)] = []
  /// Checks a scenario's expectation on a session as the runner does (set by the runner for a
  /// session opened at a step): a step ahead that runs later fails as it would have.
  public var expectationCheck: ((Step, WorkbenchSession) -> String?)?
  /// What went wrong in the replay of the last move, to say after it.
  private var replayProblems: [String] = []

  /// A journal that starts where `origin`'s set-up (and steps, not counted) leave a session.
  public init(origin: Scenario, label: String, registry: ModuleRegistry, frames: [String: FrameValue]) {
    self.origin = origin
    self.originLabel = label
    self.registry = registry
    self.originFrames = frames
  }

  /// A journal for a shell session on a workspace: it starts from the session as it is now
  /// (its documents, windows with their view state, and focus).
  ///
  /// - Throws: `CommandError` when a window's view state cannot be recorded.
  public convenience init(startingAt session: WorkbenchSession) throws {
    let host = session.host
    // Windows now; documents by name only: a body is kept when it first changes, so a start on
    // a big workspace reads nothing more than the shell would.
    let record = try host.sessionRecord(includingDocuments: false)
    var origin = SessionRecorder.scenario(
      startingAt: record, samples: [], name: "the session as it started",
      at: SourceLocation(file: "<session>", line: 1, column: 1))
    origin.viewportRows = session.environment.viewportRows
    // A replay reads the dates the session read: its clock starts where the shell's did.
    origin.date = host.clock.calendarOrigin
    self.init(
      origin: origin, label: "the session as the shell started it", registry: host.registry,
      frames: host.framesByLabel)
    startingDocuments = (host.documentRevisions, [:])
  }

  /// Listens to `host`'s documents while the starting ones are not all kept (the session's
  /// host, and the one each relaunch makes).
  func follow(_ host: Host) {
    guard startingDocuments != nil else {
      host.documentWillChange = nil
      return
    }
    host.documentWillChange = { [weak self] document in self?.keep(document) }
  }

  /// A document is about to change: the body it started with is kept, the first time.
  private func keep(_ document: DocumentAsItWas) {
    guard let start = startingDocuments?.names[document.name], start.revision == document.revision,
      startingDocuments?.before[document.name] == nil
    else { return }
    startingDocuments?.before[document.name] = document
  }

  /// Makes the start whole before the first move: every starting document, as kept before it
  /// changed or, unchanged, as `host` has it now. Nothing is read or encoded here: a body
  /// decoded is kept as the value it is, one never decoded as where the workspace stores it,
  /// read by a replay only where it needs it (a document another program broke stays broken,
  /// and only where it is read).
  func settleOrigin(from host: Host) {
    guard let starting = startingDocuments else { return }
    startingDocuments = nil
    host.documentWillChange = nil
    let now = host.documentRevisions
    var kept: [DocumentAsItWas] = []
    for name in starting.names.keys.sorted() {
      guard let start = starting.names[name] else { continue }
      if let before = starting.before[name] {
        kept.append(before)
      } else if now[name]?.revision == start.revision, let unchanged = host.documentAsItIs(named: name) {
        kept.append(unchanged)
      }
      // Otherwise it changed in a way that said nothing: it cannot be replayed from its start.
    }
    originStored = kept
  }

  // MARK: Following the session

  /// A scenario step ran (a session opened at a step keeps the steps that led there).
  public func stepRan(_ step: Step, label: String, clockAtStart: Duration, host: Host, failure: String?) {
    // Behind the last step (a scenario that moved back), a step that only looks is none, and
    // one that acts starts a branch: the steps ahead go, as after a command typed in the shell.
    if position < entries.count {
      switch step.action {
      case .expect, .snapshot: return
      case .command, .host:
        host.facts.forgetLiveChangesToServe()
        entries.removeSubrange(position...)
      }
    }
    entries.append(
      Entry(
        label: label, location: step.location.description, steps: [step], clockAtStart: clockAtStart,
        frames: host.framesByLabel, failure: failure))
    position = entries.count
  }

  /// A scenario's step after where the session was opened: listed, and run when the session is
  /// moved forward to it.
  public func stepAhead(_ step: Step, label: String) {
    entries.append(
      Entry(
        label: label, location: step.location.description, steps: [step], clockAtStart: nil, frames: [:],
        failure: nil, ran: false))
  }

  /// A line starts running on `host`.
  func lineStarts(_ line: String, host: Host) {
    guard !replaying else { return }
    depth += 1
    guard depth == 1 else { return }
    pending = Entry(label: line, location: nil, steps: [], clockAtStart: host.clock.now, frames: [:])
  }

  /// A command ran: it becomes part of the line's step, unless it belongs to the front end
  /// (`source`, `set`, time travel itself: a replay runs what they led to) or failed on
  /// something a replay cannot repeat (`clock advance` on real time).
  func commandRan(_ command: RanCommand) {
    guard !replaying, pending != nil, !command.isLeavingOrRecording else { return }
    switch command.request {
    case .frontEnd?, .recordStart?, .recordStop?, .quit?, .travel?: return
    default: break
    }
    // Looking is not a step: `frame` after `travel back` must not drop the steps ahead.
    if command.onlyLooks { return }
    if command.isHostCommand, command.spec.name.hasPrefix("clock"), command.failure != nil { return }
    // The command is kept as it ran (a replay runs it); its text is for showing and writing.
    pending?.steps.append(KeptCommand(command).step(at: SourceLocation(file: "<session>", line: 1, column: 1)))
    if command.failure != nil, pending?.failure == nil { pending?.failure = command.failure?.message }
  }

  /// The line finished on `host`: a line that ran commands becomes a step after the current one,
  /// and a branch when the session had gone back.
  func lineFinished(host: Host) {
    guard !replaying else { return }
    depth -= 1
    guard depth == 0, var entry = pending else { return }
    pending = nil
    guard !entry.steps.isEmpty else { return }
    // Behind the last step, a line whose commands all failed changed nothing: the steps ahead
    // stay (only a line that changes something starts a branch).
    if position < entries.count, entry.steps.allSatisfy({ $0.failure != nil }) { return }
    if position < entries.count {
      // A branch: what the steps dropped took in from live sources is not brought in again.
      host.facts.forgetLiveChangesToServe()
    }
    entry.frames = host.framesByLabel
    entries.removeSubrange(position...)
    entries.append(entry)
    stepsKept += 1
    leftAt = nil
    position = entries.count
  }

  /// The session moved to another host mid-line (time travel): the rest of the line starts at
  /// that host's time.
  func lineMoved(to host: Host) {
    pending?.clockAtStart = host.clock.now
  }

  /// A question about unsaved work was answered: the last step's command says so in words, as a
  /// script must (`close main save`); cancelled, the command did nothing and is dropped.
  func answered(_ choice: LeaveChoice, host: Host) {
    guard !replaying, position == entries.count, var last = entries.popLast() else { return }
    guard var step = last.steps.popLast() else { return }
    if choice != .cancel {
      // The answer is the command's argument (`close main save`), as a script must say it.
      if let command = step.commands.last?.resolution?.command, let answered = command.adding(choice.rawValue) {
        step.commands = [
          StepCommand(tokens: [], lineStart: step.location, resolution: .init(answered, windowChange: nil))
        ]
        step.action = step.line?.window.map { .command(window: $0, line: answered.text) } ?? .host(line: answered.text)
      } else {
        switch step.action {
        case .command(let window, let line): step.action = .command(window: window, line: line + " " + choice.rawValue)
        case .host(let line): step.action = .host(line: line + " " + choice.rawValue)
        default: break
        }
      }
      last.steps.append(step)
    }
    last.frames = host.framesByLabel
    if last.steps.isEmpty {
      position = entries.count
      return
    }
    entries.append(last)
    position = entries.count
  }

  /// The scenario that leads to where the session is, for a recording that continues it: the
  /// set-up, then every step up to the current one, a command that failed with `fails:`.
  /// Snapshots and expectations that failed are left out (the new file has no golden files, and
  /// is recorded to pass). `nil` unless the session was opened at a scenario's step.
  public func scenarioSoFar() -> Scenario? {
    guard isScenario else { return nil }
    var scenario = origin
    for entry in entries.prefix(position) {
      for var step in entry.steps {
        switch step.action {
        case .snapshot: continue
        case .expect where entry.failure != nil: continue
        case .command, .host:
          if step.failure == nil, let failure = entry.failure { step.failure = .substring(failure) }
        case .expect: break
        }
        scenario.steps.append(step)
      }
    }
    return scenario
  }

  // MARK: Moving

  /// A session at step `target` (0: where it started), and whether it is `current` moved
  /// forward (then `current` itself was changed) rather than a new session.
  ///
  /// - Throws: `CommandError` when the start cannot be set up again (a module gone).
  func session(at target: Int, current: WorkbenchSession) throws(CommandError) -> WorkbenchSession {
    replaying = true
    defer { replaying = false }
    replayProblems = []
    let session: WorkbenchSession
    let first: Int
    if target >= position {
      session = current
      first = position
    } else {
      session = try WorkbenchSession.starting(origin, registry: registry, stored: originStored)
      // The live changes the session took come in again at their steps.
      session.facts.serveLiveChanges(liveChanges)
      _ = replay(origin.steps, on: session)
      first = 0
    }
    for index in first..<target {
      let entry = entries[index]
      if let start = entry.clockAtStart { Self.advance(session, to: start) }
      let clock = session.host.clock.now
      let failure = replay(entry.steps, on: session)
      if !entry.ran {
        // A scenario's step ahead runs now for the first time: what it did is kept.
        entries[index].ran = true
        entries[index].clockAtStart = clock
        entries[index].frames = session.host.framesByLabel
        entries[index].failure = failure
      } else if let failure, entry.failure == nil {
        replayProblems.append("step \(index + 1) (\(entry.label)) failed in the replay, not live: \(failure)")
      }
      for incident in session.takeIncidents() { replayProblems.append("step \(index + 1): \(incident)") }
    }
    // A step is shown as the session was when the next one began: what the timers did while
    // the prompt waited (a load, a debounce) is part of it.
    if let until = target < entries.count ? entries[target].clockAtStart : leftAt { Self.advance(session, to: until) }
    position = target
    return session
  }

  /// Moves a replay's virtual clock to `time` (since its start), firing the timers due by then.
  private static func advance(_ session: WorkbenchSession, to time: Duration) {
    let clock = session.host.clock
    if clock.mode == .virtual, clock.now < time { try? clock.advance(by: time - clock.now) }
  }

  /// The session is about to move from `host`: from its last step, the time it left it at, and
  /// the live changes it took (the whole timeline's, from its last step).
  func leaving(_ host: Host) {
    keepLineSoFar(host)
    if position == entries.count {
      leftAt = host.clock.now
      liveChanges = host.facts.liveChangesTaken
    }
    settleOrigin(from: host)
  }

  /// What a moving line did before its move (live changes taken in as it began) is a step of
  /// the timeline it leaves, kept before the move is measured (`travel back 1` goes back from
  /// it): after the move it would start a branch that drops the steps ahead.
  func keepLineSoFar(_ host: Host) {
    if var entry = pending, !entry.steps.isEmpty {
      pending = Entry(label: entry.label, location: nil, steps: [], clockAtStart: host.clock.now, frames: [:])
      entry.label = "live"
      entry.frames = host.framesByLabel
      if position < entries.count { host.facts.forgetLiveChangesToServe() }
      entries.removeSubrange(position...)
      entries.append(entry)
      leftAt = nil
      position = entries.count
    }
  }

  /// Runs steps as a scenario would, showing nothing: commands, and what live sources said
  /// before an expectation (checked, for a scenario's step). Returns the first failure that was
  /// not expected (a step written to fail that fails is no failure).
  private func replay(_ steps: [Step], on session: WorkbenchSession) -> String? {
    let quiet = QuietFrontEnd()
    var first: String?
    func run(_ line: String, in window: String?, step: Step) {
      do throws(CommandError) {
        try session.run(line, commands: step.boundCommandsInItsWindow, in: window, frontEnd: quiet)
        if step.failure != nil, first == nil { first = "expected it to fail, and it succeeded" }
      } catch {
        if let expected = step.failure, expected.matches(error.message) { return }
        if first == nil { first = error.message }
      }
    }
    for step in steps {
      switch step.action {
      case .command(let window, let line): run(line, in: window, step: step)
      case .host(let line): run(line, in: nil, step: step)
      case .expect:
        session.host.services.takeWaitingLiveChanges()
        if let problem = expectationCheck?(step, session), first == nil { first = problem }
      case .snapshot: break
      }
    }
    return first
  }

  // MARK: Showing

  /// The steps, numbered, the current one marked, each with the windows it changed.
  public func listing() -> String {
    let width = String(entries.count).count
    func number(_ value: Int) -> String {
      let text = String(value)
      return String(repeating: " ", count: width - text.count) + text
    }
    var lines = ["\(position == 0 ? "→" : " ") \(number(0))  (start) \(originLabel)"]
    var before = originFrames
    for (index, entry) in entries.enumerated() {
      let place = entry.location.map { "  (\($0))" } ?? ""
      guard entry.ran else {
        lines.append("  \(number(index + 1))  \(entry.label)\(place)  · not run yet")
        continue
      }
      let changed = Self.changedWindows(from: before, to: entry.frames)
      let marks = (entry.failure != nil ? "  ✗ " + entry.failure! : "")
      lines.append(
        "\(index + 1 == position ? "→" : " ") \(number(index + 1))  \(entry.label)\(place)"
          + (changed.isEmpty ? "" : "  · changed " + changed.joined(separator: ", ")) + marks)
      before = entry.frames
    }
    if position < entries.count {
      lines.append(
        "(at step \(position) of \(entries.count): `travel forward` goes to the next one; a command that changes "
          + "something drops them)")
    }
    return lines.joined(separator: "\n")
  }

  /// What step `number` changed, field by field, in every window.
  ///
  /// - Throws: `CommandError` when there is no such step.
  public func describe(step number: Int) throws(CommandError) -> String {
    guard number >= 1, number <= entries.count else {
      throw CommandError(
        entries.isEmpty
          ? "the session has no steps yet"
          : "no step \(number): the steps are 1 to \(entries.count) (`travel steps` lists them)")
    }
    let entry = entries[number - 1]
    var lines = ["step \(number): \(entry.label)" + (entry.location.map { "  (\($0))" } ?? "")]
    guard entry.ran else {
      lines.append("  not run yet: `travel to \(number)` runs the steps up to it")
      return lines.joined(separator: "\n")
    }
    let before = number == 1 ? originFrames : entries[number - 2].frames
    if let failure = entry.failure { lines.append("  failed: \(failure)") }
    let changes = Self.changes(from: before, to: entry.frames)
    lines += changes.isEmpty ? ["  no frame changed"] : changes.map { "  " + $0 }
    return lines.joined(separator: "\n")
  }

  /// Said after a move: where the session is, and what the step after it changes.
  func arrival(host: Host) -> String {
    var lines = [
      "at step \(position) of \(entries.count)" + (position == 0 ? " (the start)" : ": \(entries[position - 1].label)")
    ]
    if position < entries.count {
      let next = entries[position]
      if next.ran {
        let changes = Self.changes(from: host.framesByLabel, to: next.frames)
        lines.append("the next step, \(position + 1): \(next.label), changes:")
        lines += changes.isEmpty ? ["  no frame"] : changes.map { "  ~ " + $0 }
      } else {
        lines.append("the next step, \(position + 1): \(next.label), has not run yet (`travel forward` runs it)")
      }
    }
    lines += replayProblems
    return lines.joined(separator: "\n")
  }

  /// The windows whose frames differ, in label order.
  static func changedWindows(from old: [String: FrameValue], to new: [String: FrameValue]) -> [String] {
    Set(old.keys).union(new.keys).sorted().filter { old[$0] != new[$0] }
  }

  /// Each field that differs, as `window.path: old → new` (`not open` for a window that is not).
  static func changes(from old: [String: FrameValue], to new: [String: FrameValue]) -> [String] {
    var result: [String] = []
    for window in changedWindows(from: old, to: new) {
      switch (old[window], new[window]) {
      case (nil, _): result.append("\(window): opened")
      case (_, nil): result.append("\(window): closed")
      case (let before?, let after?): fieldChanges(from: before, to: after, path: window, into: &result)
      }
    }
    return result
  }

  private static func fieldChanges(from old: FrameValue, to new: FrameValue, path: String, into result: inout [String])
  {
    guard old != new else { return }
    if case .object(let before) = old, case .object(let after) = new {
      for member in after.members {
        fieldChanges(from: before[member.key] ?? .null, to: member.value, path: path + "." + member.key, into: &result)
      }
      for member in before.members where after[member.key] == nil {
        fieldChanges(from: member.value, to: .null, path: path + "." + member.key, into: &result)
      }
      return
    }
    let (before, after) = Self.shortened(old.jsonText, new.jsonText)
    result.append("\(path): \(before) → \(after)")
  }

  /// Two values on one line each, at most 60 characters: a long one is cut around where the two
  /// first differ, so the part shown is the part that changed (`...,"on":false}]` → `...,"on":true}]`).
  static func shortened(_ old: String, _ new: String, width: Int = 60) -> (String, String) {
    guard old.count > width || new.count > width else { return (old, new) }
    let before = Array(old)
    let after = Array(new)
    var common = 0
    while common < before.count, common < after.count, before[common] == after[common] { common += 1 }
    // Some context before the difference, then as much as fits.
    let start = max(0, common - 12)
    func cut(_ text: [Character]) -> String {
      guard text.count > width else { return String(text) }
      let from = min(start, max(0, text.count - (width - 3)))
      let leading = from > 0 ? 3 : 0
      var end = min(text.count, from + width - leading)
      if end < text.count { end = from + width - leading - 3 }
      return (from > 0 ? "..." : "") + String(text[from..<end]) + (end < text.count ? "..." : "")
    }
    return (cut(before), cut(after))
  }
}

/// A front end that shows nothing and asks nothing (a question is refused with its message):
/// a replay's commands carry their answers.
@MainActor
public final class QuietFrontEnd: SessionFrontEnd {
  public init() {}
  public func show(_ output: CommandOutput, reports: Bool) throws(CommandError) {}
  public func relaunched(warnings: [RestorationWarning]) throws(CommandError) {}
  public func unsavedWork(_ question: UnsavedWorkQuestion) throws(CommandError) { throw CommandError(question.message) }
  package func carryOut(_ request: FrontEndRequest) throws(CommandError) {}
  public func quit() throws(CommandError) {}
  public func problem(_ message: String) {}
}
