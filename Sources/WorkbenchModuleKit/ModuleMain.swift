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
        // What the module's own live sources saw (§19) goes out as it comes, between replies.
        for change in session.liveChanges() { try channel.send(change) }
        if !channel.holdsAMessage, !waitForRequest(on: channel, or: session.liveSourceDescriptors) { continue }
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
  public func hello() -> FrameValue {
    let commands = host.allCommands.filter { $0.name.hasPrefix(manifest.name + ".") }.map { SpecCoding.encode($0.spec) }
    let screens = host.screens.map { screen -> FrameValue in
      var members: [(key: String, value: FrameValue)] = [
        ("name", .string(screen.name)), ("documentKind", .string(screen.documentKind)),
      ]
      if let fields = host.frameFields(ofScreen: screen.name) {
        members.append(("fields", .list(fields.map { .string($0) })))
      }
      let lifetime = host.registry.lifetimeFields(ofScreen: screen.name)
      if !lifetime.isEmpty { members.append(("lifetimeFields", .list(lifetime.map { .string($0) }))) }
      let summaries = host.registry.fieldSummaries(ofScreen: screen.name)
      if !summaries.isEmpty {
        members.append(
          (
            "fieldSummaries",
            .object(FrameObject(members: summaries.keys.sorted().map { ($0, .string(summaries[$0]!)) }))
          ))
      }
      return .object(FrameObject(members: members))
    }
    // The module's own diagrams, drawn now and sent as nodes and edges.
    let diagrams = host.registry.drawModuleDiagrams().map { name, diagram -> FrameValue in
      [
        "name": .string(name), "title": .string(diagram.title), "stateMachine": .bool(diagram.isStateMachine),
        "start": FrameValue(diagram.start), "nodes": .list(diagram.nodes.map { .string($0) }),
        "edges": .list(
          diagram.edges.map { ["from": .string($0.from), "to": .string($0.to), "label": .string($0.label)] }),
      ]
    }
    let samples = host.documentNames.compactMap { name -> FrameValue? in
      guard let kind = host.documentKind(of: name), let json = host.documentJSON(named: name) else { return nil }
      return ["name": .string(name), "kind": .string(kind), "body": .string(json)]
    }
    return [
      "type": "hello", "protocol": .integer(version),
      "manifest": [
        "name": .string(manifest.name), "version": .string(manifest.version), "summary": .string(manifest.summary),
      ],
      "commands": .list(commands), "screens": .list(screens),
      "documentKinds": .list(host.documentKindNames.map(FrameValue.string)), "samples": .list(samples),
      "diagrams": .list(diagrams),
    ]
  }

  /// The reply to one request from the host: a result, `ok`, or an error with a message.
  public func handle(_ request: FrameValue) -> FrameValue {
    // Protocol 2: the request's session, made when first named; `end` drops it.
    if version >= 2, let number = request["session"]?.integerValue {
      if request["type"]?.stringValue == "end" {
        sides[number] = nil
        return ["type": "ok", "id": request["id"] ?? .null]
      }
      // A window shows as many rows as the host's (`rows`, sent with `open`), within reason: a
      // screen adds it to an index.
      let rows = request["rows"]?.integerValue ?? ScreenEnvironment.defaultViewportRows
      let environment = ScreenEnvironment(viewportRows: min(max(1, rows), 10_000))
      current =
        sides[number] ?? Side(host: Host(registry: main.host.registry, environment: environment, clock: .virtual))
      sides[number] = current
    }
    defer { current = main }
    // The reply carries the request's id (§7), so the host can tell it from any other message.
    var answered = answerWithFacts(request)
    if version >= 2 { answered = addingTimersAndUpdates(to: answered, for: request) }
    if let id = request["id"], case .object(var object) = answered {
      object["id"] = id
      answered = .object(object)
    }
    return answered
  }

  private func answerWithFacts(_ request: FrameValue) -> FrameValue {
    // A request that carries `facts` is being recorded or replayed: the facts the module's
    // effects use are served from it (on replay) and reported back in the reply.
    guard let facts = request["facts"] else { return reply(to: request) }
    var replay: [String: [FrameValue]]? = nil
    if case .object(let sources)? = facts["replay"] {
      replay = [:]
      for member in sources.members { replay?[member.key] = member.value.elements ?? [] }
    } else if facts["shared"] != nil || facts["windows"] != nil {
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
      let opening = request["type"]?.stringValue == "open" ? request["key"]?.stringValue : nil
      func scope(of key: String) -> String? {
        key == opening ? "window \(host.nextWindowNumber)" : current.window(key).map { "window \($0.id.number)" }
      }
      // `replay` is the request's own window's (as in protocol 1); `windows` names each.
      if let key = request["key"]?.stringValue, let own = scope(of: key), let replay {
        scoped[own] = replay
      }
      take(facts["shared"]) { $0 }
      take(facts["windows"], scope: scope)
    }
    host.services.facts.beginRelay(replaying: replay, shared: scoped, scoped: version >= 2)
    // A replay setting up its recording's windows (`start`): they load live, and what the
    // module counts of that work is in the recorded states already, as in the host.
    host.services.facts.isSettingUp = facts["start"] == .bool(true)
    var result = reply(to: request)
    host.services.facts.isSettingUp = false
    let relayed = host.services.facts.endRelay()
    if case .object(var object) = result {
      // A fact that answers a question is reported with it (`asked`), and its answer as the value.
      object["facts"] = .list(
        relayed.used.map { fact in
          var reported = FrameObject(["source": .string(fact.source), "value": fact.value])
          if let asked = SessionFacts.question(of: fact.value) {
            reported["asked"] = asked
            reported["value"] = SessionFacts.answer(of: fact.value)
          }
          // Protocol 2: a fact says whose it is: a window's, by its key, or a shared scope's.
          if version >= 2, let scope = fact.scope {
            if SessionFacts.isWindowScope(scope) {
              let number = Int(scope.dropFirst("window ".count))
              let window = host.windows.first { $0.id.number == number }
              if let key = window.flatMap({ current.key(of: $0) }) { reported["window"] = .string(key) }
            } else {
              reported["scope"] = .string(scope)
            }
          }
          return .object(reported)
        })
      if let divergence = relayed.divergence { object["divergence"] = .string(divergence) }
      result = .object(object)
    }
    return result
  }

  private func reply(to request: FrameValue) -> FrameValue {
    do {
      return try answer(request)
    } catch {
      return ["type": "error", "message": .string(error.message)]
    }
  }

  private func answer(_ request: FrameValue) throws(CommandError) -> FrameValue {
    let key = request["key"]?.stringValue ?? ""
    switch request["type"]?.stringValue {
    case "capture":
      // A recording starts: the states the session's services are in (§12).
      let states = host.services.facts.capturedStates().map { state -> FrameValue in
        ["source": .string(state.source), "scope": .string(state.scope), "value": state.value]
      }
      return ["type": "ok", "facts": .list(states)]
    case "validate":
      try host.replaceDocument(
        named: "validation", kind: request["kind"]?.stringValue ?? "", json: request["body"]?.stringValue ?? "",
        revision: 1)
      return ["type": "ok"]
    case "open":
      try sync(request)
      if let existing = current.window(key) { host.closeWindow(existing.id) }
      let window = try host.openWindow(
        screen: request["screen"]?.stringValue ?? "", document: request["document"]?.stringValue ?? "")
      current.keys[key] = window.id
      if let state = request["state"]?.stringValue, let version = host.viewStateVersion(of: window.id) {
        _ = host.restoreViewState(of: window.id, from: ViewStateRecord(version: version, state: state))
      }
      return try reply(for: window, text: nil, commit: nil)
    case "restore":
      // The window's view state, restored in place (§18): the screen decides what follows.
      try sync(request)
      guard let window = current.window(key) else { throw CommandError("no window \(key) in the module") }
      if let state = request["state"]?.stringValue, let version = host.viewStateVersion(of: window.id),
        let problem = host.restoreViewState(of: window.id, from: ViewStateRecord(version: version, state: state))
      {
        throw CommandError("the view state was not restored: \(problem)")
      }
      return try reply(for: window, text: nil, commit: nil)
    case "refresh":
      try sync(request)
      guard let window = current.window(key) else { throw CommandError("no window \(key) in the module") }
      return try reply(for: window, text: nil, commit: nil)
    case "command" where request["key"] == nil:
      // A command run in no window (§16): in the session, as typed.
      var text: String? = nil
      for output in try host.run(line: request["line"]?.stringValue ?? "") {
        if case .text(let value) = output { text = value }
      }
      return ["type": "ok", "output": FrameValue(text)]
    case "command":
      try sync(request)
      guard let window = current.window(key) else { throw CommandError("no window \(key) in the module") }
      let document = window.documentName
      let before = host.document(named: document)?.revision
      var text: String? = nil
      for output in try host.run(line: "@\(window.id.number) " + (request["line"]?.stringValue ?? "")) {
        if case .text(let value) = output { text = value }
      }
      let committed = host.document(named: document)?.revision != before ? host.documentJSON(named: document) : nil
      var result = try reply(for: window, text: text, commit: committed)
      if version >= 2 { result = try addingWindowsOpenedAndClosed(to: result) }
      return result
    case "timer":
      // The host's clock reached one of the module's timers: the module's clock moves to it,
      // which runs it (and any due before it).
      let id = request["timer"]?.stringValue ?? ""
      if id.hasPrefix("t"), let number = Int(id.dropFirst()),
        let due = host.clock.waitingTimers.first(where: { $0.number == number })?.due
      {
        try host.clock.advance(by: max(.zero, due - host.clock.now))
      }
      return ["type": "ok"]
    case "close":
      if let window = current.window(key) { host.closeWindow(window.id) }
      current.lastSent[key] = nil
      current.keys[key] = nil
      return ["type": "ok"]
    default:
      throw CommandError("unknown request '\(request["type"]?.stringValue ?? "")'")
    }
  }

  /// Takes in the host's copy of the document before acting on it.
  private func sync(_ request: FrameValue) throws(CommandError) {
    guard let name = request["document"]?.stringValue, let body = request["body"]?.stringValue,
      let kind = request["kind"]?.stringValue
    else { return }
    if host.documentJSON(named: name) != body {
      try host.replaceDocument(named: name, kind: kind, json: body, revision: request["revision"]?.integerValue ?? 1)
    }
  }

  /// The changes the module's own live sources have waiting (`services.addLiveSource`, as a
  /// built-in module registers one), taken in and sent as `changed` messages (§19): one per
  /// session with windows whose frames changed. Empty with protocol 1, which has no changes.
  public func liveChanges() -> [FrameValue] {
    guard version >= 2 else { return [] }
    var changes: [FrameValue] = []
    for (number, side) in sides.sorted(by: { $0.key < $1.key }) where side.host.services.liveChangesWait {
      side.host.services.takeLiveChanges()
      let updates = changedWindows(in: side, besides: nil)
      if !updates.isEmpty {
        changes.append(["type": "changed", "session": .integer(number), "updates": .list(updates)])
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
  private func changedWindows(in side: Side, besides key: String?) -> [FrameValue] {
    // Another window changes with what it shows (a window's view state changes by its own
    // commands), so its frame is compared and its view state encoded only when that changed.
    var updates: [FrameValue] = []
    for window in side.host.windows {
      guard let name = side.key(of: window), name != key else { continue }
      let frame = window.frame
      guard side.lastSent[name] != frame, let state = try? window.viewStateJSON() else { continue }
      side.lastSent[name] = frame
      updates.append([
        "key": .string(name), "frame": frame, "text": .string(window.screen.render(frame)), "state": .string(state),
      ])
    }
    return updates
  }

  /// A reply with the timers the module's clock holds that the host has not been told of
  /// (`timers`), the ones it no longer holds (`cancel`: fired or cancelled), and the windows
  /// besides the one asked about whose frames changed (`updates`).
  private func addingTimersAndUpdates(to reply: FrameValue, for request: FrameValue) -> FrameValue {
    guard case .object(var object) = reply, ["result", "ok"].contains(reply["type"]?.stringValue) else { return reply }
    let side = current
    let key = request["key"]?.stringValue
    let now = host.clock.now
    let waiting = host.clock.waitingTimers
    var timers: [FrameValue] = []
    for timer in waiting where !side.reportedTimers.contains(timer.number) {
      side.reportedTimers.insert(timer.number)
      // Whole milliseconds, rounded up: the host's timer is never due before the module's.
      let left = max(.zero, timer.due - now)
      let milliseconds = left.wholeMilliseconds + (left > .milliseconds(left.wholeMilliseconds) ? 1 : 0)
      timers.append(["id": .string("t\(timer.number)"), "after": .integer(Int(milliseconds))])
    }
    let held = Set(waiting.map(\.number))
    let gone = side.reportedTimers.filter { !held.contains($0) }.sorted()
    side.reportedTimers.subtract(gone)
    if !timers.isEmpty { object["timers"] = .list(timers) }
    if !gone.isEmpty { object["cancel"] = .list(gone.map { .string("t\($0)") }) }
    if let key, reply["type"]?.stringValue == "result" { side.lastSent[key] = reply["frame"] ?? .null }
    let updates = changedWindows(in: side, besides: key)
    if !updates.isEmpty { object["updates"] = .list(updates) }
    return .object(object)
  }

  /// A command's result with the windows it opened (`opened`: a room window from a home
  /// window, each under a new key with its screen, document, name and first frame) and the
  /// windows of the host's it closed (`closed`), §17.
  private func addingWindowsOpenedAndClosed(to result: FrameValue) throws(CommandError) -> FrameValue {
    guard case .object(var object) = result else { return result }
    let side = current
    var opened: [FrameValue] = []
    for window in host.windows where side.key(of: window) == nil {
      let key = "k\(window.id.number)"
      side.keys[key] = window.id
      guard case .object(var entry) = try reply(for: window, text: nil, commit: nil) else { continue }
      entry["type"] = nil
      entry["output"] = nil
      entry["commit"] = nil
      entry["key"] = .string(key)
      entry["screen"] = .string(window.screen.name)
      entry["document"] = .string(window.documentName)
      entry["name"] = FrameValue(window.name)
      side.lastSent[key] = window.frame
      opened.append(.object(entry))
    }
    let open = Set(host.windows.map(\.id))
    let closed = side.keys.filter { !open.contains($0.value) }.map(\.key).sorted()
    for key in closed {
      side.keys[key] = nil
      side.lastSent[key] = nil
    }
    if !opened.isEmpty { object["opened"] = .list(opened) }
    if !closed.isEmpty { object["closed"] = .list(closed.map(FrameValue.string)) }
    return .object(object)
  }

  private func reply(for window: Window, text: String?, commit: String?) throws(CommandError) -> FrameValue {
    let state: String
    do {
      state = try window.viewStateJSON()
    } catch {
      throw CommandError("the view state cannot be encoded: \(error)")
    }
    return [
      "type": "result", "frame": window.frame, "text": .string(window.screen.render(window.frame)),
      "state": .string(state), "output": FrameValue(text), "commit": FrameValue(commit),
    ]
  }
}
