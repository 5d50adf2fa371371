import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Where the server carries out the runs the editor asks for.
public enum LanguageServerRuns: Sendable {
  /// Each run in a worker process started with this command line (the program itself, as
  /// `workbench lsp --run-worker` with the server's own options), so a long run leaves the
  /// server answering, and cancelling it ends its process.
  case workers([String])
  /// In this process, before the request is answered (the fuzzing harness's way: the same
  /// run, without a process a second).
  case inProcess
}

/// A run going on in a worker process.
final class ActiveRun {
  let requestID: FrameValue
  let uri: String
  /// The document's change count when the run started: its diagnostics are shown only on the
  /// text they were made for.
  let version: Int
  let process: SpawnedProcess
  var pending = InputBuffer()
  var outcome: ScenarioRunOutcome?
  var progress: ScenarioRunProgress?
  /// The work-done progress token, and whether the client has it (a token the server asked the
  /// client to create is used only once the client said yes).
  var token: FrameValue?
  var tokenReady = false
  var tokenRequestID: FrameValue?
  var begun = false
  var lastReport: (percentage: Int, at: Double) = (-1, 0)
  /// What the editor shows the run as until its first progress names it.
  var title = "workbench run"

  init(requestID: FrameValue, uri: String, version: Int, process: SpawnedProcess) {
    self.requestID = requestID
    self.uri = uri
    self.version = version
    self.process = process
  }
}

/// A run asked for while as many as the server runs at once were going on.
struct QueuedRun {
  let request: ScenarioRunRequest
  let id: FrameValue?
  let uri: String
  let params: FrameValue
}

extension LanguageServer {
  /// LSP's error code for a request the client cancelled.
  static let requestCancelled = -32800

  /// The most run workers at once: one for each processor (at least one, at most eight). More
  /// runs wait their turn, in order (`maximumQueuedRuns`).
  public nonisolated static let maximumRunWorkers = min(8, max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
  /// The most runs waiting for a worker; one more is refused, with an error that says so.
  public nonisolated static let maximumQueuedRuns = 16

  /// `workspace/executeCommand` for a run: carried out at once in process, or started in a
  /// worker whose answer comes when it is done.
  func startRun(_ request: ScenarioRunRequest, id: FrameValue?, uri: String, params: FrameValue) {
    switch runs {
    case .inProcess:
      let outcome = request.perform(registry: registry, loader: loader)
      finish(uri: uri, version: versions[uri, default: 0], outcome: outcome)
      respond(id, .string(outcome.message))
    case .workers:
      // A newer run of the same file replaces the one going on or waiting (cancel and restart).
      for run in active where run.uri == uri {
        cancel(run, message: "a newer run of \(Self.path(of: uri)) replaced it")
      }
      for waiting in queuedRuns where waiting.uri == uri {
        cancelQueued(waiting, message: "a newer run of \(Self.path(of: uri)) replaced it")
      }
      guard active.count >= Self.maximumRunWorkers else {
        launch(request, id: id, uri: uri, params: params)
        return
      }
      guard queuedRuns.count < Self.maximumQueuedRuns else {
        if let id {
          send(
            Self.errorResponse(
              id: id, code: -32603,
              message: "\(active.count) runs are going on and \(queuedRuns.count) waiting (the most the server keeps): "
                + "wait for one to end, or cancel one, and ask again"))
        }
        return
      }
      queuedRuns.append(QueuedRun(request: request, id: id, uri: uri, params: params))
      send([
        "jsonrpc": "2.0", "method": "window/showMessage",
        "params": [
          "type": 3,
          "message": .string(
            "workbench: \(active.count) runs are going on (the most at once on this machine); the run of "
              + "\(Self.path(of: uri)) starts when one ends (\(queuedRuns.count) waiting)"),
        ],
      ])
    }
  }

  /// Starts the first waiting run, when a worker is free.
  func startQueuedRuns() {
    while active.count < Self.maximumRunWorkers, !queuedRuns.isEmpty {
      let next = queuedRuns.removeFirst()
      launch(next.request, id: next.id, uri: next.uri, params: next.params)
    }
  }

  /// Drops a waiting run, answering its request as cancelled.
  func cancelQueued(_ waiting: QueuedRun, message: String) {
    queuedRuns.removeAll { $0.uri == waiting.uri && $0.id == waiting.id }
    if let id = waiting.id { send(Self.errorResponse(id: id, code: Self.requestCancelled, message: message)) }
  }

  /// Starts a run in a worker process.
  private func launch(_ request: ScenarioRunRequest, id: FrameValue?, uri: String, params: FrameValue) {
    guard case .workers(let command) = runs else { return }
    let process: SpawnedProcess
    do {
      process = try SpawnedProcess(
        command[0], arguments: Array(command.dropFirst()), input: .pipe, output: .pipe, error: .inherited,
        newProcessGroup: true, worker: true)
    } catch {
      if let id { send(Self.errorResponse(id: id, code: -32603, message: "the run did not start: \(error)")) }
      return
    }
    process.write(Array(request.frame.jsonText.utf8))
    process.closeInput()
    let run = ActiveRun(requestID: id ?? .null, uri: uri, version: versions[uri, default: 0], process: process)
    if request.kind == .explore { run.title = "workbench explore" }
    if let token = params["workDoneToken"], token.stringValue != nil || token.integerValue != nil {
      run.token = token
      run.tokenReady = true
    } else if clientCreatesProgress {
      runsStarted = OutsideNumbers.saturatingSuccessor(of: runsStarted)
      let token = FrameValue.string("workbench-run-\(runsStarted)")
      let requestID = FrameValue.string("workbench-progress-\(runsStarted)")
      run.token = token
      run.tokenRequestID = requestID
      send([
        "jsonrpc": "2.0", "id": requestID, "method": "window/workDoneProgress/create",
        "params": ["token": token],
      ])
    }
    active.append(run)
    reportProgress(of: run)
  }

  /// The client's answer to a request of the server's (a progress token it created).
  func clientAnswered(_ message: FrameValue) {
    guard let id = message["id"], let run = active.first(where: { $0.tokenRequestID == id }) else { return }
    run.tokenRequestID = nil
    if message["error"] != nil {
      run.token = nil
    } else {
      run.tokenReady = true
      reportProgress(of: run)
    }
  }

  /// `$/cancelRequest` (by the request's id) or `window/workDoneProgress/cancel` (by its token).
  func cancelRun(requestID: FrameValue?, token: FrameValue?) {
    for run in active where (requestID != nil && run.requestID == requestID) || (token != nil && run.token == token) {
      cancel(run, message: "the run was cancelled")
    }
    for waiting in queuedRuns where requestID != nil && waiting.id == requestID {
      cancelQueued(waiting, message: "the run was cancelled")
    }
  }

  /// Ends a run's worker and everything it started, and answers its request as cancelled.
  func cancel(_ run: ActiveRun, message: String) {
    // SIGTERM first: the worker ends its module processes (one stuck in a request would never
    // see its input close), then itself; one that does not end in a second is killed.
    run.process.signal(SIGTERM)
    if run.process.wait(upTo: 1000) == nil {
      run.process.signal(SIGKILL)
      run.process.wait()
    }
    active.removeAll { $0 === run }
    endProgress(of: run, message: message)
    send(Self.errorResponse(id: run.requestID, code: Self.requestCancelled, message: message))
    startQueuedRuns()
  }

  /// Ends every run (the server is shutting down or leaving).
  func cancelAllRuns() {
    for waiting in queuedRuns { cancelQueued(waiting, message: "the server is shutting down") }
    for run in active { cancel(run, message: "the server is shutting down") }
  }

  /// The process ids of the workers running now.
  public var runWorkerIDs: [Int32] { active.map(\.process.pid) }

  /// The descriptors of the runs' outputs, to wait on beside standard input.
  var runOutputs: [Int32] { active.compactMap(\.process.output) }

  /// Reads what the worker of `descriptor` wrote; answers its request once it has ended.
  func serviceRun(readable descriptor: Int32) {
    guard let run = active.first(where: { $0.process.output == descriptor }) else { return }
    // Read straight into the run's buffer (a signal's interruption: read again when woken).
    let count = run.pending.read(from: descriptor)
    if count < 0, errno == EINTR || errno == EAGAIN { return }
    guard count > 0 else {
      run.process.closeOutput()
      let termination = run.process.wait()
      active.removeAll { $0 === run }
      if let outcome = run.outcome {
        finish(uri: run.uri, version: run.version, outcome: outcome)
        endProgress(of: run, message: outcome.message)
        respond(run.requestID, .string(outcome.message))
      } else {
        let message = "the run ended without a result: \(termination)"
        endProgress(of: run, message: message)
        send(Self.errorResponse(id: run.requestID, code: -32603, message: message))
      }
      startQueuedRuns()
      return
    }
    while let line = run.pending.nextLine() {
      guard let said = try? FrameValue.parse(json: Array(line)) else { continue }
      if let outcome = said["outcome"].flatMap(ScenarioRunOutcome.init(frame:)) { run.outcome = outcome }
      if let progress = said["progress"].flatMap(ScenarioRunProgress.init(frame:)) {
        run.progress = progress
        reportProgress(of: run)
      }
    }
  }

  /// Waits until every run has answered, at most `timeout` milliseconds (for tests, which drive
  /// the server message by message); `false` when some are still going.
  public func waitForRuns(timeout: Int32) -> Bool {
    let deadline = monotonicSeconds() + Double(timeout) / 1000
    while !active.isEmpty || !queuedRuns.isEmpty {
      let left = Int32(max(0, (deadline - monotonicSeconds()) * 1000))
      guard left > 0 else { return false }
      let outputs = runOutputs
      let wanted = outputs.map { (descriptor: $0, wanted: Readiness.readable) }
      guard case .ready(let happened) = Descriptors.wait(forAny: wanted, milliseconds: Int(left)) else { continue }
      for (output, what) in zip(outputs, happened) where what.happened { serviceRun(readable: output) }
    }
    return true
  }

  /// Shows a finished run's diagnostics, when the text is still the text it ran.
  func finish(uri: String, version: Int, outcome: ScenarioRunOutcome) {
    guard documents[uri] != nil, versions[uri, default: 0] == version else { return }
    runFailures[uri] = outcome.diagnostics.isEmpty ? nil : outcome.diagnostics
    publishDiagnostics(uri)
  }

  /// `$/progress` for a run: begun at once, reported when the percentage moves (at most once a
  /// quarter second, unless it is done).
  private func reportProgress(of run: ActiveRun) {
    guard let token = run.token, run.tokenReady else { return }
    let progress = run.progress
    let percentage = progress?.percentage ?? 0
    let message = progress?.message ?? "starting"
    if !run.begun {
      run.begun = true
      run.lastReport = (percentage, monotonicSeconds())
      send([
        "jsonrpc": "2.0", "method": "$/progress",
        "params": [
          "token": token,
          "value": [
            "kind": "begin", "title": .string(progress?.title ?? run.title),
            "cancellable": true, "message": .string(message), "percentage": .integer(percentage),
          ],
        ],
      ])
      return
    }
    let now = monotonicSeconds()
    guard percentage != run.lastReport.percentage, now - run.lastReport.at >= 0.25 || percentage == 100 else { return }
    run.lastReport = (percentage, now)
    send([
      "jsonrpc": "2.0", "method": "$/progress",
      "params": [
        "token": token,
        "value": ["kind": "report", "message": .string(message), "percentage": .integer(percentage)],
      ],
    ])
  }

  private func endProgress(of run: ActiveRun, message: String) {
    guard let token = run.token, run.tokenReady, run.begun else { return }
    send([
      "jsonrpc": "2.0", "method": "$/progress",
      "params": ["token": token, "value": ["kind": "end", "message": .string(message)]],
    ])
  }

  /// `workbench lsp --run-worker`: reads one run's request on standard input, carries it out,
  /// and writes its progress and outcome as JSON lines on standard output.
  public static func serveRun(modules: [any FeatureModule]) -> ExitCode {
    // Cancelled (the editor ends the worker), the module processes end too (`ChildGroups`, set
    // up as the program starts).
    var input: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = read(STDIN_FILENO, &chunk, chunk.count)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      input += chunk[..<count]
    }
    func say(_ value: FrameValue) { _ = FileSystem.writeAll(Array((value.jsonText + "\n").utf8), to: STDOUT_FILENO) }
    guard let frame = try? FrameValue.parse(json: input), let request = ScenarioRunRequest(frame: frame) else {
      say(["outcome": ScenarioRunOutcome(message: "the run's request was not understood").frame])
      return .failure
    }
    let registry: ModuleRegistry
    do {
      registry = try ModuleRegistry(modules: modules)
    } catch {
      say(["outcome": ScenarioRunOutcome(message: "the modules failed to register: \(error.message)").frame])
      return .failure
    }
    let outcome = request.perform(registry: registry, loader: ScenarioLoader(registry: registry)) { progress in
      say(["progress": progress.frame])
    }
    say(["outcome": outcome.frame])
    return .success
  }
}
