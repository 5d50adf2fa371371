import BuiltInModules
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchSession

/// Time travel in process: a 50-step ledger scenario opened at step 45 (`run FILE:LINE
/// --shell`) and moved back a step, and a shell session of `commands` lines moved to its first
/// step and back to its last.
@MainActor
enum TimeTravelBenchmark {
  static func run(iterations: Int, commands: Int) -> [String] {
    guard let registry = try? ModuleRegistry(modules: builtInModules) else { return ["travel: no modules"] }
    // Searches, loads, details and navigation: every kind of work a ledger step does.
    var text = "scenario: Fifty steps\nwindows:\n  main: feed account\nsteps:\n  - do: clock advance 1s\n"
    let words = ["rent", "coffee", "salary", "oak", ""]
    var count = 1
    while count < 50 {
      switch count % 5 {
      case 0: text += "  - main: search \(words[count / 5 % words.count])\n"
      case 1: text += "  - do: clock advance 400ms\n"
      case 2: text += "  - main: refresh\n"
      case 3: text += "  - do: clock advance 1s\n"
      default: text += "  - expect:\n      main: {session: active}\n"
      }
      count += 1
    }
    let scenario: Scenario
    do {
      let file = try ScenarioLoader(registry: registry).load(bytes: Array(text.utf8), path: "bench/fifty.yaml")
      guard let first = file.scenarios.first, first.steps.count == 50 else {
        return ["travel: the scenario did not load"]
      }
      scenario = first
    } catch {
      return ["travel: \(error)"]
    }
    let runner = ScenarioRunner(registry: registry)
    // Every step must do its work, or the figures measure failures.
    if let failures = try? runner.open(scenario, steps: 50).failures, let first = failures.first {
      return ["travel: the scenario fails at \(first.location): \(first.message)"]
    }
    var openTimes: [Double] = []
    var backTimes: [Double] = []
    let quiet = QuietFrontEnd()
    for _ in 0..<iterations {
      openTimes.append(measure { _ = try? runner.open(scenario, steps: 45) })
      guard let later = try? runner.open(scenario, steps: 46) else { return ["travel: could not open at 46"] }
      backTimes.append(measure { try? later.session.run("travel back 1", frontEnd: quiet) })
    }

    // A long shell session on the catalog, on a virtual clock: every line a step.
    let session = WorkbenchSession(registry: registry, environment: ScreenEnvironment(), clock: .virtual)
    session.journal = try? SessionJournal(startingAt: session)
    try? session.run("open catalog library left", frontEnd: quiet)
    for index in 1..<commands {
      let line = index % 10 == 0 ? "query \(["the", "a", "", "of"][index / 10 % 4])" : "select \(index % 30 + 1)"
      try? session.run(line, frontEnd: quiet)
    }
    let toFirst = measure { try? session.run("travel to 1", frontEnd: quiet) }
    let toLast = measure { try? session.run("travel to \(commands)", frontEnd: quiet) }
    let arrived = session.journal.map { $0.position == commands && $0.entries.count == commands } ?? false
    return [
      "travel (a 50-step ledger scenario, \(iterations) times; a \(commands)-line shell session):",
      "  open at step 45              p50 \(format(percentile(openTimes, 50) * 1000)) ms  "
        + "p99 \(format(percentile(openTimes, 99) * 1000)) ms  (target: p99 under 20 ms)",
      "  travel back 1 from step 46   p50 \(format(percentile(backTimes, 50) * 1000)) ms  "
        + "p99 \(format(percentile(backTimes, 99) * 1000)) ms  (target: p99 under 20 ms)",
      "  travel to 1, then to \(commands)  \(format(toFirst * 1000)) ms + \(format(toLast * 1000)) ms = "
        + "\(format((toFirst + toLast) * 1000)) ms  (target: under 1000 ms)"
        + (arrived ? "" : "  [did not arrive at the last step]"),
    ]
  }
}
