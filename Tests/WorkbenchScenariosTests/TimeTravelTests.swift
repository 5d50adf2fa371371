import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchSession
import WorkbenchTestSupport

/// A scenario opened at any step (`workbench run FILE:LINE --shell`) is where its run was: for
/// every scenario in Scenarios/ and every step N, the session opened after N shows exactly the
/// frames its trace recorded after N, one opened after N+1 and moved back a step does too, and
/// one opened after N and moved forward a step (a step that had not run) shows N+1's.
@MainActor
@Suite struct TimeTravelTests {
  @Test(arguments: ScenarioFilesTests.files)
  func everyStepOpensAsItsTraceRecordedIt(_ path: String) throws {
    let modules = builtInModules
    let loader = try ScenarioLoader(modules: modules)
    let tracer = ScenarioRunner(modules: modules, options: .init(traces: true))
    let opener = ScenarioRunner(modules: modules)
    for scenario in try loader.load(path).scenarios {
      let travels = scenario.steps.contains { step in step.commands.contains { $0.tokens.first?.text == "travel" } }
      let trace = try #require(tracer.run(scenario).trace)
      // The trace's step 0 is the set-up; its step N follows the scenario's step N.
      for count in 0..<trace.steps.count {
        let opened = try opener.open(scenario, steps: count)
        expectFrames(of: opened.session.host, equal: trace, at: count, "\(scenario.name), opened after step \(count)")
        // A scenario whose steps move in time is no line of steps (its step N+1 may go back
        // two): it opens at each step as it ran, and is not moved a step from there.
        guard count + 1 < trace.steps.count, !travels else { continue }
        let later = try opener.open(scenario, steps: count + 1)
        let shown = Shown()
        try later.session.run("travel back 1", frontEnd: shown)
        expectFrames(of: later.session.host, equal: trace, at: count, "\(scenario.name), back 1 from \(count + 1)")
        let total = scenario.steps.count
        #expect(shown.texts.last?.hasPrefix("at step \(count) of \(total)") == true, "\(shown.texts)")
        // The step ahead runs when the session moves to it, as the run ran it.
        let forward = Shown()
        try opened.session.run("travel forward", frontEnd: forward)
        expectFrames(of: opened.session.host, equal: trace, at: count + 1, "\(scenario.name), forward from \(count)")
        #expect(forward.texts.last?.hasPrefix("at step \(count + 1) of \(total)") == true, "\(forward.texts)")
      }
    }
  }

  /// Every window's frame, value and text, is the one the trace recorded after step `index`.
  private func expectFrames(
    of host: Host, equal trace: ScenarioTrace, at index: Int, _ context: String,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    let expected = trace.frames(at: index)
    let labels = host.windows.map(\.label)
    #expect(Set(labels) == Set(expected.keys), "\(context): windows", sourceLocation: sourceLocation)
    for window in host.windows {
      guard let hash = expected[window.label], let frame = trace.frames[hash] else { continue }
      #expect(window.frame == frame.value, "\(context): \(window.label)", sourceLocation: sourceLocation)
      #expect(window.screen.render(window.frame) == frame.text, "\(context): text", sourceLocation: sourceLocation)
    }
  }
}

/// A front end that keeps what it is shown.
@MainActor
final class Shown: SessionFrontEnd {
  private(set) var texts: [String] = []

  func show(_ output: CommandOutput, reports: Bool) throws(CommandError) {
    if case .text(let text) = output { texts.append(text) }
  }
  func relaunched(warnings: [RestorationWarning]) throws(CommandError) {}
  func unsavedWork(_ question: UnsavedWorkQuestion) throws(CommandError) { throw CommandError(question.message) }
  func carryOut(_ request: FrontEndRequest) throws(CommandError) {}
  func quit() throws(CommandError) {}
  func problem(_ message: String) { texts.append(message) }
}
