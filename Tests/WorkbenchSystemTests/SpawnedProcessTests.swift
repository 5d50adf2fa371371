import Testing
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Child processes as `SpawnedProcess` starts them: pipes both ways, how they ended, default
/// signal dispositions, and only the descriptors they were given.
struct SpawnedProcessTests {
  /// Bytes written to a child come back through its output, and its exit status is kept.
  @Test func aChildReadsWhatIsWrittenAndItsStatusIsKept() throws {
    let child = try SpawnedProcess("/bin/sh", arguments: ["-c", "cat; exit 3"], input: .pipe, output: .pipe)
    #expect(child.write(Array("over the pipe\n".utf8)))
    child.closeInput()
    var output: [UInt8] = []
    while let chunk = child.readOutput(), !chunk.isEmpty { output += chunk }
    #expect(String(decoding: output, as: UTF8.self) == "over the pipe\n")
    #expect(child.wait() == .exited(3))
    #expect(child.termination?.status == 3)
  }

  /// SIGPIPE starts at its default in the child even when this process ignores it: a child
  /// writing to a closed pipe ends by the signal, as it would from a login shell.
  @Test func aChildStartsWithSIGPIPEAtItsDefault() throws {
    let previous = signal(SIGPIPE, SIG_IGN)
    defer { signal(SIGPIPE, previous) }
    let child = try SpawnedProcess("/bin/sh", arguments: ["-c", "sleep 0.2; exec yes"], output: .pipe)
    child.closeOutput()
    #expect(child.wait() == .signalled(SIGPIPE))
    #expect(child.wait().status == 128 + SIGPIPE)
    #expect(child.wait().description.contains("SIGPIPE"))
  }

  /// A child's process descriptor is readable once the child ended, and not before; reaping it
  /// then gives its status.
  @Test func aProcessDescriptorIsReadableOnceTheChildEnded() throws {
    let child = try SpawnedProcess("/bin/sleep", arguments: ["5"])
    let ends = try #require(ProcessEnds.descriptor(of: child.pid), "pidfd_open: \(String(cString: strerror(errno)))")
    defer { close(ends) }
    #expect(!Descriptors.isReadable(ends))
    child.signal(SIGTERM)
    guard case .ready(let happened) = Descriptors.wait(for: ends, .readable, milliseconds: 5000) else {
      Issue.record("the process descriptor did not become readable")
      return
    }
    #expect(happened.contains(.readable))
    #expect(child.wait() == .signalled(SIGTERM))
  }

  /// A descriptor of this process not handed to the child is closed in it (close-on-exec and
  /// the spawn's own closing), so a child cannot hold a pipe of another child open.
  @Test func aChildHasOnlyTheDescriptorsItWasGiven() throws {
    var made: [Int32] = [-1, -1]
    #expect(pipe(&made) == 0)
    // Moved far above the lowest free descriptor: `ls /proc/self/fd` opens the folder it reads
    // as its lowest free one, which is the pipe's own number whenever the pipe took 3 and 4 (it
    // did under ThreadSanitizer), and was read as a pipe held. (Not close-on-exec, as `pipe`.)
    let ends = made.map { fcntl($0, F_DUPFD, 500) }
    made.forEach { close($0) }
    defer { ends.forEach { close($0) } }
    try #require(ends.allSatisfy { $0 >= 500 })
    let child = try SpawnedProcess("/bin/sh", arguments: ["-c", "ls /proc/self/fd"], output: .pipe)
    var output: [UInt8] = []
    while let chunk = child.readOutput(), !chunk.isEmpty { output += chunk }
    #expect(child.wait() == .exited(0))
    let open = String(decoding: output, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }
    #expect(!open.contains(ends[0]) && !open.contains(ends[1]), "the child holds \(open)")
  }

  /// A program that is not there is a `StartError` naming it, and a wait with a deadline on a
  /// child that goes on returns nothing until it ends. The child hears SIGTERM though the
  /// thread that started it blocks it (a test runner's threads do, as Dispatch's workers do): a
  /// child inherits its spawner's signal mask unless the spawn clears it, and this one ran its
  /// full five seconds before the spawn did.
  @Test func aMissingProgramIsAnErrorAndAWaitCanBeBounded() throws {
    var blocked = sigset_t()
    var previous = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &blocked, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    #expect(throws: SpawnedProcess.StartError.self) { try SpawnedProcess("/no/such/program") }
    let child = try SpawnedProcess("/bin/sleep", arguments: ["5"])
    #expect(child.wait(upTo: 50) == nil)
    child.signal(SIGTERM)
    #expect(child.wait() == .signalled(SIGTERM))
  }

  /// An exchange writes and reads at once: a child that writes 200 KB before it reads any of the
  /// 200 KB it is given (either pipe alone would fill and stall) gives both back; one that
  /// never ends its output is left at the deadline with `nil`.
  @Test func anExchangeNeitherStallsNorOutwaitsItsDeadline() throws {
    let given = [UInt8](repeating: 0x62, count: 200_000)
    let child = try SpawnedProcess(
      "/bin/sh", arguments: ["-c", "head -c 200000 /dev/zero; cat"], input: .pipe, output: .pipe)
    let received = try #require(child.exchange(given, within: 10_000))
    #expect(received.count == 400_000)
    #expect(received.suffix(200_000).allSatisfy { $0 == 0x62 })
    #expect(child.wait() == .exited(0))
    let silent = try SpawnedProcess("/bin/sleep", arguments: ["5"], input: .pipe, output: .pipe)
    #expect(silent.exchange([], within: 100) == nil)
    silent.signal(SIGKILL)
    #expect(silent.wait() == .signalled(SIGKILL))
  }
}
