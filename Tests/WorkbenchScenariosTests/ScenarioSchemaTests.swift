import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchTestSupport

/// docs/scenario.schema.json lets editors validate and complete scenario files; every file
/// under Scenarios/ must satisfy it, and it must reject what the loader rejects.
@Suite struct ScenarioSchemaTests {
  static func schema() throws -> SchemaValidator {
    let text = try #require(readTextFile(repositoryRoot() + "/docs/scenario.schema.json"))
    let nodes = try YAMLParser().parse(Array(text.utf8), file: "scenario.schema.json")
    return SchemaValidator(root: try #require(nodes.first).frameValue)
  }

  static func documents(_ text: String) throws -> [FrameValue] {
    try YAMLParser().parse(Array(text.utf8), file: "test.yaml").map(\.frameValue)
  }

  @Test(arguments: ScenarioFilesTests.files)
  func scenarioFileSatisfiesTheSchema(_ path: String) throws {
    let validator = try Self.schema()
    let text = try #require(readTextFile(path))
    for document in try Self.documents(text) {
      #expect(validator.validate(document) == [], "\(path)")
    }
  }

  @Test func theSchemaRejectsMistakes() throws {
    let validator = try Self.schema()
    let mistakes = [
      "scenario: S\nstep: []\n",  // unknown key
      "scenario: S\nsteps:\n  - do: help\n    expect: {}\n",  // two kinds in one step
      "scenario: S\nsteps:\n  - left: [select, 2]\n",  // a command that is not text
      "scenario: S\nsteps:\n  - repeat: 0\n    steps: []\n",  // repeat below 1
      "scenario: S\nwindows:\n  9left: catalog library\nsteps: []\n",  // a window name
      "scenario: S\ntags: {a: 1}\nsteps: []\n",  // tags of the wrong type
      "steps: []\n",  // no name
    ]
    for mistake in mistakes {
      let document = try #require(try Self.documents(mistake).first)
      #expect(!validator.validate(document).isEmpty, "the schema accepted:\n\(mistake)")
    }
  }

  @Test func theSchemaAcceptsEveryStepKind() throws {
    let validator = try Self.schema()
    let text = """
      scenario: All kinds
      tags: [a]
      exhaustive: false
      rows: 5
      documents:
        shelf: {kind: catalog, books: []}
      windows:
        left: catalog shelf
        right: {screen: catalog, document: shelf, state: {query: x}}
      steps:
        - left: add Dune
        - left: select 9
          fails: /no book/
        - do: relaunch
        - expect:
            left: {total: 1}
        - snapshot: [left, right]
        - include: flow.yaml
          with: {id: 1}
        - repeat: 2
          steps:
            - right: query ${iteration}
      examples:
        - {id: 1}
      """
    let document = try #require(try Self.documents(text).first)
    #expect(validator.validate(document) == [])
  }
}
