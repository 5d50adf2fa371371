import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchStore
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench run` and `workbench check`.
@MainActor
public enum ScenarioCommand {
  /// Runs `run` with its options, parsed once (`RunOptions.parse`); returns the exit status.
  public static func run(_ options: RunOptions, modules: [any FeatureModule]) -> ExitCode {
    var options = options
    let console = ConsoleReporter(color: colorWanted(), quiet: options.quiet)
    if options.lastFailed, !options.worker {
      let failed = LastFailed.read()
      if failed.isEmpty {
        StandardStreams.write("no failures recorded by the last run here: running everything\n", to: STDOUT_FILENO)
      } else {
        options.onlyScenarios = LastFailed.keys(of: failed, modules: modules)
      }
    }
    let runner = SuiteRunner(modules: modules, options: options, console: console)
    if !options.list, !options.worker, options.tracePath != nil || options.htmlPath != nil {
      // The baseline is read before the run, so a bad path stops it before anything runs.
      var page: HTMLReport.PageData?
      if options.htmlPath != nil {
        do {
          let baseline =
            try options.baselinePath.map { path throws(TraceReadError) in try TraceStore.read([path]) } ?? []
          // Drawn from the run's own registration of the modules.
          page = HTMLReport.PageData(
            baseline: baseline, diagrams: (try? runner.registry()).map(ReportDiagrams.make) ?? [])
        } catch {
          StandardStreams.write("workbench run: --baseline \(error.message)\n", to: STDERR_FILENO)
          return .usage
        }
      }
      do {
        runner.traceOutput = try TraceOutput(folder: options.tracePath, report: page)
      } catch {
        StandardStreams.write("error: \(error.message)\n", to: STDERR_FILENO)
        return .usage
      }
    }
    do {
      if options.list {
        let (lines, errors) = try runner.list()
        StandardStreams.write(lines.map { $0 + "\n" }.joined(), to: STDOUT_FILENO)
        for error in errors { console.fileFailed(error) }
        return errors.isEmpty ? .success : .usage
      }
      let report = try runner.run()
      if options.worker { return report.exitCode }
      if !options.list { LastFailed.write(report, paths: options.paths) }
      if report.results.isEmpty {
        var filters: [String] = []
        if let filter = options.filter { filters.append("--filter \(filter)") }
        filters += options.tags.map { "--tag \($0)" } + options.excludedTags.map { "--exclude-tag \($0)" }
        if let shard = options.shard { filters.append("--shard \(shard.index)/\(shard.count)") }
        // A line named with the file that no scenario holds (a comment before the first).
        for (file, lines) in options.lines.sorted(by: { $0.key < $1.key }) {
          filters.append(lines.sorted().map { "\(file):\($0)" }.joined(separator: ", ") + " (a line no scenario holds)")
        }
        console.nothingRunReason =
          options.lastFailed && options.onlyScenarios != nil && report.fileErrors.isEmpty
          ? "no scenario in \(options.paths.joined(separator: " ")) failed in the last run (--last-failed)"
          : filters.isEmpty
            ? "\(options.paths.joined(separator: " ")) holds no scenario"
            : "nothing in \(options.paths.joined(separator: " ")) matched \(filters.joined(separator: ", "))"
      }
      console.summary(report)
      var coverage: FrameValue?
      if let path = options.coveragePath, let registry = try? runner.registry() {
        var counted = ExploreCoverage()
        for result in report.results { counted.add(ExploreCoverage(counts: result.coverage ?? [:])) }
        let json = counted.runJSON(
          registry: registry, scenarios: report.results.count, steps: report.results.reduce(0) { $0 + $1.stepsRun })
        coverage = json
        if !options.quiet {
          for line in ExploreCoverage.summary(of: json) {
            StandardStreams.write("coverage: \(line)\n", to: STDOUT_FILENO)
          }
        }
        // As explore's --out: never over a file without --force, never over a scenario this run
        // read, never through a link or into a FIFO.
        let inputs = Set(report.results.map(\.file)).sorted().map { ($0, "a scenario file this run read") }
        if let problem = ExploreCommand.coverageProblem(path, inputs: inputs)
          ?? FileSystem.writeOutput(Array((json.jsonText + "\n").utf8), to: path, replacing: options.force)
        {
          StandardStreams.write("error: the coverage was not written: \(problem)\n", to: STDERR_FILENO)
          return .usage
        }
      }
      if let path = options.junitPath, !FileSystem.write(ReportWriters.junit(report), to: path) {
        StandardStreams.write("error: could not write \(path)\n", to: STDERR_FILENO)
        return .usage
      }
      if let path = options.jsonPath, !FileSystem.write(ReportWriters.json(report), to: path) {
        StandardStreams.write("error: could not write \(path)\n", to: STDERR_FILENO)
        return .usage
      }
      if let output = runner.traceOutput {
        let (page, problem) = output.finish()
        if let problem {
          StandardStreams.write("error: \(problem)\n", to: STDERR_FILENO)
          return .usage
        }
        if let page, let path = options.htmlPath,
          !FileSystem.write(
            bytes: HTMLReport.page(page.with(coverage: coverage, registry: try? runner.registry())), to: path,
            makingFolders: true)
        {
          StandardStreams.write("error: could not write \(path)\n", to: STDERR_FILENO)
          return .usage
        }
      }
      return report.exitCode
    } catch {
      StandardStreams.write("workbench run: \(error.message)\n", to: STDERR_FILENO)
      return .usage
    }
  }

  /// The diagrams the report draws beside windows (the ledger feed's state machine).
  static func reportDiagrams(_ modules: [any FeatureModule]) -> [HTMLReport.ScreenDiagram] {
    (try? ModuleRegistry(modules: modules)).map(ReportDiagrams.make) ?? []
  }

  /// Writes the HTML report of `traces`; returns the problem, if any.
  static func writeHTML(
    _ traces: [ScenarioTrace], baseline: [ScenarioTrace], modules: [any FeatureModule], to path: String
  ) -> String? {
    let page = HTMLReport.make(traces: traces, baseline: baseline, diagrams: reportDiagrams(modules))
    return FileSystem.write(page, to: path) ? nil : "could not write \(path)"
  }

  /// Runs `report TRACEDIR... --html FILE [--baseline DIR]`: one report from the traces of one
  /// or more runs (the shards of a CI matrix).
  public static func report(_ options: ReportOptions, modules: [any FeatureModule]) -> ExitCode {
    guard options.html != nil || options.junit != nil || options.json != nil, !options.folders.isEmpty else {
      StandardStreams.write(
        "workbench report: name the trace folders and a report to write (--html, --junit or --json FILE)\n"
          + "\(ReportOptions.usage)\n", to: STDERR_FILENO)
      return .usage
    }
    let folders = options.folders
    let baselinePath = options.baseline
    do throws(TraceReadError) {
      let traces = try TraceStore.read(folders)
      let baseline = try baselinePath.map { path throws(TraceReadError) in try TraceStore.read([path]) } ?? []
      guard !traces.isEmpty else {
        StandardStreams.write(
          "workbench report: no traces in \(folders.joined(separator: " ")) (write them with `workbench run --trace DIR`)\n",
          to: STDERR_FILENO)
        return .nothingRan
      }
      if let html = options.html,
        let problem = writeHTML(traces, baseline: baseline, modules: modules, to: html)
      {
        StandardStreams.write("error: \(problem)\n", to: STDERR_FILENO)
        return .usage
      }
      // JUnit and JSON as the runs would have written them had they been one run.
      let merged = suiteReport(of: traces)
      for (path, text) in [(options.junit, ReportWriters.junit(merged)), (options.json, ReportWriters.json(merged))] {
        guard let path else { continue }
        guard FileSystem.write(text, to: path) else {
          StandardStreams.write("error: could not write \(path)\n", to: STDERR_FILENO)
          return .usage
        }
      }
      let failed = traces.filter { $0.status != "passed" }.count
      let written = [options.html, options.junit, options.json].compactMap { $0 }.joined(separator: ", ")
      StandardStreams.write(
        "wrote \(written): \(traces.count) scenarios, \(failed) failed\n", to: STDOUT_FILENO)
      return failed > 0 ? .failure : .success
    } catch {
      StandardStreams.write("workbench report: \(error.message)\n", to: STDERR_FILENO)
      return .usage
    }
  }

  /// The runs whose traces these are, as one run's report: a scenario's trace as its result,
  /// a file that could not be loaded as its mistakes.
  static func suiteReport(of traces: [ScenarioTrace]) -> SuiteReport {
    var report = SuiteReport()
    for trace in traces {
      report.duration += trace.duration
      if trace.steps.isEmpty, let failure = trace.failure, failure.step == "loading the file" {
        var error = ScenarioFileError(failure.message, at: failure.location)
        // The others, as `FILE:LINE:COLUMN: message` (as the trace keeps them).
        let more = failure.details.compactMap { detail -> ScenarioFileError? in
          guard let match = detail.firstMatch(of: /^(.*):(\d+):(\d+): (.*)$/), let line = Int(match.2),
            let column = Int(match.3)
          else { return nil }
          return ScenarioFileError(
            String(match.4), at: SourceLocation(file: String(match.1), line: line, column: column))
        }
        if !more.isEmpty { error.more = more }
        report.fileErrors.append(error)
        continue
      }
      var result = ScenarioResult(
        file: trace.file, name: trace.scenario, location: SourceLocation(file: trace.file, line: trace.line, column: 1),
        duration: trace.duration, stepsRun: max(0, trace.steps.count - 1), failure: trace.failure, snapshotsWritten: [],
        snapshotsUsed: [])
      if !trace.tags.isEmpty { result.tags = trace.tags }
      result.skipped = trace.skipped
      report.results.append(result)
    }
    return report
  }

  /// Runs `check PATH...`: loads and checks every file without running a step (its options,
  /// the modules, were taken before).
  public static func check(_ arguments: [String], modules: [any FeatureModule]) -> ExitCode {
    guard !arguments.isEmpty, !arguments.contains(where: { $0.hasPrefix("-") }) else {
      StandardStreams.write("usage: workbench check PATH...\n", to: STDERR_FILENO)
      return .usage
    }
    let files: [String]
    let loader: ScenarioLoader
    do {
      files = try SuiteRunner.discover(arguments) { StandardStreams.error("note: \($0)\n") }
      loader = try ScenarioLoader(modules: modules)
      loader.knownModulesSource = WorkspaceStore.knownModulesOfDefaultWorkspace
    } catch let error as ProgramUsageError {
      StandardStreams.write("workbench check: \(error.message)\n", to: STDERR_FILENO)
      return .usage
    } catch {
      StandardStreams.write("workbench check: \(error)\n", to: STDERR_FILENO)
      return .usage
    }
    var failures = 0
    var scenarios = 0
    for file in files {
      do {
        scenarios += try loader.load(file).scenarios.count
      } catch {
        failures += 1
        for problem in error.all { StandardStreams.write("error: \(problem)\n", to: STDERR_FILENO) }
      }
    }
    StandardStreams.write(
      "\(Explorer.count(files.count - failures, "file")) ok (\(Explorer.count(scenarios, "scenario"))), \(failures) with "
        + "errors\n", to: STDOUT_FILENO)
    return failures == 0 ? .success : .usage
  }

  /// How many cores the machine has: `run`'s jobs when `--jobs` is not given.
  public static func cores() -> Int {
    Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
  }

  static func colorWanted() -> Bool {
    guard isatty(STDOUT_FILENO) == 1 else { return false }
    if let value = getenv("NO_COLOR"), value.pointee != 0 { return false }
    return true
  }
}

/// The scenarios that failed in the last run started in this folder (`--last-failed`).
enum LastFailed {
  /// A scenario that failed (its file, the line it started at then, its name) or a file that
  /// could not be loaded (its file alone).
  struct Entry: Equatable {
    var file: String
    var line: Int?
    var name: String?
  }

  /// What the last run here kept: a line `FILE:LINE<TAB>NAME` for each scenario that failed,
  /// `FILE` for a file that could not be loaded (a record without names, from before, keeps
  /// `FILE:LINE` alone).
  static func read() -> [Entry] {
    guard let bytes = try? FileSystem.read(RunOptions.lastFailedPath) else { return [] }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { line in
      let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
      let place = parts[0]
      let name = parts.count > 1 ? parts[1] : nil
      if let colon = place.lastIndex(of: ":"), let number = Int(place[place.index(after: colon)...]) {
        return Entry(file: String(place[..<colon]), line: number, name: name)
      }
      return Entry(file: place, line: nil, name: name)
    }
  }

  /// The scenarios to run again, as `--only-scenario` keys, found by what names each (its file
  /// and name: for a row of a table, its values are in the name) in the files as they are now:
  /// lines added above a scenario do not lose it, nor run another in its place. A file that
  /// could not be loaded runs whole; a scenario no longer there (renamed, deleted) is said so.
  @MainActor
  static func keys(of entries: [Entry], modules: [any FeatureModule]) -> Set<String> {
    var keys: Set<String> = []
    let loader = try? ScenarioLoader(modules: modules)
    for (file, kept) in Dictionary(grouping: entries, by: \.file).sorted(by: { $0.key < $1.key }) {
      if kept.contains(where: { $0.line == nil }) {
        keys.insert(file)
        continue
      }
      guard let loaded = try? loader?.load(file) else {
        // Broken since: it runs whole, and says why.
        keys.insert(file)
        continue
      }
      for entry in kept {
        guard let name = entry.name else {
          keys.insert("\(file):\(entry.line ?? 1)")
          continue
        }
        let found = loaded.scenarios.filter { $0.name == name }
        if found.isEmpty {
          StandardStreams.write(
            "note: \"\(name)\" (\(file)) failed in the last run and is no longer there (renamed or removed)\n",
            to: STDOUT_FILENO)
        }
        for scenario in found { keys.insert(SuiteRunner.key(scenario.identity)) }
      }
    }
    return keys
  }

  /// Keeps this run's failures for the next `--last-failed` (nothing to keep removes the file):
  /// each failed scenario as `FILE:LINE<TAB>NAME` (the run of a `--repeat` by its scenario's
  /// name), and each file that could not be loaded as `FILE` (all of it runs next time). The
  /// paths the run was given are kept too, for a `--last-failed` that names none. A folder that
  /// cannot be written to keeps nothing, silently: it is a convenience.
  static func write(_ report: SuiteReport, paths: [String]) {
    let failed =
      report.results.filter { !$0.passed }.map { result in
        let name = result.name.replacing(/\ \(run \d+ of \d+\)$/, with: "")
        return SuiteRunner.key(result.location) + "\t" + name.replacing("\n", with: " ")
      }
      + report.fileErrors.map(\.location.file).filter { $0 != "-" }
    _ = FileSystem.makeFolders(".workbench", mode: 0o755)
    _ = FileSystem.write(paths.joined(separator: "\n") + "\n", to: RunOptions.lastPathsPath)
    guard !failed.isEmpty else {
      unlink(RunOptions.lastFailedPath)
      return
    }
    _ = FileSystem.write(Set(failed).sorted().joined(separator: "\n") + "\n", to: RunOptions.lastFailedPath)
  }

  /// The paths the last run here was given.
  static func paths() -> [String] {
    guard let bytes = try? FileSystem.read(RunOptions.lastPathsPath) else { return [] }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
  }
}
