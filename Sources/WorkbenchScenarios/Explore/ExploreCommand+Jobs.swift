import WorkbenchCore
import WorkbenchSystem

/// `explore --jobs N`: the sessions dealt out to N processes of this program (session k to
/// process k mod N), each telling its sessions as they end; the first failing session by number
/// is generated again here and shrunk, so what is found and written is what one process finds.
extension ExploreCommand {
  /// What a worker says about one session, a line of JSON.
  struct SessionLine {
    var run: Int
    var outcome: Explorer.Outcome
    /// What it broke, in words, when it failed.
    var failure: String?

    var json: String {
      let line: FrameValue = [
        "run": .integer(run), "steps": .integer(outcome.stepsRun), "refused": .integer(outcome.refused),
        "checks": .integer(outcome.checks),
        "failure": outcome.failure.map { .string("\($0.property.rawValue): \($0.detail)") } ?? .null,
      ]
      return line.jsonText
    }

    init(run: Int, outcome: Explorer.Outcome) {
      self.run = run
      self.outcome = outcome
      self.failure = outcome.failure.map { "\($0.property.rawValue): \($0.detail)" }
    }

    init?(json: String) {
      guard let value = try? FrameValue.parse(json: Array(json.utf8)),
        case .integer(let run)? = value["run"], case .integer(let steps)? = value["steps"],
        case .integer(let refused)? = value["refused"], case .integer(let checks)? = value["checks"]
      else { return nil }
      self.run = run
      self.outcome = Explorer.Outcome(failure: nil, stepsRun: steps, refused: refused, checks: checks)
      if case .string(let failure)? = value["failure"] { self.failure = failure }
    }
  }

  /// The worker's side: its part of the sessions, a line each.
  static func runPart(_ explorer: Explorer, part: Int, of parts: Int) -> ExitCode {
    _ = explorer.explore(part: part, of: parts) { run, outcome in
      StandardStreams.out(SessionLine(run: run, outcome: outcome).json + "\n")
    }
    return .success
  }

  /// The arguments that start a worker on part `part` of `parts` with the same modules and
  /// options.
  static func workerArguments(_ options: Options, part: Int, of parts: Int) -> [String] {
    var words: [String] = []
    for name in options.builtInsLeftOut { words += ["--without-builtin", name] }
    words.append("explore")
    for path in options.paths { words += ["--module", path] }
    words += ["--seed", String(options.explorer.seed), "--runs", String(options.explorer.runs)]
    words += ["--steps", String(options.explorer.steps)]
    if let time = options.explorer.time {
      let milliseconds = time.components.seconds * 1000 + time.components.attoseconds / 1_000_000_000_000_000
      words += ["--time", "\(max(1, milliseconds))ms"]
    }
    if !options.explorer.screens.isEmpty { words += ["--screens", options.explorer.screens.joined(separator: ",")] }
    for path in options.alwaysPaths { words += ["--always", path] }
    return words + ["--part", "\(part)/\(parts)"]
  }

  /// Runs the sessions in `options.jobs` workers; the report is what one process would give.
  static func exploreInWorkers(_ explorer: Explorer, options: Options, progress: (Explorer.Report) -> Void)
    -> Explorer.Report
  {
    let parts = options.jobs
    var lines: [Int: SessionLine] = [:]
    // The first failing session's number, and what it broke.
    var failing: (run: Int, detail: String)?
    func failed(_ run: Int, _ detail: String) {
      if failing.map({ run < $0.run }) ?? true { failing = (run, detail) }
    }
    var workers: [WorkerProcess] = []
    var nextRun: [Int] = []
    for part in 0..<parts {
      guard
        let worker = WorkerProcess(
          executable: SpawnedProcess.ownExecutable(), arguments: workerArguments(options, part: part, of: parts))
      else {
        // What one process would have run in that part runs here instead.
        failed(part, "a worker process could not be started")
        continue
      }
      workers.append(worker)
      nextRun.append(part)
    }
    var stopped: Set<Int> = []
    while workers.contains(where: { !$0.finished }) {
      for (worker, text) in WorkerProcess.readLines(from: workers) {
        guard let index = workers.firstIndex(where: { $0 === worker }), let line = SessionLine(json: text) else {
          continue
        }
        lines[line.run] = line
        nextRun[index] = line.run + parts
        if let failure = line.failure { failed(line.run, failure) }
      }
      var report = Explorer.Report()
      for line in lines.values where line.run <= (failing?.run ?? Int.max) { report.add(line.outcome) }
      progress(report)
      // A worker whose next session comes after the first failure has nothing left to say.
      if let failing {
        for (index, worker) in workers.enumerated() where !worker.finished && nextRun[index] > failing.run {
          worker.terminate()
          stopped.insert(index)
        }
      }
    }
    for (index, worker) in workers.enumerated() {
      let status = worker.wait()
      // A worker that stopped before its part was done stopped in its next session.
      if status != 0, !stopped.contains(index), nextRun[index] < options.explorer.runs {
        failed(nextRun[index], "the explore process running it stopped with status \(status)")
      }
    }
    var report = Explorer.Report()
    for line in lines.values where line.run <= (failing?.run ?? Int.max) { report.add(line.outcome) }
    guard let failing else { return report }
    return explorer.finish(report, failingRun: failing.run, detail: failing.detail)
  }
}
