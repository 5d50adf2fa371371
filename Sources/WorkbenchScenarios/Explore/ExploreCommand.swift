import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench explore`: random sessions against the loaded modules, a progress line on a
/// terminal, a summary (or `--json`), and the first failure shrunk and written as a scenario.
@MainActor
public enum ExploreCommand {
  /// What `explore` was asked.
  public struct Options: Sendable {
    public var paths: [String] = []
    public var explorer = Explorer.Options()
    public var out = "explore-failure.yaml"
    /// Whether a file at `out` may be replaced (`--force`).
    public var force = false
    public var json = false
    /// Whether `--runs` was given (with `--time` alone, the sessions are not counted).
    public var runsGiven = false
    /// Files of `always:` expectations (`--always`).
    public var alwaysPaths: [String] = []
    /// How many processes share the sessions (`--jobs`).
    public var jobs = 1
    /// In a worker: which part of the sessions it runs, of how many (`--part J/N`).
    public var part: (index: Int, of: Int)?
    /// The built-in modules left out (`--without-builtin`), which workers leave out too.
    public var builtInsLeftOut: [String] = []
    /// `--against MODULE`: a module to run the second run of each session on, in the place of
    /// the module that registers the same screens.
    public var againstPath: String?
    /// `--coverage FILE`: where to write what the sessions covered, as JSON.
    public var coveragePath: String?

    public init() {}
  }

  /// `explore`'s options, declared once (the parser, `--help`, the man page and the completion
  /// scripts are made from them).
  public static let options: [ProgramOption<Options>] = [
    .modules(\.paths),
    .value(["--seed"], "N", help: "where the random sessions start (default 1): the same seed finds the same") {
      options, text throws(ProgramUsageError) in
      guard let seed = UInt64(text) else {
        throw ProgramUsageError("--seed takes a whole number from 0, not '\(text)'")
      }
      options.explorer.seed = seed
    },
    .value(["--runs"], "N", help: "how many sessions at most (default 100, or no limit with --time)") {
      options, text throws(ProgramUsageError) in
      options.explorer.runs = try count(text, of: "--runs", in: 1...1_000_000_000)
      options.runsGiven = true
    },
    .value(["--time"], "DURATION", help: "go on for this long at most: 60s, 5m") {
      options, text throws(ProgramUsageError) in
      guard let time = SessionClock.parseDuration(text), time > .zero else {
        throw ProgramUsageError("--time takes a length of time such as 60s or 5m, not '\(text)'")
      }
      options.explorer.time = time
    },
    .value(["--steps"], "N", help: "commands in each session (default 30)") { options, text throws(ProgramUsageError) in
      options.explorer.steps = try count(text, of: "--steps", in: 1...10_000)
    },
    .value(
      ["--horizon"], "TIME",
      help: "the most session time a session covers (default 2d): waits are drawn up to it, on its timers' scales"
    ) { options, text throws(ProgramUsageError) in
      guard let horizon = SessionClock.parseDuration(text), horizon > .zero else {
        throw ProgramUsageError("--horizon takes a length of session time such as 1h or 7d, not '\(text)'")
      }
      options.explorer.horizon = horizon
    },
    .value(["--screens"], "NAMES", help: "open windows only on these screens (comma-separated)") {
      $0.explorer.screens = $1.split(separator: ",").map(String.init)
    },
    .value(["--out"], "FILE", help: "where the shrunk failure is written (default explore-failure.yaml)") {
      $0.out = $1
    },
    .flag(
      ["--force"],
      help: "replace the --out and --coverage files if they are there (never a link or anything but a file)"
    ) {
      $0.force = true
    },
    .value(["--always"], "FILE", help: "also check after every step the always: expectations in FILE (repeatable)") {
      $0.alwaysPaths.append($1)
    },
    .value(["--jobs", "-j"], "N", help: "share the sessions among N processes (finds what one process finds)") {
      options, text throws(ProgramUsageError) in
      options.jobs = try count(text, of: "--jobs", in: 1...64)
    },
    .value(["--part"], "J/N", help: nil) { options, text throws(ProgramUsageError) in
      let numbers = text.split(separator: "/").compactMap { Int($0) }
      guard numbers.count == 2, numbers[1] >= 1, (0..<numbers[1]).contains(numbers[0]) else {
        throw ProgramUsageError("--part takes J/N with J from 0 to N - 1, not '\(text)'")
      }
      options.part = (numbers[0], numbers[1])
    },
    .value(
      ["--against"], "MODULE",
      help: "run every session also with MODULE in the place of the module with its screens: both must agree"
    ) { $0.againstPath = $1 },
    .value(
      ["--coverage"], "FILE",
      help: "write what the sessions covered (commands, argument edges, screens, state machines) to FILE as JSON"
    ) {
      $0.coveragePath = $1
      $0.explorer.coverage = true
    },
    .flag(
      ["--unguided"],
      help: "draw every command by chance alone (by default a session tries first what it has not yet carried out)"
    ) { $0.explorer.guided = false },
    .flag(["--json"], help: "print the summary as JSON") { $0.json = true },
  ]

  /// What `explore` does, for its `--help`.
  public static let details = """
    Runs random sessions: 1 to 4 windows on the modules' screens and sample documents, then commands
    from each window's specs with arguments drawn from their kinds (ids from what the windows show),
    some through `@WINDOW`, with `undo`, `redo`, `clock advance` (moments, or on the scales of the
    timers pending and of a day while none is due within 86.4 s, up to --horizon), `settle` and
    `relaunch` between.
    After every step it checks that the host and the modules stay up, that a refused command
    changed no frame and no document, that a replay of the same steps (served the first run's facts
    and live changes) shows the same frames, outcomes and revisions, that a window made again from
    its document and view state (`reopen`, after every refusal and one step in eight) is the same
    window from then on, that `undo` right after a change shows what the window showed before it
    (and `redo`, after it), that after `settle` windows on one document with one view state show
    the same frame, that a session moved back in time and forward again (`travel back N`, then
    forward, one session in eight) is the same session, and every `always:` expectation of
    --always files. With --against MODULE the
    second run has MODULE in the place of the module with its screens, and both must agree; with
    --coverage FILE what the sessions reached (commands, argument edges, screens, state machines) is
    written to FILE as JSON. Each session steers by what it has tried: half its commands are
    ones not yet carried out in the state their window is in, and numbers and words are now and
    then taken from what the window shows (--unguided: chance alone). The first
    session that breaks one is shrunk (fewer steps, fewer windows, smaller numbers, shorter waits)
    and written to --out as a scenario, run once through the runner first: the summary says whether
    `workbench run` fails on it.

    exit codes: 0 nothing found, 1 a failure found and written, 2 usage errors
    """

  nonisolated private static func count(_ text: String, of option: String, in range: ClosedRange<Int>)
    throws(ProgramUsageError) -> Int
  {
    guard let value = Int(text), range.contains(value) else {
      throw ProgramUsageError("\(option) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
    }
    return value
  }

  /// Runs `explore` on `modules`; returns the exit status.
  public static func run(
    _ given: Options, modules: [any FeatureModule], against: (modules: [any FeatureModule], name: String)? = nil
  ) -> ExitCode {
    var options = given
    if options.explorer.time != nil, !options.runsGiven { options.explorer.runs = 1_000_000_000 }
    let registry: ModuleRegistry
    var againstRegistry: (registry: ModuleRegistry, name: String)?
    do {
      registry = try ModuleRegistry(modules: modules)
      if let against { againstRegistry = (try ModuleRegistry(modules: against.modules), against.name) }
    } catch {
      StandardStreams.error("workbench explore: the modules failed to register: \(error.message)\n")
      return .usage
    }
    let loader = ScenarioLoader(registry: registry)
    for path in options.alwaysPaths {
      do {
        options.explorer.invariants += try loader.loadInvariants(path)
      } catch {
        StandardStreams.error("workbench explore: \(error)\n")
        return .usage
      }
    }
    if options.explorer.command == nil { options.explorer.command = commandLine(of: options) }
    let explorer = Explorer(registry: registry, options: options.explorer, against: againstRegistry)
    if let part = options.part { return runPart(explorer, part: part.index, of: part.of) }
    guard !explorer.screens.isEmpty else {
      StandardStreams.error(
        "workbench explore: no screen to open a window on"
          + (options.explorer.screens.isEmpty ? "" : " among \(options.explorer.screens.joined(separator: ", "))")
          + " (a screen needs a sample document of its kind)\n")
      return .usage
    }
    let clock = ContinuousClock()
    let started = clock.now
    let showsProgress = !options.json && isatty(STDERR_FILENO) == 1
    var shown = started
    let show = { (report: Explorer.Report) in
      // Ten times a second at most: a line a session would be most of the work.
      guard showsProgress, clock.now - shown >= .milliseconds(100) else { return }
      shown = clock.now
      let seconds = max(0.001, seconds(clock.now - started))
      StandardStreams.error(
        "\r\u{1B}[Kexplore: \(report.sessions) sessions"
          + (options.runsGiven || options.explorer.time == nil ? " of \(options.explorer.runs)" : "")
          + ", \(Int(Double(report.steps) / seconds)) steps a second, \(report.checks) checks"
          + (options.explorer.time.map { " · \(max(0, Int(Self.seconds($0) - seconds)))s left" } ?? ""))
    }
    let report =
      options.jobs > 1
      ? exploreInWorkers(explorer, options: options, progress: show) : explorer.explore(progress: show)
    if showsProgress { StandardStreams.error("\r\u{1B}[K") }
    let elapsed = seconds(clock.now - started)
    var written: String?
    var outProblem: String?
    let scenario = explorer.written(for: report)
    // The count a summary gives is the written file's (its commands, where a session's steps
    // may be cut at the failure and `reopen` steps added).
    let fileSteps = scenario.flatMap { explorer.commandSteps(inFile: $0.text) }
    if let text = scenario?.text {
      (written, outProblem) = write(text, to: options.out, replacing: options.force)
    }
    if options.json {
      var found: FrameValue = .null
      if let failure = report.failure {
        found = [
          "property": .string(failure.property.rawValue), "detail": .string(failure.detail),
          "sessionSeed": .string(String(report.failingSeed ?? 0)),
          "originalSteps": report.original.map { .integer($0.steps.count) } ?? .null,
          "steps": report.shrunk.map { .integer(fileSteps ?? $0.steps.count) } ?? .null,
          "windows": report.shrunk.map { .integer($0.windows.count) } ?? .null,
          "file": written.map(FrameValue.string) ?? .null,
          "failsUnderRun": scenario.map { .bool($0.failsUnderRun) } ?? .null,
          "outProblem": outProblem.map(FrameValue.string) ?? .null,
          // Written nowhere: the scenario itself, so the finding is not lost.
          "scenario": written == nil ? scenario.map { .string($0.text) } ?? .null : .null,
        ]
      }
      let summary: FrameValue = [
        "seed": .string(String(options.explorer.seed)), "sessions": .integer(report.sessions),
        "steps": .integer(report.steps), "refused": .integer(report.refused), "checks": .integer(report.checks),
        "rebuilds": .integer(report.rebuilds), "undosAndRedos": .integer(report.historyChecks),
        "travels": .integer(report.travels),
        "seconds": .string(String(format3(elapsed))), "found": found,
        "cutShort": report.cutShort.map(FrameValue.string) ?? .null,
        "notes": .list(report.notes.map(FrameValue.string)),
        "notReopened": .list(explorer.screensNotReopened.map(FrameValue.string)),
        "whyNotReopened": .object(
          FrameObject(members: explorer.whyNotReopened.map { ($0.screen, FrameValue.string($0.reason)) })),
        "endedAtRebuild": .integer(report.endedAtRebuild),
        "endedAtRebuildWhy": report.endedAtRebuildWhy.map(FrameValue.string) ?? .null,
      ]
      StandardStreams.out(summary.jsonText + "\n")
    } else {
      let ran =
        "explored \(report.sessions) session\(report.sessions == 1 ? "" : "s") (\(report.steps) steps, "
        + "\(report.refused) refused, \(report.checks) checks, \(Explorer.count(report.rebuilds, "rebuild")), "
        + "\(report.historyChecks) undos and redos compared, \(report.travels) moves in time) in \(format3(elapsed)) s"
      if let failure = report.failure, let shrunk = report.shrunk, let original = report.original {
        StandardStreams.out(
          "\(ran): found that \(failure.property.rawValue) does not hold\n  \(TerminalText.visible(failure.detail))\n"
            + "  shrunk from \(Explorer.count(original.steps.count, "step")) to a file of "
            + "\(Explorer.count(fileSteps ?? shrunk.steps.count, "step")) in \(Explorer.count(shrunk.windows.count, "window")): "
            + (outProblem.map { "not written to \(options.out) (\($0)): " } ?? "")
            + "wrote \(written ?? "nothing")"
            + (scenario?.failsOnlyAgainst == true
              ? " (it passes on the modules explored, and fails with \(explorer.against?.name ?? "the other") in its "
                + "module's place: see the comment at its top)\n"
              : scenario?.failsUnderRun == true
                ? " (`workbench run \(written ?? "")` fails the same way)\n"
                : scenario?.failsOtherwise != nil
                  ? " (`workbench run \(written ?? "")` fails, but not as explore found: see the comment at its top)\n"
                  : report.cutShort != nil
                    ? " (not run through `workbench run`: see the comment at its top)\n"
                    : " (`workbench run \(written ?? "")` passes when run once: see the comment at its top)\n"))
        if written == nil, let text = scenario?.text { StandardStreams.out(text) }
      } else if let failure = report.failure {
        // Found in a worker and not again here: nothing to shrink or write.
        StandardStreams.out(
          "\(ran): found that \(failure.property.rawValue) does not hold\n  \(TerminalText.visible(failure.detail))\n")
      } else {
        StandardStreams.out("\(ran): nothing found\n")
      }
    }
    var coverageFailed = false
    if let path = options.coveragePath {
      let json = explorer.coverageJSON(of: report)
      for line in ExploreCoverage.summary(of: json) where !options.json { StandardStreams.out("  coverage: \(line)\n") }
      // As --out's file: never over a file without --force, and never over the files this run
      // read or the one it just wrote, --force or not.
      let inputs = options.alwaysPaths.map { ($0, "the --always file") } + [(written ?? "", "the file --out wrote")]
      if let problem = Self.coverageProblem(path, inputs: inputs)
        ?? FileSystem.writeOutput(Array((json.jsonText + "\n").utf8), to: path, replacing: options.force)
      {
        StandardStreams.error("workbench explore: the coverage was not written: \(problem)\n")
        coverageFailed = true
      } else if !options.json {
        StandardStreams.out("  coverage written to \(path)\n")
      }
    }
    if !options.json {
      if let cut = report.cutShort { StandardStreams.out("  cut short: \(cut)\n") }
      for note in report.notes { StandardStreams.out("  note: \(note)\n") }
      if report.endedAtRebuild > 0 {
        StandardStreams.out(
          "  note: \(Explorer.count(report.endedAtRebuild, "session")) stopped being checked where "
            + "their windows, opened again, asked the outside world something new or left other timers waiting"
            + (report.endedAtRebuildWhy.map { " (the first: \($0))" } ?? "") + "\n")
      }
      let notReopened = explorer.whyNotReopened
      if !notReopened.isEmpty {
        // Per screen, why: what a module author can change (or knows is so).
        StandardStreams.out(
          "  note: sessions with a window on \(notReopened.map(\.screen).joined(separator: ", ")) were not opened "
            + "again to check that they are their documents and view states; `relaunch` steps still restart them:\n")
        for (screen, reason) in notReopened {
          StandardStreams.out("    \(TerminalText.visible(screen)): \(TerminalText.visible(reason))\n")
        }
      }
    }
    if coverageFailed { return .usage }
    return report.failure == nil ? .success : .failure
  }

  /// Why `--coverage PATH` may not be written, when it names one of `inputs` (a file the run
  /// read, or wrote, and what it is): `nil` when it names none of them.
  public static func coverageProblem(_ path: String, inputs: [(path: String, what: String)]) -> String? {
    guard let input = inputs.first(where: { !$0.path.isEmpty && FileSystem.sameFile(path, $0.path) }) else {
      return nil
    }
    return "\(path) is \(input.what): name another file for the coverage"
  }

  /// The command line that runs `options` again (`--seed` and `--runs` aside: the file's heading
  /// adds the ones that reach its session), for the heading of the file written.
  static func commandLine(of options: Options) -> String {
    var words = ["workbench"]
    for name in options.builtInsLeftOut { words += ["--without-builtin", name] }
    words.append("explore")
    for path in options.paths { words += ["--module", path] }
    if !options.explorer.screens.isEmpty { words += ["--screens", options.explorer.screens.joined(separator: ",")] }
    for path in options.alwaysPaths { words += ["--always", path] }
    if let against = options.againstPath { words += ["--against", against] }
    if !options.explorer.guided { words.append("--unguided") }
    if options.explorer.horizon != Explorer.Options().horizon {
      words += ["--horizon", "\(options.explorer.horizon.wholeMilliseconds)ms"]
    }
    words += ["--steps", String(options.explorer.steps)]
    return words.map(CommandTokenizer.quoted).joined(separator: " ")
  }

  /// Writes the scenario to `path` as `FileSystem.writeOutput` does; when it cannot go there, to
  /// a new file in the temporary folder. Where it went (or `nil`, and the caller prints it) and
  /// why not to `path`.
  static func write(_ text: String, to path: String, replacing: Bool) -> (written: String?, problem: String?) {
    guard let problem = FileSystem.writeOutput(Array(text.utf8), to: path, replacing: replacing) else {
      return (path, nil)
    }
    let name = path.split(separator: "/").last.map(String.init) ?? "explore-failure.yaml"
    guard let folder = FileSystem.makeTemporaryFolder(prefix: "workbench-explore"),
      FileSystem.writeOutput(Array(text.utf8), to: folder + "/" + name, replacing: false) == nil
    else { return (nil, problem) }
    return (folder + "/" + name, problem)
  }

  private static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  private static func format3(_ value: Double) -> String {
    let milliseconds = Int((value * 1000).rounded())
    let fraction = String(milliseconds % 1000)
    return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
  }
}
