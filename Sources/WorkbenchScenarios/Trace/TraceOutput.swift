import Dispatch
import Synchronization
import WorkbenchCore

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
  /// Traces handed over and not yet sent to the queue: they go in batches, so the queue's
  /// thread wakes once per batch, not once per scenario.
  private let pending = Mutex<[ScenarioTrace]>([])
  /// Batches sent and not yet taken by the queue: moved in and out, so the queue owns each
  /// trace alone and changes it in place.
  private let inbox = Mutex<[ScenarioTrace]>([])
  private static let batch = 32

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
  }

  /// Takes a finished scenario's trace; returns at once. Its frames are resolved here, on the
  /// output's queue.
  func add(_ trace: ScenarioTrace) {
    let full = pending.withLock { pending -> [ScenarioTrace]? in
      pending.append(trace)
      guard pending.count >= Self.batch else { return nil }
      defer { pending.removeAll() }
      return pending
    }
    if let full { send(full) }
  }

  private func send(_ traces: [ScenarioTrace]) {
    inbox.withLock { $0 += traces }
    queue.async {
      var traces = self.inbox.withLock { inbox in
        defer { inbox = [] }
        return inbox
      }
      traces.reverse()
      self.state.withLock { state in
        while var trace = traces.popLast() {
          Self.take(&trace, into: &state)
        }
      }
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
    let rest = pending.withLock { pending in
      defer { pending.removeAll() }
      return pending
    }
    if !rest.isEmpty { send(rest) }
    queue.sync {}
    return state.withLock { state in
      if state.problem == nil, let problem = state.folder?.finish() { state.problem = problem }
      return (state.report, state.problem)
    }
  }
}
