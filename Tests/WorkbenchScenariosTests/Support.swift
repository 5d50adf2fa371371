import Catalog
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchTestSupport

/// Writes scenario text to a fresh temporary file and returns its path.
func scenarioFile(_ text: String, name: String = "scenario.yaml", folder: String? = nil) -> String {
  let folder = folder ?? makeTemporaryFolder()
  let path = folder + "/" + name
  writeTextFile(text, to: path)
  return path
}

/// Loads the scenarios in `text`.
@MainActor
func loadScenarios(_ text: String) throws -> [Scenario] {
  try ScenarioLoader(modules: [CatalogModule()]).load(scenarioFile(text)).scenarios
}

/// Loads and runs the scenarios in `text`.
@MainActor
func runScenarios(_ text: String, options: ScenarioRunner.Options = .init()) throws -> [ScenarioResult] {
  let runner = ScenarioRunner(modules: [CatalogModule()], options: options)
  return try loadScenarios(text).map(runner.run)
}

/// The error loading `text` gives, as `line:column: message`.
@MainActor
func loadError(_ text: String) -> String? {
  do {
    _ = try loadScenarios(text)
    return nil
  } catch let error as ScenarioFileError {
    return "\(error.location.line):\(error.location.column): \(error.message)"
  } catch {
    return "unexpected: \(error)"
  }
}
