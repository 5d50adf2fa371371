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

  /// A module process on pipes, for the checks.
  final class Peer {
    let pid: pid_t
    let channel: MessageChannel
    let toModule: Int32
    let fromModule: Int32

    init?(executable: String) {
      // The protocol is the module's stdin and stdout; what it prints on stderr is not checked.
      // Its own process group, so what it starts ends with it (`stop`); told the versions the
      // host speaks, as the host tells it.
      guard
        let process = try? SpawnedProcess(
          executable, environment: ModuleProtocol.moduleEnvironment(), input: .pipe, output: .pipe, error: .null,
          newProcessGroup: true)
      else { return nil }
      let ends = process.releaseDescriptors()
      guard let input = ends.input, let output = ends.output else { return nil }
      pid = process.pid
      toModule = input
      fromModule = output
      MessageChannel.makeNonBlocking(toModule)
      MessageChannel.makeNonBlocking(fromModule)
      channel = MessageChannel(input: fromModule, output: toModule)
    }

    /// Requests that got more than one message back, as `type: what came after`.
    private(set) var extraReplies: [String] = []

    private var lastReply: FrameValue?

    /// Requests whose reply named another request's id, as `type: id`.
    private(set) var wrongIDs: [String] = []
    private var requestCount = 0

    /// The session requests name, for a module that speaks protocol 2 (§16).
    var session: Int?
    /// Whether its hello declares live sources (§19): only then may it send changes unasked.
    var declaresLiveSources = false
    /// The windows open in the module (their keys), for checking its updates (§15).
    var openKeys: Set<String> = []
    /// The timers the module asked for and has not had fired or cancelled, by id, with when they
    /// are due and the order they were set in (§14); how many it set and cancelled; updates
    /// naming no open window. (By id, so a reply setting 100,000 costs 100,000 steps, not their
    /// square.)
    private(set) var pendingTimers: [String: (due: Int, order: Int)] = [:]
    private(set) var timersSet = 0
    private(set) var timersCancelled = 0
    /// The most timers pending at once (§11 limits them).
    private(set) var mostPending = 0
    private(set) var updatesSeen = 0
    private(set) var strayUpdates: [String] = []
    /// Windows a command opened (§17), and keys it opened one under that an open window had.
    private(set) var windowsOpened = 0
    private(set) var reusedKeys: [String] = []

    /// Changes the module sent unasked (§19), the most between two requests, and problems.
    private(set) var changesSeen = 0
    private(set) var mostChanges = 0
    private(set) var changeProblems: [String] = []
    /// The events changes carried, to hand back (`live`, §19).
    private(set) var eventsSeen: [FrameValue] = []
    private var changesSinceRequest = 0

    private func see(change message: FrameValue) {
      changesSeen += 1
      changesSinceRequest += 1
      mostChanges = max(mostChanges, changesSinceRequest)
      let change: WireChanged
      do throws(WireProblems) {
        change = try WireChanged(wire: message)
      } catch {
        changeProblems += error.problems
        return
      }
      if change.session != session { changeProblems.append("a change without this session") }
      if !declaresLiveSources {
        changeProblems.append("a change sent unasked, and the hello does not declare `liveSources: true`")
      }
      for update in change.updates where !openKeys.contains(update.key) { strayUpdates.append(update.key) }
      if let event = change.event { eventsSeen.append(event) }
    }

    /// Takes what a reply asks of the host's clock and windows (protocol 2): a timer is due `at`
    /// its time, or `after` its delay from the `now` the request carried.
    private func follow(_ wire: FrameValue) {
      let timers: [WireTimer]?
      let cancel: [String]?
      let opened: [WireOpenedWindow]?
      let updates: [WireUpdate]?
      switch try? ModuleMessage(wire: wire) {
      case .result(let result)?:
        (timers, cancel, opened, updates) = (result.timers, result.cancel, result.opened, result.updates)
      case .ok(let ok)?: (timers, cancel, opened, updates) = (ok.timers, ok.cancel, ok.opened, ok.updates)
      default: return
      }
      for id in cancel ?? [] where pendingTimers.removeValue(forKey: id) != nil { timersCancelled += 1 }
      for timer in timers ?? [] {
        timersSet += 1
        pendingTimers[timer.id] = (timer.at ?? (now + (timer.after ?? 0)), timersSet)
      }
      mostPending = max(mostPending, pendingTimers.count)
      for entry in opened ?? [] {
        if openKeys.contains(entry.key) { reusedKeys.append(entry.key) }
        openKeys.insert(entry.key)
        windowsOpened += 1
      }
      for update in updates ?? [] {
        updatesSeen += 1
        if !openKeys.contains(update.key) { strayUpdates.append(update.key) }
      }
    }

    /// The session's time as module-check keeps it: milliseconds, moved to each timer it fires
    /// (every protocol 2 request carries it as `now`).
    private(set) var now = 0

    /// The next timer due (the earliest, the earliest set among equals), taken off the list; the
    /// session's time moves to it.
    func takeNextTimer() -> String? {
      guard let next = pendingTimers.min(by: { ($0.value.due, $0.value.order) < ($1.value.due, $1.value.order) })
      else { return nil }
      pendingTimers[next.key] = nil
      now = max(now, next.value.due)
      return next.key
    }

    /// The request the process the host started had ended by, when it ended while something it
    /// left behind (a child holding its pipes) went on answering (§9).
    private(set) var endedWhileServing: (request: String, status: Int32)?

    func ask(_ message: FrameValue) throws(ChannelError) -> FrameValue {
      // Numbered as the host numbers them (§7); a reply that names an id must name this one.
      requestCount += 1
      var message = message
      if case .object(var object) = message {
        object["id"] = .integer(requestCount)
        if let session {
          object["session"] = .integer(session)
          object["now"] = .integer(now)
        }
        message = .object(object)
      }
      defer { if session != nil, let reply = lastReply { follow(reply) } }
      lastReply = nil
      try channel.send(message, timeout: 5000)
      var reply = try channel.receive(timeout: 5000)
      // Protocol 2: a change a live source saw may come unasked, before the reply (§19).
      while session != nil, reply["type"]?.stringValue == "changed" {
        see(change: reply)
        reply = try channel.receive(timeout: 5000)
      }
      lastReply = reply
      // The process the host started must be the one answering: one that forked and exited
      // leaves a child the host never started on its pipes.
      if endedWhileServing == nil, let ended = exitStatus(within: 0) {
        endedWhileServing = (message["type"]?.stringValue ?? "?", ended)
      }
      if let echoed = reply["id"], echoed != .integer(requestCount) {
        wrongIDs.append("\(message["type"]?.stringValue ?? "?") \(requestCount) answered as \(echoed.jsonText)")
      }
      // One reply per request (§7): anything behind it within a moment is a second message.
      var extra = channel.hasUnaskedInput()
      if !extra {
        var polled = pollfd(fd: fromModule, events: Int16(POLLIN), revents: 0)
        extra = poll(&polled, 1, 30) > 0 && channel.hasUnaskedInput()
      }
      if extra {
        // What came after is read: a change (protocol 2) is counted, anything else is a second
        // reply, dropped so the next request gets its own.
        var second = false
        while let unasked = try? channel.receive(timeout: 30) {
          if session != nil, unasked["type"]?.stringValue == "changed" { see(change: unasked) } else { second = true }
        }
        if second { extraReplies.append(message["type"]?.stringValue ?? "?") }
      }
      changesSinceRequest = 0
      return reply
    }

    /// The reply, or a description of why there was none (not a reply the checks could take
    /// for the module's own).
    func reply(to message: FrameValue) -> Result<FrameValue, ChannelError> {
      do {
        return .success(try ask(message))
      } catch {
        return .failure(error)
      }
    }

    /// Waits up to `milliseconds` for the process to end: its status, or `nil` if it did not.
    /// The status it ended with, once collected.
    private(set) var status: Int32?

    func exitStatus(within milliseconds: Int) -> Int32? {
      if let status { return status }
      for attempt in 0..<max(1, milliseconds / 10) {
        var result: Int32 = 0
        if waitpid(pid, &result, WNOHANG) == pid {
          status = result
          return result
        }
        if milliseconds > 0, attempt + 1 < max(1, milliseconds / 10) { usleep(10_000) }
      }
      return nil
    }

    private var inputOpen = true

    /// Closes the module's input (the host's end of it), once.
    func closeInput() {
      guard inputOpen else { return }
      inputOpen = false
      close(toModule)
    }

    func stop() {
      closeInput()
      close(fromModule)
      if exitStatus(within: 1000) == nil {
        kill(pid, SIGKILL)
        _ = exitStatus(within: 1000)
      }
      // Whatever it started (a child it forked) ends with it, as the shell's shutdown does.
      kill(-pid, SIGKILL)
    }
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

  /// A wait status in words.
  static func describe(status: Int32) -> String {
    status & 0x7f == 0 ? "status \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"
  }

  /// What is missing or wrong in a handshake.
  static func helloProblems(_ greeting: FrameValue) -> [String] {
    let hello: WireHello
    do throws(WireProblems) {
      guard greeting["type"]?.stringValue == "hello" else { return ["type \"hello\""] }
      hello = try WireHello(wire: greeting)
    } catch {
      return error.problems
    }
    guard ModuleProtocol.versions.contains(hello.protocol) else {
      return [
        "protocol \(ModuleProtocol.versions.map(String.init).joined(separator: " or ")), got \(hello.protocol)"
      ]
    }
    return []
  }

  /// What is wrong with a reply, or that there was none.
  static func problems(_ answer: Result<FrameValue, ChannelError>, _ check: (FrameValue) -> [String]) -> [String] {
    switch answer {
    case .success(let reply): return check(reply)
    case .failure(let error): return ["a reply; \(error)"]
    }
  }

  /// `value` (an object) with `key` set to `new`.
  static func setting(_ value: FrameValue, _ key: String, _ new: FrameValue) -> FrameValue {
    guard case .object(var object) = value else { return value }
    object[key] = new
    return .object(object)
  }

  static func keysText(_ frame: FrameValue) -> String {
    guard case .object(let object) = frame else { return "?" }
    return "{" + object.keys.joined(separator: ", ") + "}"
  }

  /// §12: asked for the facts it uses, does the command report them well formed; replayed
  /// with them, does it take them without a divergence; and replayed with an answer recorded
  /// for another question, does it say so (a `divergence`) rather than use it? Nothing for a
  /// command that uses no facts.
  static func factChecks(_ peer: Peer, _ command: CommandRequest, command name: String) -> [Check] {
    let line = command.line
    var asking = command
    asking.facts = WireFactsRequest()
    guard case .success(let raw) = peer.reply(to: HostMessage.command(asking).wire), raw["type"] == "result",
      let facts = raw["facts"]?.elements, !facts.isEmpty
    else { return [] }
    var problems: [String] = []
    var replay: [(key: String, value: FrameValue)] = []
    var otherQuestions: [(key: String, value: FrameValue)] = []
    var questions = 0
    func append(_ value: FrameValue, for source: String, to list: inout [(key: String, value: FrameValue)]) {
      if let index = list.firstIndex(where: { $0.key == source }) {
        list[index].value = .list((list[index].value.elements ?? []) + [value])
      } else {
        list.append((source, [value]))
      }
    }
    for (index, entry) in facts.enumerated() {
      guard let fact = try? WireFact(wire: entry) else {
        problems.append("facts[\(index)] with a source (text) and a value")
        continue
      }
      if let asked = fact.asked {
        questions += 1
        append(["asked": asked, "answer": fact.value], for: fact.source, to: &replay)
        append(
          ["asked": ["module-check asks instead": asked], "answer": fact.value], for: fact.source, to: &otherQuestions)
      } else {
        append(fact.value, for: fact.source, to: &replay)
        append(fact.value, for: fact.source, to: &otherQuestions)
      }
    }
    var checks = [
      Check(
        id: "facts \(name)", section: "§12", passed: problems.isEmpty,
        detail: problems.isEmpty
          ? "`\(line)` reported \(facts.count) fact(s), \(questions) with the question it answers"
          : "`\(line)`: expected " + problems.joined(separator: "; "))
    ]
    guard problems.isEmpty else { return checks }
    func replaying(_ values: [(key: String, value: FrameValue)]) -> WireResult? {
      var request = command
      var facts = WireFactsRequest()
      facts.replay = .object(FrameObject(members: values))
      request.facts = facts
      return (try? peer.reply(to: HostMessage.command(request).wire).get()).flatMap { try? WireResult(wire: $0) }
    }
    let same = replaying(replay)
    let replayed = same != nil && same?.divergence == nil
    checks.append(
      Check(
        id: "replay \(name)", section: "§12", passed: replayed,
        detail: replayed
          ? "`\(line)` took the facts it reported, with no divergence"
          : "`\(line)` replayed with the facts it reported: expected a result with no divergence, got "
            + String((same?.wire.jsonText ?? "no result").prefix(120))))
    if questions > 0 {
      let divergence = replaying(otherQuestions)?.divergence ?? ""
      let noticed = !divergence.isEmpty
      checks.append(
        Check(
          id: "replay \(name) to another question", section: "§12", passed: noticed,
          detail: noticed
            ? "a divergence: \(divergence)"
            : "`\(line)` given answers recorded for other questions: expected a `divergence` naming both, "
              + "but it used them (a replay must serve an answer only to the question it answered)"))
    }
    return checks
  }

  /// A command request in a window, with a value for each argument as a user would type one
  /// (in its line, and bound in `arguments`); an optional one only when `always`.
  static func command(_ name: String, _ arguments: [WireArgument], in window: WindowRequest, always: Bool)
    -> CommandRequest
  {
    var words = [name]
    var bound: [(key: String, value: FrameValue)] = []
    for argument in arguments {
      guard let value = sampleArgument(argument, always: always) else { continue }
      words.append(value)
      bound.append((argument.name, argument.kind == "integer" ? .integer(Int(value) ?? 1) : .string(value)))
    }
    return CommandRequest(words.joined(separator: " "), arguments: .object(FrameObject(members: bound)), in: window)
  }

  /// A value for an argument of each kind, as a user would type one; nothing for an optional
  /// unless `always`.
  static func sampleArgument(_ argument: WireArgument, always: Bool = false) -> String? {
    if argument.optional == true, !always { return nil }
    switch argument.kind {
    case "integer": return "1"
    case "choice": return argument.extra?.elements?.first?.stringValue ?? "x"
    case "rest": return "checked by module-check"
    default: return "1"
    }
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
