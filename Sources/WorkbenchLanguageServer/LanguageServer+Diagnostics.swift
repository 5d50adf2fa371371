import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchSession
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Diagnostics, code lenses and code actions: what `check` says, where the editor shows it.
extension LanguageServer {
  // MARK: Diagnostics

  /// Checks the document as `check` would and sends every problem, each at its range.
  func publishDiagnostics(_ uri: String) {
    guard let lines = documents[uri] else { return }
    let path = Self.path(of: uri)
    var diagnostics: [FrameValue] = []
    let loaded = loaded(lines, uri: uri)
    if let error = loaded.problem {
      for problem in error.all {
        let here = problem.location.file == path
        let line = here ? max(0, problem.location.line - 1) : 0
        let range = Self.range(in: lines, line: line, column: here ? problem.location.column : 1)
        diagnostics.append([
          "range": range, "severity": 1, "source": "workbench",
          "message": .string(here ? problem.message : "\(problem.location): \(problem.message)"),
        ])
      }
    } else if let file = loaded.file {
      diagnostics = Self.warnings(in: file, lines: lines, path: path)
    }
    send([
      "jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
      "params": ["uri": .string(uri), "diagnostics": .list(diagnostics + (runFailures[uri] ?? []))],
    ])
  }

  // MARK: Running

  /// A lens over each scenario (its `scenario:` key, as the loader read the file): run it.
  func lenses(in lines: [String], uri: String) -> [FrameValue] {
    outline(lines, uri: uri).documents.compactMap { document in
      guard !document.isFlow, let name = document.name, name.location.line <= lines.count else { return nil }
      let index = name.location.line - 1
      let range = Self.range(in: lines, line: index, column: name.location.column)
      return [
        "range": range,
        "command": [
          "title": "▶ run", "command": .string(Self.runCommand), "arguments": [.string(uri), .integer(index)],
        ],
      ]
    }
  }

  /// The actions on a line: on a scenario's step, "Run to this step"; anywhere in a file that
  /// loads, "Explore this file's screens".
  func codeActions(uri: String, line: Int) -> [FrameValue] {
    var actions: [FrameValue] = []
    if let (scenario, count) = scenarioAndSteps(uri: uri, line: line), count > 0 {
      let step = scenario.steps[count - 1]
      actions.append([
        "title": .string("Run to this step (\(count) of \(scenario.steps.count): \(step.summary))"),
        "command": [
          "title": "Run to this step", "command": .string(Self.runToCommand),
          "arguments": [.string(uri), .integer(line)],
        ],
      ])
    }
    if let lines = documents[uri], case let loaded = loaded(lines, uri: uri), loaded.problem == nil,
      loaded.file?.scenarios.isEmpty == false
    {
      actions.append([
        "title": .string(
          "Explore this file's screens (workbench explore: \(ScenarioRunRequest.exploredSessions) random sessions, "
            + "seed 1)"),
        "command": [
          "title": "Explore", "command": .string(ScenarioRunRequest.Kind.explore.rawValue),
          "arguments": [.string(uri), .integer(line)],
        ],
      ])
    }
    return actions
  }

  /// The scenario of the open document holding `line` (0-based), and how many of its steps run
  /// to reach that line, as `workbench run FILE:LINE --shell` counts them.
  func scenarioAndSteps(uri: String, line: Int) -> (Scenario, Int)? {
    guard let lines = documents[uri] else { return nil }
    let path = Self.path(of: uri)
    let loaded = loaded(lines, uri: uri)
    guard loaded.problem == nil, let file = loaded.file,
      let scenario = file.scenarios.last(where: { $0.location.line <= line + 1 }) ?? file.scenarios.first
    else { return nil }
    return (scenario, ScenarioRunner.stepCount(reaching: line + 1, of: path, in: scenario))
  }

  /// What runs but is suspicious, as warnings: a window the file declares that no step or
  /// expectation of its scenario names, and a snapshot step whose golden file is not there yet
  /// (the step fails until `--update-snapshots` writes it).
  static func warnings(in file: ScenarioFile, lines: [String], path: String) -> [FrameValue] {
    var warnings: [FrameValue] = []
    func warn(_ location: SourceLocation, _ message: String) {
      guard location.file == path else { return }
      warnings.append([
        "range": range(in: lines, line: max(0, location.line - 1), column: location.column), "severity": 2,
        "source": "workbench", "message": .string(message),
      ])
    }
    var warned: Set<String> = []
    for scenario in file.scenarios {
      // The declared windows no step has named yet (most are named early: then nothing more is
      // looked up).
      var unused = Set(scenario.windows.map(\.name))
      var snapshots = 0
      for step in scenario.steps {
        switch step.action {
        case .command(let window, _):
          guard !unused.isEmpty else { continue }
          unused.remove(window)
          Self.removeWindowsNamed(by: step, from: &unused)
        case .host:
          Self.removeWindowsNamed(by: step, from: &unused)
        case .expect(let expectations):
          for expectation in expectations { unused.remove(expectation.window) }
        case .snapshot(let windows):
          for window in windows { unused.remove(window) }
          snapshots += 1
          let golden = SnapshotPaths.path(for: scenario, number: snapshots)
          if !FileSystem.exists(golden) {
            warn(
              step.location,
              "no golden file yet (\(golden)): the step fails until `workbench run --update-snapshots` writes it")
          }
        }
      }
      for window in scenario.windows where unused.contains(window.name) {
        // Example rows repeat a scenario: each window is said once.
        let key = "\(scenario.location.line) \(window.name)"
        guard warned.insert(key).inserted,
          let declared = scenario.declaredWindows.first(where: { $0.name == window.name }),
          declared.location.file == path
        else { continue }
        warn(declared.location, "window \(window.name) is declared but no step or expectation of this scenario uses it")
      }
    }
    return warnings
  }

  /// Takes out of `windows` those a step's commands name, as the loader read them: where each
  /// runs (`@NAME ...` too), the window arguments (`focus NAME`) and the window a command opens
  /// (`open ... NAME`). A command the loader could not read may name any of its words.
  static func removeWindowsNamed(by step: Step, from windows: inout Set<String>) {
    for command in step.commands where !windows.isEmpty {
      guard let resolved = command.resolved else {
        for token in command.tokens { windows.remove(CommandToken.bareWindowReference(token.text)) }
        continue
      }
      if let window = resolved.window?.label { windows.remove(window) }
      if case .label(let label) = resolved.target { windows.remove(label) }
      for (argument, word) in resolved.wordsByArgument {
        switch argument.kind {
        case .window, .windowOr: windows.remove(CommandToken.bareWindowReference(word.text))
        default: continue
        }
      }
      if case .opens(_, let name?)? = command.resolution?.windowChange { windows.remove(name) }
    }
  }

  /// The range of the word a problem's 1-based column points at (in Unicode scalars), in
  /// UTF-16 code units as LSP counts them.
  static func range(in lines: [String], line: Int, column: Int) -> FrameValue {
    let text = line < lines.count ? lines[line] : ""
    let scalars = Array(text.unicodeScalars)
    let start = min(max(0, column - 1), scalars.count)
    var end = start
    while end < scalars.count, !" \t:,{}[]#".unicodeScalars.contains(scalars[end]) { end += 1 }
    if end == start { end = scalars.count }
    func utf16(_ count: Int) -> Int { scalars.prefix(count).reduce(0) { $0 + $1.utf16.count } }
    return [
      "start": ["line": .integer(line), "character": .integer(utf16(start))],
      "end": ["line": .integer(line), "character": .integer(utf16(end))],
    ]
  }
}
