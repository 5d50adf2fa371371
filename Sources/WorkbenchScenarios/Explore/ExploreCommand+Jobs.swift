import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI
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
        "checks": .integer(outcome.checks), "rebuilds": .list(outcome.rebuiltAfter.map(FrameValue.integer)),
        "history": .integer(outcome.historyChecks), "endedAtRebuild": .bool(outcome.endedAtRebuild),
        "endedAtRebuildWhy": outcome.endedAtRebuildWhy.map(FrameValue.string) ?? .null,
        "travels": .integer(outcome.travels),
        "coverage": .object(
          FrameObject(members: outcome.coverage.counts.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value)) })),
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
      self.outcome.rebuiltAfter = value["rebuilds"]?.elements?.compactMap(\.integerValue) ?? []
      self.outcome.historyChecks = value["history"]?.integerValue ?? 0
      self.outcome.travels = value["travels"]?.integerValue ?? 0
      self.outcome.endedAtRebuild = value["endedAtRebuild"] == .bool(true)
      self.outcome.endedAtRebuildWhy = value["endedAtRebuildWhy"]?.stringValue
      if case .object(let counts)? = value["coverage"] {
        self.outcome.coverage = ExploreCoverage(
          counts: Dictionary(counts.members.compactMap { key, value in value.integerValue.map { (key, $0) } }) { $1 })
      }
      if case .string(let failure)? = value["failure"] { self.failure = failure }
    }
  }

  /// The worker's side: its part of the sessions, a line each.
  static func runPart(_ explorer: Explorer, part: Int, of parts: Int) -> ExitCode {
    // Ended by the parent (its part is past the first failure), the module processes end too
    // (`ChildGroups`, set up as the program starts).
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
    if let against = options.againstPath { words += ["--against", against] }
    if !options.explorer.guided { words.append("--unguided") }
    // The workers keep what their sessions covered (the file is the parent's to write).
    if options.coveragePath != nil { words += ["--coverage", "-"] }
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
    // The sessions up to the first failing one (all of them while none failed), added up as
    // their lines come; counted again only when an earlier failure moves that bound.
    var counted = Explorer.Report()
    func failed(_ run: Int, _ detail: String) {
      guard failing.map({ run < $0.run }) ?? true else { return }
      failing = (run, detail)
      counted = Explorer.Report()
      for line in lines.values where line.run <= run { counted.add(line.outcome) }
    }
    var workers: [WorkerProcess] = []
    var nextRun: [Int] = []
    // Parts whose worker could not start or died before its part was done: run here after.
    var orphans: [(part: Int, from: Int)] = []
    var notes: [String] = []
    for part in 0..<parts {
      guard
        let worker = WorkerProcess(
          executable: SpawnedProcess.ownExecutable(), arguments: workerArguments(options, part: part, of: parts))
      else {
        notes.append("the explore worker for part \(part + 1) of \(parts) could not be started: its sessions ran here")
        orphans.append((part, part))
        continue
      }
      workers.append(worker)
      nextRun.append(part)
    }
    func take(_ line: SessionLine) {
      lines[line.run] = line
      if let failure = line.failure, failing.map({ line.run < $0.run }) ?? true {
        failed(line.run, failure)  // counts this line too
      } else if line.run <= (failing?.run ?? Int.max) {
        counted.add(line.outcome)
      }
    }
    var stopped: Set<Int> = []
    while workers.contains(where: { !$0.finished }) {
      for (worker, text) in WorkerProcess.readLines(from: workers) {
        guard let index = workers.firstIndex(where: { $0 === worker }), let line = SessionLine(json: text) else {
          continue
        }
        nextRun[index] = line.run + parts
        take(line)
      }
      progress(counted)
      // A worker whose next session comes after the first failure has nothing left to say.
      if let failing {
        for (index, worker) in workers.enumerated() where !worker.finished && nextRun[index] > failing.run {
          worker.terminate()
          stopped.insert(index)
        }
      }
    }
    for (index, worker) in workers.enumerated() {
      let ended = worker.waitForEnd()
      // A worker that ended before its part was done (killed from outside, out of memory) says
      // nothing about the session it was in: that is no finding about a module. Its part goes on
      // here, from that session, as one process would have run it.
      let part = nextRun[index] % parts
      if ended.status != 0, !stopped.contains(index), nextRun[index] < options.explorer.runs, !explorer.isOutOfTime {
        notes.append(
          "the explore worker for part \(part + 1) of \(parts) stopped (\(ended)) in session \(nextRun[index] + 1): "
            + "its sessions from there ran here")
        orphans.append((part, nextRun[index]))
      }
    }
    for orphan in orphans {
      let found = explorer.explore(part: orphan.part, of: parts, from: orphan.from, before: failing?.run ?? .max) {
        run, outcome in
        take(SessionLine(run: run, outcome: outcome))
        progress(counted)
      }
      if let found { failed(found.run, "\(found.failure.property.rawValue): \(found.failure.detail)") }
    }
    var report = counted
    if let failing { report = explorer.finish(counted, failingRun: failing.run, detail: failing.detail) }
    report.notes = notes
    return report
  }
}
