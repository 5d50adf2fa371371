import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchTestSupport

@testable import WorkbenchScenarios

/// Traces keep every step with the frames it left, each distinct frame once.
@MainActor struct TraceTests {
  static let scenario = """
    scenario: Traced
    tags: [trace]
    documents:
      library:
        kind: catalog
        books:
          - {id: 1, title: Swift}
          - {id: 2, title: Algorithms}
    windows:
      left: catalog library
      right: catalog library
    steps:
      - left: select 2
      - left: select 9
        fails: no book with id 9
      - do: clock advance 1500ms
      - expect:
          left: {selected: 2}
          right: {selected: null}
      - right: select 1
      - expect:
          right: {selected: 2}
    """

  private func traced() throws -> ScenarioTrace {
    let result = try #require(try runScenarios(Self.scenario, options: .init(traces: true)).first)
    return try #require(result.trace)
  }

  @Test func everyStepIsKeptWithWhereItIsAndWhatItLeft() throws {
    let trace = try traced()
    #expect(trace.status == "failed")
    #expect(trace.tags == ["trace"])
    #expect(trace.windows == ["left", "right"])
    #expect(trace.steps.map(\.kind) == ["set-up", "command", "command", "host", "expect", "command", "expect"])
    #expect(trace.steps[1].text == "left: select 2")
    #expect(trace.steps[1].location.hasSuffix("scenario.yaml:13:11"), "\(trace.steps[1].location)")
    // Set-up shows both windows; a step lists only the windows it changed.
    #expect(Set(trace.steps[0].frames.keys) == ["left", "right"])
    #expect(Array(trace.steps[1].frames.keys) == ["left"])
    #expect(trace.steps[2].outcome == "expected-failure")
    #expect(trace.steps[2].message?.contains("no book with id 9") == true)
    #expect(trace.steps[2].frames.isEmpty)
    #expect(trace.steps[3].clockMs == 1500)
    #expect(trace.steps[4].text == #"expect: left: {"selected":2}, right: {"selected":null}"#)
    #expect(trace.steps[4].outcome == "passed")
    let last = try #require(trace.steps.last)
    #expect(last.outcome == "failed")
    #expect(last.details.first == "right.selected")
    #expect(trace.failure?.message == "the frames do not match the expectation")
  }

  @Test func identicalFramesAreStoredOnce() throws {
    let trace = try traced()
    // Both windows open on the same frame: one entry. Then left changes, then right.
    #expect(trace.steps[0].frames["left"] == trace.steps[0].frames["right"])
    #expect(trace.frames.count == 3)
    let shown = trace.frames(at: 5)
    #expect(trace.frames[try #require(shown["right"])]?.value["selected"] == 1)
    #expect(trace.frames[try #require(shown["left"])]?.text.contains("▸ 2  Algorithms") == true)
  }

  @Test func theReportNamesTheFirstStepThatLeftTheGreenRun() throws {
    let failed = try traced()
    var green = failed
    green.status = "passed"
    // The green run's right window showed nothing selected after step 5.
    var step = green.steps[5]
    step.frames = [:]
    green.steps[5] = step
    let divergence = try #require(HTMLReport.divergence(of: failed, from: green))
    #expect(divergence.step == 5)
    #expect(divergence.fields.map(\.path).contains("right.selected"))
    #expect(HTMLReport.divergence(of: failed, from: failed) == nil)
  }

  @Test func theReportIsOnePageWithItsDataAndNoNetwork() throws {
    let trace = try traced()
    let page = HTMLReport.make(traces: [trace])
    #expect(page.hasPrefix("<!doctype html>"))
    #expect(!page.contains("http://") && !page.contains("https://"))
    #expect(page.contains(#""name":"Traced""#))
    // A title with markup cannot end the data's script element.
    var hostile = trace
    hostile.scenario = "</script><script>alert(1)</script>"
    let escaped = HTMLReport.make(traces: [hostile])
    #expect(!escaped.contains("</script><script>alert(1)"))
  }

  /// A window that closes is listed with no frame at that step; after a relaunch (new windows
  /// under the same labels) a step lists only the window it changed.
  @Test func closedAndRelaunchedWindowsAreFollowed() throws {
    let scenario = """
      scenario: Closing and relaunching
      \(ScenarioRunnerTests.twoBooks)
        right: catalog library
      steps:
        - left: select 2
        - do: close right
        - left: select 1
        - do: relaunch
        - left: select 2
        - expect:
            left: {selected: 2}
      """
    let result = try #require(try runScenarios(scenario, options: .init(traces: true)).first)
    #expect(result.passed, "\(String(describing: result.failure))")
    let trace = try #require(result.trace)
    #expect(
      trace.steps.map(\.text) == [
        "set-up: 1 documents, 2 windows", "left: select 2", "do: close right", "left: select 1", "do: relaunch",
        "left: select 2", #"expect: left: {"selected":2}"#,
      ])
    #expect(trace.steps[2].frames == ["right": String?.none])
    #expect(Array(trace.steps[3].frames.keys) == ["left"])
    #expect(trace.steps[4].frames.isEmpty)  // the relaunched window shows what it showed
    #expect(Array(trace.steps[5].frames.keys) == ["left"])
    #expect(trace.frames(at: 5).keys.sorted() == ["left"])
  }

  @Test func tracesRoundTripThroughAFolder() throws {
    let folder = makeTemporaryFolder() + "/traces"
    var result = try #require(try runScenarios(Self.scenario, options: .init(traces: true)).first)
    result.trace?.file = "Scenarios/a/b.yaml"
    #expect(TraceStore.write([result], to: folder) == nil)
    let read = try TraceStore.read([folder])
    #expect(read == [result.trace])
    #expect(readTextFile(folder + "/frames.jsonl")?.split(separator: "\n").count == 3)
    #expect(readTextFile(folder + "/frames.jsonl")?.split(separator: "\n").count == 3)
    writeTextFile("{\"schema\": 99}", to: folder + "/x.trace.json")
    #expect(throws: TraceReadError.self) { try TraceStore.read([folder]) }
  }
}

/// What `run --trace` writes keeps to docs/trace.schema.json.
@MainActor @Test func tracesKeepToTheirDocumentedSchema() throws {
  let schemaText = try #require(readTextFile(repositoryRoot() + "/docs/trace.schema.json"))
  let schema = try FrameValue.parse(json: Array(schemaText.utf8))
  let validator = SchemaValidator(root: schema)
  let frameLine = SchemaValidator(root: try #require(schema["definitions"]?["frameLine"]))
  let folder = makeTemporaryFolder() + "/traces"
  let results = try runScenarios(TraceTests.scenario, options: .init(traces: true))
  #expect(TraceStore.write(results, to: folder) == nil)
  let files = folderEntries(folder)
  #expect(files.contains("frames.jsonl"))
  for file in files where file.hasSuffix(".trace.json") {
    let value = try FrameValue.parse(json: try #require(readBytes(folder + "/" + file)))
    #expect(validator.validate(value).isEmpty, "\(file): \(validator.validate(value))")
  }
  for line in (readTextFile(folder + "/frames.jsonl") ?? "").split(separator: "\n") {
    let value = try FrameValue.parse(json: Array(line.utf8))
    #expect(frameLine.validate(value).isEmpty, "\(frameLine.validate(value))")
  }
}
