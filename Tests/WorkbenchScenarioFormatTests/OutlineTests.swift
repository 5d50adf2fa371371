import BuiltInModules
import Testing
import WorkbenchScenarioFormat
import WorkbenchScenarioModel

/// The outline `loadKeepingShape` gives an editor beside the scenarios: what each YAML document
/// declares (parameters, documents) and where, and where each step is written, read from the
/// file's shape whether or not it loads, and from a file mid-edit that is not YAML.
@MainActor
@Suite struct OutlineTests {
  let loader: ScenarioLoader

  init() throws {
    loader = try ScenarioLoader(modules: builtInModules)
  }

  private func outline(_ text: String) throws -> (outline: ScenarioOutline, skipped: [Int]) {
    let read = loader.loadKeepingShape(bytes: Array(text.utf8), path: "/tmp/outline.yaml")
    _ = try #require(read.file)
    return (read.outline, read.skippedLines)
  }

  /// Each document's own parameters and documents, with their places: the keys of its example
  /// rows (each once, where first given), and `iteration` only inside a repeat.
  @Test func eachDocumentDeclaresItsOwnNames() throws {
    let (outline, skipped) = try outline(
      """
      scenario: First ${query}
      documents:
        shelf: {kind: catalog}
      windows:
        left: catalog shelf
      steps:
        - left: query ${query}
        - repeat: 2
          steps:
            - left: select ${count}
      examples:
        - {query: dune, count: 2}
        - {query: swift, size: 3}
      ---
      scenario: Second
      steps:
        - do: windows
      """)
    #expect(skipped.isEmpty)
    #expect(outline.documents.count == 2)
    let first = try #require(outline.document(holding: 7))
    #expect(first.parameters.map(\.name) == ["query", "count", "size"])
    #expect(first.parameters.map(\.location.line) == [12, 12, 13])
    #expect(first.parameters.map(\.location.column) == [6, 19, 20])
    #expect(first.documents.map(\.name) == ["shelf"])
    #expect(first.documents.map(\.location) == [SourceLocation(file: "/tmp/outline.yaml", line: 3, column: 3)])
    #expect(outline.parameters(at: 7).map(\.name) == ["query", "count", "size"])
    #expect(outline.parameters(at: 10).map(\.name) == ["query", "count", "size", "iteration"])
    #expect(outline.parameters(at: 10).last?.location.line == 8)
    let second = try #require(outline.document(holding: 16))
    #expect(second.parameters.isEmpty && second.documents.isEmpty && !second.isFlow)
    #expect(outline.parameters(at: 17).isEmpty)
  }

  /// Each step from its item to the next (a repeat's own steps inside it), the last to whatever
  /// follows the list: the step a line is in, outermost first.
  @Test func eachStepRunsToTheNext() throws {
    let (outline, _) = try outline(
      """
      scenario: Steps
      windows:
        left: catalog library
      steps:
        - left: select 2
        - expect:
            left: {query: ""}

        - repeat: 2
          steps:
            - left: page down
            - left: page up
      examples:
        - {x: 1}
      """)
    let steps = try #require(outline.document(holding: 1)).steps
    #expect(steps.map(\.key) == ["left", "expect", "repeat"])
    #expect(steps.map(\.endLine) == [6, 9, 13])
    #expect(outline.steps(holding: 5).map(\.key) == ["left"])
    #expect(outline.steps(holding: 7).map(\.key) == ["expect"])
    #expect(outline.steps(holding: 8).map(\.key) == ["expect"])
    #expect(outline.steps(holding: 12).map(\.location.line) == [9, 12])
    #expect(outline.steps(holding: 13).isEmpty)
    #expect(outline.steps(holding: 3).isEmpty)
  }

  /// Mid-edit: an unclosed `{` is left out at the line it opens on (not the step after it, which
  /// the parser stops at, nor the blank end of the file), and a step being typed that is not
  /// YAML ends the step above it; a flow is a flow even when its keys do not check.
  @Test func aFileThatIsNotYAMLIsReadWithoutItsBrokenLines() throws {
    let (outline, skipped) = try outline(
      """
      scenario: Typed
      windows:
        left: catalog library
      steps:
        - left: frobnicate
        - expect:
            left: {detail: {fil
        - expect:
            left: {rows: {coun
        - left: "dune
      """)
    #expect(skipped.sorted() == [7, 9, 10])
    let steps = try #require(outline.document(holding: 1)).steps
    #expect(steps.map(\.key) == ["left", "expect", "expect"])
    #expect(outline.steps(holding: 7).map(\.location.line) == [6])
    #expect(outline.steps(holding: 9).map(\.location.line) == [8])
    #expect(outline.steps(holding: 10).isEmpty)
    // An open `{` on the last line: the parser stops past the text, on no line of its own.
    let (include, skippedAtEnd) = try self.outline(
      "scenario: Includes\nsteps:\n  - include: flows/pick.yaml\n    with: {window: left, \n")
    #expect(skippedAtEnd == [4])
    #expect(include.steps(holding: 4).map(\.key) == ["include"])
    #expect(include.steps(holding: 4).first?.text == "flows/pick.yaml")
    let (flow, _) = try self.outline("flow: Pick\nparams: [window, book]\nsteps:\n  - ${window}: select ${book}\nste\n")
    #expect(flow.documents.first?.isFlow == true)
    #expect(flow.parameters(at: 4).map(\.name) == ["window", "book"])
    #expect(flow.parameters(at: 4).map(\.location.column) == [10, 18])
  }
}
