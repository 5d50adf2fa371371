import BuiltInModules
import WorkbenchCore
import WorkbenchExternalModules
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench explore` as a module author meets it: steps a second on the catalog and the
/// ledger built in and on a module through the Python kit, and the time to shrink a failure
/// found after 200 steps.
@MainActor
enum ExploreBenchmark {
  static func run(file: String = #filePath) -> [String] {
    var root = file.split(separator: "/", omittingEmptySubsequences: false)
    root.removeLast(3)  // Sources/workbench-bench/ExploreBenchmark.swift
    let repository = root.joined(separator: "/")
    setenv("PYTHONPATH", repository + "/Kits/python", 1)
    var lines = [
      "explore (seed 1; each step runs twice, recorded and replayed, with the checks after it):"
    ]
    func rate(_ modules: [any FeatureModule], screens: [String], runs: Int, steps: Int) -> String {
      guard let registry = try? ModuleRegistry(modules: modules) else { return "the modules failed to register" }
      var options = Explorer.Options()
      options.screens = screens
      options.runs = runs
      options.steps = steps
      let start = now()
      let report = Explorer(registry: registry, options: options).explore()
      let seconds = now() - start
      return "\(format(Double(report.steps) / seconds, 0)) steps a second (\(report.steps) steps in "
        + "\(format(seconds * 1000, 1)) ms\(report.failure.map { "; found: \($0.property.rawValue)" } ?? ""))"
    }
    lines.append("  catalog, built in              " + rate(builtInModules, screens: ["catalog"], runs: 40, steps: 100))
    lines.append(checksCost(rounds: 3))
    lines.append("  ledger feed, built in          " + rate(builtInModules, screens: ["feed"], runs: 40, steps: 100))
    lines += guidance()
    if let module = try? ExternalModule(path: repository + "/Examples/countdown/countdown.py") {
      let kit = rate([module], screens: ["countdown"], runs: 40, steps: 30)
      lines.append("  countdown on the Python kit    " + kit)
      module.shutdown()
      let kitRate = kit.split(separator: " ").first.flatMap { Double($0) }
      lines.append("  " + hypothesisPeer(script: repository + "/scripts/hypothesis-countdown.py", beside: kitRate))
    }
    // One process serves every session: the time a session takes must not grow with the
    // sessions before it (it did, while the process kept every window it had served). The same
    // 25 sessions, on a fresh process and again after 400 others on it.
    if let module = try? ExternalModule(path: buildFolder() + "/countdown-module"),
      let registry = try? ModuleRegistry(modules: [module])
    {
      func explore(seed: UInt64, runs: Int) -> Double {
        var options = Explorer.Options()
        options.seed = seed
        options.runs = runs
        let start = now()
        _ = Explorer(registry: registry, options: options).explore()
        return now() - start
      }
      let fresh = explore(seed: 1, runs: 25)
      _ = explore(seed: 2, runs: 400)
      let after = explore(seed: 1, runs: 25)
      lines.append(
        "  countdown on the Swift kit     25 sessions in \(format(fresh * 1000, 1)) ms on a fresh process, "
          + "\(format(after * 1000, 1)) ms after 400 others: \(format(after / fresh, 2))x (target: at most 1.2x)")
      module.shutdown()
    }
    // On the built-in catalog: a rule of the module's own that a long session breaks (books are
    // added and removed at random; one of more than 40 breaks it), found and shrunk.
    if let registry = try? ModuleRegistry(modules: builtInModules),
      let rule = try? ScenarioLoader(registry: registry).loadInvariants(
        bytes: Array("always:\n  catalog:\n    total: {$between: [0, 40]}\n".utf8), path: "<bench>")
    {
      var options = Explorer.Options()
      options.screens = ["catalog"]
      options.steps = 400
      options.runs = 60  // undos take adds back: the walk past 40 books takes longer than it did
      options.invariants = rule
      let explorer = Explorer(registry: registry, options: options)
      let start = now()
      let report = explorer.explore()
      let total = now() - start
      if let shrunk = report.shrunk, let original = report.original,
        let failure = explorer.check(original).failure
      {
        // The failure as the long session met it (the report's is the shrunk session's).
        let shrinkStart = now()
        _ = explorer.shrink(original, failing: failure)
        lines.append(
          "  catalog (built in), a rule broken after \(failure.step + 1) steps: shrunk in "
            + "\(format((now() - shrinkStart) * 1000, 1)) ms to \(shrunk.steps.count) steps (found and shrunk in "
            + "\(format(total * 1000, 1)) ms; target: at most 2 s)")
      } else {
        lines.append("  catalog (built in): the rule was not broken")
      }
    }
    // A failure found after 200 steps: the time to shrink it.
    guard let registry = try? ModuleRegistry(modules: [Stopwatch()]) else { return lines }
    var options = Explorer.Options()
    options.steps = 240  // undos take laps back: 150 laps need more steps than 200
    options.runs = 60
    let explorer = Explorer(registry: registry, options: options)
    let start = now()
    let report = explorer.explore()
    let total = now() - start
    if let shrunk = report.shrunk, let original = report.original, let failure = explorer.check(original).failure {
      let shrinkStart = now()
      _ = explorer.shrink(original, failing: failure)
      lines.append(
        "  shrinking a failure after \(original.steps.count) steps: \(format((now() - shrinkStart) * 1000, 1)) ms "
          + "to \(shrunk.steps.count) steps (found and shrunk in \(format(total * 1000, 1)) ms; target: at most 2 s)")
    } else {
      lines.append("  shrinking: the planted failure was not found")
    }
    return lines
  }

  /// The peer of the Python kit's line: Hypothesis's stateful testing of an in-process countdown
  /// of the same size (scripts/hypothesis-countdown.py), its steps a second, run here.
  static func hypothesisPeer(script: String, beside kit: Double?) -> String {
    guard
      let python = try? SpawnedProcess(
        "python3", arguments: [script], output: .pipe, error: .null, searchingPath: true)
    else { return "Hypothesis, the same countdown in process: not measured (no python3)" }
    var output: [UInt8] = []
    while let chunk = python.readOutput(), !chunk.isEmpty { output += chunk }
    let text = String(decoding: output, as: UTF8.self)
    guard python.wait() == .exited(0), let rate = text.split(separator: " ").first.flatMap({ Double($0) }) else {
      return "Hypothesis, the same countdown in process: not measured (pip install hypothesis)"
    }
    return "Hypothesis, the same countdown in process (the peer): \(format(rate, 0)) steps a second"
      + (kit.map { "; the Python kit explored at \(format($0 / rate, 2))x it (goal: at least 1x)" } ?? "")
  }

  /// An explorer of the catalog's screen alone (40 runs of 100 steps) and its sessions: what
  /// `explore-once` and `explore-cost` measure.
  private static func catalogSessions() -> (Explorer, [Explorer.Session])? {
    guard let registry = try? ModuleRegistry(modules: builtInModules) else { return nil }
    var options = Explorer.Options()
    options.screens = ["catalog"]
    options.runs = 40
    options.steps = 100
    let explorer = Explorer(registry: registry, options: options)
    return (explorer, explorer.sessions(options.runs))
  }

  /// The catalog sessions of `checksCost` run once each, then explored once: the
  /// `explore-once` section, short enough to run under a profiler (callgrind with
  /// `--toggle-collect='*runOnce*'` or `'*ExplorerV7explore8progress*'`).
  static func onceToProfile() {
    guard let (explorer, sessions) = catalogSessions() else { return }
    for session in sessions { explorer.runOnce(session) }
    _ = explorer.explore()
  }

  /// What guidance reaches on the ledger's feed, guided and by chance alone (`explore-guide`).
  static func guidance() -> [String] {
    var lines: [String] = []
    // What guidance reaches: on the feed, 100 sessions of 30 steps guided and by chance alone,
    // from each of 9 seeds: the steps until every transition of its machine was taken (the
    // median and the range over the seeds; one seed alone is luck) and the commands carried out.
    if let registry = try? ModuleRegistry(modules: builtInModules) {
      for guided in [true, false] {
        var allTaken: [Int] = []
        var never = 0
        var reached: (transitions: Int, of: Int, carriedOut: Int, commands: Int) = (0, 0, 0, 0)
        for seed in 1...9 {
          var options = Explorer.Options()
          options.screens = ["feed"]
          options.runs = 100
          options.seed = UInt64(seed)
          options.coverage = true
          options.guided = guided
          let explorer = Explorer(registry: registry, options: options)
          var allTakenAt: Int?
          _ = explorer.explore { report in
            let ledger = explorer.coverageJSON(of: report)["modules"]?["ledger"]
            let transitions = ledger?["machines"]?["feed"]?["transitions"]?.elements ?? []
            let taken = transitions.filter { ($0["taken"]?.integerValue ?? 0) > 0 }.count
            var commands = 0
            if case .object(let all)? = ledger?["commands"] { commands = all.members.count }
            reached = (
              taken, transitions.count, commands - (ledger?["neverCarriedOut"]?.elements?.count ?? 0), commands
            )
            if allTakenAt == nil, taken == transitions.count, taken > 0 { allTakenAt = report.steps }
          }
          if let allTakenAt { allTaken.append(allTakenAt) } else { never += 1 }
        }
        allTaken.sort()
        let median = allTaken.isEmpty ? "never" : String(allTaken[allTaken.count / 2])
        let range = allTaken.isEmpty ? "" : " (\(allTaken[0])-\(allTaken[allTaken.count - 1]))"
        lines.append(
          "  ledger feed, \(guided ? "guided  " : "unguided"), 9 seeds of 3000 steps: all \(reached.of) transitions "
            + "taken after \(median) steps\(range)\(never > 0 ? ", never in \(never) seeds" : ""), "
            + "\(reached.carriedOut) of \(reached.commands) commands carried out (seed 9)")
      }
    }
    return lines
  }

  /// What the checks cost: the same sessions explored (two runs, every property, windows
  /// opened again) and run once through one host with nothing checked, best of `rounds` each.
  /// Alone as the `explore-cost` section, to profile.
  static func checksCost(rounds: Int) -> String {
    guard let (explorer, sessions) = catalogSessions() else { return "the modules failed to register" }
    var explored = Double.infinity
    var once = Double.infinity
    var twice = Double.infinity
    var rebuilds = 0
    var agreed = true
    for _ in 0..<rounds {
      var start = now()
      rebuilds = explorer.explore().rebuilds
      explored = min(explored, now() - start)
      start = now()
      for session in sessions { explorer.runOnce(session) }
      once = min(once, now() - start)
      start = now()
      for session in sessions { agreed = explorer.runTwiceComparingFrames(session) && agreed }
      twice = min(twice, now() - start)
    }
    // Held against its floor, the replay property alone (two runs side by side, their frames
    // compared, nothing else checked): every other check and the rebuilds together may cost at
    // most as much again.
    return "  catalog, the checks' cost       \(format(explored / twice, 2))x the replay property alone "
      + "(guard: at most 2.0x; \(format(explored * 1000, 1)) ms explored with \(rebuilds) rebuilds, "
      + "\(format(twice * 1000, 1)) ms two runs with their frames compared and nothing else\(agreed ? "" : ", which differed")"
      + "); \(format(explored / once, 2))x the same steps run once (\(format(once * 1000, 1)) ms)"
  }
}

/// A module with a bug only a long session meets: `lap` refuses past 150 laps, and sets the
/// laps back as it does.
private struct Stopwatch: FeatureModule {
  struct Laps: DocumentBody { var count: Int }
  struct View: ViewStateValue {}

  @MainActor final class Screen: ScreenModel {
    var document: Laps
    init(document: Laps, viewState: View, environment: ScreenEnvironment) { self.document = document }
    func documentReplaced(_ document: Laps) { self.document = document }
    func restore(_ viewState: View) {}
    var viewState: View { View() }
    var frame: FrameValue { ["laps": .integer(document.count)] }
  }

  var manifest: ModuleManifest { ModuleManifest(name: "stopwatch", version: "1.0", summary: "laps") }

  @MainActor func register(into registrar: Registrar) {
    registrar.documentKind(Laps.self, name: "laps", summary: "laps", samples: ["run": Laps(count: 0)])
    registrar.screen(Screen.self, name: "stopwatch", documentKind: "laps", summary: "the laps")
    registrar.command(
      CommandSpec("lap", summary: "one more lap", scope: .window(screens: ["stopwatch"])) { context in
        let screen = try context.model(Screen.self)
        guard screen.document.count < 150 else {
          try context.commit(Laps(count: 0), summary: "reset")
          throw CommandError("no more than 150 laps")
        }
        try context.commit(Laps(count: screen.document.count + 1), summary: "lap")
        return .frame(try context.requireWindow().id)
      })
  }
}
