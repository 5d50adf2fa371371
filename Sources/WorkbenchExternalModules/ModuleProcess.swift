import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// A module running as a child process: started, asked over the protocol, and stopped when it
/// crashes, exits, hangs past the timeout or sends something malformed. The host and its other
/// windows carry on.
///
/// Its parts: the process's life here (start, stop, restart, reload), the connection
/// (`ModuleProcess+Connection.swift`: requests and replies, held to the protocol), and the host
/// sessions it serves (`ModuleProcess+Sessions.swift`: timers, updates, live changes, ends).
@MainActor
public final class ModuleProcess {
  /// The executable.
  public let path: String
  /// What the module said in its handshake.
  public private(set) var hello = WireHello()
  /// The protocol version it speaks (§3): 2 can ask for timers and update other windows.
  public var version: Int { hello.protocol }
  /// Why it stopped, while it is stopped.
  public internal(set) var stopReason: String?
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
  /// The documents this process has been sent, as sent (JSON text by the copy the module
  /// keeps): a request about a document the module already holds leaves its body out. A new
  /// process starts empty. Read and written through `subscript(sent:)`.
  private var documentsSent: [SentDocument: String] = [:]
  /// The body the module holds of a document of a session, as the host last sent it (nil when
  /// the host does not know what the module holds).
  ///
  /// From protocol 2 each session has its own documents in the module (the kits keep them by
  /// session and name). A protocol 1 module is never told which session a request is of and
  /// keeps the last body it was given of each name (§5): there two sessions of one process on
  /// the same name share one copy, so one session's body sent replaces what the other's left.
  subscript(sent document: SentDocument) -> String? {
    get { documentsSent[copyKept(of: document)] }
    set { documentsSent[copyKept(of: document)] = newValue }
  }

  /// Forgets what sessions that ended were sent (a protocol 1 module's copies are not any one
  /// session's: they stay).
  func forgetDocumentsSent(inSessions numbers: Set<Int>) {
    guard version >= 2 else { return }
    documentsSent = documentsSent.filter { !numbers.contains($0.key.session) }
  }

  private func copyKept(of document: SentDocument) -> SentDocument {
    version >= 2 ? document : SentDocument(session: 0, name: document.name)
  }
  /// Every document a request handed the module, by session: what work outside a window's
  /// command (a timer's, a live event's) may write besides the documents its windows show.
  var documentsHanded: Set<SentDocument> = []
  /// Whether the last session that ended was told so and answered (see `isIdle`).
  var endedEverySession = false

  /// A document as one session of the module holds it.
  struct SentDocument: Hashable {
    let session: Int
    let name: String
  }
  /// The command line the module was running when it stopped, for the message.
  var runningLine: String?
  /// The module's process id while it runs; 0 once it is reaped.
  private(set) var pid: pid_t = 0
  /// The module's process group (its pid when it started), kept after the module itself has
  /// been reaped so what it started can still be ended.
  private var processGroup: pid_t?
  var channel: MessageChannel?
  /// The host's ends of the module's pipes (to it, from it) and, where the kernel gives one, a
  /// descriptor that is readable once the process ended (`processDescriptor`).
  private var descriptors: [Int32] = []

  /// The type of the request on its way (`command`, `timer`, `end`...), while one is, to say
  /// what the module was doing when it stopped.
  var requestInFlight: String?
  /// What the sessions were told when the module stopped outside a command, until it starts again.
  var reportedIncident: String?
  /// Whether a command's work with the module is going on (`duringCommand`): a stop then is that
  /// command's error; any other stop is an incident of the sessions.
  var inCommand = false
  /// How many requests this process has been sent (each request's id).
  var requestCount = 0
  /// The last `error` the module answered with, kept for the facts it may carry (§12): the
  /// window whose request it was takes them. Taking it empties it.
  var refusal: WireError?
  /// The terminal text the module rendered for each frame it sent.
  let rendered = RenderedTexts()
  /// Changes live sources saw, waiting for their sessions to take them (§19).
  var changes: [WireChanged] = []
  /// The host sessions this process serves (protocol 2, §16).
  var sessions: [SessionEntry] = []
  var sessionCount = 0
  /// The windows on this module, to open again after a reload or a restart.
  var screens: [ScreenBox] = []
  /// The last key given to a window the host opened.
  var windowKeys = 0

  /// Starts the module and reads its handshake.
  ///
  /// - Throws: `CommandError` when it cannot start, does not answer, or speaks another protocol.
  public init(path: String) throws(CommandError) {
    self.path = path
    try start()
  }

  /// Starts the module without waiting for its handshake, which `handshake(waiting:)` reads
  /// (a rebuild the language server takes in while it goes on answering the editor).
  ///
  /// - Throws: `CommandError` when it cannot start.
  init(launching path: String) throws(CommandError) {
    self.path = path
    try launch()
  }

  var name: String { hello.manifest.name.isEmpty ? path : hello.manifest.name }

  /// How long a module has to introduce itself once started, in milliseconds.
  static let handshakeLimit = 10_000

  /// When the process was started (a monotonic clock's milliseconds), for its handshake's limit.
  private var launchedAt = 0

  private func start() throws(CommandError) {
    try launch()
    _ = try handshake(waiting: Self.handshakeLimit)
  }

  /// Starts the process, with its pipes and log, and reads nothing yet.
  private func launch() throws(CommandError) {
    // What the module prints (a crash's backtrace too) goes to its log, not over the user's
    // screen; a stop names the log. It goes through a pipe this side drains into the log with a
    // cap (`ModuleLog`), so a module printing without end cannot fill the disk. Its own process
    // group, so stopping it ends whatever it started too, and Ctrl-C at the shell's terminal
    // reaches the shell only; signals the host ignores (SIGPIPE) or handles start at their
    // defaults in the module, as they would from a login shell. The user's environment, and the
    // protocol versions this host speaks (§3).
    let log = Self.logPath(for: path)
    let process: SpawnedProcess
    do throws(SpawnedProcess.StartError) {
      process = try SpawnedProcess(
        path, environment: ModuleProtocol.moduleEnvironment(), input: .pipe, output: .pipe,
        error: log == nil ? .inherited : .pipe, defaultSignals: [SIGPIPE, SIGINT, SIGTERM, SIGHUP],
        newProcessGroup: true)
    } catch {
      throw CommandError("cannot start the module \(path): \(error.description.split(separator: ": ").last ?? "")")
    }
    let ends = process.releaseDescriptors()
    if let log, let errors = ends.error {
      // It drains on a queue of its own until the module and whatever it started have closed
      // the pipe.
      moduleLog = ModuleLog(path: log, banner: "--- \(path) starts\n", draining: errors)
      logPath = log
    }
    guard let toModule = ends.input, let fromModule = ends.output else {
      throw CommandError("cannot start the module \(path): no pipes")
    }
    pid = process.pid
    processGroup = process.pid
    ChildGroups.hold(process.pid)
    documentsSent = [:]
    documentsHanded = []
    descriptors = [toModule, fromModule]
    for descriptor in descriptors { MessageChannel.makeNonBlocking(descriptor) }
    if let ends = ProcessEnds.descriptor(of: process.pid) { descriptors.append(ends) }
    channel = MessageChannel(input: fromModule, output: toModule)
    stopReason = nil
    reportedIncident = nil
    launchedAt = SpawnedProcess.monotonicMilliseconds()
  }

  /// Reads the module's handshake, waiting at most `waiting` milliseconds for it and never past
  /// `handshakeLimit` after the start: `true` once it introduced itself, `false` when it has not
  /// yet and has time left.
  ///
  /// - Throws: `CommandError` when it did not introduce itself in time, closed the connection,
  ///   or sent something else (it is stopped).
  func handshake(waiting: Int) throws(CommandError) -> Bool {
    guard let channel else { throw CommandError("the module \(path) did not start: \(stopReason ?? "")") }
    let left = max(0, Self.handshakeLimit - (SpawnedProcess.monotonicMilliseconds() - launchedAt))
    // (A wait of 0 ms would time out before it read what is there.)
    let wait = min(max(1, waiting), left)
    let greeting: FrameValue
    do {
      greeting = try channel.receive(timeout: Int32(clamping: wait))
    } catch {
      if case .timedOut = error, wait < left { return false }
      let error: ChannelError = if case .timedOut = error { .timedOut(Self.handshakeLimit) } else { error }
      // A closed connection is told as how the process ended (its status, its signal).
      let what = "\(error)"
      stop(what.hasPrefix("it closed the connection") ? what : "it did not introduce itself: \(what)")
      throw CommandError("the module \(path) did not start: \(stopReason ?? "")" + lastWords())
    }
    logMessage(greeting, from: "module")
    let message: ModuleMessage
    do throws(WireProblems) {
      message = try ModuleMessage(wire: greeting)
    } catch {
      stop("its first message was not a handshake")
      throw CommandError(
        "the module \(path) did not start: its handshake was not what the protocol says (§3): expected "
          + error.description + lastWords())
    }
    switch message {
    case .hello(let hello):
      guard ModuleProtocol.versions.contains(hello.protocol) else {
        stop("it speaks protocol \(hello.protocol)")
        throw CommandError(
          "the module \(hello.manifest.name) (\(path)) speaks module protocol \(hello.protocol), and this workbench "
            + "speaks \(ModuleProtocol.versions.map(String.init).joined(separator: " and ")): rebuild the module "
            + "against this workbench's WorkbenchModuleKit")
      }
      self.hello = hello
    case .error(let refusal):
      stop(refusal.message)
      throw CommandError("the module \(path) did not start: \(refusal.message)" + lastWords())
    default:
      stop("its first message was not a handshake")
      throw CommandError("the module \(path) did not start: its first message was not a handshake" + lastWords())
    }
    return true
  }

  /// Where every message goes as a JSON line when `WORKBENCH_PROTOCOL_LOG` names a file: for
  /// checking what the host and a module really send against docs/protocol.schema.json, and
  /// for debugging a module.
  private let protocolLog: String? = getenv("WORKBENCH_PROTOCOL_LOG").map { String(cString: $0) }

  func logMessage(_ message: @autoclosure () -> FrameValue, from side: String) {
    guard let protocolLog else { return }
    let message = message()
    let line = Array(
      (FrameValue.object(FrameObject(members: [("from", .string(side)), ("message", message)])).jsonText + "\n").utf8)
    // It holds document bodies: readable by the user only, as the workspace is.
    let descriptor = open(protocolLog, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return }
    _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
  }

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
  func reapIfEnded() -> Int32? {
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
    // One that left once every session it served had ended is started again for the next
    // (`call`), charged to none.
    guard !isIdle else { return isRunning }
    if let status = reapIfEnded() { stop("it ended between requests", status: status) }
    return isRunning
  }

  /// Whether every session the module served has ended, each told so and its `end` answered
  /// (§16): the module may leave then. Cleared when the next request is answered.
  var isIdle: Bool { endedEverySession }

  /// Starts the module again when it left while no session was open: not a stop, and no
  /// session's restart (it happened in none). Whether it had left.
  func startAgainIfItLeft(waiting milliseconds: Int32 = 0) throws(CommandError) -> Bool {
    var ended = reapIfEnded() != nil
    var waited: Int32 = 0
    while !ended, waited < milliseconds {
      usleep(5_000)
      waited += 5
      ended = reapIfEnded() != nil
    }
    guard ended else { return false }
    endedEverySession = false
    stop("restarted: it left after the last session it served had ended")
    try start()
    return true
  }

  /// What a module that did not start printed last, for its error: a Python traceback, a
  /// missing library (empty when it printed nothing, or has no log).
  private func lastWords() -> String {
    guard let moduleLog else { return "" }
    let lines = moduleLog.tail(after: "--- \(path) starts\n")
    guard !lines.isEmpty else { return "" }
    return ". The last of what it printed (\(moduleLog.path)):\n" + lines.map { "    " + $0 }.joined(separator: "\n")
  }

  /// Stops the module for breaking the protocol (§9) outside a command: its windows show why.
  func stopForViolation(_ reason: String) {
    stop(reason + " (§9)")
  }

  /// Stops the module for breaking the protocol (§9), with the error to show.
  func violation(_ reason: String) -> CommandError {
    stop(reason + " (§9)")
    return stoppedError(stopReason ?? reason)
  }

  func stoppedError(_ reason: String) -> CommandError {
    let during = runningLine.map { " while running `\($0.split(separator: " ").first ?? "")`" } ?? ""
    let log = logPath.map { "; what it printed is in \($0)" } ?? ""
    var error = CommandError(
      "the module \(name) stopped\(during): \(reason). Its windows were closed; the rest of the session is "
        + "untouched; it starts again when a window opens on it (or `restart-module \(name)`)\(log)")
    error.stoppedModule = name
    return error
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
    if let group = processGroup { ChildGroups.release(group) }
    processGroup = nil
    for descriptor in descriptors { close(descriptor) }
    descriptors = []
    channel = nil
    // Everything it printed up to its end is in the log before anyone is pointed to it.
    moduleLog?.finish(within: 500)
    // Its timers die with it: a session waiting for them (`settle`) does not wait on a module
    // that cannot answer them.
    for entry in sessions {
      for timer in entry.timers.values { timer.handle.cancel() }
      entry.timers = [:]
    }
    // A stop outside a command (its timer, a refresh, the end of a session, or noticed between
    // requests) is said in each session where it is noticed; a command's stop is its error.
    if !inCommand, requestInFlight != "command", requestInFlight != ReplyRules.commandInNoWindow,
      reason != "the host ended", !reason.hasPrefix("restarted")
    {
      let incident = stoppedIncident(reason)
      reportedIncident = incident
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
    case "live"?: during = " as a live change was handed back to it"
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
    adopt(try ModuleProcess(path: path))
  }

  /// Takes over from `candidate`, a new process of this module's executable that has introduced
  /// itself: the old process is ended, the windows open again on the new one.
  func adopt(_ candidate: ModuleProcess) -> (reopened: Int, needsRestart: String?) {
    let changes = Self.registrationChanges(from: hello, to: candidate.hello)
    let oldGroup = processGroup
    let oldPid = pid
    for descriptor in descriptors { close(descriptor) }
    if let oldGroup {
      kill(-oldGroup, SIGKILL)
      ChildGroups.release(oldGroup)
    }
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
    logPath = candidate.logPath
    moduleLog = candidate.moduleLog
    stopReason = nil
    reportedIncident = nil
    documentsSent = [:]
    documentsHanded = []
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

  /// What a new build registers differently (its name, commands, screens, document kinds), in words;
  /// `nil` when the build registers the same. (The shell then registers the modules again.)
  static func registrationChanges(from old: WireHello, to new: WireHello) -> String? {
    func names(_ items: [(String, String)]) -> [String: String] {
      Dictionary(items, uniquingKeysWith: { first, _ in first })
    }
    let sets: [(String, [String: String], [String: String])] = [
      (
        "commands", names(old.commands.map { ($0.name, $0.wire.jsonText) }),
        names(new.commands.map { ($0.name, $0.wire.jsonText) })
      ),
      (
        "screens", names(old.screens.map { ($0.name, $0.wire.jsonText) }),
        names(new.screens.map { ($0.name, $0.wire.jsonText) })
      ),
      ("document kinds", names(old.documentKinds.map { ($0, $0) }), names(new.documentKinds.map { ($0, $0) })),
    ]
    var parts: [String] = []
    // Its name is what its commands are run by from anywhere (`NAME.command`) and what the
    // workspace remembers it as.
    if old.manifest.name != new.manifest.name {
      parts.append(
        "its name changed (from \(TerminalText.visible(old.manifest.name)) to \(TerminalText.visible(new.manifest.name)))"
      )
    }
    for (what, before, after) in sets {
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
  }

  /// The windows on this module, to open again after a reload.
  final class ScreenBox {
    weak var screen: ProxyScreen?
    init(_ screen: ProxyScreen) { self.screen = screen }
  }

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

  /// Whether it is running.
  public var isRunning: Bool { stopReason == nil && channel != nil }

  /// The descriptor the module's messages arrive on, while it runs.
  var readDescriptor: Int32? { isRunning && descriptors.count >= 2 ? descriptors[1] : nil }
  /// A descriptor readable once the process ended, while it runs: where the kernel has none,
  /// `waitpid` asks instead.
  var processDescriptor: Int32? { isRunning && descriptors.count == 3 ? descriptors[2] : nil }

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
