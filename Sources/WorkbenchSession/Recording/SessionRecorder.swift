import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioModel

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Records a session as a scenario that replays it exactly.
///
/// Recording starts from a settled session (pending loads and timers due within its wait finish
/// first; later ones, a timer every midnight, are said to wait) and keeps:
/// the documents with their revisions, the windows with their numbers, view state and focus;
/// each command, with `fails:` for one that failed; the real time that passed between lines
/// where a timer was pending, as `clock advance` steps worked out so the replay's virtual clock
/// fires the same timers between the same commands; and the session's external facts (network
/// answers, a bridge's state and events) in order, by window and source. The final expectation
/// lists the fields of each frame that changed while recording.
@MainActor
final class SessionRecorder {
  let path: String
  /// Where the scenario starts: the session as recording started (documents, windows), or, for
  /// a session opened at a scenario's step, that scenario's set-up and the steps that led here.
  private let beginning: Scenario
  /// Every window's frame where the scenario starts, by label.
  private let startFrames: [String: FrameValue]
  /// Whether the recording goes on from the steps of a scenario (whose facts, if it has any,
  /// the session has been serving): its facts are those the session used, from the set-up on.
  private let continuesScenario: Bool
  /// Documents that are the modules' samples, untouched: a scenario has them already.
  private let samples: [SessionRecord.Document]
  private let timeline = ReplayTimeline()
  /// The commands recorded, as they ran (written as text when the file is written).
  private var steps: [KeptCommand] = []
  /// What to tell the user as recording starts besides where it goes: timers still waiting.
  private(set) var note: String?
  /// The frame each window opened since recording started showed at the end of the line that
  /// opened it, by label: what its rows are compared with when the expectation is written.
  private var openedFrames: [String: FrameValue] = [:]

  /// Starts recording `session` to `path`, once its pending work has finished. The commands the
  /// host runs from here on (the rest of the line `record start` is on, too) are reported to
  /// `commandRan`.
  ///
  /// - Throws: `CommandError` when the file cannot be written, or work is still pending after
  ///   `wait`.
  init(path: String, replacing: Bool = false, session: WorkbenchSession, wait: Duration = .seconds(10))
    throws(CommandError)
  {
    self.path = path
    // A file that is there is someone's: written over only when asked (O_EXCL makes the check
    // and the claim one step, so another process cannot slip a file in between).
    let descriptor = open(path, O_WRONLY | O_CREAT | (replacing ? O_APPEND : O_EXCL), 0o600)
    guard descriptor >= 0 else {
      if errno == EEXIST {
        throw CommandError(
          "\(path) exists: `record start \(CommandTokenizer.quoted(path)) replace` writes over it, or name another file"
        )
      }
      throw CommandError("cannot write \(path): \(String(cString: strerror(errno)))")
    }
    close(descriptor)
    let host = session.host
    if let journal = session.journal, let prefix = journal.scenarioSoFar() {
      // A session opened at a scenario's step: the new scenario begins with the steps that led
      // here, on the virtual clock its steps move themselves.
      beginning = prefix
      startFrames = journal.startFrames
      samples = []
      continuesScenario = true
      return
    }
    continuesScenario = false
    do {
      // Timers due only past the wait (a timer every midnight, which never settles) do not
      // stop a recording: said in a note, as a replay has them only where a window sets them
      // again as it opens. Ctrl-C during the wait does.
      try host.clock.settle(within: wait, flush: host.services.scheduler, leavingLater: true)
    } catch {
      throw CommandError("recording starts from a settled session, and \(error.message)")
    }
    if host.clock.untilNextTimer != nil {
      note =
        "still waiting: \(host.clock.pendingSummary). A replay opens the windows again, which sets again a timer a "
        + "window sets as it opens (a timer every midnight), not one a command set before recording (`settle` first "
        + "for that)"
    }
    samples = host.registry.sampleRecords
    var start = Self.scenario(
      startingAt: try host.sessionRecord(), samples: samples, name: DataFolder.title(for: path),
      at: SourceLocation(file: path, line: 1, column: 1))
    // The session's time now is the replay's at its start: a module told `now` is told the same.
    // (Only when a window is open, whose module has been told the time; and not the noise a
    // timeline drops, what a real clock runs before anything happens.)
    let now = Duration.milliseconds(host.clock.now.wholeMilliseconds)
    start.startsAt = now > ReplayTimeline.noise && !host.windows.isEmpty ? now : nil
    // The calendar where the replay's clock reads zero: the replay reads the dates this session
    // reads (with no `startsAt`, the replay's zero is the session's time now).
    start.date = host.clock.calendarOrigin.adding(now - (start.startsAt ?? .zero))
    // The rows a window showed (`--rows 8`) are the recording's too: its frames were made so.
    start.viewportRows = session.environment.viewportRows
    beginning = start
    startFrames = host.framesByLabel
    session.facts.startRecording()
    // Real time that passes between lines moves a replay's clock; a virtual clock moves only
    // by the `clock advance` steps recorded.
    if host.clock.mode == .real {
      timeline.begin(at: host.clock.now)
      session.facts.timeline = timeline
    }
  }

  // MARK: Following the session

  /// A `clock advance` step for the time the replay's clock must move before the next step.
  private func writeTimePassed() {
    let advance = timeline.takeAdvance()
    if advance > .zero { steps.append(KeptCommand(text: "clock advance " + SessionClock.describe(advance))) }
  }

  /// A command the host ran (or that failed once resolved): it becomes a step, in the window
  /// it ran in, with `fails:` when it failed. A command that only looks is left out. What belongs to the front end (`source`,
  /// `history`, `set`: a replay runs what they led to), recording itself and leaving are
  /// left out, as is `clock advance` failing on real time (the recording moves the replay's
  /// clock itself).
  func commandRan(_ command: RanCommand) {
    guard !command.isLeavingOrRecording else { return }
    switch command.request {
    case .frontEnd?, .recordStart?, .recordStop?, .quit?: return
    default: break
    }
    if command.isHostCommand, command.spec.name.hasPrefix("clock"), command.failure != nil { return }
    // A line that only looks (`show a b`, `frame`, `windows`) changes nothing a replay needs:
    // what it showed is in the expectations the recording writes.
    if command.onlyLooks { return }
    writeTimePassed()
    steps.append(KeptCommand(command))
  }

  /// The last command's request was refused by the front end (unsaved work a script cannot be
  /// asked about): the step fails with that message.
  func lastCommandRefused(_ error: CommandError) {
    guard !steps.isEmpty else { return }
    steps[steps.count - 1].failure = error.message
  }

  /// After a line: timers it fired (`settle`) moved the replay's clock too. A window the line
  /// opened is seen as it opened (before the time the line took is counted).
  func lineFinished(host: Host) {
    for window in host.windows where startFrames[window.label] == nil && openedFrames[window.label] == nil {
      openedFrames[window.label] = window.frame
    }
    timeline.lineFinished()
  }

  /// A question about unsaved work was answered: the command that asked says so in words,
  /// as a script must (`close main save`); cancelled, it did nothing.
  func answered(_ choice: LeaveChoice) {
    guard let last = steps.popLast() else { return }
    if choice == .cancel { return }
    steps.append(last.answering(choice) ?? last)
  }

  // MARK: Writing

  /// What a finished recording holds.
  struct Written {
    var steps: Int
    var facts: Int

    /// `12 steps, 3 facts`.
    var sentence: String {
      "\(steps) step\(steps == 1 ? "" : "s"), \(facts) fact\(facts == 1 ? "" : "s")"
    }
  }

  /// Writes the scenario (and its data files); says how many steps and facts it holds.
  func finish(session: WorkbenchSession) throws(CommandError) -> Written {
    let host = session.host
    var scenario: Scenario
    if continuesScenario {
      scenario = self.scenario(facts: [], host: host)
      // What the scenario's facts served from its set-up to here (nothing for a scenario that
      // has none: its steps run live, and again alike).
      scenario.facts = beginning.facts == nil ? nil : session.facts.used()
    } else {
      // The time up to the end is the last step's.
      host.clock.beginLine()
      host.clock.endLine()
      writeTimePassed()
      session.facts.timeline = nil
      scenario = self.scenario(facts: session.facts.stopRecording(), host: host)
    }
    try ScenarioWriter().write(scenario, to: path)
    return Written(steps: scenario.steps.count, facts: scenario.facts?.values.reduce(0) { $0 + $1.count } ?? 0)
  }

  /// The recording as a scenario: the documents and windows as recording started, the facts,
  /// the steps, and an expectation of what changed.
  private func scenario(facts: [SessionFacts.Entry], host: Host) -> Scenario {
    let here = SourceLocation(file: path, line: 1, column: 1)
    var scenario = beginning
    scenario.name = DataFolder.title(for: path)
    for step in self.steps { scenario.steps.append(step.step(at: here)) }
    let expectations = expectation(host: host)
    if !expectations.isEmpty {
      scenario.steps.append(
        Step(action: .expect(expectations.map { ($0.window, YAMLNode($0.value, at: here)) }), location: here))
    }
    if scenario.steps.isEmpty { scenario.steps.append(Step(action: .host(line: "documents"), location: here)) }
    var kept: [SessionFacts.Key: [FrameValue]] = [:]
    for fact in facts { kept[fact.key, default: []].append(fact.value) }
    if !continuesScenario { scenario.facts = kept.isEmpty ? nil : kept }
    return scenario
  }

  /// A scenario that starts where `start` is: its documents (all but the untouched `samples`,
  /// which every scenario has), its windows with their numbers and view state, and, when the
  /// focus is not on the last window, a first step that focuses it.
  static func scenario(
    startingAt start: SessionRecord, samples: [SessionRecord.Document], name: String, at here: SourceLocation
  ) -> Scenario {
    var steps: [Step] = []
    if let focused = start.focusedWindow, focused != start.windows.last?.number,
      let window = start.windows.first(where: { $0.number == focused })
    {
      steps.append(Step(action: .host(line: "focus \(window.name ?? String(focused))"), location: here))
    }
    let implied = OutsideNumbers.saturatingSuccessor(of: start.windows.last?.number ?? 0)
    return Scenario(
      name: name, location: here,
      documents: start.documents.filter { !samples.contains($0) }.map { document in
        DocumentSeed(
          name: document.name, kind: document.kind, json: Array(document.body.utf8), revision: document.revision,
          location: here)
      },
      windows: start.windows.map { window in
        WindowSeed(
          name: window.name ?? String(window.number), number: window.number, screen: window.screen,
          document: window.document, state: window.viewState.state, location: here)
      },
      steps: steps, nextWindowNumber: start.nextWindowNumber == implied ? nil : start.nextWindowNumber)
  }

  /// What changed in each open window's frame since recording started (the whole frame for a
  /// window opened since, its rows that changed since it opened with what changed in them);
  /// empty when nothing changed.
  private func expectation(host: Host) -> [(window: String, value: FrameValue)] {
    host.windows.compactMap { window in
      // What counts the window's life (loads since it opened) is not lived again by a replay.
      let fields = window.screen.lifetimeFields
      let now = Self.without(fields, in: window.frame)
      guard let start = startFrames[window.label].map({ Self.without(fields, in: $0) }) else {
        return (window.label, Self.whole(now, rowsSince: openedFrames[window.label]))
      }
      return Self.changes(from: start, to: now).map { (window.label, $0) }
    }
  }

  /// A new window's whole frame, compacted as `changes` writes one, except that a list of rows
  /// it showed as it `opened` has each row that changed since as its id with what changed
  /// (`rows: [{id: 1, streak: 1, doneToday: true}, 2]`: the `done 1` after `open` is checked).
  static func whole(_ frame: FrameValue, rowsSince opened: FrameValue?) -> FrameValue {
    let written = compact(withoutNulls(frame))
    guard case .object(let now) = frame, case .object(var result) = written, case .object(let then)? = opened else {
      return written
    }
    for member in now.members {
      guard case .list(let after) = member.value, case .list(let before)? = then[member.key],
        let rows = changedRows(from: before, to: after)
      else { continue }
      result[member.key] = rows
    }
    return .object(result)
  }

  /// A frame without the top-level `fields`.
  static func without(_ fields: [String], in frame: FrameValue) -> FrameValue {
    guard !fields.isEmpty, case .object(var object) = frame else { return frame }
    for field in fields { object[field] = nil }
    return .object(object)
  }

  /// The parts of `new` that differ from `old`, compacted for an expectation: objects keep
  /// only changed members (a removed one expected `null`), lists of objects with ids become
  /// their ids, and a row that was there before and changed becomes its id with the fields that
  /// changed (`rows: [{id: 1, streak: 3}, 2, 3]`: `done 1` is checked to have changed row 1's
  /// streak, not only that the rows are the same ones). `nil` when nothing changed.
  static func changes(from old: FrameValue?, to new: FrameValue) -> FrameValue? {
    guard let old else { return compact(withoutNulls(new)) }
    guard old != new else { return nil }
    if case .list(let before) = old, case .list(let after) = new, let rows = changedRows(from: before, to: after) {
      return rows
    }
    guard case .object(let before) = old, case .object(let after) = new else { return compact(new) }
    var result = FrameObject()
    for member in after.members {
      if let changed = changes(from: before[member.key], to: member.value) { result[member.key] = changed }
    }
    for member in before.members where after[member.key] == nil { result[member.key] = .null }
    return result.members.isEmpty ? nil : .object(result)
  }

  /// `after`, a list of rows with ids, as its ids, each row that was among `before` and changed
  /// as its id with what changed in it; `nil` when either list is not rows with ids.
  static func changedRows(from before: [FrameValue], to after: [FrameValue]) -> FrameValue? {
    func id(_ row: FrameValue) -> FrameValue? {
      guard case .object(let object) = row, let id = object["id"] else { return nil }
      switch id {
      case .integer, .string: return id
      default: return nil
      }
    }
    let oldIDs = before.map(id)
    let newIDs = after.map(id)
    guard !after.isEmpty, !oldIDs.contains(nil), !newIDs.contains(nil) else { return nil }
    // Keyed by the id's JSON text (a number and a text id never mix up).
    var earlier: [String: FrameValue] = [:]
    for (row, key) in zip(before, oldIDs) { if let key { earlier[key.jsonText] = row } }
    return .list(
      zip(after, newIDs).map { row, key in
        guard let key, let old = earlier[key.jsonText], case .object(let changed)? = changes(from: old, to: row) else {
          return key ?? row
        }
        var object = FrameObject()
        object["id"] = key
        for member in changed.members where member.key != "id" { object[member.key] = member.value }
        return .object(object)
      })
  }

  /// A new window's frame without its empty members (`null` expects absent or null, which
  /// a frame that leaves them out passes too).
  static func withoutNulls(_ value: FrameValue) -> FrameValue {
    guard case .object(let object) = value else { return value }
    return .object(FrameObject(members: object.members.filter { $0.value != .null }))
  }

  /// A value as an expectation writes it: lists of objects with ids as their ids.
  static func compact(_ value: FrameValue) -> FrameValue {
    switch value {
    case .list(let items):
      let ids = items.compactMap { item -> FrameValue? in
        guard case .object(let object) = item, let id = object["id"] else { return nil }
        switch id {
        case .integer, .string: return id
        default: return nil
        }
      }
      return ids.count == items.count && !items.isEmpty ? .list(ids) : .list(items.map(compact))
    case .object(let object):
      return .object(FrameObject(members: object.members.map { ($0.key, compact($0.value)) }))
    default:
      return value
    }
  }
}
