import Synchronization
import WorkbenchCore
import WorkbenchModuleProtocol

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
  /// Why it stopped, while it is stopped.
  public private(set) var stopReason: String?
  /// How many times it was started again after stopping.
  public private(set) var restarts = 0
  /// How long a request may take.
  public var timeoutMilliseconds: Int32 = 3000
  /// The most automatic restarts.
  public static let automaticRestartLimit = 3

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
    // Its own process group, so stopping it ends whatever it started too, and Ctrl-C at the
    // shell's terminal reaches the shell only. Signals the host ignores (SIGPIPE) or handles
    // start at their defaults in the module, as they would from a login shell.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF))
    let argv = [strdup(path), nil]
    var child: pid_t = 0
    let result = posix_spawn(&child, path, &actions, &attributes, argv, environ)
    argv.forEach { free($0) }
    posix_spawnattr_destroy(&attributes)
    posix_spawn_file_actions_destroy(&actions)
    close(toChild[0])
    close(fromChild[1])
    guard result == 0 else {
      close(toChild[1])
      close(fromChild[0])
      throw CommandError("cannot start the module \(path): \(String(cString: strerror(result)))")
    }
    pid = child
    processGroup = child
    descriptors = [toChild[1], fromChild[0]]
    for descriptor in descriptors { MessageChannel.makeNonBlocking(descriptor) }
    channel = MessageChannel(input: fromChild[0], output: toChild[1])
    stopReason = nil
    let greeting: FrameValue
    do {
      greeting = try channel!.receive(timeout: 10_000)
    } catch {
      stop("it did not introduce itself: \(error)")
      throw CommandError("the module \(path) did not start: \(stopReason ?? "")")
    }
    if greeting["type"]?.stringValue == "error" {
      let message = greeting["message"]?.stringValue ?? "it reported an error"
      stop(message)
      throw CommandError("the module \(path) did not start: \(message)")
    }
    guard greeting["type"]?.stringValue == "hello", let version = greeting["protocol"]?.integerValue,
      let moduleName = greeting["manifest"]?["name"]?.stringValue
    else {
      stop("its first message was not a handshake")
      throw CommandError("the module \(path) did not start: its first message was not a handshake")
    }
    guard version == ModuleProtocol.version else {
      stop("it speaks protocol \(version)")
      throw CommandError(
        "the module \(moduleName) (\(path)) speaks module protocol \(version), and this workbench speaks "
          + "\(ModuleProtocol.version): rebuild the module against this workbench's WorkbenchModuleKit")
    }
    hello = greeting
  }

  /// Sends a request and waits for the answer. Any failure stops the module.
  func call(_ request: FrameValue) throws(CommandError) -> FrameValue {
    if let stopReason { throw stoppedError(stopReason) }
    guard let channel else { throw stoppedError("it is not running") }
    let reply: FrameValue
    do {
      try channel.send(request, timeout: timeoutMilliseconds)
      reply = try channel.receive(timeout: timeoutMilliseconds)
    } catch {
      stop(error.description)
      throw stoppedError(error.description)
    }
    guard let type = reply["type"]?.stringValue else {
      stop("it sent a message without a type")
      throw stoppedError("it sent a message without a type")
    }
    if type == "error" { throw CommandError(reply["message"]?.stringValue ?? "the module refused") }
    return reply
  }

  func stoppedError(_ reason: String) -> CommandError {
    CommandError(
      "the module \(name) stopped: \(reason). Its windows were closed; the rest of the session is untouched. "
        + "`restart-module \(name)` starts it again")
  }

  /// Kills the process, and every process it started, and records why.
  func stop(_ reason: String) {
    guard stopReason == nil else { return }
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

  /// Starts a stopped module again.
  public func restart() throws(CommandError) {
    if stopReason == nil { stop("restarted") }
    restarts += 1
    try start()
  }

  /// A key for a new window on this module, unique for the process's life.
  func nextWindowKey() -> String {
    windowKeys += 1
    return "w\(windowKeys)"
  }
  private var windowKeys = 0

  /// Whether it is running.
  public var isRunning: Bool { stopReason == nil && channel != nil }
}
