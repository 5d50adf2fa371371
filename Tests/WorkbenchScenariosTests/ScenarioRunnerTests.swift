import Catalog
import Testing
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchTestSupport

@MainActor
@Suite struct ScenarioRunnerTests {
  static let twoBooks = """
    documents:
      library:
        kind: catalog
        books:
          - {id: 1, title: Swift}
          - {id: 2, title: Algorithms}
    windows:
      left: catalog library
    """

  @Test func aPassingScenarioRunsEveryStep() throws {
    let results = try runScenarios(
      """
      scenario: Passes
      \(Self.twoBooks)
      steps:
        - left: select 2
        - expect:
            left: {selected: 2, rows: [1, 2]}
      """)
    #expect(results.count == 1)
    #expect(results[0].passed)
    #expect(results[0].stepsRun == 2)
  }

  @Test func aMismatchNamesThePathAndBothValues() throws {
    let result = try #require(
      try runScenarios(
        """
        scenario: Fails
        \(Self.twoBooks)
        steps:
          - left: select 2
          - expect:
              left: {selected: 1, rows: [1]}
        """
      ).first)
    let failure = try #require(result.failure)
    #expect(failure.location.line == 12)
    #expect(failure.step == "expect: left")
    #expect(
      failure.details == [
        "left.selected", "    expected: 1", "    actual:   2",
        "left.rows", #"    expected: 1 item: [1]"#,
        #"    actual:   2 items: [{"id":1,"title":"Swift"},{"id":2,"title":"Algorithms"}]"#,
      ])
  }

  /// `null` matches a field that is null; a key the frame does not have fails, whatever its
  /// value, with the closest field suggested (a misspelt `selcted: null` used to pass). A
  /// top-level key is checked against the screen's declared fields before anything runs; a
  /// nested one when the step runs.
  @Test func nullMeansNullAndAMisspeltKeyFails() throws {
    let results = try runScenarios(
      """
      scenario: Null
      \(Self.twoBooks)
      steps:
        - expect:
            left: {selected: null, detail: null}
      ---
      scenario: Misspelt
      \(Self.twoBooks)
      steps:
        - left: select 2
        - expect:
            left: {viewport: {anchr: null}}
      """)
    #expect(results[0].passed)
    let failure = try #require(results[1].failure)
    #expect(failure.details.first == "left.viewport.anchr")
    #expect(failure.details.dropFirst().first == "    expected: null")
    #expect(
      failure.details.last?.hasPrefix("    actual:   no such field; did you mean 'anchor'? (the fields: ") == true)
    do {
      _ = try runScenarios(
        """
        scenario: Misspelt at the top
        \(Self.twoBooks)
        steps:
          - left: select 2
          - expect:
              left: {selcted: null}
        """)
      Issue.record("a misspelt top-level key was not refused before the run")
    } catch {
      #expect("\(error)".contains("whose frame has no field 'selcted'. Did you mean 'selected'?"), "\(error)")
    }
  }

  /// Matchers for what a value cannot say: present, a pattern, a range, a list that contains.
  @Test func matchersCheckPresencePatternsRangesAndContents() throws {
    let results = try runScenarios(
      """
      scenario: Matchers pass
      \(Self.twoBooks)
      steps:
        - left: select 2
        - expect:
            left:
              selected: {$any: true}
              detail: {title: {$matches: '^Algo'}}
              matches: {$between: [1, 2]}
              rows: {$contains: [2]}
      ---
      scenario: Matchers fail
      \(Self.twoBooks)
      steps:
        - expect:
            left:
              selected: {$any: true}
              query: {$matches: '^x'}
              matches: {$between: [3, 9]}
              rows: {$contains: [7]}
      """)
    #expect(results[0].passed, "\(String(describing: results[0].failure))")
    let details = try #require(results[1].failure).details
    #expect(
      details == [
        "left.selected", "    expected: any value", "    actual:   null",
        "left.query", "    expected: a match for /^x/", #"    actual:   """#,
        "left.matches", "    expected: a number from 3.0 to 9.0", "    actual:   2",
        "left.rows", "    expected: a list containing 7",
        #"    actual:   [{"id":1,"title":"Swift"},{"id":2,"title":"Algorithms"}]"#,
      ], "\(details)")
  }

  /// A boolean matches `$matches` as written (`false`, not the `no` a window shows), and
  /// `$anyOf` takes values and matchers (null until something happens, then in a range).
  @Test func booleansMatchAsWrittenAndAnyOfTakesValuesAndMatchers() throws {
    let results = try runScenarios(
      """
      scenario: Pass
      \(Self.twoBooks)
      steps:
        - expect:
            left:
              onlySelected: {$matches: '^false$'}
              selected: {$anyOf: [null, {$between: [1, 2]}]}
        - left: select 2
        - expect:
            left:
              selected: {$anyOf: [null, {$between: [1, 2]}]}
      ---
      scenario: Fail
      \(Self.twoBooks)
      steps:
        - expect:
            left:
              onlySelected: {$matches: '^no$'}
        - left: select 2
        - expect:
            left:
              selected: {$anyOf: [null, 7, {$between: [3, 4]}]}
      """)
    #expect(results[0].passed, "\(String(describing: results[0].failure))")
    let first = try #require(results[1].failure).details
    #expect(first == ["left.onlySelected", "    expected: a match for /^no$/", "    actual:   false"], "\(first)")
  }

  /// A matcher written wrong in a scenario's `expect:` is an error at its line and column when
  /// the file loads, not a frame that "does not match".
  @Test(arguments: [
    ("{$nearly: 2}", "13:17: '$nearly' is not a matcher"),
    ("{$anyOf: []}", "13:25: $anyOf takes a list"),
    ("{$between: [2]}", "13:27: $between takes two numbers"),
  ])
  func aMatcherWrittenWrongIsALoadError(matcher: String, expected: String) throws {
    let text = "scenario: Wrong\n\(Self.twoBooks)\nsteps:\n  - expect:\n      left:\n        total: \(matcher)\n"
    let error = try #require(loadError(text), "loaded: \(text)")
    #expect(error.contains(expected), "\(error)")
  }

  @Test func expectedFailuresMatchTextOrPatterns() throws {
    let results = try runScenarios(
      """
      scenario: Failures
      \(Self.twoBooks)
      steps:
        - left: select 9
          fails: no book with id 9
        - left: select 9
          fails: /no book with id \\d+/
        - left: select 1
          fails: anything
      """)
    let failure = try #require(results[0].failure)
    #expect(failure.message == "expected this step to fail with 'anything', and it succeeded")
    #expect(results[0].stepsRun == 2)
  }

  @Test func anUnexpectedErrorFailsTheStepAtItsColumn() throws {
    let failure = try #require(
      try runScenarios(
        """
        scenario: Error
        \(Self.twoBooks)
        steps:
          - do: "@left select 9"
        """
      ).first?.failure)
    #expect(failure.message == "no book with id 9")
    #expect(failure.location.line == 11)
    #expect(failure.location.column == 23)  // `9` inside `do: "@left select 9"`
  }

  @Test func relaunchRestoresWindowsAndViewState() throws {
    let results = try runScenarios(
      """
      scenario: Relaunch
      \(Self.twoBooks)
      steps:
        - left: select 2
        - left: query alg
        - do: open catalog library right
        - right: scroll 2
        - do: relaunch
        - expect:
            left: {selected: 2, query: alg, rows: [2]}
            right: {viewport: {anchor: 2}}
        - do: windows
      """)
    #expect(results[0].passed, "\(String(describing: results[0].failure))")
  }

  @Test func examplesRunOneScenarioPerRow() throws {
    let results = try runScenarios(
      """
      scenario: Select
      \(Self.twoBooks)
      steps:
        - left: select ${id}
        - expect:
            left: {selected: "${id}", detail: {title: "${title}"}}
      examples:
        - {id: 1, title: Swift}
        - {id: 2, title: Algorithms}
        - {id: 2, title: Wrong}
      """)
    #expect(
      results.map(\.name) == [
        "Select [id=1, title=Swift]", "Select [id=2, title=Algorithms]", "Select [id=2, title=Wrong]",
      ])
    #expect(results.map(\.passed) == [true, true, false])
  }

  @Test func includeRunsAFlowWithParameters() throws {
    let folder = makeTemporaryFolder()
    _ = scenarioFile(
      """
      flow: Pick and filter
      params: [window, id, query]
      steps:
        - ${window}: select ${id}
        - ${window}: query ${query}
      """, name: "pick.yaml", folder: folder)
    let path = scenarioFile(
      """
      scenario: Include
      \(Self.twoBooks)
      steps:
        - include: pick.yaml
          with: {window: left, id: 2, query: swift}
        - expect:
            left: {selected: 2, rows: [1]}
      """, folder: folder)
    let loader = try ScenarioLoader(modules: [CatalogModule()])
    let scenario = try #require(try loader.load(path).scenarios.first)
    #expect(scenario.steps.count == 3)
    #expect(scenario.steps[0].location.file.hasSuffix("pick.yaml"))
    #expect(ScenarioRunner(modules: [CatalogModule()]).run(scenario).passed)
    #expect(try loader.load(folder + "/pick.yaml").isFlow)
  }

  @Test func includeChecksItsParameters() {
    let folder = makeTemporaryFolder()
    _ = scenarioFile("flow: F\nparams: [id]\nsteps:\n  - do: help\n", name: "f.yaml", folder: folder)
    let path = scenarioFile("scenario: S\nsteps:\n  - include: f.yaml\n    with: {idd: 1}\n", folder: folder)
    do {
      _ = try ScenarioLoader(modules: [CatalogModule()]).load(path)
      Issue.record("loaded")
    } catch let error as ScenarioFileError {
      #expect(error.message == "f.yaml has no parameter 'idd'. Did you mean 'id'?")
    } catch {
      Issue.record("unexpected \(error)")
    }
  }

  @Test func repeatExpandsWithAnIterationNumber() throws {
    let scenarios = try loadScenarios(
      """
      scenario: Repeat
      \(Self.twoBooks)
      steps:
        - repeat: 3
          steps:
            - left: add Book ${iteration}
        - expect:
            left: {total: 5, rows: [1, 2, {title: Book 1}, {title: Book 2}, {title: Book 3}]}
      """)
    #expect(scenarios[0].steps.count == 4)
    #expect(ScenarioRunner(modules: [CatalogModule()]).run(scenarios[0]).passed)
  }

  @Test func unknownParametersAreCaughtBeforeRunning() {
    #expect(
      loadError("scenario: S\nsteps:\n  - do: help ${nope}\n") == "3:9: unknown parameter ${nope} (there are none here)"
    )
  }

  @Test func windowsOpenedByStepsAreKnownToLaterSteps() {
    #expect(
      loadError("scenario: S\nsteps:\n  - do: open catalog library extra\n  - extra: select 1\n  - other: select 1\n")?
        .hasPrefix("5:5: unknown window or step kind 'other'") == true)
    #expect(
      loadError("scenario: S\nsteps:\n  - do: open catalog library extra\n  - do: close extra\n  - extra: select 1\n")
        != nil)
  }

  @Test func aStepDoesOneThing() {
    #expect(
      loadError("scenario: S\nsteps:\n  - do: help\n    expect: {}\n")
        == "4:5: a step does one thing; this one has `do` and `expect`: split it into separate steps")
  }

  @Test func exhaustiveModeNamesUncoveredChanges() throws {
    let failure = try #require(
      try runScenarios(
        """
        scenario: Exhaustive
        exhaustive: true
        \(Self.twoBooks)
        steps:
          - left: query swift
          - expect:
              left: {query: swift, rows: [1]}
          - left: select 1
        """
      ).first?.failure)
    #expect(failure.step == "left: query swift")
    #expect(failure.details == ["left.matches: 2 → 1"])
  }

  @Test func exhaustiveModeCanBeTurnedOnForEveryScenario() throws {
    let text = """
      scenario: Loose
      \(Self.twoBooks)
      steps:
        - left: select 1
      """
    #expect(try runScenarios(text)[0].passed)
    #expect(try !runScenarios(text, options: .init(exhaustive: true))[0].passed)
  }

  @Test func snapshotsAreRecordedComparedAndDiffed() throws {
    let folder = makeTemporaryFolder()
    let path = scenarioFile(
      """
      scenario: Snapshot
      \(Self.twoBooks)
      steps:
        - left: select ${id}
        - snapshot: left
      examples:
        - {id: 1}
      """, name: "snap.yaml", folder: folder)
    let loader = try ScenarioLoader(modules: [CatalogModule()])
    let scenario = try #require(try loader.load(path).scenarios.first)

    let missing = ScenarioRunner(modules: [CatalogModule()]).run(scenario)
    #expect(missing.failure?.message.hasPrefix("no snapshot at") == true)

    let recorded = ScenarioRunner(modules: [CatalogModule()], options: .init(updateSnapshots: true)).run(scenario)
    #expect(recorded.passed)
    let golden = try #require(recorded.snapshotsWritten.first)
    #expect(golden == folder + "/__snapshots__/snap/snapshot-id-1-1.txt")
    #expect(readTextFile(golden)?.contains("▸ 1  Swift") == true)
    #expect(ScenarioRunner(modules: [CatalogModule()]).run(scenario).passed)

    writeTextFile("[1 left] catalog library · revision 1\nsomething else\n", to: golden)
    let changed = try #require(ScenarioRunner(modules: [CatalogModule()]).run(scenario).failure)
    #expect(changed.message.hasPrefix("the text differs from the snapshot"))
    #expect(changed.details.contains("- something else"))
    #expect(changed.details.contains("+ ▸ 1  Swift"))
  }

  @Test func scenariosAreDeterministic() throws {
    let text = """
      scenario: Same every time
      \(Self.twoBooks)
      steps:
        - do: open catalog library
        - left: add Three
        - do: clock advance 1.5s
        - expect:
            "2": {total: 3, rows: []}
      """
    // The expectation fails on purpose: the failure's details carry the whole actual row
    // list, so any run-to-run difference in the frame (wall-clock time, random ids,
    // ordering) shows up as unequal failures.
    let first = try runScenarios(text)[0]
    let second = try runScenarios(text)[0]
    let details = try #require(first.failure?.details)
    #expect(details.contains { $0.contains("Three") })
    #expect(details == second.failure?.details)
    #expect(first.failure?.location.line == 14 && second.failure?.location.line == 14)
    #expect(first.stepsRun == second.stepsRun)
  }
}
