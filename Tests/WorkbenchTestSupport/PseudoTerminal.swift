#if canImport(Glibc)
  import Glibc
#endif

/// Runs `workbench` on a pseudo-terminal, types into it and reads the screen's byte stream,
/// the way a person at a terminal would use the shell.
public final class PseudoTerminalSession {
  private let master: Int32
  private let pid: pid_t
  public private(set) var transcript: [UInt8] = []

  public init?(arguments: [String] = [], environment overrides: [String: String?]) {
    var master: Int32 = -1
    var slave: Int32 = -1
    var size = winsize(ws_row: 40, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0)
    var started = false
    var pid: pid_t = 0
    spawnLock.withLock { _ in
      guard openpty(&master, &slave, nil, nil, &size) == 0 else { return }
      closeOnExec([master, slave])
      started = Self.spawn(master: master, slave: slave, arguments: arguments, overrides: overrides, pid: &pid)
    }
    guard started else { return nil }
    self.master = master
    self.pid = pid
  }

  private static func spawn(
    master: Int32, slave: Int32, arguments: [String], overrides: [String: String?], pid: inout pid_t
  ) -> Bool {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    for target: Int32 in 0...2 { posix_spawn_file_actions_adddup2(&actions, slave, target) }
    // Test threads may block signals and the test process ignores SIGPIPE; a spawned child
    // inherits both: start it with none blocked and the usual signals at their defaults, as a
    // login shell would.
    var attributes = ChildProcess.defaultSignalAttributes()
    // util-linux's setsid starts a new session and makes the terminal its controlling terminal
    // (posix_spawn cannot), so Ctrl-C sends SIGINT as at a real terminal. It does not fork here,
    // since the spawned child is not a process-group leader, so `pid` is the shell's own.
    let path = "/usr/bin/setsid"
    let argv = ([path, "--ctty", ChildProcess.workbenchPath] + arguments).map { strdup($0) } + [nil]
    let envp = ChildProcess.environment(ChildProcess.isolated(overrides)).map { strdup($0) } + [nil]
    let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    argv.forEach { free($0) }
    envp.forEach { free($0) }
    posix_spawn_file_actions_destroy(&actions)
    posix_spawnattr_destroy(&attributes)
    close(slave)
    if result != 0 { close(master) }
    return result == 0
  }

  deinit {
    kill(pid, SIGKILL)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    close(master)
  }

  /// Types text as if at the keyboard.
  public func type(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(master, $0.baseAddress, $0.count) }
  }

  /// Reads until the screen output since `from` contains `text`, or `seconds` pass.
  @discardableResult
  public func waitFor(_ text: String, after from: Int = 0, seconds: Int = 10) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 4096)
    var waited = 0
    while waited < seconds * 1000 {
      if screen(from: from).contains(text) { return true }
      var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
      if poll(&descriptor, 1, 50) > 0 {
        let count = read(master, &buffer, buffer.count)
        if count <= 0 { return screen(from: from).contains(text) }
        transcript += buffer[..<count]
      } else {
        waited += 50
      }
    }
    return screen(from: from).contains(text)
  }

  /// The byte offset just past the first `text` the terminal received after byte `from`.
  public func offset(after text: String, from: Int = 0) -> Int? {
    let needle = Array(text.utf8)
    guard !needle.isEmpty, transcript.count >= needle.count else { return nil }
    var index = min(from, transcript.count)
    while index + needle.count <= transcript.count {
      if transcript[index..<(index + needle.count)].elementsEqual(needle) { return index + needle.count }
      index += 1
    }
    return nil
  }

  /// What the terminal received since byte `from`, as text.
  public func screen(from: Int = 0) -> String {
    String(decoding: transcript[min(from, transcript.count)...], as: UTF8.self)
  }

  /// The exit status once the process ends, or `nil` if it is still running after `seconds`.
  public func exitStatus(seconds: Int = 20) -> Int32? {
    for _ in 0..<(seconds * 20) {
      var status: Int32 = 0
      if waitpid(pid, &status, WNOHANG) == pid {
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
      }
      drain(milliseconds: 50)  // keep reading so the child never blocks on output
    }
    return nil
  }

  /// Sends a signal to the shell, as `kill` from another terminal would.
  public func send(signal: Int32) { kill(pid, signal) }

  /// Resizes the terminal, as a person dragging its window does: the program hears SIGWINCH.
  public func resize(columns: Int, rows: Int = 40) {
    var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(master, UInt(TIOCSWINSZ), &size)
  }

  /// What the kernel says the child is waiting in, for failure messages.
  public var childState: String {
    let wchan = readTextFile("/proc/\(pid)/wchan") ?? "?"
    let status =
      readTextFile("/proc/\(pid)/status")?.split(separator: "\n").filter {
        $0.hasPrefix("State") || $0.hasPrefix("Sig")
      } ?? []
    return "wchan=\(wchan) \(status.joined(separator: " "))"
  }

  /// Lets `milliseconds` of real time pass, reading whatever the terminal receives meanwhile.
  public func pass(milliseconds: Int) {
    let deadline = monotonicNow() + milliseconds
    while case let left = deadline - monotonicNow(), left > 0 { drain(milliseconds: Int32(min(left, 50))) }
  }

  private func monotonicNow() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
  }

  /// Reads whatever arrives within `milliseconds`.
  private func drain(milliseconds: Int32) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
    if poll(&descriptor, 1, milliseconds) > 0 {
      let count = read(master, &buffer, buffer.count)
      if count > 0 { transcript += buffer[..<count] } else { usleep(UInt32(milliseconds) * 1000) }
    }
  }
}

/// The monotonic clock in milliseconds, for tests that bound how long something took.
public func monotonicMilliseconds() -> Int {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
}

extension PseudoTerminalSession {
  /// The environment of a shell started on a pseudo-terminal in a test: its state and data
  /// under `folder`, a plain xterm, no colour, readline's settings from `inputrc`, and no pager
  /// (a test of paging names one).
  public static func environment(_ folder: String, inputrc: String = "/dev/null") -> [String: String?] {
    [
      "XDG_STATE_HOME": folder, "XDG_DATA_HOME": folder + "/data", "TERM": "xterm", "NO_COLOR": "1",
      "INPUTRC": inputrc, "PAGER": "", "WORKBENCH_PAGER": nil,
    ]
  }
}
