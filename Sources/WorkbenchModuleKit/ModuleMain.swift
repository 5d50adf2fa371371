@_exported import WorkbenchCore
import WorkbenchModuleProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a feature module as its own process, talking to the workbench host over stdin and
/// stdout. A module author writes the same module as a built-in one and a one-line `main.swift`:
///
/// ```swift
/// import WorkbenchModuleKit
/// ModuleMain.run(GreetingModule())
/// ```
@MainActor
public enum ModuleMain {
  /// The descriptor the protocol is written to: the process's original stdout, moved to this
  /// fixed number when `run` starts (closed on exec, so programs the module starts do not get
  /// it). Module code never needs it; the kit's own tests use it to send malformed messages on
  /// purpose.
  public static let protocolDescriptor: Int32 = 63

  /// Runs `module` until the host closes the connection.
  public static func run(_ module: some FeatureModule) -> Never {
    // The protocol keeps the real stdout; anything the module prints goes to stderr.
    guard dup2(STDOUT_FILENO, protocolDescriptor) == protocolDescriptor,
      fcntl(protocolDescriptor, F_SETFD, FD_CLOEXEC) == 0
    else {
      StandardError.write("the module could not keep its protocol descriptor: \(String(cString: strerror(errno)))\n")
      exit(1)
    }
    dup2(STDERR_FILENO, STDOUT_FILENO)
    let channel = MessageChannel(input: STDIN_FILENO, output: protocolDescriptor)
    let session: ModuleSession
    do {
      session = try ModuleSession(module: module, version: ModuleSession.negotiatedVersion())
    } catch {
      _ = try? channel.send(["type": "error", "message": .string("the module failed to register: \(error.message)")])
      exit(1)
    }
    do {
      try channel.send(session.hello())
      while true {
        // What the module's own live sources saw (§19) goes out as it comes, between replies
        // (and with each reply, below: nothing else happens between a reply and the next wait).
        if !channel.holdsAMessage, !waitForRequest(on: channel, or: session.liveSourceDescriptors) {
          for change in session.liveChanges() { try channel.send(change) }
          continue
        }
        let reply = session.handle(try channel.receive(timeout: -1))
        // Changes seen while the request was answered go first: the host keeps them and reads
        // the reply after them (§19).
        for change in session.liveChanges() { try channel.send(change) }
        try channel.send(reply)
      }
    } catch {
      exit(0)  // the host went away
    }
  }

  /// Waits until the host sends something (true) or a live source's descriptor is readable
  /// (false). A source that stays readable without having changes waits a moment before it is
  /// looked at again, so a careless one cannot spin the process.
  private static func waitForRequest(on channel: MessageChannel, or sources: [Int32]) -> Bool {
    guard !sources.isEmpty else { return true }
    var descriptors = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)]
    descriptors += sources.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    guard poll(&descriptors, nfds_t(descriptors.count), -1) > 0 else { return false }
    if descriptors[0].revents != 0 { return true }
    var input = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)]
    return poll(&input, 1, 20) > 0
  }
}

/// Standard error, without Foundation.
enum StandardError {
  static func write(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
  }
}

/// The module's side of the conversation: one host with the module, and a window per host
/// window that shows one of its screens. `ModuleMain.run` drives one over the process's pipes;
/// tests and fuzzers can drive one directly, request by request.
///
/// With protocol 2 the module's clock is the host's: the kit's host runs on a virtual clock
/// that moves only when the host says a timer is due, every timer the module's code sets
/// (`services.clock.schedule`) is reported to the host as a protocol timer (§14), and windows
/// whose frames changed besides the one asked about go back as `updates` (§15). A module's
/// effects therefore run in scenarios exactly as a built-in module's do.
///
/// Each host session the requests name (`session`, §16) gets a host of its own here (its
/// clock, its services, its windows), dropped when the host says the session ended.
@MainActor
public final class ModuleSession {
  /// What the module keeps for one host session.
  @MainActor final class Side {
    let host: Host
    /// The timers reported to the host and not yet fired or cancelled, by number.
    var reportedTimers: Set<Int> = []
    /// Each window's frame as the host last got it.
    var lastSent: [String: FrameValue] = [:]
    /// The host's key for each window here.
    var keys: [String: WindowID] = [:]
    /// Whether the host replays this session: its live sources' events are then the
    /// recording's (`live`), and what the module's own sources see is dropped.
    var replaying = false
    init(host: Host) { self.host = host }

    /// The window the host calls `key`.
    func window(_ key: String) -> Window? {
      guard let id = keys[key] else { return nil }
      return host.windows.first { $0.id == id }
    }

    /// The host's key of a window, if the host knows it.
    func key(of window: Window) -> String? { keys.first { $0.value == window.id }?.key }
  }

  let manifest: ModuleManifest
  /// The protocol version spoken (§3).
  public let version: Int
  /// The session of protocol 1 requests, and the one the handshake describes.
  private let main: Side
  /// The host's sessions, by number (protocol 2).
  private var sides: [Int: Side] = [:]
  /// The last body the host gave of each document, and the revision it last named it at.
  private var given: [String: (kind: String, body: String)] = [:]
  private var givenRevisions: [String: Int] = [:]
  /// The session the request being answered is about.
  private var current: Side
  var host: Host { current.host }

  init(host: Host, module: ModuleManifest, version: Int) {
    main = Side(host: host)
    current = main
    self.manifest = module
    self.version = version
  }

  /// A session for `module`, as its process would hold, speaking protocol `version`.
  ///
  /// - Throws: `RegistrationError` when the module's registration is inconsistent.
  public convenience init(module: some FeatureModule, version: Int = 1) throws(RegistrationError) {
    // Protocol 2: time moves when the host says (timers); protocol 1 has no timers, and the
    // module's own run on real time, at its next request.
    let host = try Host(modules: [module], clock: version >= 2 ? .virtual : .real)
    self.init(host: host, module: module.manifest, version: version)
  }

  /// The newest version both sides speak: the host lists its versions in
  /// `WORKBENCH_HOST_PROTOCOLS`; a host that does not speaks 1.
  public static func negotiatedVersion() -> Int {
    if let override = getenv("WORKBENCH_MODULE_PROTOCOL_OVERRIDE"), let number = Int(String(cString: override)) {
      return number  // for the host's handshake tests
    }
    guard let offered = getenv(ModuleProtocol.hostVersionsVariable) else { return 1 }
    let versions = String(cString: offered).split(separator: ",").compactMap { Int($0) }
    return versions.filter { ModuleProtocol.versions.contains($0) }.max() ?? 1
  }

  /// The handshake the module sends first.
  public func hello() -> FrameValue { ModuleMessage.hello(helloMessage()).wire }

  /// The handshake, as a value.
  public func helloMessage() -> WireHello {
    var hello = WireHello()
    hello.protocol = version
    hello.manifest = WireManifest(name: manifest.name, version: manifest.version, summary: manifest.summary)
    hello.commands = host.allCommands.filter { $0.name.hasPrefix(manifest.name + ".") }.map {
      SpecCoding.encode($0.spec)
    }
    hello.screens = host.screens.map { screen in
      var wire = WireScreen()
      wire.name = screen.name
      wire.documentKind = screen.documentKind
      wire.fields = host.frameFields(ofScreen: screen.name)
      let lifetime = host.registry.lifetimeFields(ofScreen: screen.name)
      if !lifetime.isEmpty { wire.lifetimeFields = lifetime }
      let summaries = host.registry.fieldSummaries(ofScreen: screen.name)
      if !summaries.isEmpty {
        wire.fieldSummaries = .object(
          FrameObject(members: summaries.keys.sorted().map { ($0, .string(summaries[$0] ?? "")) }))
      }
      return wire
    }
    // The module's own diagrams, drawn now and sent as nodes and edges.
    hello.diagrams = host.registry.drawModuleDiagrams().map { name, diagram in
      var wire = WireDiagram()
      wire.name = name
      wire.title = diagram.title
      wire.stateMachine = diagram.isStateMachine
      wire.start = diagram.start
      wire.nodes = diagram.nodes
      wire.edges = diagram.edges.map { edge in
        var wire = WireDiagramEdge()
        wire.from = edge.from
        wire.to = edge.to
        wire.label = edge.label
        return wire
      }
      return wire
    }
    hello.samples = host.documentNames.compactMap { name in
      guard let kind = host.documentKind(of: name), let json = host.documentJSON(named: name) else { return nil }
      var sample = WireSample()
      sample.name = name
      sample.kind = kind
      sample.body = json
      return sample
    }
    hello.documentKinds = host.documentKindNames
    // The live sources the module declared (`registrar.liveSource`): the host then asks for
    // what they saw (`sync`) where a scenario takes changes.
    if version >= 2, !host.registry.liveSourceNames.isEmpty { hello.liveSources = true }
    return hello
  }

  /// The reply to one request from the host: a result, `ok`, or an error with a message.
  public func handle(_ wire: FrameValue) -> FrameValue {
    let request: HostMessage
    do throws(WireProblems) {
      request = try HostMessage(wire: wire)
    } catch {
      var refusal = WireError(message: "the request was not what the protocol says: expected \(error.description)")
      refusal.id = wire["id"]?.integerValue
      return ModuleMessage.error(refusal).wire
    }
    return handle(request).wire
  }

  /// The reply to one request from the host, as a value.
  public func handle(_ request: HostMessage) -> ModuleMessage {
    let header = request.header
    // Protocol 2: the request's session, made when first named; `end` drops it.
    if version >= 2, let number = header.session {
      if case .end = request {
        sides[number] = nil
        var ok = WireOk()
        ok.id = header.id
        return .ok(ok)
      }
      // A window shows as many rows as the host's (`rows`, sent with `open`), within reason: a
      // screen adds it to an index.
      var rows = ScreenEnvironment.defaultViewportRows
      if case .open(let window) = request, let given = window.rows { rows = given }
      let environment = ScreenEnvironment(viewportRows: min(max(1, rows), 10_000))
      current =
        sides[number] ?? Side(host: Host(registry: main.host.registry, environment: environment, clock: .virtual))
      sides[number] = current
    }
    defer { current = main }
    // Work outside a window's command (a timer's, a live event's) may change documents: each is
    // committed through the host, from the revision the host last gave (§14).
    let before = version >= 2 ? documentRevisions() : [:]
    // The reply carries the request's id (§7), so the host can tell it from any other message.
    var answered = answerWithFacts(request)
    if version >= 2 {
      answered = addingTimersAndUpdates(to: answered, for: request)
      if case .ok(var ok) = answered {
        let commits = self.commits(since: before)
        if !commits.isEmpty { ok.commits = commits }
        if let (opened, closed) = try? windowsOpenedAndClosed() {
          if !opened.isEmpty { ok.opened = opened }
          if !closed.isEmpty { ok.closed = closed }
        }
        answered = .ok(ok)
      }
    }
    switch answered {
    case .result(var result):
      result.id = header.id
      return .result(result)
    case .ok(var ok):
      ok.id = header.id
      return .ok(ok)
    case .error(var error):
      error.id = header.id
      return .error(error)
    case .hello, .changed:
      return answered
    }
  }

  /// The revision of each document a window of the session shows.
  private func documentRevisions() -> [String: Int] {
    var revisions: [String: Int] = [:]
    for window in host.windows {
      revisions[window.documentName] = host.document(named: window.documentName)?.revision
    }
    return revisions
  }

  /// The documents whose revision moved since `before`, as commits from the revision they had.
  private func commits(since before: [String: Int]) -> [WireCommit] {
    before.keys.sorted().compactMap { name in
      guard let was = before[name], let now = host.document(named: name)?.revision, now != was,
        let body = host.documentJSON(named: name)
      else { return nil }
      // From the revision the host last named (it is the host's compare-and-swap), which the
      // commit moves on by one.
      let base = givenRevisions[name] ?? was
      givenRevisions[name] = OutsideNumbers.saturatingSuccessor(of: base)
      if let kind = host.documentKind(of: name) { given[name] = (kind, body) }
      return WireCommit(document: name, revision: base, body: body)
    }
  }

  /// The facts a request carries, if any (§12).
  private static func facts(of request: HostMessage) -> WireFactsRequest? {
    switch request {
    case .open(let window), .refresh(let window), .restore(let window): return window.facts
    case .command(let command): return command.facts
    case .timer(let timer): return timer.facts
    default: return nil
    }
  }

  /// The window a request is about, by the host's key.
  private static func key(of request: HostMessage) -> String? {
    switch request {
    case .open(let window), .refresh(let window), .restore(let window): return window.key
    case .command(let command): return command.key
    case .close(let close): return close.key
    default: return nil
    }
  }

  private func answerWithFacts(_ request: HostMessage) -> ModuleMessage {
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
    host.services.facts.beginRelay(replaying: replay, shared: scoped, scoped: version >= 2)
    // A replay setting up its recording's windows (`start`): they load live, and what the
    // module counts of that work is in the recorded states already, as in the host.
    host.services.facts.isSettingUp = facts.start == true
    let result = reply(to: request)
    host.services.facts.isSettingUp = false
    let relayed = host.services.facts.endRelay()
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

  private func reply(to request: HostMessage) -> ModuleMessage {
    do {
      // The session's time is the host's: the module's clock moves to the time the request
      // carries, and keeps none of its own. The host fired every timer due by then, so this
      // runs none but one it was not told of yet, and that one with the request's facts.
      if version >= 2, let now = request.header.now {
        let target = Duration.milliseconds(now)
        if host.clock.now < target { try host.clock.advance(by: target - host.clock.now) }
      }
      return try answer(request)
    } catch {
      return .error(WireError(message: error.message))
    }
  }

  private func answer(_ request: HostMessage) throws(CommandError) -> ModuleMessage {
    switch request {
    case .capture:
      // A recording starts: the states the session's services are in (§12).
      var ok = WireOk()
      ok.facts = host.services.facts.capturedStates().map { state in
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
    case .open(let request):
      try sync(request.document, kind: request.kind, body: request.body, revision: request.revision)
      if let existing = current.window(request.key) { host.closeWindow(existing.id) }
      let window = try host.openWindow(screen: request.screen, document: request.document)
      current.keys[request.key] = window.id
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
      if let state = request.state, let version = host.viewStateVersion(of: window.id),
        let problem = host.restoreViewState(of: window.id, from: ViewStateRecord(version: version, state: state))
      {
        throw CommandError("the view state was not restored: \(problem)")
      }
      return .result(try reply(for: window, text: nil, commit: nil))
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
        for output in try host.run(line: request.line) {
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
      let before = host.document(named: document)?.revision
      var text: String? = nil
      for output in try host.run(line: "@\(window.id.number) " + request.line) {
        if case .text(let value) = output { text = value }
      }
      let committed = host.document(named: document)?.revision != before ? host.documentJSON(named: document) : nil
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
      return .ok(WireOk())
    case .close(let request):
      if let window = current.window(request.key) { host.closeWindow(window.id) }
      current.lastSent[request.key] = nil
      current.keys[request.key] = nil
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

  /// Takes in the host's copy of the document before acting on it. The host leaves the body
  /// out when the module holds the document as it is (§5): the last one it gave under that name,
  /// whichever session it came with, so a new session's host here takes that one in too.
  private func sync(_ name: String, kind: String, body: String?, revision: Int) throws(CommandError) {
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
  public func liveChanges() -> [FrameValue] {
    guard version >= 2 else { return [] }
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

  /// The descriptors the module's live sources wait on, in every session.
  public var liveSourceDescriptors: [Int32] {
    version >= 2 ? sides.values.flatMap { $0.host.services.liveSourceDescriptors } : []
  }

  /// The windows of `side` but `key` whose frames changed since the host last got them, as
  /// updates (§15), now noted as sent.
  private func changedWindows(in side: Side, besides key: String?) -> [WireUpdate] {
    // Another window changes with what it shows (a window's view state changes by its own
    // commands), so its frame is compared and its view state encoded only when that changed.
    var updates: [WireUpdate] = []
    for window in side.host.windows {
      guard let name = side.key(of: window), name != key else { continue }
      let frame = window.frame
      guard side.lastSent[name] != frame, let state = try? window.viewStateJSON() else { continue }
      side.lastSent[name] = frame
      updates.append(WireUpdate(key: name, frame: frame, text: window.screen.render(frame), state: state))
    }
    return updates
  }

  /// A reply with the timers the module's clock holds that the host has not been told of
  /// (`timers`, each `at` its time on the session's clock, which is the host's), the ones it no
  /// longer holds (`cancel`: fired or cancelled), and the windows besides the one asked about
  /// whose frames changed (`updates`).
  private func addingTimersAndUpdates(to reply: ModuleMessage, for request: HostMessage) -> ModuleMessage {
    let side = current
    let key = Self.key(of: request)
    let waiting = host.clock.waitingTimers
    var timers: [WireTimer] = []
    for timer in waiting where !side.reportedTimers.contains(timer.number) {
      side.reportedTimers.insert(timer.number)
      // Whole milliseconds, rounded up: the host's timer is never due before the module's.
      let whole = timer.due.wholeMilliseconds
      let at = whole + (timer.due > .milliseconds(whole) ? 1 : 0)
      timers.append(WireTimer(id: "t\(timer.number)", at: Int(clamping: at)))
    }
    let held = Set(waiting.map(\.number))
    let gone = side.reportedTimers.filter { !held.contains($0) }.sorted()
    side.reportedTimers.subtract(gone)
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
  private func windowsOpenedAndClosed() throws(CommandError) -> (opened: [WireOpenedWindow], closed: [String]) {
    let side = current
    var opened: [WireOpenedWindow] = []
    for window in host.windows where side.key(of: window) == nil {
      let key = "k\(window.id.number)"
      side.keys[key] = window.id
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
    let open = Set(host.windows.map(\.id))
    let closed = side.keys.filter { !open.contains($0.value) }.map(\.key).sorted()
    for key in closed {
      side.keys[key] = nil
      side.lastSent[key] = nil
    }
    return (opened, closed)
  }

  private func reply(for window: Window, text: String?, commit: String?) throws(CommandError) -> WireResult {
    let state: String
    do {
      state = try window.viewStateJSON()
    } catch {
      throw CommandError("the view state cannot be encoded: \(error)")
    }
    var result = WireResult()
    result.frame = window.frame
    result.text = window.screen.render(window.frame)
    result.state = state
    result.output = text
    result.commit = commit
    return result
  }
}
