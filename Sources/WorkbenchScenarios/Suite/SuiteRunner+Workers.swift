import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchStore
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Running in worker processes: the files handed out one at a time, results read as lines.
extension SuiteRunner {
  // MARK: Worker processes

  /// Starts up to `jobs` workers of this same program, which take the files one at a time from
  /// a queue (`FileQueue`), and collects their results as they arrive.
  ///
  /// A worker that crashes loses only the scenario it was running (reported as failed, with
  /// the signal): the rest of its file goes to a new worker that skips what was already done,
  /// and takes from the queue after it. Every crash accounts for at least one scenario or file,
  /// so this ends.
  func runInWorkers(_ files: [String], started: StartedWorkers? = nil) -> SuiteReport {
    var report = SuiteReport()
    guard let started = started ?? startWorkers(count: min(options.jobs, files.count)), started.queue.deal(files)
    else {
      // No temporary file (a read-only TMPDIR, say) or no pipe: the run goes on in this
      // process, as with --jobs 1, and says why.
      started?.dismiss()
      StandardStreams.write(
        "warning: running in this process: no queue of files for worker processes "
          + "(\(FileSystem.temporaryFolder()) takes no temporary file, or no pipe could be made)\n",
        to: STDERR_FILENO)
      runHere(files, into: &report)
      return report
    }
    let queue = started.queue
    var workers = started.workers
    report.fileErrors += started.failures
    // Those started early were as many as the cores: more when asked for, and files enough.
    while workers.count < min(options.jobs, files.count),
      let worker = startWorker(files: [], skipping: [], skippingFiles: [], queue: queue, report: &report)
    {
      workers.append(worker)
    }
    // Results print in file order whatever the order workers finish in, so two runs diff cleanly.
    let printer = FileOrderPrinter(console: console, files: files)
    var stop = false
    var retried = false
    // The files workers said they took, and those a worker died loading (loaded once more).
    var announced: Set<String> = []
    var reloaded: Set<String> = []
    while !stop {
      collect(
        from: &workers, queue: queue, report: &report, printer: printer, announced: &announced, reloaded: &reloaded,
        stop: &stop)
      // A worker killed between taking a file and saying so leaves a file nobody ran: one
      // more worker runs those, once.
      let missed = files.filter { !announced.contains($0) }
      guard !stop, !missed.isEmpty, !retried else { break }
      retried = true
      if let worker = startWorker(files: missed, skipping: [], skippingFiles: [], queue: queue, report: &report) {
        workers.append(worker)
      } else {
        break
      }
    }
    if stop {
      // Stopped at a failure (-x): no worker takes another file, and what each is running
      // finishes and is reported (a scenario that passed in another worker is not lost).
      _ = queue.takeBack()
      var ignored = false
      collect(
        from: &workers, queue: queue, report: &report, printer: printer, announced: &announced, reloaded: &reloaded,
        stop: &ignored, draining: true)
      report.filesNotRunAfterFailure = files.filter { !announced.contains($0) }.count
    }
    for worker in workers where !worker.reaped {
      if stop { worker.terminate() }
      _ = worker.wait()
    }
    if !stop {
      for file in files where !announced.contains(file) {
        let error = ScenarioFileError(
          "not run: every worker process ended before reaching this file (see the errors above)",
          at: SourceLocation(file: file, line: 1, column: 1))
        report.fileErrors.append(error)
        printer.add(.fileError(error), file: file)
      }
    }
    printer.flushEverything()
    report.results = Self.inFileOrder(report.results, files: files)
    return report
  }

  /// `results` in the order one process runs them: by the file's place among `files` (a file
  /// not among them after those, by its path), then line and name, as they came for equal ones.
  /// Their order is sorted and each result moved once, where sorting the results themselves
  /// moved each large value many times; files are compared by their place, not their paths
  /// (comparing paths as text was half the parent's time after its workers ended).
  static func inFileOrder(_ results: [ScenarioResult], files: [String]) -> [ScenarioResult] {
    var places: [String: Int] = [:]
    places.reserveCapacity(files.count)
    for (place, file) in files.enumerated() where places[file] == nil { places[file] = place }
    let keys = results.map { (places[$0.file] ?? files.count, $0.location.line) }
    let order = results.indices.sorted { left, right in
      if keys[left] != keys[right] { return keys[left] < keys[right] }
      if keys[left].0 == files.count, results[left].file != results[right].file {
        return results[left].file < results[right].file
      }
      if results[left].name != results[right].name { return results[left].name < results[right].name }
      return left < right
    }
    return order.map { results[$0] }
  }

  /// Reads what the workers say until every one has ended (or `stop`), replacing those that
  /// crash.
  ///
  /// `draining`: the run stopped at a failure; what the workers say until they end is taken in,
  /// and none is replaced.
  func collect(
    from workers: inout [WorkerProcess], queue: FileQueue, report: inout SuiteReport, printer: FileOrderPrinter,
    announced: inout Set<String>, reloaded: inout Set<String>, stop: inout Bool, draining: Bool = false
  ) {
    while !stop, workers.contains(where: { !$0.finished }) {
      queue.topUp()
      let lines = WorkerProcess.readLines(from: workers)
      for (worker, line) in lines {
        guard let message = WorkerLine.decode(line) else { continue }
        if let started = message.started {
          worker.current = started
          worker.currentFile = started.file
        }
        if let file = message.loading {
          if let previous = worker.currentFile { printer.completed(previous) }
          if !worker.files[..<worker.namedFiles].contains(file) { worker.files.append(file) }
          announced.insert(file)
          worker.currentFile = file
          worker.current = nil
          worker.resultsDue = nil
        }
        if let count = message.loaded {
          worker.resultsDue = count
          if count == 0, let file = worker.currentFile { worker.doneFiles.insert(file) }
        }
        if let result = message.result {
          worker.done.insert(Self.key(result.location))
          worker.current = nil
          report.results.append(handOverTrace(of: result))
          printer.add(.result(result), file: result.file)
          if let due = worker.resultsDue {
            worker.resultsDue = due - 1
            if due == 1, let file = worker.currentFile {
              worker.doneFiles.insert(file)
              printer.completed(file)
            }
          }
          if options.failFast && !result.passed { stop = true }
        }
        if let error = message.fileError {
          if let file = worker.currentFile { worker.doneFiles.insert(file) }
          report.fileErrors.append(error)
          traceLoadFailure(error)
          printer.add(.fileError(error), file: worker.currentFile ?? error.location.file)
          if options.failFast { stop = true }
        }
      }
      if stop { break }
      // Lines are read in batches: woken for each line, this process would take a core from
      // a worker as often (on a machine with a core per worker), for output that nobody can
      // read faster than every 2 ms. A worker that ends cuts the pause short: the run's last
      // moments are spent on its end, not asleep.
      if !workers.contains(where: { $0.finished && !$0.reaped }) { WorkerProcess.pause(2, orUntilAnEndOf: workers) }
      // A worker whose output ended is reaped now; one that crashed is replaced.
      for (index, worker) in workers.enumerated() where worker.finished && !worker.reaped {
        let status = worker.wait()
        guard ![0, 1, 2, 5].contains(status), !draining else {  // 5: its files held nothing selected
          for file in worker.files { printer.completed(file) }
          continue
        }
        if let replacement = recover(
          from: worker, status: status, queue: queue, report: &report, printer: printer, reloaded: &reloaded)
        {
          workers[index] = replacement
        } else {
          for file in worker.files { printer.completed(file) }
        }
      }
    }
  }

  /// Workers started on an empty queue, whose files are dealt when they are known.
  final class StartedWorkers {
    let queue: FileQueue
    let workers: [WorkerProcess]
    /// Workers that could not be started, said as file errors of the run.
    let failures: [ScenarioFileError]

    init(queue: FileQueue, workers: [WorkerProcess], failures: [ScenarioFileError]) {
      self.queue = queue
      self.workers = workers
      self.failures = failures
    }

    /// Ends the queue with nothing on it and ends the workers, which took nothing: at once, not
    /// after each has started up only to find the queue empty (a folder of one file runs here).
    func dismiss() {
      queue.end()
      for worker in workers where !worker.reaped { worker.kill() }
      for worker in workers where !worker.reaped { _ = worker.wait() }
    }
  }

  /// Starts `count` workers on a queue whose files come later; `nil` when no queue can be made.
  func startWorkers(count: Int) -> StartedWorkers? {
    guard let queue = FileQueue() else { return nil }
    var report = SuiteReport()
    let workers = (0..<count).compactMap { _ in
      startWorker(files: [], skipping: [], skippingFiles: [], queue: queue, report: &report)
    }
    return StartedWorkers(queue: queue, workers: workers, failures: report.fileErrors)
  }

  func startWorker(
    files: [String], skipping: Set<String>, skippingFiles: Set<String>, queue: FileQueue,
    report: inout SuiteReport
  ) -> WorkerProcess? {
    var workerOptions = options
    workerOptions.skippedScenarios = skipping
    workerOptions.skippedFiles = skippingFiles
    guard
      let worker = WorkerProcess(
        executable: SpawnedProcess.ownExecutable(),
        arguments: ["run"] + workerOptions.workerArguments + ["--file-queue"] + files, queue: queue)
    else {
      report.fileErrors.append(
        ScenarioFileError(
          "could not start a worker process", at: SourceLocation(file: files.first ?? "-", line: 1, column: 1)))
      return nil
    }
    worker.files = files
    worker.namedFiles = files.count
    worker.done = skipping
    worker.doneFiles = skippingFiles
    return worker
  }

  /// Reports what a crashed worker was running and starts a new worker for the rest of its files.
  func recover(
    from worker: WorkerProcess, status: Int32, queue: FileQueue, report: inout SuiteReport,
    printer: FileOrderPrinter, reloaded: inout Set<String>
  ) -> WorkerProcess? {
    let how = status > 128 ? "was killed by signal \(status - 128)" : "exited with status \(status)"
    if let current = worker.current {
      let result = ScenarioResult(
        file: current.file, name: scenarioName(at: current) ?? "scenario at line \(current.line)", location: current,
        duration: 0, stepsRun: 0,
        failure: ScenarioFailure(
          location: current, step: "(the whole scenario)",
          message: "the worker process running this scenario \(how); the other scenarios were run by another worker",
          details: [], origin: []),
        snapshotsWritten: [], snapshotsUsed: [])
      report.results.append(result)
      printer.add(.result(result), file: current.file)
      worker.done.insert(Self.key(current))
    } else if let file = worker.currentFile, worker.resultsDue == nil, !reloaded.contains(file) {
      // It died loading the file: a kill from outside can land there as anywhere. Nothing of
      // the file ran, so the next worker loads it again, once (a file whose loading itself kills
      // a worker is reported by the branch below the second time).
      reloaded.insert(file)
      let error = ScenarioFileError(
        "a worker process \(how) while it loaded \(file); another worker loaded it again",
        at: SourceLocation(file: "-", line: 1, column: 1))
      report.fileErrors.append(error)
      console.fileFailed(error)
      if !worker.files.contains(file) { worker.files.append(file) }
    } else if let file = worker.currentFile ?? worker.files.first, worker.resultsDue == nil {
      // It died loading the file again (or before it began its first named file).
      let error = ScenarioFileError(
        "the worker process reading this file \(how); its scenarios did not run",
        at: SourceLocation(file: file, line: 1, column: 1))
      report.fileErrors.append(error)
      printer.add(.fileError(error), file: file)
      worker.doneFiles.insert(file)
    } else if worker.currentFile == nil {
      // It ended before it took a file: another would too (a module that fails as it starts,
      // say), so it is not replaced; the other workers take the files.
      let error = ScenarioFileError(
        "a worker process \(how) before it took a file", at: SourceLocation(file: "-", line: 1, column: 1))
      report.fileErrors.append(error)
      console.fileFailed(error)
      return nil
    } else {
      // Between scenarios, or between files (a kill from outside: no scenario code runs
      // there). Nothing is lost: what has no result runs in the next worker.
      let error = ScenarioFileError(
        "a worker process \(how) between scenarios; those without a result were run by another worker",
        at: SourceLocation(file: "-", line: 1, column: 1))
      report.fileErrors.append(error)
      console.fileFailed(error)
    }
    // The new worker is told only about the files it is to run (the command line stays short
    // however far the first one got).
    let remaining = worker.files.filter { !worker.doneFiles.contains($0) }
    let files = Set(remaining)
    let done = worker.done.filter { key in files.contains(String(key[..<(key.lastIndex(of: ":") ?? key.endIndex)])) }
    return startWorker(
      files: remaining, skipping: done, skippingFiles: [], queue: queue, report: &report)
  }

  /// The name of the scenario at a place, read again from its file, for the crash report.
  func scenarioName(at location: SourceLocation) -> String? {
    guard let loader = try? ScenarioLoader(modules: modules), let file = try? loader.load(location.file) else {
      return nil
    }
    return file.scenarios.first { $0.identity.line == location.line }?.name
  }
}
