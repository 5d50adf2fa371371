import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchSession

#if canImport(Glibc)
  import Glibc
#endif

/// What recording costs a session, measured in-process by `workbench-bench recording`: the
/// same shell controller the shell uses runs `lines`, recording to `path` when given. Output
/// goes to standard output, as in the shell (the benchmark points it elsewhere).
@_spi(Benchmarks)
public enum RecordingCost {
  /// The modules' registry with the shell's own commands (`record` among them), as the shell
  /// makes it (`nil` when the modules do not register): a session on a registry without them
  /// refuses `record` as a scenario does.
  @MainActor
  public static func registry(modules: [any FeatureModule]) -> ModuleRegistry? {
    try? ShellCommands.registry(modules: modules)
  }

  /// Runs the lines; returns the CPU time they took (real time spent waiting, as `settle`
  /// does, is not counted), and the CPU time `record stop` took to write the recording (zero
  /// without `path`); `nil` when `record start` or `record stop` failed, so that nothing is
  /// measured as recording that did not record.
  @MainActor
  public static func run(_ lines: [String], session: WorkbenchSession, recordingTo path: String?, quiet: Bool)
    -> (running: Double, writing: Double)?
  {
    var options = ShellOptions()
    options.keepGoing = true
    options.quiet = quiet
    let controller = ShellController(
      session: session, options: options, output: OutputWriter(json: false, color: false))
    if let path, controller.execute("record start " + CommandTokenizer.quoted(path), place: nil) != .ran { return nil }
    let start = cpuTime()
    for line in lines { _ = controller.execute(line, place: nil) }
    let ran = cpuTime()
    if path != nil, controller.execute("record stop", place: nil) != .ran { return nil }
    return (ran - start, cpuTime() - ran)
  }

  private static func cpuTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}
