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
  /// Run only shard `index` of `count` (1-based), splitting by file.
  public var shard: (index: Int, count: Int)?
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
  /// Internal, for workers that replace one that crashed: scenarios (`FILE:LINE`) and whole
  /// files already accounted for, which are not run again.
  public var skippedScenarios: Set<String> = []
  public var skippedFiles: Set<String> = []

  /// Defaults: as many jobs as cores.
  public init(jobs: Int) { self.jobs = jobs }

  /// A mistake in the command line; exits with code 2.
  public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
  }

  static let valueOptions = [
    "--filter", "--tag", "--exclude-tag", "--jobs", "-j", "--shard", "--repeat", "--junit", "--json", "--module",
  ]
  static let flagOptions = ["--list", "--fail-fast", "--update-snapshots", "--exhaustive", "--worker"]

  /// Parses the arguments after `run` or `check`.
  public static func parse(_ arguments: [String], cores: Int) throws(UsageError) -> RunOptions {
    var options = RunOptions(jobs: max(1, cores))
    var index = 0
    func value(_ name: String) throws(UsageError) -> String {
      index += 1
      guard index < arguments.count else { throw UsageError(message: "\(name) needs a value") }
      return arguments[index]
    }
    while index < arguments.count {
      let argument = arguments[index]
      switch argument {
      case "--filter":
        let pattern = try value(argument)
        if case .failure(let problem) = RegexLimits.compile(pattern) {
          let shown = pattern.count > 60 ? String(pattern.prefix(60)) + "…" : pattern
          throw UsageError(message: "--filter \(shown) cannot be used: \(problem.message)")
        }
        options.filter = pattern
      case "--tag": options.tags.append(try value(argument))
      case "--exclude-tag": options.excludedTags.append(try value(argument))
      case "--list": options.list = true
      case "--fail-fast": options.failFast = true
      case "--jobs", "-j":
        guard let jobs = Int(try value(argument)), jobs >= 1 else {
          throw UsageError(message: "--jobs needs a number of at least 1")
        }
        options.jobs = jobs
      case "--shard":
        let text = try value(argument)
        let parts = text.split(separator: "/")
        guard parts.count == 2, let shard = Int(parts[0]), let count = Int(parts[1]), count >= 1,
          (1...count).contains(shard)
        else { throw UsageError(message: "--shard is I/N with 1 <= I <= N, such as 2/4; got '\(text)'") }
        options.shard = (shard, count)
      case "--repeat":
        guard let count = Int(try value(argument)), count >= 1 else {
          throw UsageError(message: "--repeat needs a number of at least 1")
        }
        options.repeatCount = count
      case "--update-snapshots": options.updateSnapshots = true
      case "--exhaustive": options.exhaustive = true
      case "--junit": options.junitPath = try value(argument)
      case "--json": options.jsonPath = try value(argument)
      case "--worker": options.worker = true
      case "--module", "-m": options.modulePaths.append(try value(argument))
      case "--skip-scenario": options.skippedScenarios.insert(try value(argument))
      case "--skip-file": options.skippedFiles.insert(try value(argument))
      default:
        if argument.hasPrefix("-") {
          let known = valueOptions + flagOptions
          let hint =
            known.first { $0.hasPrefix(argument) || argument.hasPrefix($0) }.map { ". Did you mean \($0)?" } ?? ""
          throw UsageError(message: "unknown option '\(argument)'\(hint)")
        }
        options.paths.append(argument)
      }
      index += 1
    }
    if options.paths.isEmpty { throw UsageError(message: "name the scenario files or folders to run") }
    return options
  }

  /// The arguments a worker is started with (everything that changes what runs, no reports).
  var workerArguments: [String] {
    var arguments = ["--worker", "--repeat", String(repeatCount)]
    for path in modulePaths { arguments += ["--module", path] }
    if let filter { arguments += ["--filter", filter] }
    for tag in tags { arguments += ["--tag", tag] }
    for tag in excludedTags { arguments += ["--exclude-tag", tag] }
    if updateSnapshots { arguments.append("--update-snapshots") }
    if exhaustive { arguments.append("--exhaustive") }
    if failFast { arguments.append("--fail-fast") }
    for scenario in skippedScenarios.sorted() { arguments += ["--skip-scenario", scenario] }
    for file in skippedFiles.sorted() { arguments += ["--skip-file", file] }
    return arguments
  }

  static let helpText = """
    usage: workbench run PATH... [options]      run scenario files (folders are searched for *.yaml)
           workbench check PATH...              check files without running them

    options:
      --filter REGEX       only scenarios whose name matches
      --tag T              only scenarios tagged T (repeatable)
      --exclude-tag T      skip scenarios tagged T (repeatable)
      --list               list the selected scenarios and exit
      --fail-fast          stop at the first failure
      --jobs N, -j N       worker processes (default: the number of cores)
      --shard I/N          run the I-th of N shards (split by file)
      --repeat N           run each scenario N times
      --update-snapshots   record missing or changed snapshot files
      --exhaustive         fail when a frame changes without an expectation covering it
      --junit FILE         write a JUnit XML report
      --json FILE          write a JSON report
      --module PATH        also load the module built as the executable PATH

    exit codes: 0 all passed, 1 a scenario failed, 2 usage or file errors
    """
}
