import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel

/// Every built-in screen declares its frame's fields, and its frames have exactly those.
@MainActor struct FrameSchemaTests {
  /// What a window shows has the fields its screen declares. For a screen with a typed frame
  /// both come from the frame's table, so this holds what the table cannot: a window's frame
  /// (kept by its stamp, or a `frame` a screen writes itself instead of its typed frame's) is
  /// the typed frame's, and a screen without a typed frame declares what it builds.
  @Test func everyBuiltInScreenDeclaresTheFieldsItsFramesHave() throws {
    let registry = try ModuleRegistry(modules: builtInModules)
    let host = try Host(modules: builtInModules, clock: .virtual)
    for screen in host.screens {
      let declared = registry.frameFields(ofScreen: screen.name)
      for document in host.documentNames where host.documentKind(of: document) == screen.documentKind {
        let window = try host.openWindow(screen: screen.name, document: document, name: nil)
        try host.clock.settle(within: .seconds(60), flush: host.services.scheduler)
        guard case .object(let frame)? = host.window(named: String(window.id.number))?.frame else {
          Issue.record("\(screen.name): the frame is not an object")
          continue
        }
        let keys = frame.keys
        if keys != declared { Issue.record("\(screen.name) on \(document) declares \(declared ?? []), has \(keys)") }
      }
    }
  }

  /// Every field a built-in screen declares says what it means (an editor shows it), and no
  /// meaning is given for a field the screen does not have.
  @Test func everyBuiltInFieldSaysWhatItMeans() throws {
    let registry = try ModuleRegistry(modules: builtInModules)
    for screen in registry.screens {
      let declared = Set(registry.frameFields(ofScreen: screen.name) ?? [])
      let summaries = registry.fieldSummaries(ofScreen: screen.name)
      #expect(!declared.isEmpty, "\(screen.name) declares no fields")
      #expect(
        Set(summaries.keys) == declared, "\(screen.name): \(declared.symmetricDifference(summaries.keys).sorted())")
      for (field, summary) in summaries {
        #expect(!summary.isEmpty && summary.count <= 120, "\(screen.name).\(field): \(summary)")
      }
    }
  }

  /// So does every field inside one (a row's, a viewport's), as deep as the typed frames go: an
  /// editor shows it over an expectation's nested field and beside its completion.
  @Test func everyFieldInsideABuiltInFrameSaysWhatItMeansToo() throws {
    let registry = try ModuleRegistry(modules: builtInModules)
    var nested = 0
    func check(_ fields: [FrameFieldSchema], at path: [String], of screen: String) {
      for field in fields {
        let place = ([screen] + path + [field.name]).joined(separator: ".")
        #expect(!field.summary.isEmpty && field.summary.count <= 120, "\(place): \(field.summary)")
        if !path.isEmpty { nested += 1 }
        check(field.fields, at: path + [field.name], of: screen)
      }
    }
    for screen in registry.screens {
      let fields = try #require(
        registry.nestedFields(ofScreen: screen.name, at: []), "\(screen.name) has no typed frame")
      check(fields, at: [], of: screen.name)
    }
    #expect(nested >= 30, "the built-in frames' records hold \(nested) fields")
  }

  @Test func anExpectationOnAFieldTheScreenLacksIsRefusedBeforeAnythingRuns() throws {
    let yaml = """
      scenario: misspelt
      windows:
        main: catalog library
      steps:
        - main: select 2
        - expect:
            main: {selcted: null}
      """
    let problem = try #require(loadProblem(yaml))
    #expect(problem.contains("misspelt.yaml:7:14"), "\(problem)")
    #expect(problem.contains("main shows catalog, whose frame has no field 'selcted'. Did you mean 'selected'?"))
  }

  private func loadProblem(_ yaml: String) -> String? {
    do {
      let loader = ScenarioLoader(registry: try ModuleRegistry(modules: builtInModules))
      _ = try loader.load(bytes: Array(yaml.utf8), path: "misspelt.yaml")
      return nil
    } catch {
      return "\(error)"
    }
  }
}
