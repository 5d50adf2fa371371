import BuiltInModules
import Catalog
import Editor
import Goal
import Ledger
import Lights
import Testing

@testable import WorkbenchCore
@testable import WorkbenchModuleAPI
@testable import WorkbenchScenarios

/// The built-in screens' typed frames: every frame a window shows is its screen's typed frame
/// written out, and reads back as exactly that frame, so what renders it (from the typed frame)
/// and what a scenario expects (from the written one) see the same window.
@MainActor struct TypedFrameScreenTests {
  /// Whether `window` shows a frame of `Model` that reads back as the model's typed frame:
  /// `nil` when the window is not on `Model`.
  private static func readsBack<Model: FramedScreen>(_ type: Model.Type) -> (Window) -> String? {
    { window in
      guard let model = window.model(as: Model.self) else { return nil }
      let frame = window.frame
      let typed = model.typedFrame
      if typed.frameValue != frame { return "the window's frame is not its typed frame written out" }
      if Model.Frame(frameValue: frame) != typed { return "the frame does not read back as its typed frame" }
      // The window renders from the typed frame; a kept frame (a trace's) is read back to render.
      if window.text != window.screen.render(frame) { return "its text differs from its frame's" }
      return ""
    }
  }

  private static let checks: [(Window) -> String?] = [
    readsBack(CatalogScreenModel.self), readsBack(GoalScreen.self), readsBack(EditorScreen.self),
    readsBack(LedgerScreen.self), readsBack(HomeScreen<LiveMode>.self), readsBack(HomeScreen<PreviewMode>.self),
    readsBack(RoomScreen<LiveMode>.self), readsBack(RoomScreen<PreviewMode>.self),
  ]

  /// Random sessions on every built-in screen (the explorer's, fixed seeds and one drawn now,
  /// printed on failure), replayed step by step: after every step, every window's frame is its
  /// typed frame and reads back as it.
  @Test(arguments: [11, 12, 13, 14, 15, 16, UInt64.random(in: 17...UInt64.max)])
  func everyFrameOfARandomSessionReadsBackAsItsTypedFrame(seed: UInt64) throws {
    let registry = try ModuleRegistry(modules: builtInModules)
    var options = Explorer.Options()
    options.steps = 25
    let explorer = Explorer(registry: registry, options: options)
    var random = SplitMix64(seed: seed)
    var windowsSeen = 0
    for _ in 0..<4 {
      guard let (session, _) = explorer.generateAndCheck(&random) else {
        Issue.record("seed \(seed): no session drawn")
        return
      }
      let host = try Host(modules: builtInModules, clock: .virtual)
      for window in session.windows {
        _ = try host.openWindow(screen: window.screen, document: window.document, name: window.name)
      }
      for (index, step) in session.steps.enumerated() {
        // Refusals are part of a random session; what matters is the frames after them.
        _ = try? host.run(line: step.line, in: step.window)
        for window in host.windows {
          let verdicts = Self.checks.compactMap { $0(window) }
          #expect(
            verdicts == [""],
            "seed \(seed), step \(index + 1) `\(step.line)`, window \(window.id.number): \(verdicts)")
          windowsSeen += 1
        }
      }
    }
    #expect(windowsSeen > 0)
  }

  /// The lists a screen used to keep beside its frame now come from the frame's table.
  @Test func theScreensListsComeFromTheirFramesTables() {
    #expect(LedgerScreen.lifetimeFields == ["fetchesStarted"])
    #expect(LedgerScreen.ownFields == ["state", "isLoading", "rows", "count", "message", "canRetry", "detail"])
    #expect(GoalScreen.refusalFields == ["message"])
    #expect(CatalogScreenModel.frameFields == CatalogFrame.fields.map(\.name))
    #expect(GoalScreen.frameFieldSummaries["progress"] == "the shared goal as \"N of M\"")
    #expect(EditorScreen.refusalFields.isEmpty && EditorScreen.ownFields.isEmpty)
  }

  /// A screen renders from its typed frame; a frame that is not one (a window showing an error)
  /// is shown as its outline, not as a typed frame made up from defaults.
  @Test func renderingTakesTheTypedFrameAndFallsBackToTheOutline() throws {
    let host = try Host(modules: builtInModules, clock: .virtual)
    let goal = try #require(host.documentNames.first { host.documentKind(of: $0) == "goal" })
    let window = try host.openWindow(screen: "goal", document: goal)
    _ = try host.run(line: "target 3", in: String(window.id.number))
    let text = window.screen.render(window.frame)
    #expect(text.hasPrefix("shared goal: 0 of ") && text.contains("draft (this window only, not saved): 0 of 3"))
    let notAGoal: FrameValue = ["error": "the module stopped"]
    #expect(window.screen.render(notAGoal) == notAGoal.outlineText)
  }

  /// Every built-in screen renders a window from its model's typed frame, not by reading the
  /// frame it wrote back (which costs a command's round trip a fifth of its time).
  @Test func everyBuiltInScreenRendersFromItsModel() throws {
    let registry = try ModuleRegistry(modules: builtInModules)
    #expect(registry.screenKinds.count == 8)  // catalog, goal, editor, feed, and home and room live and preview
    for screen in registry.screenKinds.values {
      #expect(screen.typed != nil, "\(screen.name) renders only from its frame's value")
    }
  }

  /// A window's frame and text taken at once (one projection of the typed frame, what a kit
  /// sends) are its frame and its text, for every built-in screen on every sample it shows.
  @Test func aWindowsFrameAndTextAtOnceAreItsFrameAndText() throws {
    let host = try Host(modules: builtInModules, clock: .virtual)
    var seen: Set<String> = []
    for screen in host.screens {
      for document in host.documentNames where host.documentKind(of: document) == screen.documentKind {
        let window = try host.openWindow(screen: screen.name, document: document)
        try host.clock.settle(within: .seconds(60), flush: host.services.scheduler)
        let (frame, text) = window.frameAndText
        #expect(frame == window.frame, "\(screen.name) on \(document)")
        #expect(text() == window.text, "\(screen.name) on \(document)")
        seen.insert(screen.name)
      }
    }
    #expect(seen.count == 8, "\(seen.sorted())")
  }
}
