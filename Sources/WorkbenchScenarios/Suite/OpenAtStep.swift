import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSession
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench run FILE:LINE --shell`: a scenario run up to a line, handed to the shell.
@MainActor
public enum OpenAtStep {
  /// A session to open the shell on, and what to say first.
  public struct Start {
    public var session: WorkbenchSession
    /// Where the session is, the failures on the way, and what to type next.
    public var introduction: String
  }

  /// The session `run` with `options` (`--shell`) opens the shell on, or the exit code after
  /// the problem was written to standard error.
  ///
  /// - Parameters:
  ///   - frontEnd: the commands the front end brings (the shell's `record`, `quit`): the
  ///     session has them; the scenario, checked as `check` does, may not use them.
  ///   - rows: how many rows a list shows (`--rows`), in place of the scenario's own.
  public static func start(
    _ options: RunOptions, modules: [any FeatureModule], frontEnd: [CommandSpec], rows: Int? = nil
  ) -> Result<Start, ExitCode> {
    func fail(_ message: String, status: ExitCode = .usage) -> Result<Start, ExitCode> {
      StandardStreams.write("workbench run --shell: \(message)\n", to: STDERR_FILENO)
      return .failure(status)
    }
    guard options.paths.count == 1, let file = options.paths.first, !FileSystem.isDirectory(file) else {
      return fail("name one scenario file, with the line to stop at: `workbench run FILE:LINE --shell`")
    }
    let runner: ScenarioRunner
    let loaded: ScenarioFile
    do {
      // One registration: the file is checked without the front end's commands, as `check`
      // does, and the session it opens has them.
      let registry = try ModuleRegistry(modules: modules)
      runner = ScenarioRunner(registry: try registry.bringing(frontEnd: frontEnd))
      loaded = try ScenarioLoader(registry: registry).load(file)
    } catch let error as ScenarioFileError {
      for problem in error.all { StandardStreams.write("error: \(problem)\n", to: STDERR_FILENO) }
      return .failure(.usage)
    } catch let error as RegistrationError {
      return fail("the modules failed to register: \(error.message)", status: .failure)
    } catch {
      return fail("\(error)", status: .failure)
    }
    let line = options.lines[file]?.max()
    var candidates = loaded.scenarios
    // The row written on the line (a row of an `examples` table), or every row of the
    // scenario holding it; then `-k` among them.
    if let line { candidates = candidates.filter { SuiteRunner.holds([line], $0, in: loaded.scenarios) } }
    let held = candidates.count
    if let pattern = options.filter, case .success(let regex) = RegexLimits.compile(pattern) {
      candidates = candidates.filter { regex.matches(in: $0.name) }
    }
    guard var scenario = candidates.first else {
      if held > 0, let line, let pattern = options.filter {
        return fail("no scenario at \(file):\(line) has a name that -k \(pattern) matches")
      }
      return fail(
        line.map { "\(file):\($0) is before the file's first scenario" } ?? "\(file) holds no scenario to open")
    }
    if let rows { scenario.viewportRows = rows }
    var count = line.map { ScenarioRunner.stepCount(reaching: $0, of: file, in: scenario) } ?? scenario.steps.count
    // A row named by its own line is opened as far as a run takes it: to its first failing
    // step, or to its end.
    if let line, scenario.row?.line == line {
      count = scenario.steps.count
      if let failure = runner.run(scenario).failure,
        let index = scenario.steps.firstIndex(where: {
          $0.location == failure.location || $0.location.line == failure.location.line
        })
      {
        count = index + 1
      }
    }
    let opened: ScenarioRunner.Opened
    do {
      opened = try runner.open(scenario, steps: count)
    } catch {
      return fail("\"\(scenario.name)\" could not be set up: \(error.message)", status: .failure)
    }
    return .success(Start(session: opened.session, introduction: introduction(scenario, opened)))
  }

  /// What the shell says as it opens: where the session is, what failed on the way there.
  static func introduction(_ scenario: Scenario, _ opened: ScenarioRunner.Opened) -> String {
    var lines: [String] = []
    let place = "\"\(scenario.name)\" (\(scenario.identity))"
    if opened.stepsRun == 0 {
      lines.append("opened \(place) after its set-up, before step 1 of \(scenario.steps.count)")
    } else {
      let step = scenario.steps[opened.stepsRun - 1]
      lines.append(
        "opened \(place) after step \(opened.stepsRun) of \(scenario.steps.count): \(step.summary) (\(step.location))")
    }
    for failure in opened.failures {
      lines.append("step at \(failure.location) failed: \(failure.message)")
      lines += failure.details.map { "  " + $0 }
    }
    lines.append(
      "`travel steps` lists the steps, `travel back` and `travel forward` move through them; "
        + "`record start FILE` records a scenario from its start to wherever you take it")
    return lines.joined(separator: "\n")
  }
}
