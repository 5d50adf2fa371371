import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios

/// A run the editor asked for: `workbench.run` (the scenario at a line, to its end),
/// `workbench.runTo` (the scenario up to the step at a line) or `workbench.explore` (random
/// sessions on the screens the file opens), on the file's text as the editor has it. It travels to a worker process as a frame and comes back as a `ScenarioRunOutcome`.
struct ScenarioRunRequest: Equatable {
  enum Kind: String, CaseIterable {
    case run = "workbench.run"
    case runTo = "workbench.runTo"
    case explore = "workbench.explore"
  }

  var kind: Kind
  /// The file's path (where includes, data files and snapshots are looked for).
  var path: String
  /// The file's text, as lines.
  var lines: [String]
  /// The line, 0-based (at most `LanguageServer.largestNumber`).
  var line: Int

  var frame: FrameValue {
    [
      "kind": .string(kind.rawValue), "path": .string(path), "lines": .list(lines.map { .string($0) }),
      "line": .integer(line),
    ]
  }

  init(kind: Kind, path: String, lines: [String], line: Int) {
    self.kind = kind
    self.path = path
    self.lines = lines
    self.line = line
  }

  init?(frame: FrameValue) {
    guard let kind = frame["kind"]?.stringValue.flatMap(Kind.init(rawValue:)),
      let path = frame["path"]?.stringValue, let lines = frame["lines"]?.elements?.compactMap(\.stringValue),
      let line = frame["line"]?.integerValue, (0...LanguageServer.largestNumber).contains(line)
    else { return nil }
    self.init(kind: kind, path: path, lines: lines, line: line)
  }
}

/// What a run came to: the command's answer, and the diagnostics it leaves on the file (the
/// failure on its step; for `runTo`, the windows at the step too).
struct ScenarioRunOutcome: Equatable {
  var message: String
  var diagnostics: [FrameValue]

  var frame: FrameValue { ["message": .string(message), "diagnostics": .list(diagnostics)] }

  init(message: String, diagnostics: [FrameValue] = []) {
    self.message = message
    self.diagnostics = diagnostics
  }

  init?(frame: FrameValue) {
    guard let message = frame["message"]?.stringValue, let diagnostics = frame["diagnostics"]?.elements else {
      return nil
    }
    self.init(message: message, diagnostics: diagnostics)
  }
}

/// How far a run got, as it goes.
struct ScenarioRunProgress: Equatable {
  /// The scenario's name.
  var scenario: String
  /// Steps run, and how many will run.
  var count: Int
  var total: Int
  /// The step that ran last, on one line.
  var step: String
  /// What is counted: `step`, or `session` for an exploration.
  var unit = "step"

  var frame: FrameValue {
    [
      "scenario": .string(scenario), "count": .integer(count), "total": .integer(total), "step": .string(step),
      "unit": .string(unit),
    ]
  }

  init(scenario: String, count: Int, total: Int, step: String, unit: String = "step") {
    self.scenario = scenario
    self.count = count
    self.total = total
    self.step = step
    self.unit = unit
  }

  init?(frame: FrameValue) {
    guard let scenario = frame["scenario"]?.stringValue, let count = frame["count"]?.integerValue,
      let total = frame["total"]?.integerValue, let step = frame["step"]?.stringValue
    else { return nil }
    self.init(
      scenario: scenario, count: count, total: total, step: step, unit: frame["unit"]?.stringValue ?? "step")
  }

  /// How far it got, in words (`step 3 of 40: t: poke`).
  var message: String { "\(unit) \(count) of \(total): \(step)" }
  /// What the editor shows it as (`workbench run: Slow pokes`, `workbench explore catalog`).
  var title: String { unit == "step" ? "workbench run: \(scenario)" : "workbench \(scenario)" }

  /// How much is done, in percent (0 to 100, whatever the counts say).
  var percentage: Int {
    guard total > 0, count > 0 else { return 0 }
    return count >= total ? 100 : Int(Double(count) / Double(total) * 100)
  }
}

extension ScenarioRunRequest {
  /// Runs the request on `registry`'s modules, telling `progress` after each step.
  @MainActor
  func perform(
    registry: ModuleRegistry, loader: ScenarioLoader, progress: @escaping (ScenarioRunProgress) -> Void = { _ in }
  ) -> ScenarioRunOutcome {
    let file: ScenarioFile
    do {
      file = try loader.load(bytes: Array(lines.joined(separator: "\n").utf8), path: path)
    } catch {
      return ScenarioRunOutcome(message: "the file has problems to fix first: \(error.message)")
    }
    if kind == .explore { return explore(file, registry: registry, progress: progress) }
    // `line` is at most Int32.max (the server refuses more), so the 1-based line cannot overflow.
    let oneBased = line + 1
    guard let scenario = file.scenarios.last(where: { $0.location.line <= oneBased }) ?? file.scenarios.first else {
      return ScenarioRunOutcome(message: "no scenario in the file")
    }
    var runner = ScenarioRunner(registry: registry)
    runner.stepFinished = { count, total, step in
      progress(ScenarioRunProgress(scenario: scenario.name, count: count, total: total, step: step.summary))
    }
    switch kind {
    case .run, .explore: return run(scenario, runner: runner)
    case .runTo:
      let count = ScenarioRunner.stepCount(reaching: oneBased, of: path, in: scenario)
      return runTo(scenario, steps: count, runner: runner)
    }
  }

  @MainActor
  private func run(_ scenario: Scenario, runner: ScenarioRunner) -> ScenarioRunOutcome {
    let result = runner.run(scenario)
    guard let failure = result.failure else { return ScenarioRunOutcome(message: "✔ \(scenario.name)") }
    let here = failure.location.file == path
    let at = here ? max(0, failure.location.line - 1) : scenario.location.line - 1
    return ScenarioRunOutcome(
      message: "✘ \(scenario.name): \(failure.message)",
      diagnostics: [
        [
          "range": LanguageServer.range(in: lines, line: at, column: here ? failure.location.column : 1),
          "severity": 1, "source": "workbench run",
          "message": .string(([failure.message] + failure.details).joined(separator: "\n")),
        ]
      ])
  }

  /// The scenario up to its `count`th step, as `workbench run FILE:LINE --shell` opens it: each
  /// step that failed on the way is an error on it, with the diff, and the step reached gets
  /// every window's frame as it left them (information), with the command that opens the
  /// session there in the shell.
  @MainActor
  private func runTo(_ scenario: Scenario, steps count: Int, runner: ScenarioRunner) -> ScenarioRunOutcome {
    let opened: ScenarioRunner.Opened
    do {
      opened = try runner.open(scenario, steps: count)
    } catch {
      return ScenarioRunOutcome(message: "✘ \(scenario.name): the set-up failed: \(error.message)")
    }
    defer { opened.session.end() }
    var diagnostics: [FrameValue] = []
    for failure in opened.failures {
      let at = ScenarioRunner.position(of: failure.location, origin: failure.origin, in: path) ?? scenario.location.line
      diagnostics.append([
        "range": LanguageServer.range(
          in: lines, line: max(0, at - 1), column: failure.location.file == path ? failure.location.column : 1),
        "severity": 1, "source": "workbench run",
        "message": .string(([failure.message] + failure.details).joined(separator: "\n")),
      ])
    }
    let host = opened.session.host
    let shown = host.windows.map { host.renderText(of: $0) }
    let reached =
      count == 0
      ? scenario.location.line : ScenarioRunner.position(of: scenario.steps[count - 1], in: path) ?? line + 1
    let command = ScenarioRunner.shellCommand(file: path, line: reached)
    diagnostics.append([
      "range": LanguageServer.range(in: lines, line: max(0, reached - 1), column: 1), "severity": 3,
      "source": "workbench run",
      "message": .string(
        (["after step \(count) of \(scenario.steps.count), the windows show:"] + shown + [
          "open it in the shell: \(command)"
        ])
        .joined(separator: "\n")),
    ])
    let outcome = opened.failures.isEmpty ? "✔" : "✘"
    return ScenarioRunOutcome(
      message: "\(outcome) \(scenario.name): ran \(count) of \(scenario.steps.count) steps"
        + (opened.failures.isEmpty ? "" : ", \(opened.failures.count) failed on the way"),
      diagnostics: diagnostics)
  }
}
