import Testing
import WorkbenchStore
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A shell saving edit after edit is killed with SIGKILL at random moments, many times over.
/// After each kill the workspace must open, pass `PRAGMA integrity_check`, and hold every save
/// the shell reported (a frame is printed only after its save committed).
@MainActor
@Suite struct CrashSafetyTests {
  @Test func killedMidSaveLosesNothingThatWasReported() throws {
    let folder = makeTemporaryFolder()
    let workspace = folder + "/workspace.sqlite"
    let script = folder + "/edits.txt"
    writeTextFile(
      "open catalog library w\n" + (1...4000).map { "add Book \($0)\n" }.joined(), to: script)
    var generator = SystemRandomNumberGenerator()
    var lastReported = 0
    for round in 1...12 {
      let output = runAndKill(
        arguments: ["--json", "--workspace", workspace], stdinFile: script,
        afterMilliseconds: Int.random(in: 40...250, using: &generator))
      // The last complete line is the last save the shell reported.
      let lines = output.split(separator: "\n", omittingEmptySubsequences: true).filter { $0.hasSuffix("}") }
      let reported =
        lines.compactMap { line -> Int? in
          guard let range = line.firstRange(of: #""revision":"#) else { return nil }
          return Int(line[range.upperBound...].prefix { $0.isNumber })
        }.max() ?? 0
      let store = try WorkspaceStore(path: workspace)
      #expect(try store.integrityCheck() == "ok", "round \(round)")
      let stored = try store.documentSummaries().first { $0.name == "library" }?.revision ?? 0
      #expect(stored >= reported, "round \(round): reported revision \(reported), stored \(stored)")
      #expect(stored >= lastReported, "round \(round): a save from an earlier round is gone")
      lastReported = max(lastReported, reported)
    }
    #expect(lastReported > 12, "the shell saved too little to test anything")
  }

  private func milliseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
  }

  /// Starts `workbench` with stdin from a file, reads its output for a while, then kills it.
  private func runAndKill(arguments: [String], stdinFile: String, afterMilliseconds: Int) -> String {
    var outPipe: [Int32] = [0, 0]
    let pid = spawnLock.withLock { _ -> pid_t in
      pipe(&outPipe)
      closeOnExec(outPipe)
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      posix_spawn_file_actions_addopen(&actions, 0, stdinFile, O_RDONLY, 0)
      posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
      let path = ChildProcess.workbenchPath
      let argv = ([path] + arguments).map { strdup($0) } + [nil]
      let envp = ChildProcess.environment(ChildProcess.isolated([:])).map { strdup($0) } + [nil]
      var pid: pid_t = 0
      var attributes = ChildProcess.defaultSignalAttributes()
      let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
      posix_spawnattr_destroy(&attributes)
      argv.forEach { free($0) }
      envp.forEach { free($0) }
      posix_spawn_file_actions_destroy(&actions)
      close(outPipe[1])
      return result == 0 ? pid : -1
    }
    guard pid > 0 else { return "" }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = milliseconds() + afterMilliseconds
    while milliseconds() < deadline {
      var descriptor = pollfd(fd: outPipe[0], events: Int16(POLLIN), revents: 0)
      if poll(&descriptor, 1, 10) > 0 {
        let count = read(outPipe[0], &buffer, buffer.count)
        if count <= 0 { break }
        bytes += buffer[..<count]
      }
    }
    kill(pid, SIGKILL)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    // Whatever the shell wrote before it died was reported to the user: read it all.
    while true {
      let count = read(outPipe[0], &buffer, buffer.count)
      if count <= 0 { break }
      bytes += buffer[..<count]
    }
    close(outPipe[0])
    return String(decoding: bytes, as: UTF8.self)
  }
}
