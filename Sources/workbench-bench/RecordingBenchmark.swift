import BuiltInModules
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchSession
@_spi(Benchmarks) import WorkbenchShell
import WorkbenchStore

#if canImport(Glibc)
  import Glibc
#endif

/// What recording costs: in-process, the shell's own controller runs the same session plainly
/// and recording (CPU time, so real-time waits do not count), with frames shown and with
/// `--quiet`; then the real binary records a session and `workbench run` replays it, with wall
/// time and peak memory from the OS.
@MainActor
enum RecordingBenchmark {
  static func run(commands: Int) -> [String] {
    // The shell's registry: `record` is one of the shell's own commands.
    guard let registry = RecordingCost.registry(modules: builtInModules) else {
      return ["recording: modules failed"]
    }
    let lines = session(commands: commands)
    var template = "/tmp/workbench-bench-recording-XXXXXX".utf8CString
    guard
      let folder = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }).map({ String(cString: $0) })
    else { return ["recording: could not make a temporary folder"] }
    var report = [
      "recording (\(commands) piped commands over a catalog and a feed, settling now and then; CPU time, median of 11 pairs):"
    ]
    for quiet in [false, true] {
      func measure(recording: Bool, attempt: Int) -> (running: Double, writing: Double)? {
        guard let store = try? WorkspaceStore.inMemory(),
          let session = try? WorkbenchSession(
            registry: registry, environment: ScreenEnvironment(), clock: .real, store: store, restoringWindows: false)
        else { return nil }
        let path = recording ? folder + "/in-process-\(quiet ? "quiet" : "shown")-\(attempt).yaml" : nil
        defer { session.end() }
        return silenced { RecordingCost.run(lines, session: session, recordingTo: path, quiet: quiet) }
      }
      // Plain and recording runs take turns, so the machine's noise falls on both alike; the
      // change is the median of each pair's ratio (a best-of of each side apart moved from -3%
      // to +39% between runs of one build).
      var plain: [Double] = []
      var ratios: [Double] = []
      var writing = Double.infinity
      for attempt in 0..<11 {
        guard let a = measure(recording: false, attempt: attempt), let b = measure(recording: true, attempt: attempt)
        else {
          return report + ["  could not open a session, or `record start`/`record stop` failed: nothing measured"]
        }
        plain.append(a.running)
        ratios.append(b.running / a.running)
        writing = min(writing, b.writing)
      }
      let perPlain = percentile(plain, 50) / Double(commands) * 1e6
      let ratio = percentile(ratios, 50)
      let perRecorded = perPlain * ratio
      let change = (ratio - 1) * 100
      report.append(
        "  \(quiet ? "--quiet      " : "frames shown ")  a command \(format(perPlain, 1)) µs plain, \(format(perRecorded, 1)) µs"
          + " recording (\(change >= 0 ? "+" : "")\(format(change, 1))%; target: under 10%);"
          + " record stop writes it in \(format(writing * 1000, 1)) ms")
    }

    // The real binary records the session; `workbench run` replays the recording.
    let workbench = buildFolder() + "/workbench"
    setenv("XDG_DATA_HOME", folder + "/data", 1)
    setenv("XDG_STATE_HOME", folder + "/state", 1)
    let recording = folder + "/session.yaml"
    let input = folder + "/input.txt"
    let text = (["record start \(recording)"] + lines + ["record stop"]).joined(separator: "\n") + "\n"
    guard write(text, to: input), timeProcess(workbench, ["-q", "--keep-going"], input: input) != nil else {
      return report + ["  recording with \(workbench) failed; build it with -c release first (files in \(folder))"]
    }
    var memory = 0.0
    let replay = bestOf(3) {
      guard let run = measureProcess(workbench, ["run", recording]) else { return .nan }
      memory = max(memory, run.peakMB)
      return run.seconds
    }
    let passes = timeProcess(workbench, ["run", recording], output: folder + "/replay.txt", strict: true) != nil
    report.append(
      "  `workbench run` replays the \(commands)-command recording in \(format(replay * 1000, 1)) ms wall,"
        + " \(childPeak(memory)) (target: under 1000 ms)"
        + (passes ? "; it passes" : "; it FAILS: see \(folder)/replay.txt"))
    return report
  }

  /// A session of `commands` lines over a catalog and a feed on a 1 ms network, settling now
  /// and then so loads land as they would at a person's pace.
  static func session(commands: Int) -> [String] {
    let cycle = [
      "@left select 7", "@left query the", "@left query", "@f search rent", "@left select 3", "@f search",
      "@left deselect", "@f search coffee", "settle",
    ]
    var lines = ["open feed account f", "network latency 1", "settle", "open catalog library left"]
    for index in 0..<commands { lines.append(cycle[index % cycle.count]) }
    return lines
  }

  /// Runs `body` with standard output sent to /dev/null.
  private static func silenced<Result>(_ body: () -> Result) -> Result {
    fflush(nil)
    let saved = dup(1)
    let null = open("/dev/null", O_WRONLY)
    dup2(null, 1)
    close(null)
    defer {
      fflush(nil)
      dup2(saved, 1)
      close(saved)
    }
    return body()
  }

  private static func write(_ text: String, to path: String) -> Bool {
    guard let file = fopen(path, "w") else { return false }
    defer { fclose(file) }
    return fputs(text, file) >= 0
  }
}
