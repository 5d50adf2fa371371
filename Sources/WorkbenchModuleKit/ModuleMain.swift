import WorkbenchCore
@_exported import WorkbenchModuleAPI
import WorkbenchModuleProtocol
import WorkbenchSystem

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
  package static let protocolDescriptor: Int32 = 63

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
    // A host that has gone is EPIPE on the next write, which ends the loop below, rather than
    // SIGPIPE, which would end the process: so a reply is written at once, without a `poll` to
    // look first. SIGPIPE is caught by a handler that does nothing, not ignored: a program the
    // module starts still gets it at its default, as the host started the module (§2).
    let channel = MessageChannel(
      input: STDIN_FILENO, output: protocolDescriptor, writesBeforeLooking: ProcessEnds.makeBrokenPipesErrors())
    let session: ModuleSession
    do {
      session = try ModuleSession(module: module, version: ModuleSession.negotiatedVersion())
    } catch {
      let refusal: FrameValue = [
        "type": "error", "message": .string("the module failed to register: \(error.message)"),
      ]
      _ = try? channel.send(refusal)
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
        let reply: ModuleMessage
        do {
          reply = try session.reply(toText: try channel.receiveText(timeout: -1))
        } catch .malformed(let problem) where !channel.isFramingBroken {
          // A whole message that does not read is answered with an error (§7), and on we go.
          reply = .error(WireError(message: "the module could not read the request: \(problem)"))
        }
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
    // Built in a loop: a closure made here runs under a check that it is on the main actor,
    // once for every element, before every request.
    var wanted: [(descriptor: Int32, wanted: Readiness)] = [(STDIN_FILENO, .readable)]
    wanted.reserveCapacity(1 + sources.count)
    for source in sources { wanted.append((source, .readable)) }
    guard case .ready(let happened) = Descriptors.wait(forAny: wanted, milliseconds: -1) else { return false }
    if happened[0].happened { return true }
    if case .ready = Descriptors.wait(for: STDIN_FILENO, .readable, milliseconds: 20) { return true }
    return false
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
package final class ModuleSession {
  /// What the module keeps for one host session.
  @MainActor final class Side {
    let host: Host
    /// The timers reported to the host and not yet fired or cancelled, by number.
    var reportedTimers: Set<Int> = []
    /// Timers a `restore` named (§18), whose state the next reply says: `timers` if each waits,
    /// `cancel` if not.
    var resync: Set<Int> = []
    /// Each window's frame as the host last got it.
    var lastSent: [String: FrameValue] = [:]
    /// The host's key for each window here, and each window's key (kept together: `bind`,
    /// `unbind`), for a window's key is looked up for every window at every request.
    private(set) var keys: [String: WindowID] = [:]
    private var keysByWindow: [WindowID: String] = [:]
    /// Whether the host replays this session: its live sources' events are then the
    /// recording's (`live`), and what the module's own sources see is dropped.
    var replaying = false
    /// The last body the host gave of each document in this session, and the revision it last
    /// named it at (each session has its own documents: two sessions' `egg` are two documents).
    var given: [String: (kind: String, body: String)] = [:]
    var givenRevisions: [String: Int] = [:]
    init(host: Host) {
      self.host = host
      // The events its sources see go to the host (`liveChanges`), which hands each back to be
      // applied (`live`): this session's own host never applies one.
      host.services.appliesLiveEventsWhenTaken = false
    }

    /// The window the host calls `key`.
    func window(_ key: String) -> Window? {
      guard let id = keys[key] else { return nil }
      return host.windows.first { $0.id == id }
    }

    /// The host's key of a window, if the host knows it.
    func key(of window: Window) -> String? { keysByWindow[window.id] }

    /// Whether every window with a key has one key (what `bind` keeps unless the host gives one
    /// window two keys, which it does not).
    var keysAreOneToOne: Bool { keys.count == keysByWindow.count }

    /// Names `window` by `key` from now on.
    func bind(_ key: String, to window: WindowID) {
      if let previous = keys.updateValue(window, forKey: key), keysByWindow[previous] == key {
        keysByWindow[previous] = nil
      }
      keysByWindow[window] = key
    }

    /// Forgets the window `key` named.
    func unbind(_ key: String) {
      guard let window = keys.removeValue(forKey: key), keysByWindow[window] == key else { return }
      keysByWindow[window] = nil
      // Another key of the same window, if the host gave it two, names it still.
      for (other, id) in keys where id == window {
        keysByWindow[window] = other
        break
      }
    }
  }

  let manifest: ModuleManifest
  /// The protocol version spoken (§3).
  package let version: Int
  /// The session of protocol 1 requests, and the one the handshake describes.
  let main: Side
  /// The host's sessions, by number (protocol 2).
  var sides: [Int: Side] = [:]
  /// The last body the host gave of each document in the current session, and the revision it
  /// last named it at.
  var given: [String: (kind: String, body: String)] {
    get { current.given }
    set { current.given = newValue }
  }
  var givenRevisions: [String: Int] {
    get { current.givenRevisions }
    set { current.givenRevisions = newValue }
  }
  /// The session the request being answered is about.
  var current: Side
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
  package convenience init(module: some FeatureModule, version: Int = 1) throws(RegistrationError) {
    // Protocol 2: time moves when the host says (timers); protocol 1 has no timers, and the
    // module's own run on real time, at its next request.
    let host = try Host(modules: [module], clock: version >= 2 ? .virtual : .real)
    self.init(host: host, module: module.manifest, version: version)
  }

  /// The newest version both sides speak: the host lists its versions in
  /// `WORKBENCH_HOST_PROTOCOLS`; a host that does not speaks 1.
  package static func negotiatedVersion() -> Int {
    if let override = getenv("WORKBENCH_MODULE_PROTOCOL_OVERRIDE"), let number = Int(String(cString: override)) {
      return number  // for the host's handshake tests
    }
    guard let offered = getenv(ModuleProtocol.hostVersionsVariable) else { return 1 }
    let versions = String(cString: offered).split(separator: ",").compactMap { Int($0) }
    return versions.filter { ModuleProtocol.versions.contains($0) }.max() ?? 1
  }

  /// The handshake the module sends first.
  package func hello() -> FrameValue { ModuleMessage.hello(helloMessage()).wire }

  /// The handshake, as a value.
  package func helloMessage() -> WireHello {
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
      let refusal = host.registry.refusalFields(ofScreen: screen.name)
      if !refusal.isEmpty { wire.refusalFields = refusal }
      let own = host.registry.ownFields(ofScreen: screen.name)
      if !own.isEmpty { wire.ownFields = own }
      let summaries = host.registry.fieldSummaries(ofScreen: screen.name)
      if !summaries.isEmpty {
        wire.fieldSummaries = .object(
          FrameObject(members: summaries.keys.sorted().map { ($0, .string(summaries[$0] ?? "")) }))
      }
      // The records inside the frame (rows, a viewport), from the typed frame's table.
      let records = (host.registry.nestedFields(ofScreen: screen.name, at: []) ?? []).filter { !$0.fields.isEmpty }
      if !records.isEmpty { wire.recordFields = records.map(WireRecordField.init) }
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
    // A `timer` request's timer runs even before its time (§14).
    if version >= 2 {
      hello.catchUp = true
      hello.undoTimers = true  // a `restore` after an undo moves the timers it names (§18)
    }
    return hello
  }

  /// The reply to one request from the host: a result, `ok`, or an error with a message.
  package func handle(_ wire: FrameValue) -> FrameValue { reply(toWire: wire).wire }

  /// The reply to a request from its JSON text: read straight into the request when it is a
  /// well-formed one, else parsed and read as `reply(toWire:)` does, which says what is wrong.
  ///
  /// - Throws: `ChannelError.malformed` for text that is not JSON.
  func reply(toText text: [UInt8]) throws(ChannelError) -> ModuleMessage {
    if let request = HostMessage(json: text) { return handle(request) }
    return reply(toWire: try MessageChannel.value(of: text))
  }

  /// The reply to one request from the host as it came (`handle(_:)` without writing the reply
  /// out, which the channel does straight into its frame).
  package func reply(toWire wire: FrameValue) -> ModuleMessage {
    let request: HostMessage
    do throws(WireProblems) {
      request = try HostMessage(wire: wire)
    } catch {
      var refusal = WireError(message: "the request was not what the protocol says: expected \(error.description)")
      refusal.id = wire["id"]?.integerValue
      return .error(refusal)
    }
    return handle(request)
  }

  /// The reply to one request from the host, as a value.
  package func handle(_ request: HostMessage) -> ModuleMessage {
    let header = request.header
    // Protocol 2: the request's session, made when first named; `end` drops it.
    if version >= 2, let number = header.session {
      if case .end = request {
        sides[number] = nil
        var ok = WireOk()
        ok.id = header.id
        return .ok(ok)
      }
      if let side = sides[number] {
        current = side
      } else {
        // A window shows as many rows as the host's (`rows`, sent with `open`), within reason: a
        // screen adds it to an index. (Made with the side: an environment brings the session's
        // services, too many to make again for every request.)
        var rows = ScreenEnvironment.defaultViewportRows
        if case .open(let window) = request, let given = window.rows { rows = given }
        let environment = ScreenEnvironment(viewportRows: min(max(1, rows), 10_000))
        current = Side(host: Host(registry: main.host.registry, environment: environment, clock: .virtual))
        sides[number] = current
      }
    }
    defer { current = main }
    // Work outside a window's command (a timer's, a live event's) may change documents: each is
    // committed through the host, from the revision the host last gave (§14).
    let before = version >= 2 ? documentRevisions() : [:]
    // The reply carries the request's id (§7), so the host can tell it from any other message.
    var answered = answerWithFacts(request)
    if case .error = answered { putBackRefusedWrites() }
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
  func documentRevisions() -> [String: Int] {
    var revisions: [String: Int] = [:]
    for window in host.windows {
      revisions[window.documentName] = host.revision(ofDocument: window.documentName)
    }
    return revisions
  }

  /// The documents whose revision moved since `before`, as commits from the revision they had.
  func commits(since before: [String: Int]) -> [WireCommit] {
    before.keys.sorted().compactMap { name in
      guard let was = before[name], let now = host.revision(ofDocument: name), now != was,
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
  static func facts(of request: HostMessage) -> WireFactsRequest? {
    switch request {
    case .open(let window), .refresh(let window), .restore(let window): return window.facts
    case .command(let command): return command.facts
    case .timer(let timer): return timer.facts
    default: return nil
    }
  }

  /// The window a request is about, by the host's key.
  static func key(of request: HostMessage) -> String? {
    switch request {
    case .open(let window), .refresh(let window), .restore(let window): return window.key
    case .command(let command): return command.key
    case .close(let close): return close.key
    default: return nil
    }
  }

}
