import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel

/// The loader's one model of a scenario: each step's commands read once, located in the file, and
/// resolved against the windows open at that step (window, screen, spec, bound arguments); the
/// windows each scenario declares or opens, with where. The runner, the journal, the recorder and
/// the language server read this model rather than the text again.
@MainActor
@Suite struct StepModelTests {
  let loader: ScenarioLoader

  init() throws {
    loader = try ScenarioLoader(modules: builtInModules)
  }

  private func load(_ text: String) throws -> Scenario {
    let file = try loader.load(bytes: Array(text.utf8), path: "/tmp/model.yaml")
    return try #require(file.scenarios.first)
  }

  /// `skip:` gives the reason a scenario is not run, `true` when none is given, `false` runs it;
  /// a row of a table takes its parameters into the reason.
  @Test func skipGivesAReason() throws {
    func skip(_ value: String) throws -> String? {
      try load("scenario: S\nskip: \(value)\nsteps:\n  - do: windows\n").skip
    }
    #expect(try skip("the bridge has no dimmer yet") == "the bridge has no dimmer yet")
    #expect(try skip("true") == "no reason given")
    #expect(try skip("false") == nil)
    #expect(try load("scenario: S\nsteps:\n  - do: windows\n").skip == nil)
    let rows = try loader.load(
      bytes: Array("scenario: Q ${q}\nskip: ${q} waits\nsteps:\n  - do: windows\nexamples:\n  - {q: dune}\n".utf8),
      path: "/tmp/rows.yaml")
    #expect(rows.scenarios.first?.skip == "dune waits")
  }

  /// `select 2; @right query "a b"` in a `left` step: two commands, the second in `right`, its
  /// words unquoted, each where it stands on the line.
  @Test func eachCommandOfAStepIsResolvedWhereItRuns() throws {
    let scenario = try load(
      """
      scenario: Model
      windows:
        left: catalog library
        right: goal reading
      steps:
        - left: select 2; @right target 6
      """)
    let step = try #require(scenario.steps.first)
    #expect(step.commands.count == 2)
    let first = try #require(step.commands.first?.resolution)
    #expect(first.window == "left")
    #expect(first.screen == "catalog")
    #expect(first.module == "catalog")
    #expect(first.spec.name == "select")
    #expect(step.commands[0].tokens.map(\.text) == ["select", "2"])
    // `- left: ` is 10 characters: the line starts at column 11.
    #expect(step.commands[0].lineStart.line == 6)
    #expect(step.commands[0].columns == 11..<19)
    let second = try #require(step.commands[1].resolution)
    #expect(second.window == "right")
    #expect(second.screen == "goal")
    #expect(second.nameToken.text == "target")
    #expect(step.commands[1].tokens.map(\.text) == ["@right", "target", "6"])
    #expect(step.commands[1].namesCommand(at: 28))
    #expect(!step.commands[1].namesCommand(at: 22))
    // What the runner runs: the two commands as bound, each naming its window as the step did.
    let bound = try #require(step.boundCommands)
    #expect(bound.map(\.target) == [.label("left"), .label("right")])
    #expect(bound.map(\.text) == ["select 2", "target 6"])
    #expect(bound[1].textNamingWindow == "@right target 6")
  }

  /// A command that opens a window says so, and the window is declared where its name is
  /// written; windows under `windows:` are declared at their key.
  @Test func windowsAreDeclaredWhereTheyAreNamedOrOpened() throws {
    let scenario = try load(
      """
      scenario: Windows
      windows:
        left: catalog library
      steps:
        - do: open catalog library side
        - side: select 3
      """)
    #expect(scenario.declaredWindows.map(\.name) == ["left", "side"])
    #expect(scenario.declaredWindows.map(\.screen) == ["catalog", "catalog"])
    #expect(scenario.declaredWindows[0].location.line == 3)
    #expect(scenario.declaredWindows[0].location.column == 3)
    #expect(scenario.declaredWindows[1].location.line == 5)
    #expect(scenario.declaredWindows[1].location.column == 30)
    let open = try #require(scenario.steps.first?.commands.first?.resolution)
    #expect(open.windowChange == .opens(screen: "catalog", name: "side"))
    #expect(open.window == nil)
  }

  /// A step written to fail keeps its command, unresolved, to run as written (the run compares
  /// its message).
  @Test func aStepExpectedToFailKeepsWhatDoesNotResolve() throws {
    let scenario = try load(
      """
      scenario: Refused
      windows:
        left: catalog library
      steps:
        - left: frobnicate 2
          fails: no command
      """)
    let command = try #require(scenario.steps.first?.commands.first)
    #expect(command.tokens.map(\.text) == ["frobnicate", "2"])
    #expect(command.resolution == nil)
  }

  /// A file with problems still has a shape for an editor: the scenarios whose set-up reads,
  /// with their windows and the steps that check; `check` still refuses it.
  @Test func aFileWithProblemsStillHasItsShape() throws {
    let text = """
      scenario: Mid-edit
      windows:
        left: catalog library
      steps:
        - left: sel
        - do: open catalog library side
      """
    #expect(throws: ScenarioFileError.self) { try loader.load(bytes: Array(text.utf8), path: "/tmp/edit.yaml") }
    let read = loader.loadKeepingShape(bytes: Array(text.utf8), path: "/tmp/edit.yaml")
    #expect(read.problem?.message.contains("sel") == true, "\(String(describing: read.problem))")
    let file = try #require(read.file)
    let scenario = try #require(file.scenarios.first)
    #expect(scenario.steps.count == 1)
    #expect(scenario.declaredWindows.map(\.name) == ["left", "side"])
    // Not YAML at all: nothing.
    let broken = loader.loadKeepingShape(bytes: Array("a: [".utf8), path: "/tmp/edit.yaml")
    #expect(broken.file == nil)
    #expect(broken.problem != nil)
  }
}
