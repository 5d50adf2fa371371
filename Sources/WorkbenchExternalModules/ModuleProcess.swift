import Synchronization
import WorkbenchCore
import WorkbenchModuleProtocol
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// A module running as a child process: started, asked over the protocol, and stopped when it
/// crashes, exits, hangs past the timeout or sends something malformed. The host and its other
/// windows carry on.
@MainActor
public final class ModuleProcess {
  /// The executable.
  public let path: String
  /// What the module said in its handshake.
  public private(set) var hello: FrameValue = .null
  /// The protocol version it speaks (§3): 2 can ask for timers and update other windows.
  public private(set) var version = 1
  /// Why it stopped, while it is stopped.
  public private(set) var stopReason: String?
  /// How many times it was started again after stopping.
  public private(set) var restarts = 0
  /// How long a request may take.
  public var timeoutMilliseconds: Int32 = 3000
  /// The most automatic restarts.
  public static let automaticRestartLimit = 3

  /// Where the module's standard error goes: `$XDG_STATE_HOME/workbench/modules/NAME.log`.
  public private(set) var logPath: String?
  /// What copies the module's standard error into its log.
  private var moduleLog: ModuleLog?
  /// The documents this process has been sent, as sent (JSON text by name): a request about a
  /// document the module already holds leaves its body out. A new process starts empty.
  var documentsSent: [String: String] = [:]
  /// The command line the module was running when it stopped, for the message.
  private var runningLine: String?
  private var pid: pid_t = 0
  /// The module's process group (its pid when it started), kept after the module itself has
  /// been reaped so what it started can still be ended.
  private var processGroup: pid_t?
  private var channel: MessageChannel?
  private var descriptors: [Int32] = []

  /// Starts the module and reads its handshake.
  ///
  /// - Throws: `CommandError` when it cannot start, does not answer, or speaks another protocol.
  public init(path: String) throws(CommandError) {
    self.path = path
    try start()
  }

  var name: String { hello["manifest"]?["name"]?.stringValue ?? path }

  private func start() throws(CommandError) {
    var toChild: [Int32] = [0, 0]
    var fromChild: [Int32] = [0, 0]
    guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw CommandError("cannot start \(path): no pipes") }
    for descriptor in toChild + fromChild { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
    posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
    // What the module prints (a crash's backtrace too) goes to its log, not over the user's
    // screen; a stop names the log. It goes through a pipe this side drains into the log with a
    // cap (`ModuleLog`), so a module printing without end cannot fill the disk.
    var errorPipe: [Int32] = [-1, -1]
    let log = Self.logPath(for: path)
    if log != nil, pipe(&errorPipe) == 0 {
      for descriptor in errorPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
      posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
    }
    // Its own process group, so stopping it ends whatever it started too, and Ctrl-C at the
    // shell's terminal reaches the shell only. Signals the host ignores (SIGPIPE) or handles
    // start at their defaults in the module, as they would from a login shell.
    let argv = [strdup(path), nil]
    // The user's environment, and the protocol versions this host speaks (§3).
    let environment = ModuleProtocol.moduleEnvironment()
    var child: pid_t = 0
    let result = Spawning.withDefaultSignals([SIGPIPE, SIGINT, SIGTERM, SIGHUP], newProcessGroup: true) { attributes in
      posix_spawn(&child, path, &actions, &attributes, argv, environment)
    }
    argv.forEach { free($0) }
    environment.forEach { free($0) }
    posix_spawn_file_actions_destroy(&actions)
    close(toChild[0])
    close(fromChild[1])
    if errorPipe[1] >= 0 { close(errorPipe[1]) }
    guard result == 0 else {
      close(toChild[1])
      close(fromChild[0])
      if errorPipe[0] >= 0 { close(errorPipe[0]) }
      throw CommandError("cannot start the module \(path): \(String(cString: strerror(result)))")
    }
    if let log, errorPipe[0] >= 0 {
      // It drains on a queue of its own until the module and whatever it started have closed
      // the pipe.
      moduleLog = ModuleLog(path: log, banner: "--- \(path) starts\n", draining: errorPipe[0])
      logPath = log
    }
    pid = child
    processGroup = child
    documentsSent = [:]
    descriptors = [toChild[1], fromChild[0]]
    for descriptor in descriptors { MessageChannel.makeNonBlocking(descriptor) }
    channel = MessageChannel(input: fromChild[0], output: toChild[1])
    stopReason = nil
    let greeting: FrameValue
    do {
      greeting = try channel!.receive(timeout: 10_000)
    } catch {
      // A closed connection is told as how the process ended (its status, its signal).
      let what = "\(error)"
      stop(what.hasPrefix("it closed the connection") ? what : "it did not introduce itself: \(what)")
      throw CommandError("the module \(path) did not start: \(stopReason ?? "")" + lastWords())
    }
    if greeting["type"]?.stringValue == "error" {
      let message = greeting["message"]?.stringValue ?? "it reported an error"
      stop(message)
      throw CommandError("the module \(path) did not start: \(message)" + lastWords())
    }
    guard greeting["type"]?.stringValue == "hello", let version = greeting["protocol"]?.integerValue,
      let moduleName = greeting["manifest"]?["name"]?.stringValue
    else {
      stop("its first message was not a handshake")
      throw CommandError("the module \(path) did not start: its first message was not a handshake" + lastWords())
    }
    guard ModuleProtocol.versions.contains(version) else {
      stop("it speaks protocol \(version)")
      throw CommandError(
        "the module \(moduleName) (\(path)) speaks module protocol \(version), and this workbench speaks "
          + "\(ModuleProtocol.versions.map(String.init).joined(separator: " and ")): rebuild the module against "
          + "this workbench's WorkbenchModuleKit")
    }
    hello = greeting
    self.version = version
    logMessage(greeting, from: "module")
  }

  /// Where every message goes as a JSON line when `WORKBENCH_PROTOCOL_LOG` names a file: for
  /// checking what the host and a module really send against docs/protocol.schema.json, and
  /// for debugging a module.
  private let protocolLog: String? = getenv("WORKBENCH_PROTOCOL_LOG").map { String(cString: $0) }

  private func logMessage(_ message: FrameValue, from side: String) {
    guard let protocolLog else { return }
    let line = Array(
      (FrameValue.object(FrameObject(members: [("from", .string(side)), ("message", message)])).jsonText + "\n").utf8)
    // It holds document bodies: readable by the user only, as the workspace is.
    let descriptor = open(protocolLog, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return }
    _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
  }

  /// Sends a request and waits for the answer. Any failure stops the module.
  func call(_ request: FrameValue) throws(CommandError) -> FrameValue {
    if let stopReason { throw stoppedError(stopReason) }
    guard let channel else { throw stoppedError("it is not running") }
    var requestType = request["type"]?.stringValue ?? ""
    if requestType == "command", request["key"] == nil { requestType = ReplyRules.commandInNoWindow }
    // Sessions that ended are told first (their own requests, before this one's line is noted).
    if version >= 2, requestType != "end" { try endSessions() }
    let reply: FrameValue
    runningLine = request["line"]?.stringValue
    let outer = requestInFlight
    requestInFlight = requestType
    defer {
      runningLine = nil
      requestInFlight = outer
    }
    // A process that exited since the last request (or whose child kept its pipes after it
    // exited, §9) is stopped now, not served through whatever holds its pipes.
    if let ended = reapIfEnded() {
      stop("it ended between requests", status: ended)
      throw stoppedError(stopReason ?? "it ended")
    }
    // Every request is numbered; a reply that carries an id must carry this one (§7): a late
    // second reply to an earlier request can then never be taken for this one's.
    requestCount = OutsideNumbers.saturatingSuccessor(of: requestCount)
    let id = requestCount
    var request = request
    if case .object(var object) = request {
      object["id"] = .integer(id)
      request = .object(object)
    }
    // Every request gets exactly one reply (§7). Something waiting before a request is sent was
    // not asked for (a second reply, or a message of the module's own): read as the answer to
    // this request, it would put every later reply one command late.
    // Protocol 2: what came unasked must be a change a live source saw (§19), kept for the
    // next time between commands.
    if channel.hasUnaskedInput() {
      guard version >= 2 else {
        throw violation("it sent a message nobody asked for (a second reply to an earlier request?)")
      }
      try readChanges(from: channel)
    }
    let sent = Self.milliseconds()
    do {
      logMessage(request, from: "host")
      try channel.send(request, timeout: timeoutMilliseconds)
      reply = try channel.receive(timeout: timeoutMilliseconds)
      logMessage(reply, from: "module")
    } catch {
      stop(error.description)
      throw stoppedError(stopReason ?? error.description)
    }
    if version >= 2, reply["type"]?.stringValue == "changed" {
      // A change sent while the request was on its way: kept, and the reply is the next one,
      // within the same time a reply has (changes do not buy a module more).
      try keep(change: reply)
      return try awaitReply(to: requestType, id: id, on: channel, deadline: sent + Int64(timeoutMilliseconds))
    }
    if channel.hasBufferedInput {
      guard version >= 2 else { throw violation("it answered `\(requestType)` with more than one message") }
      try readChanges(from: channel, after: requestType)
    }
    return try checked(reply, to: requestType, id: id)
  }

  /// The reply that follows changes a module sent while a request was on its way (§19).
  private func awaitReply(to requestType: String, id: Int, on channel: MessageChannel, deadline: Int64)
    throws(CommandError) -> FrameValue
  {
    while true {
      let reply: FrameValue
      do {
        let left = Int32(clamping: max(1, deadline - Self.milliseconds()))
        reply = try channel.receive(timeout: left)
        logMessage(reply, from: "module")
      } catch {
        // The time the request had, not what was left of it.
        var what = error.description
        if case .timedOut = error { what = ChannelError.timedOut(Int(timeoutMilliseconds)).description }
        stop(what)
        throw stoppedError(stopReason ?? what)
      }
      guard reply["type"]?.stringValue == "changed" else {
        if channel.hasBufferedInput { try readChanges(from: channel, after: requestType) }
        return try checked(reply, to: requestType, id: id)
      }
      try keep(change: reply)
    }
  }

  /// The monotonic clock in milliseconds, for a request's deadline.
  private static func milliseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
  }

  /// Reads what a module sent unasked, without waiting: each must be a `changed` (§19).
  private func readChanges(from channel: MessageChannel, after requestType: String? = nil) throws(CommandError) {
    while channel.hasUnaskedInput() {
      let message: FrameValue
      do {
        message = try channel.receive(timeout: timeoutMilliseconds)
        logMessage(message, from: "module")
      } catch {
        stop(error.description)
        throw stoppedError(stopReason ?? error.description)
      }
      guard message["type"]?.stringValue == "changed" else {
        throw violation(
          requestType.map { "it answered `\($0)` with more than one message" }
            ?? "it sent a message nobody asked for (a second reply to an earlier request?)")
      }
      try keep(change: message)
    }
  }

  /// Keeps a change a live source saw until its session takes it between commands.
  private func keep(change: FrameValue) throws(CommandError) {
    let problems = ReplyRules.updateProblems(change)
    guard change["session"]?.integerValue != nil, problems.isEmpty else {
      throw violation(
        "its `changed` was not what the protocol says: expected a `session` and "
          + (problems.isEmpty ? "`updates`" : problems.joined(separator: "; ")) + " (§19)")
    }
    // A change for a session that ended (or never was) has no windows to go to.
    guard let number = change["session"]?.integerValue, let entry = sessions.first(where: { $0.number == number }),
      let clock = entry.services?.clock
    else { return }
    changes.append(change)
    guard changes.count <= ModuleProtocol.maximumWaitingChanges else {
      throw violation("it sent more than \(ModuleProtocol.maximumWaitingChanges) changes between two commands (§11)")
    }
    // Nor more than that in a second of the session's time, taken or not: a flood at an idle
    // prompt is stopped too.
    if Self.passes(ModuleProtocol.maximumWaitingChanges, aSecond: &entry.changeTimes, now: clock.now) {
      throw violation("it sent more than \(ModuleProtocol.maximumWaitingChanges) changes in a second (§11)")
    }
  }

  /// Notes an event at `now` in `times` (the last `limit + 1` kept) and says whether more than
  /// `limit` came within a second of the session's time.
  private static func passes(_ limit: Int, aSecond times: inout [Duration], now: Duration) -> Bool {
    times.append(now)
    if times.count > limit + 1 { times.removeFirst(times.count - limit - 1) }
    guard times.count > limit, let first = times.first else { return false }
    return now - first < .seconds(1)
  }

  /// Changes live sources saw, waiting for their sessions to take them (§19).
  private var changes: [FrameValue] = []

  /// A reply held to the request it answers (§7).
  private func checked(_ reply: FrameValue, to requestType: String, id: Int) throws(CommandError) -> FrameValue {
    if let echoed = reply["id"], echoed != .integer(id) {
      throw violation(
        "it answered request \(id) (`\(requestType)`) with the reply to request \(echoed.jsonText): one came late or twice"
      )
    }
    let problems = ReplyRules.problems(with: reply, toRequest: requestType)
    if !problems.isEmpty {
      throw violation(
        "its reply to `\(requestType)` was not what the protocol says: expected \(problems.joined(separator: "; "))")
    }
    if reply["type"]?.stringValue == "error" {
      refusal = reply
      throw CommandError(reply["message"]?.stringValue ?? "the module refused")
    }
    return reply
  }

  /// The last `error` the module answered with, kept for the facts it may carry (§12): the
  /// window whose request it was takes them. Taking it empties it.
  private var refusal: FrameValue?

  /// The refusal of the last request, once.
  func takeRefusal() -> FrameValue? {
    defer { refusal = nil }
    return refusal
  }

  /// The type of the request on its way (`command`, `timer`, `end`...), while one is, to say
  /// what the module was doing when it stopped.
  private var requestInFlight: String?
  /// Whether a command's work with the module is going on (`duringCommand`): a stop then is that
  /// command's error; any other stop is an incident of the sessions.
  private var inCommand = false

  /// Runs a command's work with the module (its request, and what its reply asks): a stop
  /// anywhere in it is the command's error, said once, by the command.
  func duringCommand<Result>(_ body: () throws(CommandError) -> Result) throws(CommandError) -> Result {
    let outer = inCommand
    inCommand = true
    defer { inCommand = outer }
    let wasRunning = isRunning
    let result = try body()
    if wasRunning, let stopReason { throw stoppedError(stopReason) }
    return result
  }

  /// The process's wait status when it has ended (reaped now); `nil` while it runs.
  private func reapIfEnded() -> Int32? {
    guard pid > 0 else { return nil }
    var status: Int32 = 0
    guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
    pid = 0
    return status
  }

  /// Notices a process that ended on its own since the last request (a window's frame is read,
  /// a session looks for changes): it is stopped, and the sessions are told where it is seen.
  /// - Returns: whether the module is running.
  @discardableResult
  public func noticeEnd() -> Bool {
    guard stopReason == nil else { return false }
    if let status = reapIfEnded() { stop("it ended between requests", status: status) }
    return isRunning
  }

  /// What a module that did not start printed last, for its error: a Python traceback, a
  /// missing library (empty when it printed nothing, or has no log).
  private func lastWords() -> String {
    guard let moduleLog else { return "" }
    let lines = moduleLog.tail(after: "--- \(path) starts\n")
    guard !lines.isEmpty else { return "" }
    return ". The last of what it printed (\(moduleLog.path)):\n" + lines.map { "    " + $0 }.joined(separator: "\n")
  }

  /// How many requests this process has been sent (each request's id).
  private var requestCount = 0

  /// Stops the module for breaking the protocol (§9) outside a command: its windows show why.
  func stopForViolation(_ reason: String) {
    stop(reason + " (§9)")
  }

  /// Sets and cancels the timers a reply asks for (§14), in the session it was about: each runs
  /// on that session's clock, so `clock advance` and `settle` drive it in a scenario and real
  /// time does in the shell; when it is due the module is sent `timer` with its id.
  func takeTimers(_ reply: FrameValue, in session: Int) {
    guard let entry = entry(of: session), let clock = entry.services?.clock else { return }
    for id in reply["cancel"]?.elements?.compactMap(\.stringValue) ?? [] {
      entry.timers.removeValue(forKey: id)?.cancel()
    }
    for timer in reply["timers"]?.elements ?? [] {
      guard let id = timer["id"]?.stringValue, let after = timer["after"]?.integerValue else { continue }
      entry.timers.removeValue(forKey: id)?.cancel()
      guard entry.timers.count < ModuleProtocol.maximumPendingTimers else {
        stopForViolation("it asked for more than \(ModuleProtocol.maximumPendingTimers) timers at once (§11)")
        return
      }
      entry.timers[id] = clock.schedule(after: .milliseconds(after)) { [weak self, weak entry] in
        guard let self, let entry else { return }
        entry.timers[id] = nil
        self.timerDue(id, in: entry.number)
      }
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
    var request = FrameObject(["type": "timer", "timer": .string(id), "session": .integer(session)])
    // Recording or replaying: the facts the timer's work used come back with it, kept under
    // the module's timers in the session.
    let facts = entry.services?.facts
    let scope = "\(name) timers"
    let windows = windowScopes(in: session)
    if let facts, let relayed = RelayedFacts.request(facts, scope: scope, version: version, windows: windows) {
      request["facts"] = relayed
    }
    // A module that refuses its own timer leaves the windows as they were; one that stops shows so.
    guard let reply = try? call(.object(request)) else { return }
    if let facts {
      let byKey = Dictionary(windows.map { ($0.key, $0.scope) }, uniquingKeysWith: { first, _ in first })
      RelayedFacts.take(reply, into: facts, scope: scope, windows: byKey)
    }
    takeTimers(reply, in: session)
    takeUpdates(reply, in: session)
  }

  /// The module's windows in a session: each one's key and the scope of its facts.
  func windowScopes(in session: Int) -> [(key: String, scope: String)] {
    screens.compactMap(\.screen).filter { $0.session == session }.map { ($0.key, $0.factScope) }
  }

  /// How many timers the module has pending in a session.
  func pendingTimers(in session: Int) -> Int {
    entry(of: session)?.timers.count ?? 0
  }

  /// Gives other windows of the session the frames a reply carries for them (`updates`, §15).
  /// An update for a window the module does not have open there breaks the protocol.
  func takeUpdates(_ reply: FrameValue, in session: Int) {
    for update in reply["updates"]?.elements ?? [] {
      guard let key = update["key"]?.stringValue else { continue }
      guard
        let screen = screens.lazy.compactMap(\.screen).first(where: { $0.key == key && $0.session == session })
      else {
        stopForViolation("it sent an update for window \(key), which is not open on it (§15)")
        return
      }
      screen.takeFrame(update)
    }
  }

  /// A host session this process serves (protocol 2, §16): the module keeps what it holds for
  /// one (its clock, its network, its windows) apart from every other's.
  private final class SessionEntry {
    weak var services: SessionServices?
    let number: Int
    /// The module's pending timers in the session, by the id it gave them.
    var timers: [String: Cancellation] = [:]
    /// When the module's last changes for the session came (§11 limits them to 100 a second).
    var changeTimes: [Duration] = []
    /// When its last timers came due (§11 limits them to 1,000 a second).
    var timerTimes: [Duration] = []
    /// How many times a window opening in the session started the module again.
    var restarts = 0
    init(services: SessionServices, number: Int) {
      self.services = services
      self.number = number
    }
  }
  private var sessions: [SessionEntry] = []
  private var sessionCount = 0

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
      descriptor: { [weak self] in self?.version ?? 1 >= 2 ? self?.readDescriptor : nil })
    // A recording that starts now keeps the states of the module's services in this session.
    services.facts.addStateCapture { [weak self] in self?.captureStates(in: number) ?? [] }
    // The module hears of the session's end when it ends, so a module that dies of it dies in
    // that session (which is told), not in the next one's first request.
    services.onEnd { [weak self] in self?.endSession(number) }
    return number
  }

  /// Tells the module a session ended (§16) and lets go of what the host kept for it.
  private func endSession(_ number: Int) {
    guard let index = sessions.firstIndex(where: { $0.number == number }) else { return }
    let entry = sessions[index]
    for timer in entry.timers.values { timer.cancel() }
    changes.removeAll { $0["session"]?.integerValue == number }
    guard version >= 2, noticeEnd() else {
      sessions.remove(at: index)
      return
    }
    _ = try? call(["type": "end", "session": .integer(number)])
    sessions.removeAll { $0.number == number }
  }

  /// The states of the services the module holds for a session (a network's, a bridge's), as a
  /// recording starts (§12, `capture`). A module that does not answer `capture` has none.
  func captureStates(in session: Int) -> [(scope: String, source: String, value: FrameValue)] {
    guard version >= 2, isRunning, entry(of: session) != nil,
      let reply = try? call(["type": "capture", "session": .integer(session)])
    else { return [] }
    return (reply["facts"]?.elements ?? []).compactMap { fact in
      guard let scope = fact["scope"]?.stringValue, let source = fact["source"]?.stringValue,
        let value = fact["value"]
      else { return nil }
      return (scope, source, value)
    }
  }

  /// The descriptor the module's messages arrive on, while it runs.
  private var readDescriptor: Int32? { isRunning && descriptors.count == 2 ? descriptors[1] : nil }

  /// Whether the module said, unasked, that windows of a session changed (§19); reads what it
  /// sent. A replay uses the recording's changes, so the module's never wait.
  func changesWait(in session: Int) -> Bool {
    guard noticeEnd(), version >= 2, let channel, let descriptor = readDescriptor else { return false }
    // A module that closed its end is gone: stopped now, so the shell stops waiting on it.
    var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    if !channel.hasBufferedInput, poll(&polled, 1, 0) > 0, polled.revents & Int16(POLLIN) == 0,
      polled.revents & Int16(POLLHUP | POLLERR) != 0
    {
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
    guard let facts = facts(of: session), !(facts.isReplaying && !facts.isRelivingRecordedStart),
      !facts.servesLiveChanges(in: "\(name) live")
    else {
      changes.removeAll { $0["session"]?.integerValue == session }
      return false
    }
    return changes.contains { $0["session"]?.integerValue == session }
  }

  /// Takes the changes the module's live sources saw into a session's windows (§19): the
  /// `live` command, which the host runs between commands when changes wait. A recording keeps
  /// them, one group a `live` step; its replay brings in the next recorded group instead.
  func takeChanges(in session: Int) {
    guard version >= 2, let facts = facts(of: session) else { return }
    _ = changesWait(in: session)
    let scope = "\(name) live"
    if facts.isReplaying, !facts.isRelivingRecordedStart {
      guard facts.remaining(in: scope)["changed"]?.isEmpty == false else { return }
      let group = facts.value(of: "changed", in: scope) { .null }
      for change in group.elements ?? [] { takeUpdates(keyed(change, in: session), in: session) }
      return
    }
    let mine = changes.filter { $0["session"]?.integerValue == session }
    changes.removeAll { $0["session"]?.integerValue == session }
    // What a live step takes in, kept in order for a move in time, which brings the same group
    // in again at this step (a device changes once; the replay's module never sees it).
    let group = facts.liveChange(in: scope) {
      .list(mine.map { ["updates": numbered($0["updates"] ?? .list([]), in: session)] })
    }
    // Kept while recording, one group a `live` step (empty when this module had nothing).
    _ = facts.value(of: "changed", in: scope) { group }
    for change in group.elements ?? [] { takeUpdates(keyed(change, in: session), in: session) }
  }

  /// A change's updates with each window named by its number in the session (`window: 2`), as
  /// a recording keeps them: the keys are this process's, the numbers the session's.
  private func numbered(_ updates: FrameValue, in session: Int) -> FrameValue {
    .list(
      (updates.elements ?? []).map { update in
        guard case .object(var object) = update, let key = update["key"]?.stringValue,
          let screen = screens.lazy.compactMap(\.screen).first(where: { $0.key == key && $0.session == session }),
          let number = Int(screen.factScope.dropFirst("window ".count))
        else { return update }
        object["key"] = nil
        object["window"] = .integer(number)
        return .object(object)
      })
  }

  /// A recorded change with each window named by its key in this process again.
  private func keyed(_ change: FrameValue, in session: Int) -> FrameValue {
    let updates = (change["updates"]?.elements ?? []).map { update -> FrameValue in
      guard case .object(var object) = update, let number = update["window"]?.integerValue,
        let screen = screens.lazy.compactMap(\.screen).first(where: {
          $0.session == session && $0.factScope == "window \(number)"
        })
      else { return update }
      object["window"] = nil
      object["key"] = .string(screen.key)
      return .object(object)
    }
    return ["updates": .list(updates)]
  }

  /// What the process keeps for a session it serves.
  private func entry(of session: Int) -> SessionEntry? { sessions.first { $0.number == session } }

  private func facts(of session: Int) -> SessionFacts? {
    entry(of: session)?.services?.facts
  }

  /// Tells the module about the sessions that ended since the last request (their host is
  /// gone: a scenario finished, a relaunch replaced it), so it can drop what it kept for them.
  private func endSessions() throws(CommandError) {
    let ended = sessions.filter { $0.services == nil }
    guard !ended.isEmpty else { return }
    sessions.removeAll { $0.services == nil }
    let numbers = Set(ended.map(\.number))
    changes.removeAll { numbers.contains($0["session"]?.integerValue ?? 0) }
    for entry in ended { _ = try call(["type": "end", "session": .integer(entry.number)]) }
  }

  /// Stops the module for breaking the protocol (§9), with the error to show.
  private func violation(_ reason: String) -> CommandError {
    stop(reason + " (§9)")
    return stoppedError(stopReason ?? reason)
  }

  func stoppedError(_ reason: String) -> CommandError {
    let during = runningLine.map { " while running `\($0.split(separator: " ").first ?? "")`" } ?? ""
    let log = logPath.map { "; what it printed is in \($0)" } ?? ""
    return CommandError(
      "the module \(name) stopped\(during): \(reason). Its windows were closed; the rest of the session is "
        + "untouched; it starts again when a window opens on it (or `restart-module \(name)`)\(log)")
  }

  /// Kills the process, and every process it started, and records why (with the signal, when
  /// it died of one on its own).
  func stop(_ reason: String, status collected: Int32? = nil) {
    guard stopReason == nil else { return }
    var reason = reason
    if let collected {
      let signal = collected & 0x7f
      reason +=
        signal != 0
        ? " (it crashed: signal \(signal)\(Self.signalName(signal).map { ", \($0)" } ?? ""))"
        : " (it exited with status \((collected >> 8) & 0xff))"
    }
    if pid > 0 {
      var status: Int32 = 0
      var ended = waitpid(pid, &status, WNOHANG) == pid
      if !ended, reason.hasPrefix("it closed the connection") {
        // It closed its pipe as it died: give it a moment to be reaped with its signal.
        for _ in 0..<20 where !ended {
          usleep(5_000)
          ended = waitpid(pid, &status, WNOHANG) == pid
        }
      }
      if ended {
        pid = 0
        let signal = status & 0x7f
        let how =
          signal != 0
          ? "it crashed (signal \(signal)\(Self.signalName(signal).map { ", \($0)" } ?? ""))"
          : "it exited with status \((status >> 8) & 0xff)"
        reason = reason.hasPrefix("it closed the connection") ? how : reason + " (\(how))"
      }
    }
    stopReason = reason
    if let group = processGroup {
      kill(-group, SIGKILL)  // the whole group: children the module started hold its pipes too
    }
    if pid > 0 {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
      pid = 0
    }
    processGroup = nil
    for descriptor in descriptors { close(descriptor) }
    descriptors = []
    channel = nil
    // Everything it printed up to its end is in the log before anyone is pointed to it.
    moduleLog?.finish(within: 500)
    // Its timers die with it: a session waiting for them (`settle`) does not wait on a module
    // that cannot answer them.
    for entry in sessions {
      for timer in entry.timers.values { timer.cancel() }
      entry.timers = [:]
    }
    // A stop outside a command (its timer, a refresh, the end of a session, or noticed between
    // requests) is said in each session where it is noticed; a command's stop is its error.
    if !inCommand, requestInFlight != "command", requestInFlight != ReplyRules.commandInNoWindow,
      reason != "the host ended", !reason.hasPrefix("restarted")
    {
      let incident = stoppedIncident(reason)
      for entry in sessions { entry.services?.report(incident: incident) }
    }
  }

  /// A stop outside a command, as the session is told it.
  private func stoppedIncident(_ reason: String) -> String {
    let during: String
    switch requestInFlight {
    case "timer"?: during = " while its timer ran"
    case "end"?: during = " as a session ended"
    case "refresh"?: during = " as a window on it was refreshed"
    case "close"?: during = " as a window on it closed"
    case "open"?, "restore"?: during = " as a window on it opened"
    case "capture"?: during = " as a recording started"
    default: during = ""
    }
    let log = logPath.map { "; what it printed is in \($0)" } ?? ""
    return "the module \(name) stopped\(during): \(reason). Its windows show the error until it starts again "
      + "(when a window opens on it, or `restart-module \(name)`), and open again then with their view state\(log)"
  }

  /// Ends the module and everything it started, as the host does when it exits: its input is
  /// closed so it can finish on its own (flushing what it printed), and after a short grace
  /// period its whole process group is killed.
  public func shutdown() {
    guard stopReason == nil else { return }
    for descriptor in descriptors { close(descriptor) }
    descriptors = []
    channel = nil
    if pid > 0 {
      for _ in 0..<50 {
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
          pid = 0
          break
        }
        usleep(10_000)
      }
    }
    stop("the host ended")
  }

  /// Starts the executable again beside the running process (a rebuild landed): when the new
  /// one introduces itself, it takes over and the old one is ended; when it does not, the old
  /// one keeps running and the error says why. The windows open again on the new process
  /// (see `ProxyScreen.reopen`), with their documents and view states.
  ///
  /// - Returns: how many windows were opened again.
  @discardableResult
  public func reload() throws(CommandError) -> (reopened: Int, needsRestart: String?) {
    let candidate = try ModuleProcess(path: path)
    let changes = Self.registrationChanges(from: hello, to: candidate.hello)
    let oldGroup = processGroup
    let oldPid = pid
    for descriptor in descriptors { close(descriptor) }
    if let oldGroup { kill(-oldGroup, SIGKILL) }
    if oldPid > 0 {
      kill(oldPid, SIGKILL)
      var status: Int32 = 0
      waitpid(oldPid, &status, 0)
    }
    // The new process's state moves here; the candidate is left holding nothing.
    pid = candidate.pid
    processGroup = candidate.processGroup
    descriptors = candidate.descriptors
    channel = candidate.channel
    hello = candidate.hello
    version = candidate.version
    logPath = candidate.logPath
    moduleLog = candidate.moduleLog
    stopReason = nil
    documentsSent = [:]
    candidate.pid = 0
    candidate.processGroup = nil
    candidate.descriptors = []
    candidate.channel = nil
    candidate.stopReason = "moved to the module it replaced"
    var reopened = 0
    screens.removeAll { $0.screen == nil }
    for box in screens {
      guard let screen = box.screen else { continue }
      screen.reopen()
      reopened += 1
    }
    return (reopened, changes)
  }

  /// What a new build registers differently (commands, screens, document kinds): the session's
  /// registry is made once, at the start, so those take effect when the shell starts again.
  /// `nil` when the build registers the same.
  static func registrationChanges(from old: FrameValue, to new: FrameValue) -> String? {
    func names(_ hello: FrameValue, _ key: String) -> [String: String] {
      var result: [String: String] = [:]
      for item in hello[key]?.elements ?? [] {
        if let name = item.stringValue {
          result[name] = name
        } else if let name = item["name"]?.stringValue {
          result[name] = item.jsonText
        }
      }
      return result
    }
    var parts: [String] = []
    for (key, what) in [("commands", "commands"), ("screens", "screens"), ("documentKinds", "document kinds")] {
      let before = names(old, key)
      let after = names(new, key)
      let added = after.keys.filter { before[$0] == nil }.sorted()
      let removed = before.keys.filter { after[$0] == nil }.sorted()
      let changed = after.keys.filter { before[$0] != nil && before[$0] != after[$0] }.sorted()
      var said: [String] = []
      if !added.isEmpty { said.append("new: " + added.joined(separator: ", ")) }
      if !removed.isEmpty { said.append("gone: " + removed.joined(separator: ", ")) }
      if !changed.isEmpty { said.append("changed: " + changed.joined(separator: ", ")) }
      if !said.isEmpty { parts.append("its \(what) changed (\(said.joined(separator: "; ")))") }
    }
    guard !parts.isEmpty else { return nil }
    return parts.joined(separator: ", ")
      + ", which take effect when the shell starts again (quit and start it); the windows run the new build meanwhile"
  }

  /// The windows on this module, to open again after a reload.
  final class ScreenBox {
    weak var screen: ProxyScreen?
    init(_ screen: ProxyScreen) { self.screen = screen }
  }
  var screens: [ScreenBox] = []

  /// Starts a stopped module again; every window still open on it opens again on the new
  /// process (it is sent `open` with its view state), as after a reload.
  public func restart() throws(CommandError) {
    if stopReason == nil { stop("restarted") }
    restarts = OutsideNumbers.saturatingSuccessor(of: restarts)
    try start()
    screens.removeAll { $0.screen == nil }
    for box in screens { box.screen?.reopen() }
  }

  /// Whether a window opening in `session` may start the stopped module again: each session has
  /// `automaticRestartLimit` starts of its own (a scenario's do not spend the next one's, a
  /// replay's do not spend the live session's).
  func mayRestart(in session: Int) -> Bool {
    (entry(of: session)?.restarts ?? 0) < Self.automaticRestartLimit
  }

  /// Starts the stopped module again for a window opening in `session`, counting it there.
  func restart(in session: Int) throws(CommandError) {
    if let entry = entry(of: session) { entry.restarts = OutsideNumbers.saturatingSuccessor(of: entry.restarts) }
    try restart()
  }

  /// A key for a new window on this module: never one a window on it has now (a module may have
  /// chosen it for a window it opened, §17), never one given out before.
  func nextWindowKey() -> String {
    let used = Set(screens.compactMap { $0.screen?.key })
    repeat { windowKeys = OutsideNumbers.saturatingSuccessor(of: windowKeys) } while used.contains("w\(windowKeys)")
    return "w\(windowKeys)"
  }
  private var windowKeys = 0

  /// Whether it is running.
  public var isRunning: Bool { stopReason == nil && channel != nil }

  /// `$XDG_STATE_HOME/workbench/modules/NAME.log` (or under `~/.local/state`), its folder made;
  /// `nil` when neither can be used (the module then writes to the host's standard error).
  static func logPath(for path: String) -> String? {
    guard let folder = UserFolders.state("modules") else { return nil }
    let file = path.split(separator: "/").last.map(String.init) ?? "module"
    return folder + "/" + file + ".log"
  }

  static func signalName(_ signal: Int32) -> String? {
    let names: [Int32: String] = [
      SIGILL: "SIGILL", SIGABRT: "SIGABRT", SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
      SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGTRAP: "SIGTRAP", SIGPIPE: "SIGPIPE",
    ]
    return names[signal]
  }
}
