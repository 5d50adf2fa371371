import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSession
import WorkbenchSystem

/// `holds:`: relations a scenario keeps, each checked by a second run of it.
extension ScenarioRunner {
  /// The relations `holds:` names, each checked by a second run of the scenario.
  enum Relation {
    /// The second run leaves out the `reopen` steps; compared from the first `reopen` on.
    case rebuilt
    /// The second run is the same steps; compared from the set-up on.
    case replayed
  }

  /// `holds: rebuilt`: the scenario runs again with its `reopen` steps left out, and after every
  /// step from the first `reopen` on, each window must show the frame it showed where the
  /// windows were opened again from their documents and view states. `holds: replayed`: the
  /// same steps run again, and after the set-up and every step each window must show the same
  /// frame. Fields about a window's own life and refusals aside; the first step after which one
  /// differs fails, with the first field that differs.
  func checkRelation(_ relation: Relation, of scenario: Scenario, frames first: [[String: FrameValue]])
    throws(FailedStep)
  {
    var again = scenario
    again.holdsRebuilt = false
    again.holdsReplayed = false
    if relation == .rebuilt { again.steps = scenario.steps.filter { !Self.isReopen($0) } }
    let name = relation == .rebuilt ? "rebuilt" : "replayed"
    var state = RunState(scenario: again, exhaustive: false)
    state.framesAfterSteps = []
    var ignored = ScenarioResult(
      file: again.location.file, name: again.name, location: again.location, duration: 0, stepsRun: 0, failure: nil,
      snapshotsWritten: [], snapshotsUsed: [])
    var noTrace: TraceRecorder?
    do {
      try runSteps(of: again, state: &state, result: &ignored, recorder: &noTrace)
      state.session?.finish()
    } catch {
      state.session?.finish()
      throw FailedStep(
        failure: StepFailure(
          message: (relation == .rebuilt
            ? "with its `reopen` steps left out" : "run a second time") + " (holds: \(name)), the scenario fails here: "
            + error.failure.message,
          details: error.failure.details),
        step: error.step)
    }
    let second = state.framesAfterSteps ?? []
    let (one, other, message) =
      relation == .rebuilt
      ? (
        "where they stayed open", "where they were opened again",
        Explorer.rebuiltMessage + " (holds: rebuilt): after this step, window %@ shows another frame where the "
          + "windows were opened again (`reopen`)"
      )
      : (
        "in the first run", "in the second",
        Explorer.replayedMessage + " (holds: replayed): after this step, window %@ shows another frame in a second "
          + "run of the same steps"
      )
    var secondIndex = 0
    // A rebuild is compared from the first window made again on, as explore compares: before
    // it, the two runs ran the same steps, and what differs there is not a rebuild's.
    var comparing = relation == .replayed
    for (index, step) in scenario.steps.enumerated() {
      if relation == .rebuilt, Self.isReopen(step) { comparing = true } else { secondIndex += 1 }
      guard comparing else { continue }
      guard index + 1 < first.count, secondIndex < second.count else { return }
      let here = first[index + 1]
      let there = second[secondIndex]
      for label in Set(here.keys).union(there.keys).sorted() where here[label] != there[label] {
        // For a rebuild the run without `reopen` is the reference; for a replay, the first.
        let (before, after) = relation == .rebuilt ? (there[label], here[label]) : (here[label], there[label])
        let difference = Explorer.difference(before, after, first: one, second: other)
        throw FailedStep(
          failure: StepFailure(
            message: message.replacing("%@", with: label),
            details: ["\(label)\(difference.isEmpty ? ": open in one run only" : difference)"]),
          step: step)
      }
    }
  }

  /// Whether a step is `reopen` alone (a window made again from its document and view state).
  static func isReopen(_ step: Step) -> Bool {
    guard case .host(let line) = step.action else { return false }
    let words = line.split(separator: " ")
    return words.first == "reopen"
  }

  /// Every window's frame, without the fields a rebuilt window may show otherwise (what it
  /// counts of its own life, what it shows of a refusal).
  static func comparableFrames(_ host: Host) -> [String: FrameValue] {
    var frames: [String: FrameValue] = [:]
    for window in host.windows {
      frames[window.label] =
        Explorer.withoutFields(window.screen.lifetimeFields + window.screen.refusalFields, window.frame) ?? window.frame
    }
    return frames
  }
}
