import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Answering a request: facts served and reported, the reply for a window, timers, updates,
/// commits, windows opened and closed, and what the live sources saw.
extension ModuleSession {
  func answerWithFacts(_ request: HostMessage) -> ModuleMessage {
    // A request that carries `facts` is being recorded or replayed: the facts the module's
    // effects use are served from it (on replay) and reported back in the reply.
    guard let facts = Self.facts(of: request) else { return reply(to: request) }
    var replay: [String: [FrameValue]]? = nil
    if facts.replay != nil || facts.shared != nil || facts.windows != nil { current.replaying = true }
    if case .object(let sources)? = facts.replay {
      replay = [:]
      for member in sources.members { replay?[member.key] = member.value.elements ?? [] }
    } else if facts.shared != nil || facts.windows != nil {
      // A replay's request with no facts of its own window (a timer, a replay setting up):
      // still a replay, served from the scopes it names.
      replay = [:]
    }
    // Protocol 2: every fact keeps its scope: a window's (the host names the window by its
    // key; here it is that window's scope) or one the session shares (`network`).
    var scoped: [String: [String: [FrameValue]]] = [:]
    func take(_ value: FrameValue?, scope: (String) -> String?) {
      guard case .object(let scopes)? = value else { return }
      for entry in scopes.members {
        guard let name = scope(entry.key), case .object(let sources) = entry.value else { continue }
        for member in sources.members { scoped[name, default: [:]][member.key] = member.value.elements ?? [] }
      }
    }
    if version >= 2 {
      // The window an `open` is about gets the next number here.
      var opening: String?
      if case .open(let window) = request { opening = window.key }
      func scope(of key: String) -> String? {
        key == opening ? "window \(host.nextWindowNumber)" : current.window(key).map { "window \($0.id.number)" }
      }
      // `replay` is the request's own window's (as in protocol 1); `windows` names each.
      if let key = Self.key(of: request), let own = scope(of: key), let replay {
        scoped[own] = replay
      }
      take(facts.shared) { $0 }
      take(facts.windows, scope: scope)
    }
    host.facts.beginRelay(replaying: replay, shared: scoped, scoped: version >= 2)
    // A replay setting up its recording's windows (`start`): they load live, and what the
    // module counts of that work is in the recorded states already, as in the host.
    host.facts.isSettingUp = facts.start == true
    // Windows opened again served the answers the session took (`again`): that work is not
    // counted again either.
    host.facts.servesTakenAnswers = facts.again == true
    let result = reply(to: request)
    host.facts.isSettingUp = false
    host.facts.servesTakenAnswers = false
    let relayed = host.facts.endRelay()
    let reported = relayed.used.map { used -> WireFact in
      var fact = WireFact()
      fact.source = used.source
      fact.value = used.value
      // A fact that answers a question is reported with it (`asked`), and its answer as the value.
      if let asked = SessionFacts.question(of: used.value) {
        fact.asked = asked
        fact.value = SessionFacts.answer(of: used.value)
      }
      // Protocol 2: a fact says whose it is: a window's, by its key, or a shared scope's.
      if version >= 2, let scope = used.scope {
        if SessionFacts.isWindowScope(scope) {
          let number = Int(scope.dropFirst("window ".count))
          fact.window = host.windows.first { $0.id.number == number }.flatMap { current.key(of: $0) }
        } else {
          fact.scope = scope
        }
      }
      return fact
    }
    switch result {
    case .result(var value):
      value.facts = reported
      value.divergence = relayed.divergence
      return .result(value)
    case .ok(var value):
      value.facts = reported
      value.divergence = relayed.divergence
      return .ok(value)
    case .error(var value):
      value.facts = reported
      value.divergence = relayed.divergence
      return .error(value)
    case .hello, .changed:
      return result
    }
  }

  func reply(to request: HostMessage) -> ModuleMessage {
    do {
      // The session's time is the host's: the module's clock moves to the time the request
      // carries, and keeps none of its own. The host fired every timer due before then, so
      // this runs none but one it was not told of yet, and that one with the request's facts.
      // A timer due at that very time runs at the host's `timer` request for it (set `after:
      // 0`, it is due at once), not at any other request made then, as in the other kits: two
      // due at one moment run as the host fires them.
      if version >= 2, let now = request.header.now {
        let target = Duration.milliseconds(now)
        if host.clock.now < target { try host.clock.advance(to: target, firingDueThen: false) }
        // The calendar is the host's too: where its clock reads zero is `date` less `now`.
        if let date = request.header.date {
          let (origin, overflow) = date.subtractingReportingOverflow(now)
          if !overflow { host.clock.calendarOrigin = CalendarDate(milliseconds: origin) }
        }
      }
      return try answer(request)
    } catch {
      return .error(WireError(message: error.message))
    }
  }

  func answer(_ request: HostMessage) throws(CommandError) -> ModuleMessage {
    switch request {
    case .capture:
      // A recording starts: the states the session's services are in (§12).
      var ok = WireOk()
      ok.facts = host.facts.capturedStates().map { state in
        var fact = WireFact()
        fact.source = state.source
        fact.scope = state.scope
        fact.value = state.value
        return fact
      }
      return .ok(ok)
    case .validate(let validate):
      try host.replaceDocument(named: "validation", kind: validate.kind, json: validate.body, revision: 1)
      return .ok(WireOk())
    case .leave(let request):
      // The user's choice for the window's unsaved work (§20), as the host carries it out for a
      // built-in screen's draft: saved (a commit, or an error saying why not) or dropped.
      guard let window = current.window(request.key) else {
        throw CommandError("no window \(request.key) in the module")
      }
      let document = window.documentName
      let before = host.document(named: document)
      try host.leave(window.id, choice: request.choice == "save" ? .save : .discard)
      let committed = changedBody(of: document, before: before)
      if let committed, let kind = host.documentKind(of: document) { given[document] = (kind, committed) }
      return .result(try reply(for: window, text: nil, commit: committed))
    case .open(let request):
      try sync(request.document, kind: request.kind, body: request.body, revision: request.revision)
      if let existing = current.window(request.key) { host.closeWindow(existing.id) }
      let window = try host.openWindow(screen: request.screen, document: request.document)
      current.bind(request.key, to: window.id)
      if let state = request.state, let version = host.viewStateVersion(of: window.id) {
        _ = host.restoreViewState(of: window.id, from: ViewStateRecord(version: version, state: state))
      }
      return .result(try reply(for: window, text: nil, commit: nil))
    case .restore(let request):
      // The window's view state, restored in place (§18): the screen decides what follows.
      try sync(request.document, kind: request.kind, body: request.body, revision: request.revision)
      guard let window = current.window(request.key) else {
        throw CommandError("no window \(request.key) in the module")
      }
      // What an undo or redo did to the window's timers moves first: the clock takes away the
      // ones named and puts back the ones it kept (at their times, with the handles the screen
      // holds), so the screen finds them as they were; one that sets or cancels timers as it
      // takes the state keeps its own, and those put back go again. The reply says what each is.
      let takeAway = (request.cancel ?? []).compactMap(Self.timerNumber)
      for number in takeAway { host.clock.takeAway(number) }
      let putBack = (request.timers ?? []).compactMap(\.id).compactMap(Self.timerNumber).filter {
        host.clock.putBack($0)
      }
      let moved = host.clock.waitingTimerWindows.map(\.number)
      if let state = request.state, let version = host.viewStateVersion(of: window.id),
        let problem = host.restoreViewState(of: window.id, from: ViewStateRecord(version: version, state: state))
      {
        throw CommandError("the view state was not restored: \(problem)")
      }
      let own = host.clock.waitingTimerWindows.map(\.number) != moved
      if own {
        for number in putBack { host.clock.takeAway(number) }
      }
      current.resync.formUnion(takeAway + (request.timers ?? []).compactMap { Self.timerNumber($0.id) })
      var result = try reply(for: window, text: nil, commit: nil)
      if own, !takeAway.isEmpty || !putBack.isEmpty { result.ownTimers = true }
      return .result(result)
    case .refresh(let request):
      try sync(request.document, kind: request.kind, body: request.body, revision: request.revision)
      guard let window = current.window(request.key) else {
        throw CommandError("no window \(request.key) in the module")
      }
      return .result(try reply(for: window, text: nil, commit: nil))
    case .command(let request):
      guard let key = request.key else {
        // A command run in no window (§16): in the session, as typed.
        var text: String? = nil
        for output in try run(request, in: nil) {
          if case .text(let value) = output { text = value }
        }
        var ok = WireOk()
        ok.output = text
        return .ok(ok)
      }
      if let document = request.document, let kind = request.kind {
        try sync(document, kind: kind, body: request.body, revision: request.revision ?? 1)
      }
      guard let window = current.window(key) else { throw CommandError("no window \(key) in the module") }
      let document = window.documentName
      let before = host.document(named: document)
      var text: String? = nil
      // A refused command changes nothing: `handle` puts back what it committed (its view state
      // went back with the refusal, as in the host).
      let outputs = try run(request, in: String(window.id.number))
      for output in outputs {
        if case .text(let value) = output { text = value }
      }
      let committed = changedBody(of: document, before: before)
      if let committed, let kind = host.documentKind(of: document) { given[document] = (kind, committed) }
      var result = try reply(for: window, text: text, commit: committed)
      if version >= 2 {
        let (opened, closed) = try windowsOpenedAndClosed()
        if !opened.isEmpty { result.opened = opened }
        if !closed.isEmpty { result.closed = closed }
      }
      return .result(result)
    case .timer(let request):
      // The host's clock reached one of the module's timers: the module's clock moves to it,
      // which runs it (and any due before it). The request's `now` did that already.
      if request.now == nil, request.timer.hasPrefix("t"), let number = Int(request.timer.dropFirst()),
        let due = host.clock.waitingTimers.first(where: { $0.number == number })?.due
      {
        try host.clock.advance(by: max(.zero, due - host.clock.now))
      }
      // Named before its time: the host catches a window opened again up (§14).
      if request.timer.hasPrefix("t"), let number = Int(request.timer.dropFirst()) { host.clock.fireNow(number) }
      return .ok(WireOk())
    case .close(let request):
      if let window = current.window(request.key) { host.closeWindow(window.id) }
      current.lastSent[request.key] = nil
      current.unbind(request.key)
      return .ok(WireOk())
    case .sync, .end:
      // Changes the live sources saw are sent before this reply (`liveChanges`).
      return .ok(WireOk())
    case .live(let request):
      // The events of changes the host takes in now (the module's own, or a replay's recorded
      // ones), applied at the time the request carries.
      for event in request.events.elements ?? [] {
        guard let source = event["source"]?.stringValue,
          host.services.applyLiveEvent(source: source, value: event["value"] ?? .null)
        else {
          throw CommandError("no live source in the session for the recorded event \(event.jsonText)")
        }
      }
      return .ok(WireOk())
    }
  }

  /// Puts back what refused work wrote: every document whose copy here is not the one the host
  /// holds (the last it gave, or the module committed and it took) goes back to the host's, so a
  /// refused piece of work (a command in a window or in none, a `leave`, a live event) changes
  /// nothing (§5), and the next work's commit is made from the host's copy.
  func putBackRefusedWrites() {
    for (name, held) in given where host.documentJSON(named: name) != held.body {
      try? host.replaceDocument(named: name, kind: held.kind, json: held.body, revision: givenRevisions[name] ?? 1)
    }
  }

  /// Takes in the host's copy of the document before acting on it. The host leaves the body
  /// out when the module holds the document as it is (§5): the last one it gave under that name,
  /// whichever session it came with, so a new session's host here takes that one in too.
  func sync(_ name: String, kind: String, body: String?, revision: Int) throws(CommandError) {
    if let body { given[name] = (kind, body) }
    givenRevisions[name] = revision
    guard let held = given[name] else { return }
    if host.documentJSON(named: name) != held.body {
      try host.replaceDocument(named: name, kind: held.kind, json: held.body, revision: revision)
    }
  }

  /// The changes the module's own live sources have waiting (`services.addLiveSource`, as a
  /// built-in module registers one), taken in and sent as `changed` messages (§19): one per
  /// session with windows whose frames changed. Empty with protocol 1, which has no changes.
  package func liveChanges() -> [FrameValue] {
    // Asked after every request: most modules have no live source in any session.
    guard hasLiveSources else { return [] }
    var changes: [FrameValue] = []
    for (number, side) in sides.sorted(by: { $0.key < $1.key }) {
      let services = side.host.services
      // Each event a source saw goes to the host, which hands it back to apply (`live`) when it
      // takes the change in, at that moment, live and on a replay alike; a replay's session
      // gets the recording's events instead, and drops its own.
      for event in services.takeLiveEvents() where !side.replaying {
        var change = WireChanged()
        change.session = number
        change.event = ["source": .string(event.source), "value": event.value]
        changes.append(ModuleMessage.changed(change).wire)
      }
      guard services.liveChangesWait else { continue }
      services.takeLiveChanges()
      let updates = changedWindows(in: side, besides: nil)
      if !updates.isEmpty {
        var change = WireChanged()
        change.session = number
        change.updates = updates
        changes.append(ModuleMessage.changed(change).wire)
      }
    }
    return changes
  }

  /// Whether any session has a live source whose changes go to the host (protocol 2): without
  /// one there is nothing to look for between requests, nor to wait on beside them.
  var hasLiveSources: Bool {
    // Loops, not closures: asked around every request, and a closure formed on the main actor
    // is checked to run there each time a library calls it.
    guard version >= 2 else { return false }
    for side in sides.values where side.host.services.hasLiveSources { return true }
    return false
  }

  /// The descriptors the module's live sources wait on, in every session.
  package var liveSourceDescriptors: [Int32] {
    guard hasLiveSources else { return [] }
    var descriptors: [Int32] = []
    for side in sides.values { descriptors += side.host.services.liveSourceDescriptors }
    return descriptors
  }

  /// The windows of `side` but `key` whose frames changed since the host last got them, as
  /// updates (§15), now noted as sent.
  func changedWindows(in side: Side, besides key: String?) -> [WireUpdate] {
    // Another window changes with what it shows (a window's view state changes by its own
    // commands), so its frame is compared and its view state encoded only when that changed.
    var updates: [WireUpdate] = []
    for window in side.host.windows {
      guard let name = side.key(of: window), name != key else { continue }
      let (frame, text) = window.frameAndText
      guard side.lastSent[name] != frame, let state = try? window.viewStateJSON() else { continue }
      side.lastSent[name] = frame
      var update = WireUpdate(key: name, frame: frame, text: text(), state: state)
      update.unsaved = side.host.unsavedSummary(of: window.id)
      updates.append(update)
    }
    return updates
  }

  /// The number of the clock's timer a protocol timer id names (`t12`), as the kit reports them.
  static func timerNumber(_ id: String) -> Int? {
    id.hasPrefix("t") ? Int(id.dropFirst()) : nil
  }

  /// A reply with the timers the module's clock holds that the host has not been told of
  /// (`timers`, each `at` its time on the session's clock, which is the host's), the ones it no
  /// longer holds (`cancel`: fired or cancelled), and the windows besides the one asked about
  /// whose frames changed (`updates`).
  func addingTimersAndUpdates(to reply: ModuleMessage, for request: HostMessage) -> ModuleMessage {
    let side = current
    let key = Self.key(of: request)
    let waiting = host.clock.waitingTimers
    // Those a `restore` named are told again, whatever the host was told of them.
    let resync = side.resync
    side.resync = []
    side.reportedTimers.subtract(resync)
    var timers: [WireTimer] = []
    for timer in waiting where !side.reportedTimers.contains(timer.number) {
      side.reportedTimers.insert(timer.number)
      // Whole milliseconds, rounded up: the host's timer is never due before the module's.
      let whole = timer.due.wholeMilliseconds
      let at = Int(clamping: whole)
      timers.append(
        WireTimer(
          id: "t\(timer.number)", at: timer.due > .milliseconds(whole) ? OutsideNumbers.saturatingSuccessor(of: at) : at
        ))
    }
    // The timers told of that the clock no longer holds: none when the told are as many as the
    // held (every held one was told just above, and a timer's number is its own). Loops, not
    // closures: a closure formed on the main actor is checked to run there each time a library
    // calls it, at every request.
    var gone: [Int] = []
    if side.reportedTimers.count > waiting.count {
      var held = Set<Int>(minimumCapacity: waiting.count)
      for timer in waiting { held.insert(timer.number) }
      for number in side.reportedTimers where !held.contains(number) { gone.append(number) }
      gone.sort()
      side.reportedTimers.subtract(gone)
    }
    if !resync.isEmpty {
      var held = Set<Int>(minimumCapacity: waiting.count)
      for timer in waiting { held.insert(timer.number) }
      gone = Array(Set(gone).union(resync.subtracting(held))).sorted()
    }
    switch reply {
    case .result(var result):
      if !timers.isEmpty { result.timers = timers }
      if !gone.isEmpty { result.cancel = gone.map { "t\($0)" } }
      if let key { side.lastSent[key] = result.frame }
      let updates = changedWindows(in: side, besides: key)
      if !updates.isEmpty { result.updates = updates }
      return .result(result)
    case .ok(var ok):
      if !timers.isEmpty { ok.timers = timers }
      if !gone.isEmpty { ok.cancel = gone.map { "t\($0)" } }
      let updates = changedWindows(in: side, besides: key)
      if !updates.isEmpty { ok.updates = updates }
      return .ok(ok)
    default:
      return reply
    }
  }

  /// The windows the work opened (`opened`: a room window from a home window, each under a new
  /// key with its screen, document, name and first frame) and the windows of the host's it
  /// closed (`closed`), §17.
  func windowsOpenedAndClosed() throws(CommandError) -> (opened: [WireOpenedWindow], closed: [String]) {
    let side = current
    var opened: [WireOpenedWindow] = []
    for window in host.windows where side.key(of: window) == nil {
      let key = "k\(window.id.number)"
      side.bind(key, to: window.id)
      let first = try reply(for: window, text: nil, commit: nil)
      var entry = WireOpenedWindow()
      entry.key = key
      entry.screen = window.screen.name
      entry.document = window.documentName
      entry.name = window.name
      entry.frame = first.frame
      entry.text = first.text
      entry.state = first.state
      side.lastSent[key] = window.frame
      opened.append(entry)
    }
    // Every window has a key now: with as many keys as windows, one each, none was closed.
    guard !side.keysAreOneToOne || side.keys.count != host.windows.count else { return (opened, []) }
    let open = Set(host.windows.map(\.id))
    let closed = side.keys.filter { !open.contains($0.value) }.map(\.key).sorted()
    for key in closed {
      side.unbind(key)
      side.lastSent[key] = nil
    }
    return (opened, closed)
  }

  /// Runs the command the host sent: by its spec's path and the arguments the host bound, a
  /// window argument naming one of this module's windows by its key (§5), so nothing is read
  /// from text. A protocol 2 host from before paths names the command in full (`network fail`,
  /// whose words are the path); a protocol 1 host sends only the line, which is read.
  func run(_ request: CommandRequest, in window: String?) throws(CommandError) -> [CommandOutput] {
    guard let path = request.path ?? request.command.map({ $0.split(separator: " ").map(String.init) }),
      var values = Self.argumentValues(request.arguments)
    else {
      return try host.run(line: request.line, in: window)
    }
    // A window argument the host keyed is this session's window under that key; one it did not
    // is a window of another module, which this session does not have.
    if case .object(let keys)? = request.windows {
      for (argument, key) in keys.members {
        guard case .string(let key) = key, let named = current.window(key) else { continue }
        values[argument] = .text(named.label)
      }
    }
    return [try host.run(path: path, arguments: values, in: window)]
  }

  /// The host's bound arguments as argument values: a number as a number, text as text; `nil`
  /// for anything else (the line is read instead).
  static func argumentValues(_ arguments: FrameValue?) -> [String: ArgumentValue]? {
    guard let arguments else { return [:] }
    guard case .object(let object) = arguments else { return nil }
    var values: [String: ArgumentValue] = [:]
    for (key, value) in object.members {
      switch value {
      case .integer(let number): values[key] = .integer(number)
      case .string(let text): values[key] = .text(text)
      default: return nil
      }
    }
    return values
  }

  /// The document's body to commit after a command: `nil` when the command committed nothing,
  /// or committed the body it had (a commit that changes nothing is no change, as the other
  /// kits have it: the host makes no revision of it).
  func changedBody(of document: String, before: DocumentSnapshot?) -> String? {
    guard let after = host.document(named: document), after.revision != before?.revision else { return nil }
    // Both encoded the one way (the host's text and this process's may order keys apart).
    let encoder = FrameValueEncoder()
    if let before, let was = try? encoder.json(before.body), let now = try? encoder.json(after.body), was == now {
      return nil
    }
    return host.documentJSON(named: document)
  }

  func reply(for window: Window, text: String?, commit: String?) throws(CommandError) -> WireResult {
    let state: String
    do {
      state = try window.viewStateJSON()
    } catch {
      throw CommandError("the view state cannot be encoded: \(error)")
    }
    var result = WireResult()
    let (frame, rendered) = window.frameAndText
    result.frame = frame
    result.text = rendered()
    result.state = state
    result.output = text
    result.commit = commit
    result.unsaved = host.unsavedSummary(of: window.id)
    return result
  }
}
