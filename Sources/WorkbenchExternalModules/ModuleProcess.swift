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
    let argv = [strdup(path), nil]
    var child: pid_t = 0
    let result = posix_spawn(&child, path, &actions, nil, argv, environ)
    argv.forEach { free($0) }
    posix_spawn_file_actions_destroy(&actions)
    close(toChild[0])
    close(fromChild[1])
    guard result == 0 else {
      close(toChild[1])
      close(fromChild[0])
      throw CommandError("cannot start the module \(path): \(String(cString: strerror(result)))")
    }
    pid = child
    descriptors = [toChild[1], fromChild[0]]
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
      try channel.send(request)
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

  private func stoppedError(_ reason: String) -> CommandError {
    CommandError(
      "the module \(name) stopped: \(reason). Its windows were closed; the rest of the session is untouched. "
        + "`restart-module \(name)` starts it again")
  }

  /// Kills the process and records why.
  func stop(_ reason: String) {
    guard stopReason == nil else { return }
    stopReason = reason
    if pid > 0 {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
      pid = 0
    }
    for descriptor in descriptors { close(descriptor) }
    descriptors = []
    channel = nil
  }

  /// Starts a stopped module again.
  public func restart() throws(CommandError) {
    if stopReason == nil { stop("restarted") }
    restarts += 1
    try start()
  }

  /// Whether it is running.
  public var isRunning: Bool { stopReason == nil && channel != nil }
}
