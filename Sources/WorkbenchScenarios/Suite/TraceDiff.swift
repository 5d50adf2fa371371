import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench diff A B`: two runs compared scenario by scenario, naming the first step where
/// they part and what differs there.
@MainActor
public enum TraceDiff {
  /// What `diff` does, for its `--help`.
  public static let details = """
    A and B are trace folders or files (`workbench run --trace DIR`), or scenario files and folders
    (recordings too), which are run first, with traces. Scenarios are paired by file and name; for
    each pair the first step after which a frame, a fact served, the output or the step itself
    differs is named, field by field.

    exit codes: 0 the runs agree, 1 they differ, 2 usage or file errors
    """

  /// Runs `diff A B` (its options, the modules, were taken before); returns the exit status.
  public static func run(_ arguments: [String], modules: [any FeatureModule]) -> ExitCode {
    guard arguments.count == 2 else {
      StandardStreams.write(
        "workbench diff: name two runs to compare, A and B\nusage: workbench diff A B [-m PATH]...\n",
        to: STDERR_FILENO)
      return .usage
    }
    let first: [ScenarioTrace]
    let second: [ScenarioTrace]
    do {
      first = try traces(of: arguments[0], modules: modules)
      second = try traces(of: arguments[1], modules: modules)
    } catch {
      StandardStreams.write("workbench diff: \(error.message)\n", to: STDERR_FILENO)
      return .usage
    }
    let report = compare(first, second)
    StandardStreams.write(report.text, to: STDOUT_FILENO)
    return report.agree ? .success : .failure
  }

  /// The traces at `path`: read from a trace folder or file, or made by running the scenario
  /// files there.
  static func traces(of path: String, modules: [any FeatureModule]) throws(TraceReadError) -> [ScenarioTrace] {
    guard FileSystem.exists(path) else { throw TraceReadError("\(path): no such file or folder") }
    let isTrace =
      FileSystem.isDirectory(path)
      ? FileSystem.files(under: path).contains { $0.hasSuffix(".trace.json") } : path.hasSuffix(".json")
    if isTrace { return try TraceStore.read([path]) }
    let files: [String]
    let registry: ModuleRegistry
    do {
      files = try SuiteRunner.discover([path]) { StandardStreams.error("note: \($0)\n") }
      registry = try ModuleRegistry(modules: modules)
    } catch let error as ProgramUsageError {
      throw TraceReadError(error.message)
    } catch {
      throw TraceReadError("\(error)")
    }
    guard !files.isEmpty else { throw TraceReadError("\(path): no trace and no scenario file") }
    let loader = ScenarioLoader(registry: registry)
    let runner = ScenarioRunner(registry: registry, options: .init(traces: true))
    var traces: [ScenarioTrace] = []
    for file in files {
      let loaded: ScenarioFile
      do {
        loaded = try loader.load(file)
      } catch {
        throw TraceReadError(error.all.map { "\($0)" }.joined(separator: "\n"))
      }
      traces += loaded.scenarios.compactMap { runner.run($0).trace }
    }
    return traces
  }

  /// The comparison of two runs, as printed.
  struct Report {
    var text = ""
    var agree = true
  }

  /// Pairs the scenarios (by file and name; then by name; then the one left on each side) and
  /// compares each pair.
  static func compare(_ first: [ScenarioTrace], _ second: [ScenarioTrace]) -> Report {
    var report = Report()
    var left = first
    var right = second
    var pairs: [(ScenarioTrace, ScenarioTrace)] = []
    // By file and name, then by name alone.
    for byName in [false, true] {
      let keys = right.map { byName ? $0.scenario : $0.file + "\u{0}" + $0.scenario }
      var taken = Set<Int>()
      var remaining: [ScenarioTrace] = []
      for trace in left {
        let key = byName ? trace.scenario : trace.file + "\u{0}" + trace.scenario
        if let index = keys.indices.first(where: { !taken.contains($0) && keys[$0] == key }) {
          taken.insert(index)
          pairs.append((trace, right[index]))
        } else {
          remaining.append(trace)
        }
      }
      left = remaining
      right = right.indices.filter { !taken.contains($0) }.map { right[$0] }
    }
    if left.count == 1, right.count == 1 {
      pairs.append((left[0], right[0]))
      left = []
      right = []
    }
    var differing = 0
    for (a, b) in pairs {
      let name = "\"\(b.scenario)\" (\(b.file):\(b.line))"
      guard let difference = TraceComparison.firstDifference(from: a, to: b) else {
        report.text += "same    \(name): \(b.steps.count) steps\n"
        continue
      }
      differing += 1
      let step = difference.step == 0 ? "the set-up" : "step \(difference.step)"
      report.text += "differs \(name) after \(step): \(difference.stepText) (\(difference.location))\n"
      for field in difference.fields {
        report.text += "    \(field.path)\n        A: \(field.before)\n        B: \(field.after)\n"
      }
    }
    for trace in left { report.text += "only A  \"\(trace.scenario)\" (\(trace.file):\(trace.line))\n" }
    for trace in right { report.text += "only B  \"\(trace.scenario)\" (\(trace.file):\(trace.line))\n" }
    report.agree = differing == 0 && left.isEmpty && right.isEmpty
    var summary = "\(pairs.count) scenario\(pairs.count == 1 ? "" : "s") compared: \(differing) differ"
    if !left.isEmpty || !right.isEmpty { summary += ", \(left.count) only in A, \(right.count) only in B" }
    report.text += summary + "\n"
    return report
  }
}
