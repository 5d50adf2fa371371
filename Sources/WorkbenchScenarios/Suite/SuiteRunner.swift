import FoundationEssentials
import WorkbenchCore
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Runs scenario files like a test suite: finds them, selects scenarios by name and tag, runs
/// them in this process or in worker processes, and reports.
@MainActor
public final class SuiteRunner {
  let modules: [any FeatureModule]
  let options: RunOptions
  let console: ConsoleReporter

  /// A runner for these modules and options; progress goes to `console`.
  public init(modules: [any FeatureModule], options: RunOptions, console: ConsoleReporter) {
    self.modules = modules
    self.options = options
    self.console = console
  }

  /// The scenario files under the given paths: files as named, folders searched for
  /// `.yaml` and `.yml` files (snapshot folders skipped), sorted.
  public nonisolated static func discover(_ paths: [String]) throws(RunOptions.UsageError) -> [String] {
    var files: [String] = []
    for path in paths {
      if FileSystem.isDirectory(path) {
        files += FileSystem.files(under: path).filter { file in
          (file.hasSuffix(".yaml") || file.hasSuffix(".yml")) && !file.contains("/__snapshots__/")
        }
      } else if FileSystem.exists(path) {
        files.append(path)
      } else {
        throw RunOptions.UsageError(message: "no such file or folder: \(path)")
      }
    }
    var seen = Set<String>()
    return files.filter { seen.insert($0).inserted }
  }

  /// The files this run (or shard) covers.
  func selectedFiles() throws(RunOptions.UsageError) -> [String] {
    let files = try Self.discover(options.paths)
    guard let shard = options.shard else { return files }
    return files.enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element)
  }

  /// Whether a scenario passes the name and tag filters.
  func isSelected(_ scenario: Scenario) -> Bool {
    if let filter = options.filter, let regex = try? Regex(filter), !scenario.name.contains(regex) { return false }
    if !options.tags.isEmpty, !scenario.tags.contains(where: options.tags.contains) { return false }
    if scenario.tags.contains(where: options.excludedTags.contains) { return false }
    return true
  }

  /// Runs everything and returns the report.
  public func run() throws(RunOptions.UsageError) -> SuiteReport {
    let start = monotonicSeconds()
    let files = try selectedFiles()
    var report = SuiteReport()
    if options.jobs > 1 && files.count > 1 && !options.worker {
      report = runInWorkers(files)
    } else {
      runHere(files, into: &report)
    }
    if options.filter == nil && options.tags.isEmpty && options.excludedTags.isEmpty && !options.failFast {
      report.orphanedSnapshots = orphans(files: files, report: report)
    }
    report.duration = monotonicSeconds() - start
    return report
  }

  /// Lists the selected scenarios without running them.
  public func list() throws(RunOptions.UsageError) -> (lines: [String], errors: [ScenarioFileError]) {
    var lines: [String] = []
    var errors: [ScenarioFileError] = []
    guard let loader = try? ScenarioLoader(modules: modules) else { return ([], []) }
    for file in try selectedFiles() {
      do {
        for scenario in try loader.load(file).scenarios where isSelected(scenario) {
          let tags = scenario.tags.isEmpty ? "" : "  [" + scenario.tags.joined(separator: ", ") + "]"
          lines.append("\(scenario.location.file):\(scenario.location.line)  \(scenario.name)\(tags)")
        }
      } catch {
        errors.append(error)
      }
    }
    return (lines, errors)
  }

  // MARK: In this process

  private func runHere(_ files: [String], into report: inout SuiteReport) {
    let loader: ScenarioLoader
    do {
      loader = try ScenarioLoader(modules: modules)
    } catch {
      report.fileErrors.append(
        ScenarioFileError(
          "the modules failed to register: \(error.message)", at: SourceLocation(file: "-", line: 1, column: 1)))
      return
    }
    let runner = ScenarioRunner(
      modules: modules,
      options: ScenarioRunner.Options(updateSnapshots: options.updateSnapshots, exhaustive: options.exhaustive))
    for file in files {
      let loaded: ScenarioFile
      do {
        loaded = try loader.load(file)
      } catch {
        report.fileErrors.append(error)
        emit(WorkerMessage(result: nil, fileError: error))
        if options.failFast { return }
        continue
      }
      for scenario in loaded.scenarios where isSelected(scenario) {
        for round in 1...options.repeatCount {
          var result = runner.run(scenario)
          if options.repeatCount > 1 { result.name += " (run \(round) of \(options.repeatCount))" }
          report.results.append(result)
          emit(WorkerMessage(result: result, fileError: nil))
          if options.failFast && !result.passed { return }
        }
      }
    }
  }

  /// Shows a result as it happens: on the console, or as a JSON line to the parent process.
  private func emit(_ message: WorkerMessage) {
    if options.worker {
      if let line = WorkerLine.encode(message) { StandardStreams.write(line + "\n", to: STDOUT_FILENO) }
      return
    }
    if let result = message.result { console.scenarioFinished(result) }
    if let error = message.fileError { console.fileFailed(error) }
  }

  // MARK: Worker processes

  /// Starts up to `jobs` workers of this same program, each with its share of the files, and
  /// collects their results as they arrive. A worker that dies takes only its own unfinished
  /// files with it; they are reported as errors.
  private func runInWorkers(_ files: [String]) -> SuiteReport {
    var report = SuiteReport()
    let count = min(options.jobs, files.count)
    var shares = [[String]](repeating: [], count: count)
    for (index, file) in files.enumerated() { shares[index % count].append(file) }
    let executable = Self.executablePath()
    var workers: [WorkerProcess] = []
    for share in shares {
      guard let worker = WorkerProcess(executable: executable, arguments: ["run"] + options.workerArguments + share)
      else {
        report.fileErrors.append(
          ScenarioFileError("could not start a worker process", at: SourceLocation(file: share[0], line: 1, column: 1)))
        continue
      }
      worker.files = share
      workers.append(worker)
    }
    var stop = false
    while !stop, workers.contains(where: { !$0.finished }) {
      let lines = WorkerProcess.readLines(from: workers)
      for line in lines {
        guard let message = WorkerLine.decode(line) else { continue }
        if let result = message.result {
          report.results.append(result)
          console.scenarioFinished(result)
          if options.failFast && !result.passed { stop = true }
        }
        if let error = message.fileError {
          report.fileErrors.append(error)
          console.fileFailed(error)
          if options.failFast { stop = true }
        }
      }
    }
    for worker in workers {
      if stop { worker.terminate() }
      let status = worker.wait()
      if !stop, status != 0 && status != 1 && status != 2 {
        let reference = SourceLocation(file: worker.files.first ?? "-", line: 1, column: 1)
        let error = ScenarioFileError(
          "a worker process ended abnormally (status \(status)) while running \(worker.files.joined(separator: ", "))",
          at: reference)
        report.fileErrors.append(error)
        console.fileFailed(error)
      }
    }
    report.results.sort { ($0.file, $0.location.line, $0.name) < ($1.file, $1.location.line, $1.name) }
    return report
  }

  static func executablePath() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else { return CommandLine.arguments[0] }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  // MARK: Snapshots

  private func orphans(files: [String], report: SuiteReport) -> [String] {
    let used = Set(report.results.flatMap { $0.snapshotsUsed })
    let failedFiles = Set(report.results.filter { !$0.passed }.map(\.file) + report.fileErrors.map(\.location.file))
    var orphans: [String] = []
    for file in files where !failedFiles.contains(file) {
      let folder = SnapshotPaths.folder(for: file)
      guard FileSystem.isDirectory(folder) else { continue }
      orphans += FileSystem.files(under: folder).filter { !used.contains($0) }
    }
    return orphans
  }
}
