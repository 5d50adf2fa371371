import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// A host session this process serves (protocol 2, §16): the module keeps what it holds for
/// one (its clock, its network, its windows) apart from every other's.
@MainActor
final class SessionEntry {
  weak var services: SessionServices?
  let number: Int
  /// The module's pending timers in the session, by the id it gave them: the handle and when it
  /// is due.
  var timers: [String: (handle: Cancellation, due: Duration)] = [:]
  /// What undo and redo did to the module's timers since the last `restore` told it (§18): the
  /// ones put back, and the ids of those taken away.
  var timerMoves: (back: [WireTimer], away: [String]) = ([], [])
  /// When the module's last changes for the session came (§11 limits them to 100 a second).
  var changeTimes: [Duration] = []
  /// When its last timers came due (§11 limits them to 1,000 a second).
  var timerTimes: [Duration] = []
  /// How many times a window opening in the session started the module again.
  var restarts = 0
  /// The session's time sent with the last request about it (`now`): a timer's `after` counts
  /// from it (§14).
  var requestTime: Duration?
  init(services: SessionServices, number: Int) {
    self.services = services
    self.number = number
  }

  /// An undo or redo put a timer of the module's back or took it away: the host's copy follows,
  /// and the next `restore` tells the module (§18).
  func timerMoved(_ id: String, due: Duration, handle: Cancellation, back: Bool) {
    timerMoves.back.removeAll { $0.id == id }
    timerMoves.away.removeAll { $0 == id }
    if back {
      // One timer an id: one set again under it since goes.
      if let other = timers[id], other.handle !== handle { other.handle.cancel() }
      timers[id] = (handle, due)
      var timer = WireTimer()
      timer.id = id
      timer.at = Int(due.wholeMilliseconds)
      timerMoves.back.append(timer)
    } else {
      if timers[id]?.handle === handle { timers[id] = nil }
      timerMoves.away.append(id)
    }
  }
}

/// The sessions: timers on each session's clock, updates of its windows, the changes live
/// sources saw, and its end.
extension ModuleProcess {
  /// The number requests about `services`' session carry.
  func session(of services: SessionServices) -> Int {
    if let entry = sessions.first(where: { $0.services === services }) { return entry.number }
    sessionCount = OutsideNumbers.saturatingSuccessor(of: sessionCount)
    let number = sessionCount
    sessions.append(SessionEntry(services: services, number: number))
    // What the module says changed, unasked, comes into the session between its commands; the
    // shell wakes when the module has written something.
    services.addLiveSource(
      waiting: { [weak self] in self?.changesWait(in: number) ?? false },
      take: { [weak self] in self?.takeChanges(in: number) },
      descriptor: { [weak self] in self?.version ?? 1 >= 2 ? self?.readDescriptor : nil },
      synchronize: { [weak self] in self?.synchronize(number) })
    // A recording that starts now keeps the states of the module's services in this session.
    services.sessionFacts?.addStateCapture { [weak self] in self?.captureStates(in: number) ?? [] }
    // The module hears of the session's end when it ends, so a module that dies of it dies in
    // that session (which is told), not in the next one's first request.
    services.onEnd { [weak self] in self?.endSession(number) }
    return number
  }

  /// What the process keeps for a session it serves.
  func entry(of session: Int) -> SessionEntry? { sessions.first { $0.number == session } }

  func facts(of session: Int) -> SessionFacts? { entry(of: session)?.services?.sessionFacts }

  /// Tells the module a session ended (§16) and lets go of what the host kept for it.
  private func endSession(_ number: Int) {
    guard let index = sessions.firstIndex(where: { $0.number == number }) else { return }
    let entry = sessions[index]
    for timer in entry.timers.values { timer.handle.cancel() }
    changes.removeAll { $0.session == number }
    guard version >= 2, noticeEnd() else {
      sessions.remove(at: index)
      forget(sessions: [number])
      return
    }
    var end = SessionRequest()
    end.session = number
    let answered = (try? call(.end(end))) != nil
    sessions.removeAll { $0.number == number }
    forget(sessions: [number])
    if sessions.isEmpty { endedEverySession = answered }
  }

  /// Lets go of what the process kept about sessions that ended: their windows (and any window
  /// gone since), and the documents they were sent and handed. One process serves every
  /// session of a run or an explore, thousands of them; what a request looks through stays the
  /// size of the sessions alive, not of every session the process ever served.
  func forget(sessions numbers: Set<Int>) {
    screens.removeAll { box in box.screen.map { numbers.contains($0.session) } ?? true }
    documentsHanded = documentsHanded.filter { !numbers.contains($0.session) }
    forgetDocumentsSent(inSessions: numbers)
  }

  /// Tells the module about the sessions that ended since the last request (their host is
  /// gone: a scenario finished, a relaunch replaced it), so it can drop what it kept for them.
  func endSessions() throws(CommandError) {
    let ended = sessions.filter { $0.services == nil }
    guard !ended.isEmpty else { return }
    sessions.removeAll { $0.services == nil }
    let numbers = Set(ended.map(\.number))
    changes.removeAll { numbers.contains($0.session) }
    forget(sessions: numbers)
    for entry in ended {
      var end = SessionRequest()
      end.session = entry.number
      _ = try call(.end(end))
    }
    if sessions.isEmpty { endedEverySession = true }
  }

  /// The states of the services the module holds for a session (a network's, a bridge's), as a
  /// recording starts (§12, `capture`). A module that does not answer `capture` has none.
  func captureStates(in session: Int) -> [(scope: String, source: String, value: FrameValue)] {
    var capture = SessionRequest()
    capture.session = session
    guard version >= 2, isRunning, entry(of: session) != nil, let reply = try? ok(of: .capture(capture)) else {
      return []
    }
    return (reply.facts ?? []).compactMap { fact in fact.scope.map { ($0, fact.source, fact.value) } }
  }

  // MARK: Timers

  /// Sets and cancels the timers a reply asks for (§14), in the session it was about: each runs
  /// on that session's clock, so `clock advance` and `settle` drive it in a scenario and real
  /// time does in the shell; when it is due the module is sent `timer` with its id.
  func takeTimers(_ timers: [WireTimer]?, cancelling cancelled: [String]?, in session: Int) {
    guard let entry = entry(of: session), let clock = entry.services?.clock else { return }
    for id in cancelled ?? [] {
      entry.timers.removeValue(forKey: id)?.handle.cancel()
    }
    for timer in timers ?? [] {
      let id = timer.id
      // `at` a time on the session's clock, or `after` milliseconds from the `now` the request
      // carried (the module may have taken a moment of real time to answer).
      let due: Duration =
        timer.at.map { .milliseconds($0) } ?? (entry.requestTime ?? clock.now) + .milliseconds(timer.after ?? 0)
      // One an undo put back, as the module reports it again: it waits as it was.
      if entry.timers[id]?.due == due { continue }
      entry.timers.removeValue(forKey: id)?.handle.cancel()
      guard entry.timers.count < ModuleProtocol.maximumPendingTimers else {
        stopForViolation("it asked for more than \(ModuleProtocol.maximumPendingTimers) timers at once (§11)")
        return
      }
      // `at` is a time on the session's clock, so its delay is checked here: no more than a
      // day from now, as `after`'s (§11).
      guard due - clock.now <= .milliseconds(ModuleProtocol.maximumTimerDelay) else {
        stopForViolation(
          "it set the timer \(TerminalText.visible(id)) at \(timer.at ?? 0) ms, more than a day after the session's "
            + "time \(clock.now.wholeMilliseconds) ms (§11)")
        return
      }
      let fire: @MainActor () -> Void = { [weak self, weak entry] in
        guard let self, let entry else { return }
        entry.timers[id] = nil
        self.timerDue(id, in: entry.number)
      }
      // A kit that runs a timer the host names before its time lets a window opened again
      // catch up with what its predecessor finished (§14).
      let delay = max(.zero, due - clock.now)
      // A module that moves the timers a `restore` names has them in its windows' view history;
      // another's are no window's (an undo leaves them as they are, as before §18 had it).
      var moved: (@MainActor (Bool, Cancellation) -> Void)?
      if hello.undoTimers == true {
        moved = { [weak entry] back, handle in entry?.timerMoved(id, due: due, handle: handle, back: back) }
      }
      let handle =
        (clock as? SessionClock).map { clock in
          clock.inWindow(hello.undoTimers == true ? clock.actingWindow : nil) {
            clock.schedule(after: delay, catchingUp: hello.catchUp == true, moved: moved, fire)
          }
        }
        ?? clock.schedule(after: delay, fire)
      entry.timers[id] = (handle, due)
    }
  }

  /// A timer the module set is due: it is told, and the windows it changed take their frames.
  private func timerDue(_ id: String, in session: Int) {
    guard isRunning, let entry = entry(of: session) else { return }
    // What the reply asks for is the timer's too: a stop there is said as the timer's.
    let outer = requestInFlight
    requestInFlight = "timer"
    defer { requestInFlight = outer }
    // Timers that keep setting one another at once are a loop: on real time nothing else stops
    // them (the virtual clock refuses first), so past 1,000 in a second of the session's time
    // the module is stopped (§11).
    if let clock = entry.services?.clock,
      Self.passes(SessionClock.mostTimersAtOnce, aSecond: &entry.timerTimes, now: clock.now)
    {
      stopForViolation("its timers came due more than \(SessionClock.mostTimersAtOnce) times in a second (§11)")
      return
    }
    var request = TimerRequest()
    request.timer = id
    request.session = session
    // Recording or replaying: the facts the timer's work used come back with it, kept under
    // the module's timers in the session.
    let facts = entry.services?.sessionFacts
    let scope = "\(name) timers"
    let windows = windowScopes(in: session)
    if let facts { request.facts = RelayedFacts.request(facts, scope: scope, version: version, windows: windows) }
    // A module that refuses its own timer leaves the windows as they were; one that stops shows so.
    guard let reply = try? ok(of: .timer(request)) else { return }
    if let facts {
      let byKey = Dictionary(windows.map { ($0.key, $0.scope) }, uniquingKeysWith: { first, _ in first })
      RelayedFacts.take(reply.facts, divergence: reply.divergence, into: facts, scope: scope, windows: byKey)
    }
    try? takeWork(reply, in: session, summary: "\(name) timer \(id)")
  }

  /// Takes what work outside a window's command asked of the session (a timer's, a live
  /// event's, a `sync`'s, a command's in no window, a close's): its timers, the frames of the
  /// windows it changed, the documents it changed (each saved only if it is still at the
  /// revision the module changed, as a command's commit), and the windows it opened or closed.
  ///
  /// - Throws: `CommandError` when the module broke the protocol doing it (it is stopped).
  func takeWork(_ reply: WireOk, in session: Int, summary: String) throws(CommandError) {
    takeTimers(reply.timers, cancelling: reply.cancel, in: session)
    takeUpdates(reply.updates, in: session)
    guard isRunning, let services = entry(of: session)?.services, let host = services.host else { return }
    // Who may write what is checked for every commit before any is stored: a write outside it
    // stops the module and changes nothing.
    var admitted: [(commit: WireCommit, body: (any DocumentBody)?)] = []
    for commit in reply.commits ?? [] {
      let body = try admittedBody(
        commit.body, toDocument: commit.document, in: session, host: host,
        what: "its commit of \(TerminalText.visible(commit.document))")
      admitted.append((commit, body))
    }
    for (commit, body) in admitted {
      guard let body else {
        services.report(incident: "\(summary) changed \(commit.document), which no longer exists: it was not saved")
        continue
      }
      // The module holds what it committed; a commit the host refuses leaves it holding what
      // the host does not, so the host's copy goes with the next request about the document.
      let sent = SentDocument(session: session, name: commit.document)
      // As the window's request would send it (`ExternalDocument`'s JSON), so the next one
      // leaves the body out.
      self[sent: sent] = (body as? ExternalDocument)?.value.jsonText
      do {
        try host.commit(body, toDocument: commit.document, ifAt: commit.revision, summary: summary)
      } catch {
        self[sent: sent] = nil
        services.report(incident: "\(summary) changed \(commit.document), which was not saved: \(error.message)")
      }
    }
    _ = try ProxyScreen.adoptWindows(
      opened: reply.opened, closed: reply.closed, on: nil, session: session, process: self, host: host)
  }

  /// The module's windows in a session: each one's key and the scope of its facts.
  func windowScopes(in session: Int) -> [(key: String, scope: String)] {
    screens.compactMap(\.screen).filter { $0.session == session }.map { ($0.key, $0.factScope) }
  }

  /// How many timers the module has pending in a session.
  func pendingTimers(in session: Int) -> Int {
    entry(of: session)?.timers.count ?? 0
  }

  // MARK: Updates

  /// Gives other windows of the session the frames a reply carries for them (`updates`, §15).
  /// An update for a window the module does not have open there breaks the protocol.
  func takeUpdates(_ updates: [WireUpdate]?, in session: Int) {
    for update in updates ?? [] {
      guard let screen = screen(key: update.key, in: session) else {
        stopForViolation("it sent an update for window \(update.key), which is not open on it (§15)")
        return
      }
      screen.takeFrame(update.frame, text: update.text, state: update.state)
      screen.takeUnsaved(update.unsaved)
    }
  }

  /// The window on this process with `key` in a session.
  func screen(key: String, in session: Int) -> ProxyScreen? {
    screens.lazy.compactMap(\.screen).first { $0.key == key && $0.session == session }
  }

  // MARK: Live changes

  /// Whether the module said, unasked, that windows of a session changed (§19); reads what it
  /// sent. A replay uses the recording's changes, so the module's never wait.
  func changesWait(in session: Int) -> Bool {
    guard noticeEnd(), version >= 2, let channel, readDescriptor != nil else { return false }
    // A module that closed its end is gone: stopped now, so the shell stops waiting on it.
    if channel.peerHasClosed {
      stop("it closed the connection (it exited or crashed)")
      return false
    }
    do {
      try readChanges(from: channel)
    } catch {
      return false  // stopped: its windows say why
    }
    // A replay brings in recorded changes at its `live` steps, a move in time the changes the
    // session took: the module's own are not taken then.
    guard let facts = facts(of: session), !(facts.isReplaying && !facts.isSettingUp),
      !facts.servesLiveChanges(in: "\(name) live")
    else {
      changes.removeAll { $0.session == session }
      return false
    }
    return changes.contains { $0.session == session }
  }

  /// Asks a module whose hello declares live sources for every change they saw so far
  /// (`sync`, §19): it sends them before its `ok`, so the point where a scenario takes changes
  /// decides what it takes, not how fast the module was. A replay takes the recording's.
  func synchronize(_ session: Int) {
    guard version >= 2, hello.liveSources == true, noticeEnd(), let entry = entry(of: session),
      let facts = entry.services?.sessionFacts, !(facts.isReplaying && !facts.isSettingUp)
    else { return }
    var request = SessionRequest()
    request.session = session
    guard let reply = try? ok(of: .sync(request)) else { return }
    try? takeWork(reply, in: session, summary: "\(name) sync")
  }

  /// Takes the changes the module's live sources saw into a session's windows (§19): the
  /// `live` command, which the host runs between commands when changes wait. A change that
  /// carries its source's event is handed back to the module to apply (`live`, at this step's
  /// time), here and on a replay alike, so its state is the same on both; one without an event
  /// brings in the frames it carried. A recording keeps them, one group a `live` step; its
  /// replay (and a move in time) takes the recorded group instead of the module's own.
  func takeChanges(in session: Int) {
    guard version >= 2, let facts = facts(of: session) else { return }
    _ = changesWait(in: session)
    let key = SessionFacts.Key.liveChanges(of: name)
    let group: FrameValue
    let fromFile = facts.isReplaying && !facts.isSettingUp
    if fromFile {
      guard facts.remaining(in: key.scope)[key.source]?.isEmpty == false else { return }
      group = facts.value(of: key.source, in: key.scope) { .null }
    } else {
      let mine = changes.filter { $0.session == session }
      changes.removeAll { $0.session == session }
      // What a live step takes in, kept in order for a move in time, which brings the same
      // group in again at this step (a device changes once).
      group = facts.liveChange(in: key.scope) {
        .list(
          mine.map { change in
            var kept: FrameValue = ["updates": numbered(change.updates, in: session)]
            if let event = change.event, case .object(var object) = kept {
              object["event"] = event
              kept = .object(object)
            }
            return kept
          })
      }
      // Kept while recording, one group a `live` step (empty when this module had nothing).
      _ = facts.value(of: key.source, in: key.scope) { group }
    }
    // In order: the frames of a change without an event; the events of those with one, handed
    // back together.
    var events: [FrameValue] = []
    func handBack() {
      guard !events.isEmpty, isRunning else { return }
      var request = LiveRequest()
      request.session = session
      request.events = .list(events)
      events = []
      guard let reply = try? ok(of: .live(request)) else { return }
      try? takeWork(reply, in: session, summary: "\(name) live")
    }
    for change in group.elements ?? [] {
      if let event = change["event"] {
        events.append(event)
      } else {
        handBack()
        guard fromFile else {
          takeUpdates(keyed(change, in: session), in: session)
          continue
        }
        // What a file says is the file's: a change naming no window open here is the
        // recording's error, never the module's (which sent nothing).
        let (updates, problem) = recordedUpdates(change, in: session)
        if let problem {
          entry(of: session)?.services?.report(
            incident:
              "the recording's live change of \(name) (facts: `\(key.scope)`: \(key.source)) \(problem): its facts do "
              + "not belong to this session (was the file edited?)")
        }
        takeUpdates(updates, in: session)
      }
    }
    handBack()
  }

  /// A recorded change's updates, each window named by its number in the session mapped to this
  /// process's key; what in them names no window of the module open in the session.
  private func recordedUpdates(_ change: FrameValue, in session: Int) -> (updates: [WireUpdate], problem: String?) {
    var updates: [WireUpdate] = []
    for recorded in change["updates"]?.elements ?? [] {
      guard case .object(var object) = recorded, let number = recorded["window"]?.integerValue else {
        return (updates, "has an update that names no window by number (`window: N`)")
      }
      guard
        let screen = screens.lazy.compactMap(\.screen).first(where: {
          $0.session == session && $0.factScope == "window \(number)"
        })
      else {
        return (updates, "names window \(number), which is not open on it at this step")
      }
      object["window"] = nil
      object["key"] = .string(screen.key)
      guard let update = try? WireUpdate(wire: .object(object)) else {
        return (updates, "has an update of window \(number) that is not {window, frame, text, state}")
      }
      updates.append(update)
    }
    return (updates, nil)
  }

  /// A change's updates with each window named by its number in the session (`window: 2`), as
  /// a recording keeps them: the keys are this process's, the numbers the session's.
  private func numbered(_ updates: [WireUpdate], in session: Int) -> FrameValue {
    .list(
      updates.map { update in
        guard case .object(var object) = update.wire, let screen = screen(key: update.key, in: session),
          let number = Int(screen.factScope.dropFirst("window ".count))
        else { return update.wire }
        object["key"] = nil
        object["window"] = .integer(number)
        return .object(object)
      })
  }

  /// A recorded change's updates with each window named by its key in this process again.
  private func keyed(_ change: FrameValue, in session: Int) -> [WireUpdate] {
    (change["updates"]?.elements ?? []).compactMap { recorded in
      guard case .object(var object) = recorded else { return nil }
      if let number = recorded["window"]?.integerValue,
        let screen = screens.lazy.compactMap(\.screen).first(where: {
          $0.session == session && $0.factScope == "window \(number)"
        })
      {
        object["window"] = nil
        object["key"] = .string(screen.key)
      }
      return try? WireUpdate(wire: .object(object))
    }
  }
}
