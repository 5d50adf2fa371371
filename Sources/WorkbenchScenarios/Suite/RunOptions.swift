import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSystem

/// The options of `workbench run` and `workbench check`.
public struct RunOptions: Sendable {
  /// Files and folders to run.
  public var paths: [String] = []
  /// Only scenarios whose name matches this regular expression.
  public var filter: String?
  /// Only scenarios with one of these tags.
  public var tags: [String] = []
  /// No scenarios with any of these tags.
  public var excludedTags: [String] = []
  /// List the selected scenarios instead of running them.
  public var list = false
  /// Stop at the first failure.
  public var failFast = false
  /// Worker processes; 1 runs in this process.
  public var jobs: Int
  /// Run only shard `index` of `count` (1-based), splitting by scenario.
  public var shard: (index: Int, count: Int)?
  /// A JSON report of an earlier run, whose durations balance the shards.
  public var durationsPath: String?
  /// Run each scenario this many times, to hunt flakiness.
  public var repeatCount = 1
  /// Write missing or changed snapshots.
  public var updateSnapshots = false
  /// Check every scenario exhaustively.
  public var exhaustive = false
  /// Write a JUnit XML report here.
  public var junitPath: String?
  /// Write a JSON report here.
  public var jsonPath: String?
  /// Internal: run as a worker and print results as JSON lines.
  public var worker = false
  /// Modules to run as processes for these scenarios.
  public var modulePaths: [String] = []
  /// The built-in modules the run leaves out (`--without-builtin`, taken by the program before
  /// `run` sees its arguments and given back here so its workers leave them out too).
  public var builtInsLeftOut: [String] = []
  /// Internal, for workers that replace one that crashed: scenarios (`FILE:LINE`) and whole
  /// files already accounted for, which are not run again.
  public var skippedScenarios: Set<String> = []
  public var skippedFiles: Set<String> = []
  /// Internal, for workers: after the files named, take more from the parent's queue
  /// (descriptors 3 and 4, see `FileQueue`).
  public var fileQueue = false
  /// Run only the scenarios that failed in the last run here (`--last-failed`).
  public var lastFailed = false
  /// When set, only these scenarios (`FILE:LINE`) run: the last run's failures.
  public var onlyScenarios: Set<String>?
  /// Lines named with `FILE:LINE`, by file: the scenario holding each line runs, the file's
  /// others do not.
  public var lines: [String: Set<Int>] = [:]
  /// Print only failures and the summary.
  public var quiet = false
  /// Print each step under its scenario.
  public var verbose = false
  /// Write a trace of every scenario into this folder.
  public var tracePath: String?
  /// Write a self-contained HTML report here.
  public var htmlPath: String?
  /// Write what the scenarios covered here, as JSON (docs/coverage.schema.json).
  public var coveragePath: String?
  /// `--force`: replace the `--coverage` file when it is there.
  public var force = false
  /// Internal, for workers: count what each scenario covered.
  public var countsCoverage = false
  /// The traces of an earlier green run, which the report compares failures with.
  public var baselinePath: String?
  /// Internal, for workers: keep traces.
  public var traces = false
  /// Run again whenever a scenario file or a module changes (the program's front end loops).
  public var watch = false
  /// Open the shell on the scenario at `FILE:LINE`, after its steps up to that line.
  public var opensShell = false

  /// Whether scenarios keep traces in this run.
  var keepsTraces: Bool { traces || tracePath != nil || htmlPath != nil }

  /// Defaults: as many jobs as cores.
  public init(jobs: Int) { self.jobs = jobs }

  /// The options of `run` and `check`, declared once: the parser and `--help` are made from
  /// these. The last four are the runner's own, for its worker processes.
  public static let all: [ProgramOption<RunOptions>] = [
    .value(
      ["-k", "--filter"], "REGEX", help: "only scenarios whose name matches (case-sensitive: `(?i)` ignores case)"
    ) {
      options, pattern throws(ProgramUsageError) in
      if case .failure(let problem) = RegexLimits.compile(pattern) {
        let shown = pattern.count > 60 ? String(pattern.prefix(60)) + "…" : pattern
        throw ProgramUsageError("--filter \(shown) cannot be used: \(problem.message)")
      }
      options.filter = pattern
    },
    .value(["--tag"], "T", help: "only scenarios tagged T (repeatable)") { $0.tags.append($1) },
    .value(["--exclude-tag"], "T", help: "skip scenarios tagged T (repeatable)") { $0.excludedTags.append($1) },
    .flag(["--list"], help: "list the selected scenarios and exit") { $0.list = true },
    .flag(["-x", "--fail-fast"], help: "stop at the first failure") { $0.failFast = true },
    .flag(
      ["--last-failed"],
      help: "run only the scenarios (and files) that failed last time, in the last run's paths when none is named"
    ) {
      $0.lastFailed = true
    },
    .flag(["-q", "--quiet"], help: "print only failures and the summary") { $0.quiet = true },
    .flag(["-v", "--verbose"], help: "print each step under its scenario") { $0.verbose = true },
    .value(["-j", "--jobs"], "N", help: "worker processes (default: the number of cores)") {
      options, text throws(ProgramUsageError) in
      guard let jobs = Int(text), jobs >= 1 else { throw ProgramUsageError("--jobs needs a number of at least 1") }
      options.jobs = jobs
    },
    .value(["--shard"], "I/N", help: "run the I-th of N shards (split by scenario)") {
      options, text throws(ProgramUsageError) in
      let parts = text.split(separator: "/")
      guard parts.count == 2, let shard = Int(parts[0]), let count = Int(parts[1]), count >= 1,
        (1...count).contains(shard)
      else { throw ProgramUsageError("--shard is I/N with 1 <= I <= N, such as 2/4; got '\(text)'") }
      options.shard = (shard, count)
    },
    .value(["--durations"], "FILE", help: "balance --shard by the durations in a report written by --json") {
      $0.durationsPath = $1
    },
    .value(["--repeat"], "N", help: "run each scenario N times") { options, text throws(ProgramUsageError) in
      guard let count = Int(text), count >= 1 else { throw ProgramUsageError("--repeat needs a number of at least 1") }
      options.repeatCount = count
    },
    .flag(["--update-snapshots"], help: "record missing or changed snapshot files") { $0.updateSnapshots = true },
    .flag(["--exhaustive"], help: "fail when a frame changes without an expectation covering it") {
      $0.exhaustive = true
    },
    .value(["--junit"], "FILE", help: "write a JUnit XML report") { $0.junitPath = $1 },
    .value(["--json"], "FILE", help: "write a JSON report") { $0.jsonPath = $1 },
    .value(["--trace"], "DIR", help: "write a trace of every step of every scenario into DIR (see docs/traces.md)") {
      $0.tracePath = $1
    },
    .value(["--html"], "FILE", help: "write a self-contained HTML report of the run") { $0.htmlPath = $1 },
    .value(["--baseline"], "DIR", help: "with --html: traces of a green run to compare failures with") {
      $0.baselinePath = $1
    },
    .value(
      ["--coverage"], "FILE",
      help: "write what the scenarios covered (commands, argument edges, screens, state machines) to FILE as JSON"
    ) { $0.coveragePath = $1 },
    .flag(["--force"], help: "replace the --coverage file if it is there (never a link or anything but a file)") {
      $0.force = true
    },
    .modules(\.modulePaths),
    .flag(["--watch"], help: "run again whenever a scenario file or a module's executable changes (Ctrl-C stops)") {
      $0.watch = true
    },
    .flag(
      ["--shell"],
      help: "with FILE:LINE: run the scenario up to that line and open the shell there (`travel back`, `travel steps`)"
    ) { $0.opensShell = true },
    .flag(["--worker"], help: nil) { $0.worker = true },
    .value(["--without-builtin"], "NAME", help: nil) { $0.builtInsLeftOut.append($1) },
    .flag(["--keep-traces"], help: nil) { $0.traces = true },
    .flag(["--count-coverage"], help: nil) { $0.countsCoverage = true },
    .value(["--skip-scenario"], "FILE:LINE", help: nil) { $0.skippedScenarios.insert($1) },
    .value(["--skip-file"], "FILE", help: nil) { $0.skippedFiles.insert($1) },
    .flag(["--file-queue"], help: nil) { $0.fileQueue = true },
    .value(["--only-scenario"], "FILE:LINE", help: nil) { options, key in
      options.onlyScenarios = (options.onlyScenarios ?? []).union([key])
    },
    .value(["--at"], "FILE:LINE", help: nil) { options, place in
      if let colon = place.lastIndex(of: ":"), let line = Int(place[place.index(after: colon)...]) {
        options.lines[String(place[..<colon]), default: []].insert(line)
      }
    },
  ]

  /// Parses the arguments after `run` or `check`.
  public static func parse(_ arguments: [String], cores: Int) throws(ProgramUsageError) -> RunOptions {
    var options = RunOptions(jobs: max(1, cores))
    options.paths = try ProgramOptionParser.parse(arguments, options: all, into: &options)
    if options.durationsPath != nil, options.shard == nil, !options.worker {
      throw ProgramUsageError("--durations balances the shards of --shard I/N: give --shard too, or leave it out")
    }
    if options.paths.isEmpty, options.lastFailed, !options.fileQueue {
      // `--last-failed` alone looks where the last run looked.
      options.paths = LastFailed.paths()
    }
    options.paths = try options.paths.map { path throws(ProgramUsageError) in try options.takeLine(of: path) }
    if options.paths.isEmpty && !options.fileQueue {
      // With no path, the project's `Scenarios/` folder, when there is one.
      guard FileSystem.isDirectory("Scenarios") else {
        throw ProgramUsageError("name the scenario files or folders to run (there is no Scenarios/ folder here)")
      }
      options.paths = ["Scenarios"]
    }
    return options
  }

  /// The arguments a worker is started with (everything that changes what runs, no reports).
  var workerArguments: [String] {
    var arguments = ["--worker", "--repeat", String(repeatCount)]
    for path in modulePaths { arguments += ["--module", path] }
    for name in builtInsLeftOut { arguments += ["--without-builtin", name] }
    if let filter { arguments += ["--filter", filter] }
    for tag in tags { arguments += ["--tag", tag] }
    for tag in excludedTags { arguments += ["--exclude-tag", tag] }
    if updateSnapshots { arguments.append("--update-snapshots") }
    if exhaustive { arguments.append("--exhaustive") }
    if failFast { arguments.append("--fail-fast") }
    if verbose { arguments.append("--verbose") }
    if keepsTraces { arguments.append("--keep-traces") }
    if countsCoverage || coveragePath != nil { arguments.append("--count-coverage") }
    for scenario in skippedScenarios.sorted() { arguments += ["--skip-scenario", scenario] }
    for file in skippedFiles.sorted() { arguments += ["--skip-file", file] }
    for scenario in (onlyScenarios ?? []).sorted() { arguments += ["--only-scenario", scenario] }
    for (file, lines) in lines.sorted(by: { $0.key < $1.key }) {
      for line in lines.sorted() { arguments += ["--at", "\(file):\(line)"] }
    }
    return arguments
  }

  /// A path with a line (`FILE:LINE`, as an editor or a failure message gives it): the file,
  /// with the scenario that holds that line selected. A path that exists as written is a path.
  mutating func takeLine(of path: String) throws(ProgramUsageError) -> String {
    guard !FileSystem.exists(path), let colon = path.lastIndex(of: ":") else { return path }
    let digits = path[path.index(after: colon)...]
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return path }
    let file = String(path[..<colon])
    guard FileSystem.exists(file), !FileSystem.isDirectory(file) else {
      throw ProgramUsageError("\(path): there is no file \(file)")
    }
    // A line past the file's end (Int.max among them) is refused as line 0 is: it would run
    // the last scenario, which the line does not name.
    let count = (try? FileSystem.read(file)).map { bytes in
      bytes.reduce(into: 1) { count, byte in if byte == 0x0A { count += 1 } } - (bytes.last == 0x0A ? 1 : 0)
    }
    guard let line = Int(digits), line >= 1, line <= (count ?? Int.max) else {
      throw ProgramUsageError("\(path): lines are numbered from 1" + (count.map { " to \($0) in \(file)" } ?? ""))
    }
    lines[file, default: []].insert(line)
    return file
  }

  /// Where `--last-failed` finds the last run's failures: `.workbench/last-failed` in the
  /// folder the run starts in, as pytest keeps its cache beside the project.
  public static let lastFailedPath = ".workbench/last-failed"
  /// The paths the last run here was given, for a `--last-failed` that names none.
  public static let lastPathsPath = ".workbench/last-paths"
}

/// `workbench report`'s options, declared once: the parser, `--help`, the man page and the
/// completion scripts are made from `all`.
public struct ReportOptions: Sendable {
  /// The trace folders to merge (the operands).
  public var folders: [String] = []
  /// Where to write the report.
  public var html: String?
  /// Where to write the merged runs as JUnit XML and as JSON (`run --junit`, `run --json`).
  public var junit: String?
  public var json: String?
  /// Traces of a green run to compare failures with.
  public var baseline: String?
  /// Modules to load, for the diagrams the report draws.
  public var modulePaths: [String] = []

  public init() {}

  public static let usage =
    "usage: workbench report TRACEDIR... [--html FILE] [--junit FILE] [--json FILE] [--baseline DIR]"

  public static let all: [ProgramOption<ReportOptions>] = [
    .value(["--html"], "FILE", help: "where to write the HTML report") { $0.html = $1 },
    .value(["--junit"], "FILE", help: "write the merged runs as JUnit XML, as `run --junit` does") { $0.junit = $1 },
    .value(["--json"], "FILE", help: "write the merged runs as JSON, as `run --json` does") { $0.json = $1 },
    .value(["--baseline"], "DIR", help: "traces of a green run to compare failures with") { $0.baseline = $1 },
    .modules(\.modulePaths),
  ]
}
