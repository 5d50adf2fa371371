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

/// Runs scenario files like a test suite: finds them, selects scenarios by name and tag, runs
/// them in this process or in worker processes, and reports.
@MainActor
public final class SuiteRunner {
  let modules: [any FeatureModule]
  var options: RunOptions
  let console: ConsoleReporter
  /// Where finished scenarios' traces go as they finish (`--trace`, `--html`); a result handed
  /// over keeps no trace of its own.
  var traceOutput: TraceOutput?
  /// The modules registered once for the run (see `registry()`).
  private var registered: Result<ModuleRegistry, RegistrationError>?

  /// The modules registered once: the loader, every scenario's session and the report's
  /// diagrams share one registration.
  func registry() throws(RegistrationError) -> ModuleRegistry {
    if let registered { return try registered.get() }
    let made = Result { () throws(RegistrationError) in try ModuleRegistry(modules: modules) }
    registered = made
    return try made.get()
  }

  /// A worker's lines not yet written to its parent.
  private var workerOutput = ""

  /// A runner for these modules and options; progress goes to `console`.
  public init(modules: [any FeatureModule], options: RunOptions, console: ConsoleReporter) {
    self.modules = modules
    self.options = options
    self.console = console
  }

  /// The scenario files under the given paths: files as named, folders searched for
  /// `.yaml` and `.yml` files, sorted. Snapshot folders (`__snapshots__`) and data folders
  /// (`data/`, and a recording's `NAME.data/`) are skipped: documents loaded with `file:` live
  /// there. Each real folder is searched once; a link to a folder outside the one named is not
  /// followed, and `note` is told once for each (a path named is searched wherever it leads).
  public nonisolated static func discover(_ paths: [String], note: ((String) -> Void)? = nil)
    throws(ProgramUsageError) -> [String]
  {
    var files: [String] = []
    for path in paths {
      if FileSystem.isDirectory(path) {
        let walk = FileSystem.walk(path)
        for link in walk.linksLeavingFolder {
          note?(
            "\(link) leads out of \(path) (to \(FileSystem.realPath(link) ?? "?")) and is not followed: "
              + "name it to include what it leads to")
        }
        files += walk.files.filter { file in
          (file.hasSuffix(".yaml") || file.hasSuffix(".yml")) && !Self.isInDataFolder(file)
        }
      } else if FileSystem.exists(path) {
        files.append(path)
      } else {
        throw ProgramUsageError("no such file or folder: \(path)")
      }
    }
    var seen = Set<String>()
    return files.filter { seen.insert($0).inserted }
  }

  /// Whether a file found in a folder is kept out of a run: it is in a snapshot folder or a
  /// data folder (`data`, `*.data`).
  nonisolated static func isInDataFolder(_ file: String) -> Bool {
    // In bytes: a path's separator is the byte `/`, and a run asks this of every file it finds
    // before its workers start (split by character, a thousand files cost the parent 2 ms).
    let bytes = file.utf8
    guard let last = bytes.lastIndex(of: UInt8(ascii: "/")) else { return false }
    return bytes[..<last].split(separator: UInt8(ascii: "/")).contains { folder in
      folder.elementsEqual("__snapshots__".utf8) || folder.elementsEqual("data".utf8)
        || (folder.count >= 5 && folder.suffix(5).elementsEqual(".data".utf8))
    }
  }

  /// The files this run (or shard) covers. A shard is a share of the scenarios, not of the
  /// files, so one big file still splits; its scenarios become `onlyScenarios`.
  func selectedFiles() throws(ProgramUsageError) -> [String] {
    // A worker's files were found by its parent; one that vanished since fails to load.
    let files =
      options.worker
      ? options.paths : try Self.discover(options.paths) { StandardStreams.error("note: \($0)\n") }
    guard let shard = options.shard else { return files }
    let mine = try Sharding.scenarios(
      of: shard, in: files, modules: modules, durationsPath: options.durationsPath, selected: selected)
    options.onlyScenarios = options.onlyScenarios.map { $0.intersection(mine) } ?? mine
    options.shard = nil
    let keys = options.onlyScenarios ?? []
    return files.filter { file in keys.contains { $0.hasPrefix(file + ":") || $0 == file } }
  }

  /// Whether a scenario passes the name and tag filters.
  func isSelected(_ scenario: Scenario) -> Bool {
    if let filter = options.filter, case .success(let regex) = RegexLimits.compile(filter),
      !regex.matches(in: scenario.name)
    {
      return false
    }
    if !options.tags.isEmpty, !scenario.tags.contains(where: options.tags.contains) { return false }
    if scenario.tags.contains(where: options.excludedTags.contains) { return false }
    if let only = options.onlyScenarios, !only.contains(Self.key(scenario.identity)),
      !only.contains(scenario.location.file)
    {
      return false
    }
    return true
  }

  /// The scenarios of a loaded file this run runs: those holding a line `FILE:LINE` named (the
  /// row of an `examples` table written on that line; else every row of the last scenario
  /// starting at or before the line), then the name, tag and last-failed filters.
  func selected(from file: ScenarioFile) -> [Scenario] {
    var scenarios = file.scenarios
    if let lines = options.lines[file.path] {
      scenarios = scenarios.filter { Self.holds(lines, $0, in: file.scenarios) }
    }
    return scenarios.filter(isSelected)
  }

  /// Whether `scenario` (of `all`, a file's) is named by one of `lines`: its row's own line, or a
  /// line of the scenario it is a row of (from its `scenario:` to the next one's), when that
  /// line is no row's.
  nonisolated static func holds(_ lines: some Collection<Int>, _ scenario: Scenario, in all: [Scenario]) -> Bool {
    let rows = Set(all.compactMap(\.row?.line))
    let starts = Set(all.map(\.location.line))
    return lines.contains { line in
      if rows.contains(line) { return scenario.row?.line == line }
      return starts.filter { $0 <= line }.max() == scenario.location.line
    }
  }

  /// Runs everything and returns the report.
  public func run() throws(ProgramUsageError) -> SuiteReport {
    let sharded = options.shard != nil
    let start = monotonicSeconds()
    // Workers start before the files are found when there may be several (a folder, or more
    // than one path): they start up while this process looks. A shard's selection changes
    // what workers are told, so a shard finds its files first.
    let early =
      options.jobs > 1 && !options.worker && !sharded
        && (options.paths.count > 1 || options.paths.contains { FileSystem.isDirectory($0) })
      ? startWorkers(count: min(options.jobs, max(1, ScenarioCommand.cores()))) : nil
    if early != nil { Self.findFilesLateIfAsked() }
    let files: [String]
    do {
      files = try selectedFiles()
    } catch {
      early?.dismiss()
      throw error
    }
    var report = SuiteReport()
    if options.jobs > 1 && files.count > 1 && !options.worker {
      report = runInWorkers(files, started: early)
    } else {
      early?.dismiss()
      runHere(files, into: &report)
    }
    // A worker's parent looks for orphans over every worker's results.
    if !sharded, !options.worker,
      options.filter == nil && options.tags.isEmpty && options.excludedTags.isEmpty && !options.failFast,
      options.onlyScenarios == nil
    {
      report.orphanedSnapshots = orphans(files: files, report: report)
    }
    report.duration = monotonicSeconds() - start
    return report
  }

  /// Lists the selected scenarios without running them.
  public func list() throws(ProgramUsageError) -> (lines: [String], errors: [ScenarioFileError]) {
    var lines: [String] = []
    var errors: [ScenarioFileError] = []
    guard let loader = try? ScenarioLoader(modules: modules) else { return ([], []) }
    loader.knownModulesSource = WorkspaceStore.knownModulesOfDefaultWorkspace
    for file in try selectedFiles() {
      do {
        for scenario in selected(from: try loader.load(file)) {
          let tags = scenario.tags.isEmpty ? "" : "  [" + scenario.tags.joined(separator: ", ") + "]"
          lines.append("\(scenario.location.file):\(scenario.identity.line)  \(scenario.name)\(tags)")
        }
      } catch {
        errors.append(error)
      }
    }
    return (lines, errors)
  }

  // MARK: In this process

  func runHere(_ files: [String], into report: inout SuiteReport) {
    defer { flushWorkerOutput() }
    let registry: ModuleRegistry
    do {
      registry = try self.registry()
    } catch {
      report.fileErrors.append(
        ScenarioFileError(
          "the modules failed to register: \(error.message)", at: SourceLocation(file: "-", line: 1, column: 1)))
      return
    }
    // One registration for the loader and every scenario's session.
    let loader = ScenarioLoader(registry: registry)
    loader.knownModulesSource = WorkspaceStore.knownModulesOfDefaultWorkspace
    var runnerOptions = ScenarioRunner.Options(
      updateSnapshots: options.updateSnapshots, exhaustive: options.exhaustive, logsSteps: options.verbose,
      traces: options.keepsTraces)
    // Traces handed to an output are resolved there, off this thread.
    runnerOptions.leavesTraceFramesUnresolved = traceOutput != nil
    runnerOptions.coverage = options.countsCoverage || options.coveragePath != nil
    let runner = ScenarioRunner(registry: registry, options: runnerOptions)
    var named = files[...]
    // The parent's list of files, read when the first number comes: the parent may still be
    // finding the files as this worker starts, and writes the list whole before any number.
    var queued: [String]?
    var listUnreadable = false
    if options.fileQueue {
      // Module processes this worker starts do not inherit the queue.
      for descriptor in [FileQueue.workerList, FileQueue.workerQueue] { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    }
    // The files named first, then (a worker) one at a time from the parent's queue.
    func nextFile() -> String? {
      if let file = named.popFirst() { return file }
      guard options.fileQueue, let index = FileQueue.next(from: FileQueue.workerQueue) else { return nil }
      if queued == nil { queued = FileQueue.readList(from: FileQueue.workerList) }
      guard let list = queued else {
        listUnreadable = true
        return nil
      }
      guard list.indices.contains(index) else { return nil }
      Self.dieIfAsked(taking: list[index])
      return list[index]
    }
    defer {
      if listUnreadable {
        let error = ScenarioFileError(
          "the worker process could not read its list of files", at: SourceLocation(file: "-", line: 1, column: 1))
        report.fileErrors.append(error)
        emit(WorkerMessage(result: nil, fileError: error))
      }
    }
    while let file = nextFile() {
      if options.skippedFiles.contains(file) { continue }
      let loaded: ScenarioFile
      if options.worker {
        emit(WorkerMessage(loading: file))
        Self.dieIfAsked(loading: file)
      }
      do {
        loaded = try loader.load(file)
      } catch {
        report.fileErrors.append(error)
        traceLoadFailure(error)
        emit(WorkerMessage(result: nil, fileError: error))
        if options.failFast {
          if !options.worker { report.filesNotRunAfterFailure = named.count }
          return
        }
        continue
      }
      let selected = selected(from: loaded).filter { !options.skippedScenarios.contains(Self.key($0.identity)) }
      if options.worker { emit(WorkerMessage(loaded: selected.count * options.repeatCount)) }
      for scenario in selected {
        if options.worker {
          emit(WorkerMessage(started: scenario.identity))
          Self.crashIfAsked(scenario)
        }
        for round in 1...options.repeatCount {
          var result = runner.run(scenario)
          if options.repeatCount > 1 {
            // Each run is its own entry, and its own trace (`FILE.LINE.runN.trace.json`).
            result.name += " (run \(round) of \(options.repeatCount))"
            result.trace?.scenario = result.name
            result.trace?.run = round
          }
          emit(WorkerMessage(result: result, fileError: nil))
          report.results.append(handOverTrace(of: result))
          if options.failFast && !result.passed {
            if !options.worker { report.filesNotRunAfterFailure = named.count }
            return
          }
        }
      }
    }
  }

  /// A file that could not be loaded, as a failed entry of the traces (and so of the HTML
  /// report), with every problem the loader found in it.
  func traceLoadFailure(_ error: ScenarioFileError) {
    guard let output = traceOutput, error.location.file != "-" else { return }
    let problems = error.all
    let failure = ScenarioFailure(
      location: problems[0].location, step: "loading the file", message: problems[0].message,
      details: problems.dropFirst().map(\.description), origin: [])
    output.add(
      ScenarioTrace(
        scenario: "\(error.location.file) could not be loaded", file: error.location.file, line: 1, tags: [],
        status: "failed", duration: 0, failure: failure, windows: [], steps: [], frames: [:]))
  }

  /// The result, its trace handed to `traceOutput` when there is one.
  func handOverTrace(of result: ScenarioResult) -> ScenarioResult {
    guard let output = traceOutput, let trace = result.trace else { return result }
    output.add(trace)
    var kept = result
    kept.trace = nil
    return kept
  }

  /// How a scenario is named in `--skip-scenario`.
  nonisolated static func key(_ location: SourceLocation) -> String { "\(location.file):\(location.line)" }

  /// A fault-injection hook for the runner's own tests: a worker whose environment names a
  /// scenario in `WORKBENCH_TEST_CRASH_SCENARIO` dies by a signal as that scenario starts, as a
  /// worker would that met a crash in the code under test. (SIGKILL, so no crash handler, a
  /// sanitizer's or the Swift runtime's, turns the death into something else.)
  private static func crashIfAsked(_ scenario: Scenario) {
    guard let name = getenv("WORKBENCH_TEST_CRASH_SCENARIO"), String(cString: name) == scenario.name else { return }
    kill(getpid(), SIGKILL)
  }

  /// The same for the parent that started its workers before finding the files: with
  /// `WORKBENCH_TEST_FIND_FILES_LATE` (milliseconds) it looks that much later, so its workers
  /// are waiting on an empty queue when the files come, as on a big tree.
  private static func findFilesLateIfAsked() {
    guard let text = getenv("WORKBENCH_TEST_FIND_FILES_LATE"), let milliseconds = Int(String(cString: text)),
      (1...10_000).contains(milliseconds)
    else { return }
    usleep(useconds_t(milliseconds) * 1000)
  }

  /// The same for the moment a worker has taken a file from the queue and not yet said which
  /// (`WORKBENCH_TEST_KILL_TAKING` ends the path): as a kill from outside could land there.
  private static func dieIfAsked(taking file: String) {
    guard let suffix = getenv("WORKBENCH_TEST_KILL_TAKING"), file.hasSuffix(String(cString: suffix)) else { return }
    kill(getpid(), SIGKILL)
  }

  /// The same for the moment a worker has said it is loading a file and not yet loaded it
  /// (`WORKBENCH_TEST_KILL_LOADING` ends the path). With `WORKBENCH_TEST_KILL_ONCE` naming a
  /// file that does not exist yet, only the first worker there dies (and makes the file).
  private static func dieIfAsked(loading file: String) {
    guard let suffix = getenv("WORKBENCH_TEST_KILL_LOADING"), file.hasSuffix(String(cString: suffix)) else { return }
    if let marker = getenv("WORKBENCH_TEST_KILL_ONCE") {
      let descriptor = open(marker, O_WRONLY | O_CREAT | O_EXCL, 0o600)
      guard descriptor >= 0 else { return }
      close(descriptor)
    }
    kill(getpid(), SIGKILL)
  }

  /// Shows a result as it happens: on the console, or as a JSON line to the parent process.
  private func emit(_ message: WorkerMessage) {
    if options.worker {
      if let line = WorkerLine.encode(message) { workerOutput += line + "\n" }
      // Results wait for the next mark: the parent must have every line before a scenario
      // starts or a file loads (what a crash there would lose), and no sooner.
      if message.started != nil || message.loading != nil { flushWorkerOutput() }
      return
    }
    if let result = message.result { console.scenarioFinished(result) }
    if let error = message.fileError { console.fileFailed(error) }
  }

  /// Sends what a worker has to say to its parent in one write.
  private func flushWorkerOutput() {
    guard !workerOutput.isEmpty else { return }
    StandardStreams.write(workerOutput, to: STDOUT_FILENO)
    workerOutput = ""
  }

  // MARK: Snapshots

  private func orphans(files: [String], report: SuiteReport) -> [String] {
    let used = Set(report.results.flatMap { $0.snapshotsUsed })
    let failedFiles = Set(report.results.filter { !$0.passed }.map(\.file) + report.fileErrors.map(\.location.file))
    var orphans: [String] = []
    // One look per folder of scenario files: most have no `__snapshots__` at all.
    var holdsSnapshots: [String: Bool] = [:]
    for file in files where !failedFiles.contains(file) {
      let parent = FileSystem.folder(of: file)
      let hasFolder = holdsSnapshots[parent] ?? FileSystem.isDirectory(parent + "/__snapshots__")
      holdsSnapshots[parent] = hasFolder
      guard hasFolder else { continue }
      let folder = SnapshotPaths.folder(for: file)
      guard FileSystem.isDirectory(folder) else { continue }
      orphans += FileSystem.files(under: folder).filter { !used.contains($0) }
    }
    return orphans
  }
}

/// Prints what workers report in the order of the files, not the order they finish in: a
/// file's lines wait until every file before it is done.
@MainActor
final class FileOrderPrinter {
  enum Entry {
    case result(ScenarioResult)
    case fileError(ScenarioFileError)
  }

  private let console: ConsoleReporter
  private let files: [String]
  private var next = 0
  private var buffered: [String: [Entry]] = [:]
  private var complete: Set<String> = []

  init(console: ConsoleReporter, files: [String]) {
    self.console = console
    self.files = files
  }

  func add(_ entry: Entry, file: String) {
    buffered[file, default: []].append(entry)
    flush()
  }

  /// Every scenario of `file` has reported.
  func completed(_ file: String) {
    complete.insert(file)
    flush()
  }

  /// Prints whatever is left, in file order (the run ended, or stopped at a failure).
  func flushEverything() {
    for file in files[next...] { print(file) }
    next = files.count
  }

  private func flush() {
    while next < files.count, complete.contains(files[next]) {
      print(files[next])
      next += 1
    }
  }

  private func print(_ file: String) {
    for entry in buffered.removeValue(forKey: file) ?? [] {
      switch entry {
      case .result(let result): console.scenarioFinished(result)
      case .fileError(let error): console.fileFailed(error)
      }
    }
  }
}

/// Splits the selected scenarios of a run into shards: by scenario, so a suite of one big file
/// splits too; balanced by the durations of an earlier run when a report gives them (longest
/// first, each to the shard with the least time so far), else dealt out in turn.
enum Sharding {
  @MainActor
  static func scenarios(
    of shard: (index: Int, count: Int), in files: [String], modules: [any FeatureModule], durationsPath: String?,
    selected: (ScenarioFile) -> [Scenario]
  ) throws(ProgramUsageError) -> Set<String> {
    guard let loader = try? ScenarioLoader(modules: modules) else { return [] }
    var keys: [String] = []
    for file in files {
      // A file that does not load is dealt to a shard like a scenario (every shard deals the
      // same list), and that shard reports it: a matrix never goes green over it.
      guard let loaded = try? loader.load(file) else {
        keys.append(file + ":0")
        continue
      }
      for scenario in selected(loaded) {
        let key = SuiteRunner.key(scenario.identity)
        if !keys.contains(key) { keys.append(key) }
      }
    }
    let durations = try durationsPath.map(read) ?? [:]
    var assigned: [Set<String>] = Array(repeating: [], count: shard.count)
    if durations.isEmpty {
      for (offset, key) in keys.enumerated() { assigned[offset % shard.count].insert(key) }
    } else {
      let known = durations.values.sorted()
      let typical = known.isEmpty ? 0 : known[known.count / 2]
      var totals = [Double](repeating: 0, count: shard.count)
      let ordered = keys.sorted { (durations[$0] ?? typical, $1) > (durations[$1] ?? typical, $0) }
      for key in ordered {
        let lightest = totals.indices.min { (totals[$0], $0) < (totals[$1], $1) } ?? 0
        totals[lightest] += durations[key] ?? typical
        assigned[lightest].insert(key)
      }
    }
    return assigned[shard.index - 1]
  }

  /// Each scenario's duration (`FILE:LINE` to seconds) in a JSON report written by `--json`.
  static func read(_ path: String) throws(ProgramUsageError) -> [String: Double] {
    guard FileSystem.exists(path) else {
      throw ProgramUsageError(
        "--durations \(path): there is no such file (an earlier run writes one with `workbench run --json \(path)`)")
    }
    guard let bytes = try? FileSystem.read(path), let report = try? FrameValue.parse(json: bytes),
      let scenarios = report["scenarios"]?.elements
    else {
      throw ProgramUsageError("--durations \(path) is not a JSON report written by `workbench run --json`")
    }
    var durations: [String: Double] = [:]
    for scenario in scenarios {
      guard let file = scenario["location"]?["file"]?.stringValue,
        let line = scenario["location"]?["line"]?.integerValue
      else { continue }
      let seconds: Double
      switch scenario["duration"] {
      case .number(let value)?: seconds = value
      case .integer(let value)?: seconds = Double(value)
      default: continue
      }
      durations["\(file):\(line)", default: 0] += seconds
    }
    return durations
  }
}
