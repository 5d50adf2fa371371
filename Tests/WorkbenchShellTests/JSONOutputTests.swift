import Testing
import WorkbenchCore
import WorkbenchTestSupport

/// With `--json` every line standard output carries has one of the shapes docs/output.schema.json
/// documents: a script that runs every host command, module commands, and failing ones, is
/// checked line by line against the schema.
@Suite struct JSONOutputTests {
  static let script = """
    help
    help open
    modules
    documents
    open catalog library left
    open goal reading g
    windows
    focus left
    show left g
    frame
    state
    select 2
    undo view
    redo view
    clock
    settle
    @g complete
    select 999
    nonsense
    @g target 0
    relaunch
    close g
    quit
    """

  @Test func everyLineHasADocumentedShape() throws {
    let schemaText = try #require(readTextFile(repositoryRoot() + "/docs/output.schema.json"))
    let validator = SchemaValidator(root: try FrameValue.parse(json: Array(schemaText.utf8)))
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:", "--json", "--keep-going"], input: Array((Self.script + "\n").utf8))
    #expect(result.status == 1, "the failing commands make the run fail")
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.count >= 20)
    var types: [String] = []
    for line in lines {
      let value = try FrameValue.parse(json: Array(line.utf8))
      let problems = validator.validate(value)
      #expect(problems.isEmpty, "\(line.prefix(120)): \(problems)")
      types.append(value["type"]?.stringValue ?? "?")
    }
    for type in ["frame", "text", "value", "windows", "documents", "modules", "state", "error"] {
      #expect(types.contains(type), "no line of type \(type)")
    }
    #expect(lines.contains { $0.contains(#""type":"error""#) && $0.contains("no book with id 999") })
    #expect(result.stderr.contains("error: no book with id 999"))
  }
}
