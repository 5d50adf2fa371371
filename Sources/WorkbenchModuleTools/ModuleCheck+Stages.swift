import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// The checks of `module-check` as a table: each stage is a section of docs/protocol.md, run in
/// order on one module process, recording what it found. A stage that cannot go on (no
/// handshake) ends the run; stages about protocol 2 run only for a module that speaks it.
extension ModuleCheck {
  /// One stage of the checks.
  struct Stage {
    /// The section of docs/protocol.md it checks.
    let section: String
    /// Whether it is about protocol 2 (skipped for a module that speaks 1).
    let protocolTwoOnly: Bool
    /// Runs it; `false` ends the run.
    let run: (CheckRun) -> Bool

    init(_ section: String, protocolTwoOnly: Bool = false, _ run: @escaping (CheckRun) -> Bool) {
      self.section = section
      self.protocolTwoOnly = protocolTwoOnly
      self.run = run
    }

    /// A stage that always lets the run go on.
    init(_ section: String, protocolTwoOnly: Bool = false, _ run: @escaping (CheckRun) -> Void) {
      self.init(section, protocolTwoOnly: protocolTwoOnly) { (check: CheckRun) -> Bool in
        run(check)
        return true
      }
    }
  }

  /// The stages, in the order they run.
  static var stages: [Stage] {
    [
      Stage("§3", handshake),
      Stage("§4", openWindows),
      Stage("§5", commands),
      Stage("§6", refresh),
      Stage("§14", protocolTwoOnly: true, timersChangesAndUpdates),
      Stage("§7", refusals),
      Stage("§12", protocolTwoOnly: true, statesToRecord),
      Stage("§8", closeWindows),
      Stage("§19", protocolTwoOnly: true, liveEvents),
      Stage("§19", protocolTwoOnly: true, sync),
      Stage("§16", protocolTwoOnly: true, endOfSession),
      Stage("§7", oneReplyPerRequest),
      Stage("§9", ownProcess),
      Stage("§10", shutdown),
      Stage("§9", malformedMessage),
    ]
  }

  /// One run of the checks: the module process, what its handshake said, and what the stages
  /// found and left for the stages after them.
  @MainActor final class CheckRun {
    let peer: Peer
    let executable: String
    var hello = WireHello()
    var speaksTwo = false
    /// The windows opened on the module's screens (§4), by key.
    var opened: [(key: String, screen: String, request: WindowRequest)] = []
    /// The last document a command committed, and the window it was committed in (§5).
    var committed: (key: String, body: String)?
    /// Timers fired so far (§14), and what went wrong firing them.
    var fired = 0
    var timerProblems: [String] = []
    /// Timers that go on setting themselves again as the session's time moves (a timer every
    /// midnight), in words: said, not failed.
    var recurring: String?
    /// The names the built-in modules take (see `TakenNames`).
    var taken = TakenNames()
    private(set) var checks: [Check] = []

    init(peer: Peer, executable: String) {
      self.peer = peer
      self.executable = executable
    }

    func record(_ id: String, _ section: String, _ passed: Bool, _ detail: String) {
      checks.append(Check(id: id, section: section, passed: passed, detail: detail))
    }

    func record(_ found: [Check]) { checks += found }

    /// Protocol 2: the timers a request set are fired after it, shortest delay first (one that
    /// sets more is followed), up to 100 in all. Timers that go on setting one another as the
    /// session's time moves forward are recurring (a timer every midnight): that is no fault,
    /// and `recurring` says so. Timers that go on without the time moving are a loop.
    func fireTimers() {
      // The session's time halfway through: a loop fires its last half without it moving.
      var halfway = peer.now
      var firedNow = 0
      // Past the §11 limit the host stops the module rather than fire its timers.
      while fired < 100, peer.mostPending <= ModuleProtocol.maximumPendingTimers, let id = peer.takeNextTimer() {
        fired += 1
        firedNow += 1
        if fired == 50 { halfway = peer.now }
        var timer = TimerRequest()
        timer.timer = id
        let problems = ModuleCheck.problems(peer.reply(to: HostMessage.timer(timer).wire)) {
          ReplyRules.problems(with: $0, toRequest: "timer")
        }
        if !problems.isEmpty { timerProblems.append("timer \(id): " + problems.joined(separator: "; ")) }
      }
      // Judged once, by the call that reached the hundredth: a later request's call fires none
      // (the count is spent), and its clock has not moved since, which said nothing of a loop.
      guard firedNow > 0, fired >= 100, !peer.pendingTimers.isEmpty,
        peer.mostPending <= ModuleProtocol.maximumPendingTimers,
        !timerProblems.contains(where: { $0.hasPrefix("timers that") })
      else { return }
      if peer.now > halfway {
        let hours = peer.now / 3_600_000
        let span =
          hours >= 48
          ? "\(hours / 24) days" : hours >= 2 ? "\(hours) hours" : SessionClock.describe(.milliseconds(peer.now))
        recurring =
          "timers that set themselves again as time passes (100 fired over \(span), more due: a recurring timer)"
      } else {
        timerProblems.append(
          "timers that set one another again without end at one moment (100 fired at \(peer.now) ms, more still due)")
      }
    }
    /// Asks, and says whether the answer was `ok`, or what came instead.
    func askExpectingOK(_ request: FrameValue) -> (passed: Bool, otherwise: String) {
      let reply = try? peer.ask(request)
      let passed = reply.flatMap { try? ModuleMessage(wire: $0) }.map { $0.type == "ok" } ?? false
      return (passed, "expected ok, got \(reply?.jsonText.prefix(80) ?? "nothing")")
    }
  }

  // MARK: Stages

  /// §3 The handshake: a hello, whose screens are on the document kinds it declares.
  static func handshake(_ run: CheckRun) -> Bool {
    let greeting: FrameValue
    do {
      greeting = try run.peer.channel.receive(timeout: 10_000)
    } catch {
      run.record("handshake", "§3", false, "expected a hello within 10 s; \(error)")
      return false
    }
    let problems = helloProblems(greeting)
    let hello = (try? WireHello(wire: greeting)) ?? WireHello()
    run.record(
      "handshake", "§3", problems.isEmpty,
      problems.isEmpty
        ? "protocol \(hello.protocol), module \(hello.manifest.name) \(hello.manifest.version)"
        : "expected " + problems.joined(separator: "; "))
    guard problems.isEmpty else { return false }
    run.hello = hello
    run.speaksTwo = hello.protocol >= 2
    if run.speaksTwo { run.peer.session = 1 }
    run.peer.declaresLiveSources = hello.liveSources == true
    let kinds = Set(hello.documentKinds)
    let undeclared = hello.screens.filter { !kinds.contains($0.documentKind) }
    // Its kinds and samples must be names the built-ins do not take: the host does not load a
    // module whose sample or kind has one.
    var clashes: [String] = []
    for kind in hello.documentKinds {
      if let owner = run.taken.kinds.first(where: { $0.kind == kind }) {
        clashes.append(
          "its document kind '\(kind)' is the \(owner.module) module's: rename it (or load it with "
            + "--without-builtin \(owner.module))")
      }
    }
    for sample in hello.samples {
      if let other = run.taken.samples.first(where: { $0.name == sample.name }) {
        let owner = run.taken.kinds.first { $0.kind == other.kind }?.module ?? "a built-in"
        clashes.append(
          "its sample '\(sample.name)' has the name of the \(owner) module's sample (a \(other.kind) document): "
            + "rename its sample (or load it with --without-builtin \(owner))")
      }
    }
    run.record(
      "screens-declare-kinds", "§3", undeclared.isEmpty && clashes.isEmpty,
      undeclared.isEmpty && clashes.isEmpty
        ? "\(hello.screens.count) screen(s) on the \(kinds.count) document kind(s) it declares, named apart from the "
          + "built-ins'"
        : "expected every screen's documentKind among documentKinds, and names the built-ins do not take; "
          + (undeclared.isEmpty ? "" : "not declared: " + undeclared.map { $0.name }.joined(separator: ", ") + "; ")
          + clashes.joined(separator: "; "))
    return true
  }

  /// §4 Opening a window on each screen, on a sample of its kind.
  static func openWindows(_ run: CheckRun) {
    for (number, screen) in run.hello.screens.enumerated() {
      guard let sample = run.hello.samples.first(where: { $0.kind == screen.documentKind }) else {
        run.record(
          "open \(screen.name)", "§4", true, "skipped: no sample document of kind \(screen.documentKind) to open")
        continue
      }
      let key = "check-\(number + 1)"
      run.peer.openKeys.insert(key)
      var request = WindowRequest()
      request.key = key
      request.screen = screen.name
      request.document = sample.name
      request.kind = screen.documentKind
      request.body = sample.body
      let answer = run.peer.reply(to: HostMessage.open(request).wire)
      var problems = Self.problems(answer) { ReplyRules.problems(with: $0, toRequest: "open") }
      let frame = (try? answer.get()).flatMap { try? WireResult(wire: $0) }?.frame
      if problems.isEmpty, let fields = screen.fields, case .object(let object)? = frame,
        Set(object.keys) != Set(fields)
      {
        problems.append("the frame's fields \(fields) as declared, got \(object.keys)")
      }
      if problems.isEmpty, let records = screen.recordFields, case .object(let object)? = frame {
        problems += Self.recordProblems(records, in: object, at: "")
      }
      run.record(
        "open \(screen.name)", "§4", problems.isEmpty,
        problems.isEmpty
          ? "a result with a frame of \(frame.map(Self.keysText) ?? "")" : problems.joined(separator: "; "))
      if problems.isEmpty { run.opened.append((key, screen.name, request)) }
    }
  }

  /// What is wrong with `records` (a screen's `recordFields`, §3) as the fields of the records a
  /// first frame holds: a field it names that the frame lacks, one that holds text or a number,
  /// or a record whose fields are not those declared. A field that is null, or an empty list,
  /// has no record to hold it to yet.
  static func recordProblems(_ records: [WireRecordField], in object: FrameObject, at path: String) -> [String] {
    var problems: [String] = []
    for record in records {
      let place = path.isEmpty ? record.name : path + "." + record.name
      guard let value = object[record.name] else {
        problems.append("`recordFields` names \(place), which the frame does not have")
        continue
      }
      guard let declared = record.fields else { continue }
      var held = value
      if case .list(let items) = value {
        guard let first = items.first else { continue }
        held = first
      }
      switch held {
      case .null: continue
      case .object(let inner):
        let names = declared.map(\.name)
        if Set(inner.keys) != Set(names) {
          problems.append("the records in \(place) with the fields \(names) as declared, got \(inner.keys)")
        } else {
          problems += recordProblems(declared, in: inner, at: place)
        }
      default:
        problems.append("`recordFields` declares fields inside \(place), which holds \(held.jsonText), not a record")
      }
    }
    return problems
  }

  /// §5 Each command with arguments of each kind, in a window on one of its screens, with its
  /// arguments bound as the host binds them; §12 the facts its effects use.
  static func commands(_ run: CheckRun) {
    for command in run.hello.commands {
      let name = command.name.split(separator: ".").last.map(String.init) ?? command.name
      let commandScreens = command.screens ?? []
      guard let window = run.opened.first(where: { commandScreens.isEmpty || commandScreens.contains($0.screen) })
      else {
        run.record("command \(name)", "§5", true, "skipped: no window open on a screen it runs in")
        continue
      }
      let request = Self.command(
        name, command.arguments ?? [], in: window.request, always: false, speaksTwo: run.speaksTwo)
      let answer = run.peer.reply(to: HostMessage.command(request).wire)
      let reply: ModuleMessage? = (try? answer.get()).flatMap { wire in try? ModuleMessage(wire: wire) }
      var problems = Self.problems(answer) { ReplyRules.problems(with: $0, toRequest: "command") }
      if problems.isEmpty, case .result(let result)? = reply, let commit = result.commit {
        if (try? FrameValue.parse(json: Array(commit.utf8))) == nil { problems.append("`commit` as valid JSON text") }
        run.committed = (window.key, commit)
      }
      var refusal: String?
      if case .error(let error)? = reply { refusal = error.message }
      run.record(
        "command \(name)", "§5", problems.isEmpty,
        problems.isEmpty
          ? (refusal.map { "`\(request.line)` refused with a message: \($0)" } ?? "`\(request.line)`: a result")
          : "`\(request.line)`: " + problems.joined(separator: "; "))
      // The facts its effects use, with every argument given (an optional one may be the
      // question an effect asks).
      let everyArgument = Self.command(
        name, command.arguments ?? [], in: window.request, always: true, speaksTwo: run.speaksTwo)
      run.record(factChecks(run.peer, everyArgument, command: name))
      if run.speaksTwo { run.fireTimers() }
    }
  }

  /// §6 A refresh after the document changed elsewhere.
  static func refresh(_ run: CheckRun) {
    guard let window = run.opened.first else { return }
    var request = window.request
    if let committed = run.committed, committed.key == window.key {
      request.body = committed.body
      request.revision = 2
    }
    let problems = Self.problems(run.peer.reply(to: HostMessage.refresh(request).wire)) {
      ReplyRules.problems(with: $0, toRequest: "refresh")
    }
    run.record("refresh", "§6", problems.isEmpty, problems.isEmpty ? "a result" : problems.joined(separator: "; "))
  }

  /// §14, §15, §17, §19 Protocol 2: every timer the module set is fired, shortest delay first
  /// (one that sets more is followed, up to 100), and each must be answered `ok`; every update
  /// must name a window open in the session; changes are well formed; each window a command
  /// opens has a key of its own.
  static func timersChangesAndUpdates(_ run: CheckRun) {
    let peer = run.peer
    run.fireTimers()
    if peer.mostPending > ModuleProtocol.maximumPendingTimers {
      run.timerProblems.append(
        "at most \(ModuleProtocol.maximumPendingTimers) pending at once (§11), it had \(peer.mostPending)")
    }
    for overreach in peer.overreaches where !run.timerProblems.contains(overreach) {
      run.timerProblems.append(overreach)
    }
    run.record(
      "timers", "§14", run.timerProblems.isEmpty,
      run.timerProblems.isEmpty
        ? "\(peer.timersSet) set, \(peer.timersCancelled) cancelled, \(run.fired) fired and answered `ok`"
          + (run.recurring.map { "; \($0)" } ?? "")
        : "expected `ok` to each due timer; " + run.timerProblems.joined(separator: "; "))
    var changeProblems = Array(Set(peer.changeProblems)).sorted()
    if peer.mostChanges > ModuleProtocol.maximumWaitingChanges {
      changeProblems.append(
        "at most \(ModuleProtocol.maximumWaitingChanges) between two commands (§11), it sent \(peer.mostChanges)")
    }
    run.record(
      "changes", "§19", changeProblems.isEmpty,
      changeProblems.isEmpty
        ? "\(peer.changesSeen) sent unasked, each well formed"
        : "expected changes with this session and updates of open windows; " + changeProblems.joined(separator: "; "))
    run.record(
      "windows opened", "§17", peer.reusedKeys.isEmpty,
      peer.reusedKeys.isEmpty
        ? "\(peer.windowsOpened) opened by commands, each under a key of its own"
        : "expected a new key for each window a command opens; it reused " + peer.reusedKeys.joined(separator: ", "))
    run.record(
      "updates", "§15", peer.strayUpdates.isEmpty,
      peer.strayUpdates.isEmpty
        ? "\(peer.updatesSeen) update(s), each of a window open in the session"
        : "expected updates of open windows only; it updated " + peer.strayUpdates.joined(separator: ", "))
  }

  /// §7 Requests a module must refuse with an error, and go on.
  static func refusals(_ run: CheckRun) {
    let refusals: [(String, FrameValue)] = [
      ("refuses an unknown window", ["type": "command", "key": "no-such-window", "line": "x"]),
      ("refuses an unknown request", ["type": "no-such-request"]),
    ]
    for (id, request) in refusals {
      let reply = try? run.peer.ask(request)
      var refusal: String?
      if case .error(let error)? = reply.flatMap({ try? ModuleMessage(wire: $0) }) { refusal = error.message }
      run.record(
        id, "§7", refusal != nil,
        refusal.map { "error: \($0)" }
          ?? "expected an error with a message, got \(reply?.jsonText.prefix(80) ?? "nothing")")
    }
  }

  /// §12 The states a recording starts from: `ok` with `.state` facts of shared scopes (a module
  /// with no such services may answer with none, or refuse the request).
  static func statesToRecord(_ run: CheckRun) {
    let raw = try? run.peer.ask(HostMessage.capture(SessionRequest()).wire)
    let reply = raw.flatMap { try? ModuleMessage(wire: $0) }
    var passed = false
    var said =
      "expected ok with facts {source ending .state, scope of the session, value}, got "
      + (raw?.jsonText.prefix(120).description ?? "nothing")
    switch reply {
    case .error?:
      passed = true
      said = "refused (`capture` unknown): no states to record"
    case .ok(let ok)?:
      let facts = ok.facts ?? []
      let wellFormed = facts.allSatisfy { fact in
        fact.source.hasSuffix(".state") && fact.scope.map { !SessionFacts.isWindowScope($0) } == true
      }
      if wellFormed {
        passed = true
        let names = facts.map { "\($0.source) of \($0.scope ?? "?")" }
        said = names.isEmpty ? "none" : names.joined(separator: ", ")
      }
    default: break
    }
    run.record("states to record", "§12", passed, said)
  }

  /// §8 Closing every window.
  static func closeWindows(_ run: CheckRun) {
    for window in run.opened {
      // A window that says it holds unsaved work (§20) is left as the host leaves it when the
      // user discards it: `leave`, answered with a result that holds nothing unsaved.
      if run.speaksTwo, let summary = run.peer.unsaved[window.key] {
        var leave = LeaveRequest(key: window.key, choice: "discard")
        leave.session = run.peer.session
        let reply = try? run.peer.ask(HostMessage.leave(leave).wire)
        let problems = reply.map { ReplyRules.problems(with: $0, toRequest: "leave") } ?? ["no answer"]
        let stillUnsaved = reply?["type"]?.stringValue == "result" && run.peer.unsaved[window.key] != nil
        let passed = problems.isEmpty && reply?["type"]?.stringValue == "result" && !stillUnsaved
        run.record(
          "leave \(window.screen)", "§20", passed,
          passed
            ? "its unsaved work ('\(summary)') discarded: a result with nothing unsaved"
            : "expected a result with nothing unsaved to `leave` with `discard`; "
              + (stillUnsaved
                ? "it still says '\(run.peer.unsaved[window.key] ?? "")'"
                : problems.joined(separator: "; ")
                  + (reply.map { " (got `\($0["type"]?.stringValue ?? "?")`)" } ?? "")))
      }
      var close = CloseRequest()
      close.key = window.key
      let (passed, otherwise) = run.askExpectingOK(HostMessage.close(close).wire)
      run.record("close \(window.screen)", "§8", passed, passed ? "ok" : otherwise)
    }
  }

  /// §19 The events its changes carried, handed back as the host does when it takes them in.
  static func liveEvents(_ run: CheckRun) {
    let peer = run.peer
    guard !peer.eventsSeen.isEmpty else { return }
    var live = LiveRequest()
    live.events = .list(peer.eventsSeen)
    let reply = try? peer.ask(HostMessage.live(live).wire)
    let problems = reply.map { ReplyRules.problems(with: $0, toRequest: "live") } ?? ["no answer"]
    run.record(
      "live events", "§19", problems.isEmpty,
      problems.isEmpty
        ? "\(peer.eventsSeen.count) event(s) handed back, answered `ok`"
        : "expected ok to the events its changes carried; " + problems.joined(separator: "; "))
  }

  /// §19 A module with live sources answers `sync`, after the changes they saw.
  static func sync(_ run: CheckRun) {
    guard run.hello.liveSources == true else { return }
    let before = run.peer.changesSeen
    let (passed, otherwise) = run.askExpectingOK(HostMessage.sync(SessionRequest()).wire)
    let changes = run.peer.changesSeen - before
    run.record(
      "sync", "§19", passed,
      passed ? "ok, after \(changes) change\(changes == 1 ? "" : "s") its live sources saw" : otherwise)
  }

  /// §16 The end of a session: the module lets it go and answers `ok`.
  static func endOfSession(_ run: CheckRun) {
    let (passed, otherwise) = run.askExpectingOK(HostMessage.end(SessionRequest()).wire)
    run.record("end of a session", "§16", passed, passed ? "ok" : otherwise)
  }

  /// §7 Exactly one reply to every request so far, naming it when it names one.
  static func oneReplyPerRequest(_ run: CheckRun) {
    let peer = run.peer
    let oneEach = peer.extraReplies.isEmpty && peer.wrongIDs.isEmpty
    run.record(
      "one reply per request", "§7", oneEach,
      oneEach
        ? "no message came that was not asked for"
        : "expected one reply per request, with its id"
          + (peer.extraReplies.isEmpty ? "" : "; more came after: " + peer.extraReplies.joined(separator: ", "))
          + (peer.wrongIDs.isEmpty ? "" : "; replies named other requests: " + peer.wrongIDs.joined(separator: ", ")))
  }

  /// §9 The process the host started answered every request itself.
  static func ownProcess(_ run: CheckRun) {
    let ownProcess = run.peer.endedWhileServing
    run.record(
      "its own process", "§9", ownProcess == nil,
      ownProcess.map { ended in
        "expected the process the host started to answer; it ended (\(Self.describe(status: ended.status))) by the "
          + "`\(ended.request)` request, and something it left behind answered for it (a child holding its pipes)"
      } ?? "the process the host started answered every request")
  }

  /// §10 Shutdown: the host closes the module's input; the module ends, with status 0.
  static func shutdown(_ run: CheckRun) {
    run.peer.closeInput()
    let status = run.peer.exitStatus(within: 2000)
    let ended = status.map { $0 & 0x7f == 0 && ($0 >> 8) & 0xff == 0 } ?? false
    run.record(
      "shutdown", "§10", ended,
      ended
        ? "ended with status 0 when its input closed"
        : status.map { "ended with status \($0)" }
          ?? "still running 2 s after its input closed")
  }

  /// §9 Messages the module cannot read, on a fresh process: bytes that are not JSON, then
  /// whole messages of the wrong shape (`malformedShapes`). Each must get an `error` reply (and
  /// the module goes on), or the module closes the connection and exits with status 0 (the next
  /// shape then goes to a new process); a crash, another status or silence fails.
  static func malformedMessage(_ run: CheckRun) {
    var failures: [String] = []
    var answered = 0
    var exits = 0
    var peer: Peer?
    for (name, bytes) in malformedShapes(run) {
      if peer == nil, let started = Peer(executable: run.executable) {
        _ = try? started.channel.receive(timeout: 10_000)
        peer = started
      }
      guard let current = peer else {
        failures.append("\(name): the module did not start again")
        break
      }
      let reply = current.sendRaw(bytes) ? try? current.channel.receive(timeout: 2000) : nil
      if let reply {
        if reply["type"]?.stringValue == "error" {
          answered += 1
        } else {
          failures.append("\(name): answered with \(reply["type"]?.stringValue.map { "`\($0)`" } ?? "no type")")
        }
        continue
      }
      let status = current.exitStatus(within: 2000)
      current.stop()
      peer = nil
      if let status, status & 0x7f == 0, (status >> 8) & 0xff == 0 {
        exits += 1
      } else {
        failures.append(
          "\(name): "
            + (status.map {
              $0 & 0x7f != 0 ? "it ended by signal \($0 & 0x7f)" : "it exited with status \(($0 >> 8) & 0xff)"
            } ?? "it neither answered nor exited within 2 s"))
      }
    }
    peer?.stop()
    run.record(
      "malformed message", "§9", failures.isEmpty,
      failures.isEmpty
        ? "\(answered) of \(answered + exits) answered with an error"
          + (exits > 0 ? ", \(exits) closed the connection and exited" : "")
        : "expected an error reply or an orderly exit to each message it cannot read; "
          + failures.joined(separator: "; "))
  }

  /// What `malformedMessage` sends, framed: bytes that are not JSON, then JSON a module cannot
  /// take as a request (what a fuzzer of the host's side would send).
  static func malformedShapes(_ run: CheckRun) -> [(name: String, bytes: [UInt8])] {
    let screen = run.hello.screens.first
    let kind = screen?.documentKind ?? "kind"
    let document = run.hello.samples.first { $0.kind == kind }?.name ?? "document"
    func window(session: String = "1", _ fields: String) -> String {
      #"{"type":"command","id":1,"session":"# + session + #","now":0,"key":"w1","screen":"#
        + FrameValue.string(screen?.name ?? "screen").jsonText
        + #","document":"# + FrameValue.string(document).jsonText + #","kind":"# + FrameValue.string(kind).jsonText
        + #","revision":1,"state":null,"body":"{}","line":"x""# + fields + "}"
    }
    let deep = 100_000
    let shapes: [(String, String)] = [
      ("bytes that are not JSON", "{nope"),
      ("JSON null", "null"),
      ("a number", "42"),
      ("a list", "[]"),
      ("a list nested \(deep) deep", String(repeating: "[", count: deep) + String(repeating: "]", count: deep)),
      ("`session` as a list", window(session: "[1]", #","arguments":{}"#)),
      ("`facts` as text", window(#","facts":"text","arguments":{}"#)),
      ("`arguments` as a list", window(#","arguments":[1]"#)),
    ]
    return shapes.map { name, text in
      let body = Array(text.utf8)
      let count = UInt32(body.count)
      return (
        name, [UInt8(count >> 24), UInt8((count >> 16) & 0xff), UInt8((count >> 8) & 0xff), UInt8(count & 0xff)] + body
      )
    }
  }
}
