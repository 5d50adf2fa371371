import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchTestSupport

/// Every scenario file under Scenarios/ runs as a test of its own, so `swift test` (and CI)
/// runs them all.
@MainActor
@Suite struct ScenarioFilesTests {
  nonisolated static let root = repositoryRoot() + "/Scenarios"
  nonisolated static let files = (try? SuiteRunner.discover([root])) ?? []

  @Test func theScenariosFolderHasScenarios() {
    #expect(Self.files.count >= 8)
  }

  /// The README shows what `swift run workbench run Scenarios/` prints at the end; the count
  /// there is the number of scenarios in the folder, so the figure cannot drift.
  @Test func theReadmesRunFigureIsTheScenariosCount() throws {
    let loader = try ScenarioLoader(modules: builtInModules)
    var count = 0
    for file in Self.files { count += try loader.load(file).scenarios.count }
    let readme = try #require(readTextFile(repositoryRoot() + "/README.md"))
    #expect(
      readme.contains("\n\(count) passed, 0 failed\n"),
      "README.md's `workbench run Scenarios/` block should end with `\(count) passed, 0 failed`")
  }

  @Test(arguments: files)
  func scenarioFilePasses(_ path: String) throws {
    let modules = builtInModules
    let loader = try ScenarioLoader(modules: modules)
    let file = try loader.load(path)
    #expect(file.isFlow || !file.scenarios.isEmpty)
    let runner = ScenarioRunner(modules: modules)
    for scenario in file.scenarios {
      let result = runner.run(scenario)
      if let failure = result.failure {
        let details = ([failure.message] + failure.details).joined(separator: "\n")
        Issue.record("\(scenario.name) failed at \(failure.location) (\(failure.step)):\n\(details)")
      }
    }
  }
}
