import WorkbenchCore
import WorkbenchSession
import WorkbenchStore

/// What the shell does with each line, in both interactive and batch sessions: hands it to
/// the session, shows what comes back, and carries out what only a front end can (asking about
/// unsaved work, recording).
@MainActor
final class ShellController {
  let session: WorkbenchSession
  var host: Host { session.host }
  let options: ShellOptions
  let output: OutputWriter
  private var recorder: SessionRecorder?
  /// The line running, for a recording that starts in the middle of it.
  private var currentLine = ""

  init(session: WorkbenchSession, options: ShellOptions, output: OutputWriter) {
    self.session = session
    self.options = options
    self.output = output
  }

  enum Outcome: Equatable {
    case ran
    case failed(usage: Bool)
    case quit
    /// Windows hold unsaved work: the interactive shell asks, then calls `answer`.
    case ask(UnsavedWorkQuestion)
  }

  /// Whether unsaved work may be asked about (the interactive shell); otherwise it is an error
  /// that says which words to add.
  var canAsk = false

  /// Whether the session (windows, view state, focus) is saved after every line, so a crash
  /// of the shell loses at most the line it was running. The interactive shell does this;
  /// batch runs start without windows and leave the stored session alone.
  var savesSessionAfterEachLine = false

  /// Runs one line. Errors are reported with `place` (`<stdin>:3`) in front, when given.
  func execute(_ line: String, place: String?) -> Outcome {
    currentLine = line
    recorder?.lineWillRun(line, session: session)
    defer { recorder?.lineFinished() }
    var failedCommand: CommandError?
    let outcome = report(place: place) { () throws(CommandError) -> Outcome in
      var outcome = Outcome.ran
      // With --keep-going each command of the line is reported and the next one runs.
      let keepGoing: ((CommandError) -> Void)? =
        options.keepGoing
        ? { error in
          self.recorder?.commandFailed(error, session: self.session)
          self.writeFailure(error, place: place)
          failedCommand = error
        } : nil
      do throws(CommandError) {
        try session.run(line, continuingAfter: keepGoing) { event throws(CommandError) in
          if let result = try show(event) { outcome = result }
        }
      } catch {
        recorder?.commandFailed(error, session: session)
        throw error
      }
      if let failedCommand, outcome == .ran { return .failed(usage: failedCommand.isUsageError) }
      return outcome
    }
    if savesSessionAfterEachLine, outcome != .quit { saveSessionIfChanged() }
    return outcome
  }

  /// Carries out the answer to a question about unsaved work.
  func answer(_ question: UnsavedWorkQuestion, with choice: LeaveChoice) -> Outcome {
    recorder?.answered(choice)
    let outcome = report(place: nil) { () throws(CommandError) -> Outcome in
      guard let event = try session.leave(question, choice: choice) else { return .ran }
      return try show(event) ?? .ran
    }
    if savesSessionAfterEachLine, outcome != .quit { saveSessionIfChanged() }
    return outcome
  }

  /// Shows an event; returns the outcome it decides, if any.
  private func show(_ event: SessionEvent) throws(CommandError) -> Outcome? {
    switch event {
    case .recordStart, .recordStop: break
    case .unsavedWork: if canAsk { recorder?.commandRan(session: session) }
    default: recorder?.commandRan(session: session)
    }
    switch event {
    case .output(let result):
      if !options.quiet { output.write(result, host: host) }
    case .report(let result):
      output.write(result, host: host)
    case .relaunched(let warnings):
      for warning in warnings { output.writeError(warning.message, place: nil) }
      if !options.quiet {
        output.write(host.focusedWindowID.map(CommandOutput.frame) ?? .text("no windows are open"), host: host)
      }
    case .quit:
      finishRecording(because: "the session ends")
      return .quit
    case .unsavedWork(let question):
      guard canAsk else { throw CommandError(question.message) }
      return .ask(question)
    case .recordStart(let path):
      guard recorder == nil else { throw CommandError("already recording; `record stop` first") }
      recorder = try SessionRecorder(path: path, session: session, line: currentLine)
      output.write(.text("recording to \(path); `record stop` writes it"), host: host)
    case .recordStop:
      guard let active = recorder else { throw CommandError("not recording; `record start FILE` first") }
      recorder = nil
      let count = try active.finish(session: session)
      output.write(.text("wrote \(active.path) (\(count) steps)"), host: host)
    }
    return nil
  }

  /// Writes a recording still running when the session ends, so nothing recorded is lost.
  func finishRecording(because reason: String) {
    guard let active = recorder else { return }
    recorder = nil
    do {
      let count = try active.finish(session: session)
      output.write(.text("recording stopped as \(reason): wrote \(active.path) (\(count) steps)"), host: host)
    } catch {
      output.writeError("recording stopped as \(reason), and \(error.message)", place: nil)
    }
  }

  /// Runs `body`, reporting a failure with its place and column.
  private func report(place: String?, _ body: () throws(CommandError) -> Outcome) -> Outcome {
    do {
      return try body()
    } catch {
      writeFailure(error, place: place)
      return .failed(usage: error.isUsageError)
    }
  }

  /// Writes a failed command's message with its place and column.
  private func writeFailure(_ error: CommandError, place: String?) {
    let column = error.column.map { ":\($0)" } ?? ""
    if let place {
      output.writeError(error.message, place: place + column, column: error.column, usage: error.isUsageError)
    } else {
      output.writeError(
        (error.column.map { "column \($0): " } ?? "") + error.message, place: nil, column: error.column,
        usage: error.isUsageError)
    }
  }

  /// Saves the session when it changed; reports a failure once per line and carries on (the
  /// next line tries again).
  private func saveSessionIfChanged() {
    do {
      try session.saveSessionIfChanged()
    } catch let error as StoreError {
      output.writeError("the session was not saved: \(error.message)", place: nil)
    } catch {
      output.writeError("the session was not saved: \(error)", place: nil)
    }
  }

  /// Saves the session's windows to the workspace; reports and returns false if it cannot.
  func saveSession() -> Bool {
    do {
      try session.saveSession()
      return true
    } catch let error as StoreError {
      output.writeError("the session was not saved: \(error.message)", place: nil)
    } catch {
      output.writeError("the session was not saved: \(error)", place: nil)
    }
    return false
  }
}
