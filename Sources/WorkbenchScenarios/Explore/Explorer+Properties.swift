import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSession

// What the properties compare: undo and redo, refusals, rules, windows agreeing, windows opened
// again, and the words a failure is said in.
extension Explorer {
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
    /// How many live changes the session had taken after the change (or its undo): one taken
    /// since changed the window besides its history, and the next undo or redo is not compared.
    var liveTaken: Int
    /// When the session's timers were due before the change and after it: an undo puts back the
    /// first, a redo the second (what the command did to its window's timers).
    var timersBefore: [Duration]
    var timersAfter: [Duration]
    /// When they were due after the change (or after its undo): an undo or redo is compared only
    /// while they stay so (no timer fired, was set or was cancelled in between).
    var timers: [Duration]
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

  /// Checks an `undo` or `redo` against the change it takes back or brings back; returns what
  /// broke (or `nil`), the change the next step may undo or redo, and whether it compared.
  func checkHistory(
    _ ran: FirstStep, index: Int, undoable: Undoable?, host: Host, revisionsAfter: [String: Int]
  ) -> (failure: Failure?, next: Undoable?, compared: Bool) {
    let (step, call, refused, revisionsBefore) = (ran.step, ran.step.call, ran.refusal != nil, ran.revisionsBefore)
    // What a command did to its window's timers (an autosave set, a load's timer cancelled) is
    // its history's too: an undo takes the timers it set away and puts back those it cancelled,
    // due when they were, and a redo does the command's again. Timers that were there before and
    // stay as they were (a timer every midnight) are compared as they are.
    let timers = Self.timers(host)
    guard let target = ran.target, let window = host.window(named: target) else { return (nil, nil, false) }
    // What a window loaded is its own (`ownFields`), not its history's.
    let ignored = window.screen.lifetimeFields + window.screen.refusalFields + window.screen.ownFields
    let frame = Self.withoutFields(ignored, window.frame)
    let revision = revisionsAfter[window.documentName] ?? 0
    if var undoable, undoable.window == window.label,
      revisionsBefore[window.documentName] == undoable.revision, undoable.liveTaken == ran.liveTakenAfter,
      undoable.timers == ran.timersBefore
    {
      // `undo` (`undo view`) in the window's history, as the change it takes back was made.
      let history = call.arguments["history"]?.textValue ?? "document"
      let inHistory = history == (undoable.history == .view ? "view" : "document")
      let undoing = call.isHostCommand("undo") && inHistory && !undoable.undone
      let redoing = call.isHostCommand("redo") && inHistory && undoable.undone
      if undoing || redoing {
        let (expected, shown) = Self.withoutRevisionFields(
          Self.withoutFields(ignored, undoing ? undoable.before : undoable.after), frame,
          expected: undoing ? undoable.revisionBefore : undoable.revisionAfter, now: revision)
        let property: Failure.Property = undoing ? .undoRestores : .redoRestores
        if refused {
          return (
            Failure(
              property: property, step: index,
              detail: "`\(step.line)` was refused right after a change it should take \(undoing ? "back" : "again")"
                + (ran.refusal.map { " (\($0.message))" } ?? ""),
              windows: [window.label]), nil, true
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
              windows: [window.label]), nil, true
          )
        }
        // Held to the history's timers when the host moved them; a screen that set its timers
        // from the view state it was given back (a feed that loads its query again) keeps its own.
        let timersExpected = undoing ? undoable.timersBefore : undoable.timersAfter
        if host.clock.historyTimerMoves > ran.historyTimerMovesBefore, timers != timersExpected {
          return (
            Failure(
              property: property, step: index,
              detail:
                "after `\(step.line)`, the session's timers are due at \(Self.describe(timers)), not at "
                + "\(Self.describe(timersExpected)) as \(undoing ? "before" : "after") the command it "
                + "\(undoing ? "undid" : "redid"): the timers window \(window.label) started come back with its history",
              windows: [window.label]), nil, true
          )
        }
        undoable.undone = undoing
        undoable.timers = timers
        undoable.revision = revision
        undoable.liveTaken = ran.liveTakenAfter
        return (nil, undoable, true)
      }
    }
    // A command of the window's module for its windows (not `clock advance`, whose timers may
    // change anything, nor one for the whole session, such as the ledger's `session sign-out`,
    // which changes what is not the window's) that changed the document and not the window's
    // view state, or the other way round, can be undone next.
    guard !refused,
      commands[window.screen.name]?.contains(where: {
        guard $0.name == call.path.first, case .window = $0.scope else { return false }
        return true
      }) == true,
      let was = ran.before[window.label]?.frame,
      let viewBefore = ran.viewBefore
    else { return (nil, nil, false) }
    let documentMoved = revisionsBefore[window.documentName] != revision
    let viewMoved = viewBefore != window.viewStateSnapshot
    guard documentMoved != viewMoved else { return (nil, nil, false) }
    // The history keeps what the command did to its own window's timers, and only in the view
    // history: a change that set or cancelled another's, or a document change that touched
    // timers, is not compared.
    let number = window.id.number
    let others = { (timers: [(number: Int, window: Int?)]) in timers.filter { $0.window != number }.map(\.number) }
    guard others(ran.timerWindowsBefore) == others(host.clock.waitingTimerWindows),
      viewMoved || timers == ran.timersBefore
    else { return (nil, nil, false) }
    return (
      nil,
      Undoable(
        window: window.label, history: documentMoved ? .document : .view, before: was, after: window.frame,
        revisionBefore: revisionsBefore[window.documentName] ?? 0, revisionAfter: revision, revision: revision,
        liveTaken: ran.liveTakenAfter, timersBefore: ran.timersBefore, timersAfter: timers, timers: timers),
      false
    )
  }

  /// A refused command that changed a frame (beyond its screen's refusal fields) or a revision.
  /// A command that failed after doing part of its work, as its help says it may (`settle` past
  /// its limit), is not a refusal: what it did stays.
  static func refusalFailure(
    step: DrawnStep, index: Int, refusal: CommandError?, host: Host,
    before: [String: (stamp: Int?, frame: FrameValue)], revisionsBefore: [String: Int], revisionsAfter: [String: Int]
  ) -> Failure? {
    guard let refusal, !refusal.isPartial else { return nil }
    // What a screen shows about a refusal (its refusal fields) may change; nothing else.
    let changedWindow = host.windows.first { window in
      guard let was = before[window.label] else { return true }
      if let stamp = window.frameStamp, stamp == was.stamp { return false }
      let allowed = window.screen.refusalFields
      return withoutFields(allowed, window.frame) != withoutFields(allowed, was.frame)
    }
    if let changed = changedWindow {
      return Failure(
        property: .refusalChangesNothing, step: index,
        detail: "`\(step.line)` was refused (\(refusal.message)) and window \(changed.label)'s frame changed")
    }
    if revisionsAfter != revisionsBefore {
      return Failure(
        property: .refusalChangesNothing, step: index,
        detail: "`\(step.line)` was refused (\(refusal.message)) and a document's revision moved")
    }
    return nil
  }

  /// The first of the module's own rules (`--always`) that `window`'s `frame` breaks.
  func alwaysFailure(
    of window: Window, frame: FrameValue, step: DrawnStep, index: Int, checks: inout Int
  ) -> Failure? {
    for (invariant, expected) in invariants[window.screen.name] ?? [] {
      checks += 1
      if let problem = FrameMatcher.differences(expected: expected, actual: frame).first {
        return Failure(
          property: .always, step: index,
          detail: "after `\(step.line)`, window \(window.label) does not meet the always: expectation of "
            + "\(window.screen.name) (\(invariant.location)): \(window.label).\(problem)",
          windows: [window.label])
      }
    }
    return nil
  }

  /// After a `settle` that ran: two windows on one document with one view state that disagree.
  static func agreementFailure(step: DrawnStep, index: Int, refused: Bool, host: Host) -> Failure? {
    guard step.window == nil, step.call.isHostCommand("settle"), !refused, let disagreement = disagreement(in: host)
    else {
      return nil
    }
    return Failure(
      property: .windowsAgree, step: index,
      detail: "after `settle`, windows \(disagreement.0) and \(disagreement.1) show one document with one view "
        + "state, and different frames" + disagreement.difference,
      windows: [disagreement.0, disagreement.1])
  }

  /// Whether a session's windows are all on screens that open again quietly (asking nothing
  /// of the outside world, starting no work as they open).
  func canReopen(_ session: WorkbenchSession) -> Bool {
    session.host.windows.allSatisfy { rebuildable.contains($0.screen.name) }
  }

  /// When a session's timers are due: windows opened again must leave them as they were (a
  /// window that sets its timer again from its view state sets the same one), or the two runs
  /// can no longer be compared step by step.
  static func timers(_ session: WorkbenchSession) -> [Duration] { timers(session.host) }

  /// When `host`'s timers are due, in order.
  static func timers(_ host: Host) -> [Duration] { host.clock.waitingTimers.map(\.due).sorted() }

  /// Timers' due times in words: `[5s, 1m]`, `none`.
  static func describe(_ timers: [Duration]) -> String {
    timers.isEmpty ? "none" : "[" + timers.map(SessionClock.describe).joined(separator: ", ") + "]"
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

  /// Where two frames differ first, in words, down to the first field or item that differs
  /// (`: columns[1].cards[0].title "a", then "b"`; with words for the two frames,
  /// `: finished 1 before, 2 opened again`), or nothing.
  package static func difference(
    _ first: FrameValue?, _ second: FrameValue?, first one: String? = nil, second other: String? = nil
  )
    -> String
  {
    guard let first, let second, let found = firstDifference(first, second, path: "") else { return "" }
    let was = found.first.map(FrameMatcher.brief) ?? "nothing"
    let then = found.second.map(FrameMatcher.brief) ?? "nothing"
    let path = found.path.isEmpty ? "the frame" : found.path
    guard let one, let other else { return ": \(path) \(was), then \(then)" }
    return ": \(path) \(was) \(one), \(then) \(other)"
  }

  /// The path of the first place two values differ, with the value on each side there (`nil`
  /// where one side has nothing: a field only one has, an item past the other's end).
  static func firstDifference(_ first: FrameValue, _ second: FrameValue, path: String)
    -> (path: String, first: FrameValue?, second: FrameValue?)?
  {
    guard first != second else { return nil }
    switch (first, second) {
    case (.object(let a), .object(let b)):
      for member in a.members {
        let here = FrameMatcher.join(path, member.key)
        guard let theirs = b[member.key] else { return (here, member.value, nil) }
        if let found = firstDifference(member.value, theirs, path: here) { return found }
      }
      for member in b.members where a[member.key] == nil {
        return (FrameMatcher.join(path, member.key), nil, member.value)
      }
      return nil
    case (.list(let a), .list(let b)):
      for index in 0..<max(a.count, b.count) {
        let here = "\(path)[\(index)]"
        guard index < a.count else { return (here, nil, b[index]) }
        guard index < b.count else { return (here, a[index], nil) }
        if let found = firstDifference(a[index], b[index], path: here) { return found }
      }
      return nil
    default:
      return (path, first, second)
    }
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
