import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

/// Modules in another language: the kanban example in Python (Examples/kanban), written from
/// docs/protocol.md, and what `new-module --language python` writes. CI installs python3.
struct PythonModuleTests {
  let kanban = repositoryRoot() + "/Examples/kanban/kanban.py"

  @Test func theKanbanExamplePassesItsScenariosTheConformanceCheckAndTheSchema() throws {
    let scenarios = ChildProcess.runWorkbench(
      ["run", "--module", kanban, repositoryRoot() + "/Examples/kanban/Scenarios"])
    #expect(scenarios.status == 0, "\(scenarios.stdout)\(scenarios.stderr)")
    #expect(scenarios.stdout.hasSuffix("1 passed, 0 failed\n"))
    let check = ChildProcess.runWorkbench(["module-check", kanban])
    #expect(check.status == 0, "\(check.stdout)")
    #expect(check.stdout.contains("✔ open board"))

    // Every message of a session with it keeps to docs/protocol.schema.json.
    let schemaText = try #require(readTextFile(repositoryRoot() + "/docs/protocol.schema.json"))
    guard case .object(var root) = try FrameValue.parse(json: Array(schemaText.utf8)) else { return }
    root["oneOf"] = [["$ref": "#/definitions/moduleMessage"]]
    let validator = SchemaValidator(root: .object(root))
    let log = makeTemporaryFolder() + "/protocol.jsonl"
    let session = ChildProcess.runWorkbench(
      ["-w", ":memory:", "--module", kanban, "--keep-going"],
      input: Array("open board board b\nselect 1\nmove 1 done\nmove 9 done\nclose\n".utf8),
      environment: ["WORKBENCH_PROTOCOL_LOG": log])
    #expect(session.stderr.contains("no card 9"), "\(session.stderr)")
    let lines = (readTextFile(log) ?? "").split(separator: "\n")
    #expect(lines.count >= 8)
    for line in lines {
      let entry = try FrameValue.parse(json: Array(line.utf8))
      guard entry["from"] == "module", let message = entry["message"] else { continue }
      #expect(validator.validate(message).isEmpty, "\(line.prefix(160)): \(validator.validate(message))")
    }
  }

  /// Explored, the example is sound. A protocol 1 module keeps one copy of a document per name
  /// for its whole process; explore's two runs share the process, so a request that leaves the
  /// body out because this session sent it last is wrong once the other session sent another
  /// (seed 1 met it in its first session: `add done 0` answered with the other run's card).
  @Test func theKanbanExampleExploresClean() throws {
    let explored = ChildProcess.runWorkbench(
      [
        "explore", "--module", kanban, "--seed", "1", "--runs", "12", "--json", "--out",
        makeTemporaryFolder() + "/f.yaml",
      ])
    #expect(explored.status == 0, "\(explored.stdout)\(explored.stderr)")
    let summary = try FrameValue.parse(json: Array(explored.stdout.utf8))
    #expect(summary["found"] == .null, "\(explored.stdout)")
    #expect((summary["rebuilds"]?.integerValue ?? 0) > 0, "\(explored.stdout)")
  }

  @Test func aScaffoldedPythonModuleWorksAsPrinted() {
    let folder = makeTemporaryFolder()
    let created = ChildProcess.runWorkbench(["new-module", "tally", "--language", "python", "--path", folder])
    #expect(created.status == 0, "\(created.stderr)")
    #expect(created.stdout.contains("module-check ./tally.py"))
    let module = folder + "/tally/tally.py"
    let run = ChildProcess.runWorkbench(["run", "--module", module, folder + "/tally/Scenarios"])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    let check = ChildProcess.runWorkbench(["module-check", module])
    #expect(check.status == 0, "\(check.stdout)")
    let refused = ChildProcess.runWorkbench(["new-module", "tally2", "--language", "cobol", "--path", folder])
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("--language is swift, python or javascript, not 'cobol'"))
  }
}
