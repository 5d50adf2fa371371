import WorkbenchCore
import WorkbenchModuleProtocol
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench module-check EXE`: starts a module executable and drives it through the protocol
/// (docs/protocol.md), printing each check with what it expected. Checks follow what the module
/// declares in its handshake: a module with no screens is not failed for opening none.
@MainActor
public enum ModuleCheck {
  struct Check {
    let id: String
    let section: String
    var passed: Bool
    var detail: String
  }

  /// `module-check`'s options, declared once (the parser, `--help`, the man page and the
  /// completion scripts are made from them).
  public static let options: [ProgramOption<String?>] = [
    .value(["--baseline"], "FILE", help: "check ids known to fail, one a line") { $0 = $1 }
  ]

  /// What `module-check` does, for its `--help`.
  public static let details = """
    Starts the module and drives it through the protocol (docs/protocol.md): handshake, open, each
    command, refresh, errors, close, a malformed message and shutdown. Exit 0 when every check passes.
    A baseline file lists the ids of checks known to fail, one a line; the run fails when one of them
    passes (remove it) or another fails.
    """

  /// Runs `module-check EXE [--baseline FILE]`; returns the exit status.
  public static func run(_ arguments: [String]) -> ExitCode {
    let usage = "usage: workbench module-check EXECUTABLE [--baseline FILE]\n"
    var baselinePath: String?
    let operands: [String]
    do {
      operands = try ProgramOptionParser.parse(arguments, options: options, into: &baselinePath)
    } catch {
      StandardStreams.write("workbench module-check: \(error.message)\n" + usage, to: STDERR_FILENO)
      return .usage
    }
    if operands.count > 1 {
      StandardStreams.write("workbench module-check: unexpected '\(operands[1])'\n" + usage, to: STDERR_FILENO)
      return .usage
    }
    let executable = operands.first
    guard let executable else {
      StandardStreams.write("workbench module-check: name the module's executable\n" + usage, to: STDERR_FILENO)
      return .usage
    }
    guard access(executable, X_OK) == 0 else {
      StandardStreams.write("workbench module-check: \(executable) is not an executable file\n", to: STDERR_FILENO)
      return .usage
    }
    var baseline: Set<String> = []
    if let baselinePath {
      guard let bytes = try? FileSystem.read(baselinePath) else {
        StandardStreams.write("workbench module-check: cannot read the baseline \(baselinePath)\n", to: STDERR_FILENO)
        return .usage
      }
      baseline = Set(
        String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { String($0).trimmingSpaces }
          .filter { !$0.isEmpty && !$0.hasPrefix("#") })
    }
    let checks = runChecks(executable)
    var failed = 0
    var lines = ["module-check \(executable)"]
    let width = (checks.map(\.id.count).max() ?? 0) + 2
    for check in checks {
      let known = baseline.contains(check.id)
      var mark = check.passed ? "✔" : (known ? "✘ (baseline)" : "✘")
      if check.passed && known {
        mark = "✘ (in the baseline, but passes now: remove it from the baseline)"
        failed += 1
      } else if !check.passed && !known {
        failed += 1
      }
      lines.append(
        "\(check.passed && !known ? "✔" : "✘") \(check.id)\(String(repeating: " ", count: width - check.id.count))"
          + "\(check.section)  \(check.detail)" + (mark.count > 2 ? "  " + mark.dropFirst(2) : ""))
    }
    for id in baseline.subtracting(checks.map(\.id)).sorted() {
      lines.append("✘ \(id)  in the baseline, but no such check ran: remove it from the baseline")
      failed += 1
    }
    lines.append(
      "\(checks.count - checks.filter { !$0.passed }.count) passed, \(checks.filter { !$0.passed }.count) failed"
        + (baseline.isEmpty ? "" : " (\(baseline.count) in the baseline)"))
    // What the module said (a refusal, its version, a screen's kind) is shown, never obeyed: its
    // escape sequences and bells are written visibly.
    StandardStreams.write(TerminalText.visible(lines.joined(separator: "\n")) + "\n", to: STDOUT_FILENO)
    return failed == 0 ? .success : .failure
  }

  static func runChecks(_ executable: String) -> [Check] {
    var checks: [Check] = []
    func record(_ id: String, _ section: String, _ passed: Bool, _ detail: String) {
      checks.append(Check(id: id, section: section, passed: passed, detail: detail))
    }
    guard let peer = Peer(executable: executable) else {
      record("start", "§2", false, "the executable could not be started")
      return checks
    }
    defer { peer.stop() }
    // §3 The handshake.
    let greeting: FrameValue
    do {
      greeting = try peer.channel.receive(timeout: 10_000)
    } catch {
      record("handshake", "§3", false, "expected a hello within 10 s; \(error)")
      return checks
    }
    let problems = helloProblems(greeting)
    let hello = (try? WireHello(wire: greeting)) ?? WireHello()
    record(
      "handshake", "§3", problems.isEmpty,
      problems.isEmpty
        ? "protocol \(hello.protocol), module \(hello.manifest.name) \(hello.manifest.version)"
        : "expected " + problems.joined(separator: "; "))
    guard problems.isEmpty else { return checks }
    let speaksTwo = hello.protocol >= 2
    if speaksTwo { peer.session = 1 }
    peer.declaresLiveSources = hello.liveSources == true
    let kinds = Set(hello.documentKinds)
    let undeclared = hello.screens.filter { !kinds.contains($0.documentKind) }
    record(
      "screens-declare-kinds", "§3", undeclared.isEmpty,
      undeclared.isEmpty
        ? "\(hello.screens.count) screen(s) on the \(kinds.count) document kind(s) it declares"
        : "expected every screen's documentKind among documentKinds; not: "
          + undeclared.map { $0.name }.joined(separator: ", "))

    // §4 Opening a window on each screen, on a sample of its kind.
    var opened: [(key: String, screen: String, request: WindowRequest)] = []
    for (number, screen) in hello.screens.enumerated() {
      guard let sample = hello.samples.first(where: { $0.kind == screen.documentKind }) else {
        record("open \(screen.name)", "§4", true, "skipped: no sample document of kind \(screen.documentKind) to open")
        continue
      }
      let key = "check-\(number + 1)"
      peer.openKeys.insert(key)
      var request = WindowRequest()
      request.key = key
      request.screen = screen.name
      request.document = sample.name
      request.kind = screen.documentKind
      request.body = sample.body
      let answer = peer.reply(to: HostMessage.open(request).wire)
      var problems = Self.problems(answer) { ReplyRules.problems(with: $0, toRequest: "open") }
      let frame = (try? answer.get()).flatMap { try? WireResult(wire: $0) }?.frame
      if problems.isEmpty, let fields = screen.fields, case .object(let object)? = frame,
        Set(object.keys) != Set(fields)
      {
        problems.append("the frame's fields \(fields) as declared, got \(object.keys)")
      }
      record(
        "open \(screen.name)", "§4", problems.isEmpty,
        problems.isEmpty
          ? "a result with a frame of \(frame.map(Self.keysText) ?? "")" : problems.joined(separator: "; "))
      if problems.isEmpty { opened.append((key, screen.name, request)) }
    }

    // §14 Protocol 2: the timers a request set are fired after it, shortest delay first (one
    // that sets more is followed), up to 100 in all.
    var fired = 0
    var timerProblems: [String] = []
    func fireTimers() {
      // Past the §11 limit the host stops the module rather than fire its timers.
      while fired < 100, peer.mostPending <= ModuleProtocol.maximumPendingTimers, let id = peer.takeNextTimer() {
        fired += 1
        var timer = TimerRequest()
        timer.timer = id
        let problems = Self.problems(peer.reply(to: HostMessage.timer(timer).wire)) {
          ReplyRules.problems(with: $0, toRequest: "timer")
        }
        if !problems.isEmpty { timerProblems.append("timer \(id): " + problems.joined(separator: "; ")) }
      }
      if fired >= 100, !peer.pendingTimers.isEmpty, peer.mostPending <= ModuleProtocol.maximumPendingTimers,
        !timerProblems.contains(where: { $0.hasPrefix("timers that") })
      {
        timerProblems.append("timers that do not set one another again without end (100 fired, more still due)")
      }
    }

    // §5 Each command with arguments of each kind, in a window on one of its screens, with its
    // arguments bound as the host binds them.
    var committed: (key: String, body: String)?
    for command in hello.commands {
      let name = command.name.split(separator: ".").last.map(String.init) ?? command.name
      let commandScreens = command.screens ?? []
      guard let window = opened.first(where: { commandScreens.isEmpty || commandScreens.contains($0.screen) }) else {
        record("command \(name)", "§5", true, "skipped: no window open on a screen it runs in")
        continue
      }
      let request = Self.command(name, command.arguments ?? [], in: window.request, always: false)
      let answer = peer.reply(to: HostMessage.command(request).wire)
      let reply: ModuleMessage? = (try? answer.get()).flatMap { wire in try? ModuleMessage(wire: wire) }
      var problems = Self.problems(answer) { ReplyRules.problems(with: $0, toRequest: "command") }
      if problems.isEmpty, case .result(let result)? = reply, let commit = result.commit {
        if (try? FrameValue.parse(json: Array(commit.utf8))) == nil { problems.append("`commit` as valid JSON text") }
        committed = (window.key, commit)
      }
      var refusal: String?
      if case .error(let error)? = reply { refusal = error.message }
      record(
        "command \(name)", "§5", problems.isEmpty,
        problems.isEmpty
          ? (refusal.map { "`\(request.line)` refused with a message: \($0)" } ?? "`\(request.line)`: a result")
          : "`\(request.line)`: " + problems.joined(separator: "; "))
      // §12 The facts its effects use, with every argument given (an optional one may be the
      // question an effect asks).
      let everyArgument = Self.command(name, command.arguments ?? [], in: window.request, always: true)
      checks += factChecks(peer, everyArgument, command: name)
      if speaksTwo { fireTimers() }
    }

    // §6 A refresh after the document changed elsewhere.
    if let window = opened.first {
      var request = window.request
      if let committed, committed.key == window.key {
        request.body = committed.body
        request.revision = 2
      }
      let problems = Self.problems(peer.reply(to: HostMessage.refresh(request).wire)) {
        ReplyRules.problems(with: $0, toRequest: "refresh")
      }
      record("refresh", "§6", problems.isEmpty, problems.isEmpty ? "a result" : problems.joined(separator: "; "))
    }

    // §14, §15 Protocol 2: every timer the module set is fired, shortest delay first (one that
    // sets more is followed, up to 100), and each must be answered `ok`; every update must name
    // a window open in the session.
    if speaksTwo {
      fireTimers()
      if peer.mostPending > ModuleProtocol.maximumPendingTimers {
        timerProblems.append(
          "at most \(ModuleProtocol.maximumPendingTimers) pending at once (§11), it had \(peer.mostPending)")
      }
      record(
        "timers", "§14", timerProblems.isEmpty,
        timerProblems.isEmpty
          ? "\(peer.timersSet) set, \(peer.timersCancelled) cancelled, \(fired) fired and answered `ok`"
          : "expected `ok` to each due timer; " + timerProblems.joined(separator: "; "))
      var changeProblems = Array(Set(peer.changeProblems)).sorted()
      if peer.mostChanges > ModuleProtocol.maximumWaitingChanges {
        changeProblems.append(
          "at most \(ModuleProtocol.maximumWaitingChanges) between two commands (§11), it sent \(peer.mostChanges)")
      }
      record(
        "changes", "§19", changeProblems.isEmpty,
        changeProblems.isEmpty
          ? "\(peer.changesSeen) sent unasked, each well formed"
          : "expected changes with this session and updates of open windows; " + changeProblems.joined(separator: "; "))
      record(
        "windows opened", "§17", peer.reusedKeys.isEmpty,
        peer.reusedKeys.isEmpty
          ? "\(peer.windowsOpened) opened by commands, each under a key of its own"
          : "expected a new key for each window a command opens; it reused " + peer.reusedKeys.joined(separator: ", "))
      record(
        "updates", "§15", peer.strayUpdates.isEmpty,
        peer.strayUpdates.isEmpty
          ? "\(peer.updatesSeen) update(s), each of a window open in the session"
          : "expected updates of open windows only; it updated " + peer.strayUpdates.joined(separator: ", "))
    }

    // §7 Requests a module must refuse with an error, and go on.
    let refusals: [(String, FrameValue)] = [
      ("refuses an unknown window", ["type": "command", "key": "no-such-window", "line": "x"]),
      ("refuses an unknown request", ["type": "no-such-request"]),
    ]
    for (id, request) in refusals {
      let reply = try? peer.ask(request)
      var refusal: String?
      if case .error(let error)? = reply.flatMap({ try? ModuleMessage(wire: $0) }) { refusal = error.message }
      record(
        id, "§7", refusal != nil,
        refusal.map { "error: \($0)" }
          ?? "expected an error with a message, got \(reply?.jsonText.prefix(80) ?? "nothing")")
    }

    // §12 The states a recording starts from: `ok` with `.state` facts of shared scopes (a
    // module with no such services may answer with none, or refuse the request).
    if speaksTwo {
      let raw = try? peer.ask(HostMessage.capture(SessionRequest()).wire)
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
      record("states to record", "§12", passed, said)
    }

    // §8 Closing every window.
    for window in opened {
      var close = CloseRequest()
      close.key = window.key
      let reply = try? peer.ask(HostMessage.close(close).wire)
      let passed = reply.flatMap { try? ModuleMessage(wire: $0) }.map { $0.type == "ok" } ?? false
      record(
        "close \(window.screen)", "§8", passed,
        passed ? "ok" : "expected ok, got \(reply?.jsonText.prefix(80) ?? "nothing")")
    }

    // §19 The events its changes carried, handed back as the host does when it takes them in.
    if speaksTwo, !peer.eventsSeen.isEmpty {
      var live = LiveRequest()
      live.events = .list(peer.eventsSeen)
      let reply = try? peer.ask(HostMessage.live(live).wire)
      let problems = reply.map { ReplyRules.problems(with: $0, toRequest: "live") } ?? ["no answer"]
      record(
        "live events", "§19", problems.isEmpty,
        problems.isEmpty
          ? "\(peer.eventsSeen.count) event(s) handed back, answered `ok`"
          : "expected ok to the events its changes carried; " + problems.joined(separator: "; "))
    }

    // §19 A module with live sources answers `sync`, after the changes they saw.
    if speaksTwo, hello.liveSources == true {
      let before = peer.changesSeen
      let reply = try? peer.ask(HostMessage.sync(SessionRequest()).wire)
      let passed = reply.flatMap { try? ModuleMessage(wire: $0) }.map { $0.type == "ok" } ?? false
      let changes = peer.changesSeen - before
      record(
        "sync", "§19", passed,
        passed
          ? "ok, after \(changes) change\(changes == 1 ? "" : "s") its live sources saw"
          : "expected ok, got \(reply?.jsonText.prefix(80) ?? "nothing")")
    }

    // §16 The end of a session: the module lets it go and answers `ok`.
    if speaksTwo {
      let reply = try? peer.ask(HostMessage.end(SessionRequest()).wire)
      let passed = reply.flatMap { try? ModuleMessage(wire: $0) }.map { $0.type == "ok" } ?? false
      record(
        "end of a session", "§16", passed,
        passed ? "ok" : "expected ok, got \(reply?.jsonText.prefix(80) ?? "nothing")")
    }

    // §7 Exactly one reply to every request so far, naming it when it names one.
    let oneEach = peer.extraReplies.isEmpty && peer.wrongIDs.isEmpty
    record(
      "one reply per request", "§7", oneEach,
      oneEach
        ? "no message came that was not asked for"
        : "expected one reply per request, with its id"
          + (peer.extraReplies.isEmpty ? "" : "; more came after: " + peer.extraReplies.joined(separator: ", "))
          + (peer.wrongIDs.isEmpty ? "" : "; replies named other requests: " + peer.wrongIDs.joined(separator: ", ")))

    // §9 The process the host started answered every request itself.
    let ownProcess = peer.endedWhileServing
    record(
      "its own process", "§9", ownProcess == nil,
      ownProcess.map { ended in
        "expected the process the host started to answer; it ended (\(Self.describe(status: ended.status))) by the "
          + "`\(ended.request)` request, and something it left behind answered for it (a child holding its pipes)"
      } ?? "the process the host started answered every request")

    // §10 Shutdown: the host closes the module's input; the module ends, with status 0.
    peer.closeInput()
    let status = peer.exitStatus(within: 2000)
    let ended = status.map { $0 & 0x7f == 0 && ($0 >> 8) & 0xff == 0 } ?? false
    record(
      "shutdown", "§10", ended,
      ended
        ? "ended with status 0 when its input closed"
        : status.map { "ended with status \($0)" }
          ?? "still running 2 s after its input closed")

    // §9 A malformed message, on a fresh process: an error reply, or an orderly exit; never a crash.
    if let second = Peer(executable: executable) {
      defer { second.stop() }
      _ = try? second.channel.receive(timeout: 10_000)
      let garbage: [UInt8] = [0, 0, 0, 5] + Array("{nope".utf8)
      _ = garbage.withUnsafeBytes { write(second.toModule, $0.baseAddress, $0.count) }
      let reply = try? second.channel.receive(timeout: 2000)
      let status = reply == nil ? second.exitStatus(within: 2000) : nil
      let passed =
        reply?["type"]?.stringValue == "error" || (status.map { $0 & 0x7f == 0 } ?? false)
      record(
        "malformed message", "§9", passed,
        passed
          ? (reply != nil ? "answered with an error" : "closed the connection and exited")
          : "expected an error reply or an orderly exit; "
            + (status.map { "it ended by signal \($0 & 0x7f)" } ?? "it did neither within 2 s"))
    }
    return checks
  }

}

extension Result {
  fileprivate func get(or fallback: Success) -> Success { (try? get()) ?? fallback }
}

extension String {
  fileprivate var trimmingSpaces: String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }
}
