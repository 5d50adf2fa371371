import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol
import WorkbenchTestSupport

/// What the host and a module built with the kit really send keeps to docs/protocol.schema.json.
struct ProtocolSchemaTests {
  /// The file is what the message declarations make: a field added in code and not in the
  /// schema (or the other way round) fails here, with the command that brings the file up to date.
  @Test func theFileIsWhatTheDeclarationsMake() throws {
    let file = try #require(readTextFile(repositoryRoot() + "/docs/protocol.schema.json"))
    #expect(
      file == ProtocolSchema.text,
      "docs/protocol.schema.json is out of date: swift run workbench reference --protocol-schema > docs/protocol.schema.json"
    )
    let printed = ChildProcess.runWorkbench(["reference", "--protocol-schema"])
    #expect(printed.status == 0)
    #expect(printed.stdout == ProtocolSchema.text)
  }

  /// Every message and every structure has a definition of its own: two under one name would
  /// leave one of them undescribed.
  @Test func everyDefinitionHasItsOwnName() throws {
    guard case .object(let definitions)? = ProtocolSchema.document["definitions"] else {
      Issue.record("the schema has no definitions")
      return
    }
    #expect(definitions.keys.count == 2 + ProtocolSchema.definitionCount, "\(definitions.keys)")
  }

  @Test func everyMessageOfASessionKeepsToTheSchema() throws {
    let schemaText = try #require(readTextFile(repositoryRoot() + "/docs/protocol.schema.json"))
    let schema = try FrameValue.parse(json: Array(schemaText.utf8))
    func validator(_ name: String) throws -> SchemaValidator {
      // The root with the message's definition as the schema, so `$ref`s resolve.
      guard case .object(var root) = schema else { throw CommandError("the schema is not an object") }
      root["oneOf"] = [["$ref": .string("#/definitions/\(name)")]]
      return SchemaValidator(root: .object(root))
    }
    let host = try validator("hostMessage")
    let module = try validator("moduleMessage")
    let folder = makeTemporaryFolder()
    let log = folder + "/protocol.jsonl"
    let fixture = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
    let session = ChildProcess.runWorkbench(
      ["-w", ":memory:", "--module", fixture, "--keep-going"],
      input: Array("open tally pokes t\npoke 2\nlabel mine\nweigh\nopen tally pokes u\n@t poke 1\nclose u\n".utf8),
      environment: ["WORKBENCH_PROTOCOL_LOG": log])
    #expect(session.status == 0, "\(session.stderr)")
    let lines = (readTextFile(log) ?? "").split(separator: "\n")
    #expect(lines.count >= 14, "\(lines.count) messages")
    var types: Set<String> = []
    for line in lines {
      let entry = try FrameValue.parse(json: Array(line.utf8))
      let message = try #require(entry["message"])
      let validator = entry["from"]?.stringValue == "host" ? host : module
      let problems = validator.validate(message)
      #expect(problems.isEmpty, "\(line.prefix(160)): \(problems)")
      types.insert((entry["from"]?.stringValue ?? "") + " " + (message["type"]?.stringValue ?? ""))
    }
    for type in [
      "module hello", "host open", "host command", "host refresh", "host close", "module result", "module ok",
    ] {
      #expect(types.contains(type), "no \(type) message in the session")
    }
    // A message the schema does not allow is caught: the check can fail.
    #expect(!module.validate(["type": "result", "frame": [:]]).isEmpty)
    #expect(!host.validate(["type": "open", "key": "w1"]).isEmpty)
    #expect(module.validate(["type": "error", "message": "no such window"]).isEmpty)
  }
}
