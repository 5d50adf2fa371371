import Synchronization
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Tests run in parallel. A child spawned while another test holds a pipe's write end would
/// inherit it and keep that pipe open, so neither child ever sees end of input. Descriptors are
/// therefore made close-on-exec, and made and spawned under this lock so no spawn can slip in
/// between `pipe` and `fcntl`.
public let spawnLock = Mutex(())

/// Marks descriptors close-on-exec (posix_spawn's dup2 clears the flag on the child's copies).
public func closeOnExec(_ descriptors: [Int32]) {
  for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
}

/// What a finished child process left behind.
public struct ProcessResult {
  public var status: Int32
  public var stdout: String
  public var stderr: String
}

/// Runs the built `workbench` binary (or another program) with pipes, for end-to-end tests.
public enum ChildProcess {
  /// The `workbench` binary beside the test bundle in the build folder.
  public static var workbenchPath: String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let executable = length > 0 ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    let folder = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    return folder + "/workbench"
  }

  /// The environment tests run the binary in: this process's, with overrides applied
  /// (a `nil` value removes the variable).
  public static func environment(_ overrides: [String: String?]) -> [String] {
    var variables: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
      let text = String(cString: entry)
      if let equals = text.firstIndex(of: "=") {
        variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
      pointer += 1
    }
    // The kits, from the repository's packages themselves (a user installs them: pip install
    // Kits/python, npm install Kits/javascript), for the example modules the tests start.
    variables["PYTHONPATH"] = [Kits.python, variables["PYTHONPATH"]].compactMap { $0 }.joined(separator: ":")
    variables["NODE_PATH"] = [Kits.nodeModules, variables["NODE_PATH"]].compactMap { $0 }.joined(separator: ":")
    for (key, value) in overrides { variables[key] = value }
    return variables.map { "\($0.key)=\($0.value)" }
  }

  /// Where the tests find each language's kit.
  public enum Kits {
    /// The Python kit's folder (its `workbench_module.py`), for PYTHONPATH.
    public static let python = repositoryRoot() + "/Kits/python"
    /// A `node_modules` folder that holds the JavaScript kit under its package name, for
    /// NODE_PATH: a link to Kits/javascript, made once per test process.
    public static let nodeModules: String = {
      let folder = makeTemporaryFolder() + "/node_modules"
      mkdir(folder, 0o755)
      symlink(repositoryRoot() + "/Kits/javascript", folder + "/workbench-module")
      return folder
    }()
  }

  /// Whether the tests run under a sanitizer (CI's ASan and TSan runs set these), which turns
  /// a crash by signal into a report and an exit status.
  public static var isSanitized: Bool { getenv("ASAN_OPTIONS") != nil || getenv("TSAN_OPTIONS") != nil }

  /// Runs `workbench` with `arguments`, feeding it `input` on standard input. Unless the
  /// overrides say otherwise, it gets a workspace and history of its own in a fresh folder, so
  /// tests never touch the user's files or each other's.
  public static func runWorkbench(
    _ arguments: [String], input: [UInt8] = [], environment overrides: [String: String?] = [:]
  ) -> ProcessResult {
    run(workbenchPath, arguments, input: input, environment: environment(isolated(overrides)))
  }

  /// Runs `workbench` as `runWorkbench` does, feeding it `pieces` of input with a pause of
  /// `pause` milliseconds after each: what a module does between one line and the next then
  /// happens before the next is read, every time.
  public static func runWorkbench(
    _ arguments: [String], pieces: [String], pause: Int, environment overrides: [String: String?] = [:]
  ) -> ProcessResult {
    run(
      workbenchPath, arguments, input: [], pieces: pieces.map { Array($0.utf8) }, pause: pause,
      environment: environment(isolated(overrides)))
  }

  /// The overrides, plus XDG folders in a fresh temporary folder where not given.
  public static func isolated(_ overrides: [String: String?]) -> [String: String?] {
    var result = overrides
    let folder = makeTemporaryFolder()
    if result["XDG_DATA_HOME"] == nil { result["XDG_DATA_HOME"] = folder + "/data" }
    if result["XDG_STATE_HOME"] == nil { result["XDG_STATE_HOME"] = folder + "/state" }
    return result
  }

  public static func run(
    _ path: String, _ arguments: [String], input: [UInt8], pieces: [[UInt8]] = [], pause: Int = 0,
    environment: [String]
  ) -> ProcessResult {
    var inPipe: [Int32] = [0, 0]
    var outPipe: [Int32] = [0, 0]
    var errPipe: [Int32] = [0, 0]
    let pid = spawnLock.withLock { _ -> pid_t in
      pipe(&inPipe)
      pipe(&outPipe)
      pipe(&errPipe)
      closeOnExec(inPipe + outPipe + errPipe)
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
      posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
      posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
      let pid = spawn(path, arguments, environment: environment, actions: &actions)
      posix_spawn_file_actions_destroy(&actions)
      close(inPipe[0])
      close(outPipe[1])
      close(errPipe[1])
      return pid
    }
    guard pid > 0 else {
      for descriptor in [inPipe[1], outPipe[0], errPipe[0]] { close(descriptor) }
      return ProcessResult(status: -1, stdout: "", stderr: "could not start \(path)")
    }
    signal(SIGPIPE, SIG_IGN)
    for (index, piece) in ([input] + pieces).enumerated() {
      piece.withUnsafeBytes { bytes in
        var offset = 0
        while offset < bytes.count {
          let written = write(inPipe[1], bytes.baseAddress! + offset, bytes.count - offset)
          if written <= 0 { break }
          offset += written
        }
      }
      if index > 0 { usleep(useconds_t(pause) * 1000) }
    }
    close(inPipe[1])
    let (stdout, stderr) = drain(outPipe[0], errPipe[0])
    // A child that hangs must fail its test, not hang the suite.
    var status: Int32 = 0
    var waited = 0
    while waitpid(pid, &status, WNOHANG) == 0 {
      if waited >= 30_000 {
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return ProcessResult(status: -1, stdout: stdout, stderr: stderr + "\n(killed after 30 s)")
      }
      usleep(10_000)
      waited += 10
    }
    let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return ProcessResult(status: exitCode, stdout: stdout, stderr: stderr)
  }

  static func spawn(
    _ path: String, _ arguments: [String], environment: [String], actions: inout posix_spawn_file_actions_t
  ) -> pid_t {
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup($0) } + [nil]
    defer {
      argv.forEach { free($0) }
      envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    var attributes = defaultSignalAttributes()
    defer { posix_spawnattr_destroy(&attributes) }
    let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    return result == 0 ? pid : -1
  }

  /// Spawn attributes that start the child with SIGPIPE, SIGINT, SIGTERM and SIGHUP at their
  /// default dispositions and none blocked, as a login shell starts a program. The test process
  /// ignores SIGPIPE (it writes to children that may have exited), and an ignored signal is
  /// inherited across exec: without this, a child that would die of SIGPIPE in a user's shell
  /// would survive under test and hide the crash. Destroy the result with
  /// `posix_spawnattr_destroy`.
  public static func defaultSignalAttributes() -> posix_spawnattr_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var unblocked = sigset_t()
    sigemptyset(&unblocked)
    posix_spawnattr_setsigmask(&attributes, &unblocked)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    return attributes
  }

  /// Reads two descriptors to their ends without letting either pipe fill up.
  private static func drain(_ first: Int32, _ second: Int32) -> (String, String) {
    var outputs: [[UInt8]] = [[], []]
    var open = [first, second]
    var buffer = [UInt8](repeating: 0, count: 65536)
    while open.contains(where: { $0 >= 0 }) {
      var descriptors = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      // A child may be silent for a while (a module's 10 s handshake timeout); one that says
      // nothing for 30 s is killed by the caller.
      if poll(&descriptors, 2, 30_000) <= 0 { break }
      for index in 0..<2 where open[index] >= 0 && descriptors[index].revents != 0 {
        let count = read(open[index], &buffer, buffer.count)
        if count > 0 {
          outputs[index] += buffer[..<count]
        } else {
          close(open[index])
          open[index] = -1
        }
      }
    }
    return (String(decoding: outputs[0], as: UTF8.self), String(decoding: outputs[1], as: UTF8.self))
  }
}

/// Reads a whole file as text.
public func readTextFile(_ path: String) -> String? {
  readBytes(path).map { String(decoding: $0, as: UTF8.self) }
}

/// A trace file of `run --trace` (`frames.jsonl`, a scenario's `.trace.json`) as two runs of
/// the same scenarios must agree on it: its lines sorted (workers write frames in the order
/// they meet them) and the times left out. `nil` when it cannot be read.
public func traceWithoutTimings(_ path: String) -> String? {
  guard let text = readTextFile(path) else { return nil }
  return text.split(separator: "\n").sorted().joined(separator: "\n")
    .replacing(/"(ms|duration)":[0-9.e-]+/, with: "")
}

/// Reads a whole file's bytes, or `nil` when it cannot be opened.
public func readBytes(_ path: String) -> [UInt8]? {
  let descriptor = open(path, O_RDONLY)
  guard descriptor >= 0 else { return nil }
  defer { close(descriptor) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = read(descriptor, &buffer, buffer.count)
    if count <= 0 { break }
    bytes += buffer[..<count]
  }
  return bytes
}

/// A fresh temporary folder.
public func makeTemporaryFolder() -> String {
  var template = Array("/tmp/workbench-test-XXXXXX".utf8CString)
  let path = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
  return path.map { String(cString: $0) } ?? "/tmp"
}

/// The repository's root folder, found from this source file's path.
public func repositoryRoot(file: String = #filePath) -> String {
  var parts = file.split(separator: "/", omittingEmptySubsequences: false)
  while let last = parts.last, last != "Tests" { parts.removeLast() }
  parts.removeLast()
  return parts.joined(separator: "/")
}

/// Writes a whole file.
public func writeTextFile(_ text: String, to path: String) {
  let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  guard descriptor >= 0 else { return }
  defer { close(descriptor) }
  var bytes = Array(text.utf8)
  _ = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress, $0.count) }
}

/// Writes bytes to a file.
public func writeBytes(_ bytes: [UInt8], to path: String) {
  let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  guard descriptor >= 0 else { return }
  defer { close(descriptor) }
  var bytes = bytes
  _ = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress, $0.count) }
}

/// The names of the entries in a folder, sorted.
public func folderEntries(_ path: String) -> [String] {
  guard let directory = opendir(path) else { return [] }
  defer { closedir(directory) }
  var names: [String] = []
  while let entry = readdir(directory) {
    let name = FileSystem.entry(entry).name
    if !name.hasPrefix(".") { names.append(name) }
  }
  return names.sorted()
}

/// Whether process `pid` has ended (gone, or a zombie waiting to be reaped) within about two
/// seconds; one that has not is killed, so a failing test leaves nothing running.
public func processEnds(_ pid: pid_t) -> Bool {
  for _ in 0..<100 {
    let state = readTextFile("/proc/\(pid)/stat").map { $0.split(separator: " ").dropFirst(2).first ?? "" }
    if state == nil || state == "Z" { return true }
    usleep(20_000)
  }
  kill(pid, SIGKILL)
  return false
}
