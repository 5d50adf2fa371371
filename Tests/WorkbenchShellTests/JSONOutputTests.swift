import Testing
import WorkbenchCore
import WorkbenchModuleAPI
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

  /// Every kind of error a script can meet says, in its JSON line, the exit status the process
  /// then has: a well-formed command refused, a misspelt command, a missing argument, an
  /// unclosed quote, a line that is not UTF-8, and work lost at the end; each alone, then all of
  /// them with --keep-going.
  @Test func everyErrorLineAgreesWithTheExitStatus() throws {
    let cases: [(name: String, input: [UInt8], usage: Bool)] = [
      ("refused", Array("open editor notes e\nsave\n".utf8), false),
      ("no such id", Array("open catalog library\nselect 99\n".utf8), true),
      ("misspelt", Array("selct 3\n".utf8), true),
      ("missing argument", Array("open catalog\n".utf8), true),
      ("unclosed quote", Array("open \"catalog\n".utf8), true),
      ("not UTF-8", [0x6F, 0x70, 0xFF, 0x0A], false),
      ("lost work", Array("open editor notes e\nappend a draft\n".utf8), false),
    ]
    for (name, input, usage) in cases {
      for keepGoing in [false, true] {
        let arguments = ["--json", "-w", ":memory:"] + (keepGoing ? ["--keep-going"] : [])
        let result = ChildProcess.runWorkbench(arguments, input: input)
        let errors = try result.stdout.split(separator: "\n").map { try FrameValue.parse(json: Array($0.utf8)) }
          .filter { $0["type"] == "error" }
        #expect(!errors.isEmpty, "\(name): no error line in \(result.stdout)")
        for error in errors {
          #expect(error["exit"] == "failure", "\(name): \(error.jsonText)")
          if name != "lost work" { #expect(error["usage"] == .bool(usage), "\(name): \(error.jsonText)") }
        }
        #expect(result.status == 1, "\(name) (keep going: \(keepGoing)) exited \(result.status)")
      }
    }
  }
}
