import Dispatch
import Synchronization
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel

/// Where a run's traces go while it runs: the trace folder (`--trace DIR`) and the report's
/// data (`--html FILE`). Each scenario's trace is handed over as the scenario finishes and is
/// written and added to the report on a queue of this run's own, so the writing overlaps the
/// running (on a second core where there is one) instead of following it.
final class TraceOutput: Sendable {
  private struct State {
    var folder: TraceStore.Folder?
    var report: HTMLReport.PageData?
    var problem: String?
    let frames = TraceFrameCache()
  }

  private let queue = DispatchQueue(label: "workbench.trace-output")
  private let state: Mutex<State>
  /// Traces handed over and not yet taken by the queue. The queue is woken once a batch has
  /// gathered, not once per scenario, and moves them out, so it owns each trace alone and
  /// changes it in place.
  private let pending = Mutex<[ScenarioTrace]>([])
  /// Traces the queue is done with, released by the next `add` on the running thread that
  /// made them: freeing another thread's memory contends for its allocator (a traced run took
  /// 0.83 s instead of 0.67 s when the queue freed them).
  private let done = Mutex<[ScenarioTrace]>([])
  private static let batch = 16

  /// Output to `folder` (made now), to a report's data, or both.
  ///
  /// - Throws: the folder could not be made.
  init(folder: String?, report: HTMLReport.PageData?) throws(TraceReadError) {
    var opened: TraceStore.Folder?
    if let folder {
      switch TraceStore.Folder.open(folder) {
      case .success(let made): opened = made
      case .failure(let error): throw error
      }
    }
    state = Mutex(State(folder: opened, report: report))
    // Graphviz draws the report's diagrams while the first scenarios run.
    if report != nil { queue.async { self.state.withLock { $0.report?.drawDiagrams() } } }
  }

  /// Takes a finished scenario's trace; returns at once. Its frames are resolved here, on the
  /// output's queue.
  func add(_ trace: ScenarioTrace) {
    let finished = done.withLock { done in
      defer { done = [] }
      return done
    }
    _ = consume finished
    let gathered = pending.withLock { pending in
      pending.append(trace)
      return pending.count == Self.batch
    }
    if gathered { drain() }
  }

  /// Has the queue take every pending trace.
  private func drain() {
    queue.async {
      var traces = self.pending.withLock { pending in
        defer { pending = [] }
        return pending
      }
      traces.reverse()
      var finished: [ScenarioTrace] = []
      finished.reserveCapacity(traces.count)
      self.state.withLock { state in
        while var trace = traces.popLast() {
          Self.take(&trace, into: &state)
          finished.append(trace)
        }
      }
      self.done.withLock { $0 += finished }
    }
  }

  private static func take(_ trace: inout ScenarioTrace, into state: inout State) {
    guard state.problem == nil else { return }
    trace.resolveFrames(with: state.frames)
    // Taken out and put back, so each is changed in place and never copied.
    let steps = TraceStore.stepsJSON(of: trace)
    if var folder = state.folder.take() {
      state.problem = folder.add(trace, steps: steps)
      state.folder = folder
    }
    if var report = state.report.take() {
      report.add(trace, steps: steps)
      state.report = report
    }
  }

  /// Waits for every trace handed over, finishes the folder, and returns the report's data and
  /// the first problem met.
  func finish() -> (report: HTMLReport.PageData?, problem: String?) {
    drain()
    queue.sync {}
    return state.withLock { state in
      if state.problem == nil, let problem = state.folder?.finish() { state.problem = problem }
      return (state.report, state.problem)
    }
  }
}
