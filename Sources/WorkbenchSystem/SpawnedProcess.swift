import CSystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// A child process the workbench started, with pipes to the standard streams it asked for.
///
/// The child gets the descriptors it was given and no others (every descriptor above them is
/// closed in it before it runs), so it cannot keep another child's pipe open, and its pipes
/// are close-on-exec from the moment they exist (`pipe2`), so no child started elsewhere, on
/// any thread, inherits them.
/// Signals this process ignores (SIGPIPE above all) start at their defaults in the child, as
/// from a login shell (`Spawning`).
public final class SpawnedProcess {
  /// Where one of the child's standard streams goes.
  public enum Stream: Sendable {
    /// A pipe to this process (`input`, `output` or `errorOutput`).
    case pipe
    /// `/dev/null`.
    case null
    /// This process's own.
    case inherited
    /// A file: read from for the input; for an output, created or emptied and written to.
    case file(String)
  }

  /// How the child ended.
  public enum Termination: Equatable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case signalled(Int32)

    /// The status a shell would give: the exit status, or 128 and the signal.
    public var status: Int32 {
      switch self {
      case .exited(let status): return status
      case .signalled(let signal): return 128 + signal
      }
    }

    public var description: String {
      switch self {
      case .exited(let status): return "it exited with status \(status)"
      case .signalled(let signal): return "it was ended by signal \(signal) (\(Termination.signalName(signal)))"
      }
    }

    static func signalName(_ signal: Int32) -> String {
      switch signal {
      case SIGKILL: return "SIGKILL"
      case SIGTERM: return "SIGTERM"
      case SIGSEGV: return "SIGSEGV"
      case SIGABRT: return "SIGABRT"
      case SIGILL: return "SIGILL"
      case SIGBUS: return "SIGBUS"
      case SIGPIPE: return "SIGPIPE"
      case SIGINT: return "SIGINT"
      case SIGTRAP: return "SIGTRAP"
      default: return "signal \(signal)"
      }
    }

    init(waitStatus status: Int32) {
      self = (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
    }
  }

  /// What could not be started, in words.
  public struct StartError: Error, CustomStringConvertible {
    public var description: String
  }

  /// The child's process id.
  public let pid: pid_t
  /// Whether it leads a process group of its own (then `signal` reaches what it started too).
  public let leadsGroup: Bool
  /// The write end of its standard input, when that is a pipe (`closeInput` closes it).
  public private(set) var input: Int32?
  /// The read end of its standard output, when that is a pipe.
  public private(set) var output: Int32?
  /// The read end of its standard error, when that is a pipe.
  public private(set) var errorOutput: Int32?
  /// How it ended, once `wait` or `ended` has seen it.
  public private(set) var termination: Termination? {
    didSet { if isWorker, termination != nil { ChildGroups.releaseWorker(pid) } }
  }
  /// Whether it is a worker of this program's, ended (SIGTERM) when a signal ends this program.
  private let isWorker: Bool

  /// Starts `executable` (a path; with `searchingPath`, a name looked up on `PATH`).
  ///
  /// - Parameters:
  ///   - environment: `NAME=value` entries; this process's environment when `nil`.
  ///   - defaultSignals: the signals that start at their default disposition.
  ///   - newProcessGroup: whether the child leads a group of its own, so stopping it ends what
  ///     it started, and Ctrl-C at a terminal reaches only the foreground group.
  ///   - descriptors: more of this process's descriptors to give the child, each at a number.
  ///   - worker: whether the child is this program started again as a worker (of `run -j`,
  ///     `explore -j`, the language server's runs): a signal that ends this program sends it
  ///     SIGTERM, and it ends the module processes it started (`ChildGroups`).
  /// - Throws: `StartError` when there are no pipes or the program does not start.
  public init(
    _ executable: String, arguments: [String] = [], environment: [String]? = nil,
    input inputStream: Stream = .null, output outputStream: Stream = .pipe, error errorStream: Stream = .null,
    defaultSignals: [Int32] = [SIGPIPE], newProcessGroup: Bool = false,
    descriptors: [(source: Int32, target: Int32)] = [], searchingPath: Bool = false, worker: Bool = false
  ) throws(StartError) {
    var parentEnds: [Int32] = []
    var childEnds: [Int32] = []
    func makePipe() throws(StartError) -> (read: Int32, write: Int32) {
      guard let ends = Descriptors.pipe() else {
        for descriptor in parentEnds + childEnds { close(descriptor) }
        throw StartError(description: "cannot start \(executable): no pipes (\(String(cString: strerror(errno))))")
      }
      return ends
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var inputEnd: Int32?
    var outputEnd: Int32?
    var errorEnd: Int32?
    for (stream, target) in [(inputStream, Int32(0)), (outputStream, 1), (errorStream, 2)] {
      switch stream {
      case .inherited: break
      case .null:
        posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
      case .file(let path):
        posix_spawn_file_actions_addopen(
          &actions, target, path, target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC, 0o644)
      case .pipe:
        let ends = try makePipe()
        let (mine, theirs) = target == 0 ? (ends.write, ends.read) : (ends.read, ends.write)
        parentEnds.append(mine)
        childEnds.append(theirs)
        posix_spawn_file_actions_adddup2(&actions, theirs, target)
        switch target {
        case 0: inputEnd = mine
        case 1: outputEnd = mine
        default: errorEnd = mine
        }
      }
    }
    for (source, target) in descriptors { posix_spawn_file_actions_adddup2(&actions, source, target) }
    workbench_spawn_close_from(&actions, max(3, (descriptors.map(\.target).max() ?? 2) + 1))
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let environmentEntries = environment.map { $0.map { strdup($0) } + [nil] }
    defer {
      argv.forEach { free($0) }
      environmentEntries?.forEach { free($0) }
    }
    var child: pid_t = 0
    let result = Spawning.withDefaultSignals(defaultSignals, newProcessGroup: newProcessGroup) { attributes in
      if let environmentEntries {
        return searchingPath
          ? posix_spawnp(&child, executable, &actions, &attributes, argv, environmentEntries)
          : posix_spawn(&child, executable, &actions, &attributes, argv, environmentEntries)
      }
      return searchingPath
        ? posix_spawnp(&child, executable, &actions, &attributes, argv, environ)
        : posix_spawn(&child, executable, &actions, &attributes, argv, environ)
    }
    for descriptor in childEnds { close(descriptor) }
    guard result == 0 else {
      for descriptor in parentEnds { close(descriptor) }
      throw StartError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
    }
    pid = child
    isWorker = worker
    if worker { ChildGroups.holdWorker(child) }
    leadsGroup = newProcessGroup
    input = inputEnd
    output = outputEnd
    errorOutput = errorEnd
  }

  deinit {
    for descriptor in [input, output, errorOutput].compactMap({ $0 }) { close(descriptor) }
    if isWorker, termination == nil { ChildGroups.releaseWorker(pid) }
  }

  /// Hands this side's ends of the pipes to the caller, who closes them from now on.
  public func releaseDescriptors() -> (input: Int32?, output: Int32?, error: Int32?) {
    defer {
      input = nil
      output = nil
      errorOutput = nil
    }
    return (input, output, errorOutput)
  }

  /// Closes the child's standard input (it reads end of input).
  public func closeInput() {
    if let input { close(input) }
    input = nil
  }

  /// Closes this side of the child's standard output (once read to its end).
  public func closeOutput() {
    if let output { close(output) }
    output = nil
  }

  /// Writes all of `bytes` to the child's standard input; `false` when it stopped reading.
  @discardableResult
  public func write(_ bytes: [UInt8]) -> Bool {
    guard let input else { return false }
    return FileSystem.writeAll(bytes, to: input)
  }

  /// Reads what is there on the child's standard output (waiting for some when there is none):
  /// `nil` at its end.
  public func readOutput(limit: Int = 65536) -> [UInt8]? {
    guard let output else { return nil }
    var chunk = [UInt8](repeating: 0, count: limit)
    while true {
      let count = read(output, &chunk, chunk.count)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return nil }
      return Array(chunk[..<count])
    }
  }

  /// Writes `bytes` to the child's input, closing it after them, while reading the child's
  /// output, until the output ends or `milliseconds` pass, with one wait on both pipes (a
  /// child that writes before it has read all it is given cannot stall the exchange): what it
  /// wrote, or `nil` when time ran out first (the child may still run: end it).
  public func exchange(_ bytes: [UInt8], within milliseconds: Int) -> [UInt8]? {
    guard let output else { return nil }
    if let input { _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK) }
    if bytes.isEmpty { closeInput() }
    var written = 0
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    let deadline = Self.monotonicMilliseconds() + milliseconds
    while true {
      let left = deadline - Self.monotonicMilliseconds()
      guard left > 0 else { return nil }
      var wanted = [(descriptor: output, wanted: Readiness.readable)]
      if let input { wanted.append((input, .writable)) }
      let happened: [Readiness]
      switch Descriptors.wait(forAny: wanted, milliseconds: min(left, 1000)) {
      case .ready(let what): happened = what
      case .timedOut, .interrupted: continue
      case .failed: return nil
      }
      if let input, happened.count > 1, happened[1].happened {
        let count = bytes.withUnsafeBytes { Glibc.write(input, $0.baseAddress! + written, bytes.count - written) }
        if count > 0 { written += count }
        if written == bytes.count || (count < 0 && errno != EAGAIN && errno != EINTR) { closeInput() }
      }
      if happened[0].happened {
        let count = read(output, &chunk, chunk.count)
        if count > 0 {
          received += chunk[..<count]
        } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
          closeInput()
          return received
        }
      }
    }
  }

  /// Milliseconds on the monotonic clock (for deadlines: it never jumps with the wall clock).
  public static func monotonicMilliseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
  }

  /// Sends `signal` to the child, and to its whole group when it leads one (nothing once it
  /// has been waited for: its pid may belong to another process by then).
  public func signal(_ signal: Int32) {
    guard termination == nil else { return }
    if leadsGroup {
      kill(-pid, signal)
    } else {
      kill(pid, signal)
    }
  }

  /// Waits up to `milliseconds` for the child to end: how it ended, or `nil` if it runs on.
  public func wait(upTo milliseconds: Int) -> Termination? {
    if let termination { return termination }
    for attempt in 0...max(0, milliseconds / 5) {
      var status: Int32 = 0
      let reaped = waitpid(pid, &status, WNOHANG)
      if reaped == pid {
        termination = Termination(waitStatus: status)
        return termination
      }
      if reaped < 0, errno != EINTR { return wait() }
      if attempt < milliseconds / 5 { usleep(5_000) }
    }
    return nil
  }

  /// Waits for the child to end.
  @discardableResult
  public func wait() -> Termination {
    if let termination { return termination }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else {
        // Reaped elsewhere (a SIGCHLD handler set to ignore): nothing more can be known.
        termination = .exited(0)
        return .exited(0)
      }
    }
    let ended = Termination(waitStatus: status)
    termination = ended
    return ended
  }

  /// Waits for the child to end, and says the most memory it held (its peak resident size, in
  /// KB, as the kernel counted it): for measuring a program as a user meets it.
  public func waitMeasuringMemory() -> (termination: Termination, peakKilobytes: Int) {
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 {
      guard errno == EINTR else { return (wait(), 0) }
    }
    let ended = Termination(waitStatus: status)
    termination = ended
    return (ended, Int(usage.ru_maxrss))
  }

  /// How the child ended, when it has; `nil` while it runs (does not wait).
  public func ended() -> Termination? {
    if let termination { return termination }
    var status: Int32 = 0
    let result = waitpid(pid, &status, WNOHANG)
    guard result == pid else { return nil }
    termination = Termination(waitStatus: status)
    return termination
  }

  /// This program's own executable, as the kernel knows it (for starting workers of it).
  public static func ownExecutable() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else { return CommandLine.arguments.first ?? "workbench" }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
