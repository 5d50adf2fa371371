import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSession

/// What a running scenario carries from step to step.
@MainActor
struct RunState {
  let scenario: Scenario
  let exhaustive: Bool
  /// The scenario's session: its host, and the in-memory workspace it opens at a relaunch.
  var session: WorkbenchSession! = nil
  var snapshotCount = 0
  /// Every window's frame after the last action, for exhaustive mode.
  var frames: [String: FrameValue] = [:]
  /// Changes no expectation has covered yet: path to before and after.
  var uncovered: [FrameMatcher.Mismatch] = []
  var lastActionStep: Step?
  /// For the trace: what the current step printed, and why it failed.
  var output: [String] = []
  var stepFailure: (message: String, details: [String])?
  var expectedFailureMessage: String?
  /// For `holds: rebuilt`: every window's frame after the set-up and after each step (fields
  /// about a window's own life and refusals aside); `nil` when nobody compares them.
  var framesAfterSteps: [[String: FrameValue]]?

  init(scenario: Scenario, exhaustive: Bool) {
    self.scenario = scenario
    self.exhaustive = exhaustive
  }

  mutating func recordChanges(now: [String: FrameValue], after step: Step) {
    var changes: [FrameMatcher.Mismatch] = []
    for label in Set(frames.keys).union(now.keys).sorted() {
      switch (frames[label], now[label]) {
      case (nil, _?): changes.append(.init(path: label, expected: "not open", actual: "opened"))
      case (_?, nil): changes.append(.init(path: label, expected: "open", actual: "closed"))
      default: FrameMatcher.changes(from: frames[label], to: now[label], path: label, into: &changes)
      }
    }
    frames = now
    uncovered += changes
    lastActionStep = step
  }

  mutating func cover(_ expectations: [(window: String, expected: YAMLNode)]) {
    var covered: [String] = []
    for (window, expected) in expectations {
      covered += FrameMatcher.paths(of: expected.frameValue, prefix: window)
    }
    uncovered.removeAll { change in
      covered.contains { path in
        change.path == path || change.path.hasPrefix(path + ".") || change.path.hasPrefix(path + "[")
          || path.hasPrefix(change.path + ".")
      }
    }
  }

  func uncoveredReport() -> (message: String, details: [String])? {
    guard !uncovered.isEmpty else { return nil }
    let details = uncovered.map { "\($0.path): \($0.expected) → \($0.actual)" }
    return (
      "exhaustive: this step changed \(uncovered.count == 1 ? "a value" : "\(uncovered.count) values") "
        + "that no expectation covered; add them to an `expect:` after it", details
    )
  }
}
