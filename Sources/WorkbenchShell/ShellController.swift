import WorkbenchCore
import WorkbenchStore

/// What the shell does with each line, in both interactive and batch sessions: runs it on the
/// host, shows what it produced, and carries out the requests only a front end can (relaunch,
/// recording).
@MainActor
final class ShellController {
  private var workspace: Workspace
  var host: Host { workspace.host }
  let modules: [any FeatureModule]
  let options: ShellOptions
  let output: OutputWriter
  private var recorder: SessionRecorder?

  init(workspace: Workspace, modules: [any FeatureModule], options: ShellOptions, output: OutputWriter) {
    self.workspace = workspace
    self.modules = modules
    self.options = options
    self.output = output
  }

  enum Outcome: Equatable {
    case ran
    case failed(usage: Bool)
    case quit
    /// Windows hold unsaved work: the interactive shell asks, then runs the follow-up.
    case ask(question: String, windows: [WindowID], quitting: Bool)
  }

  /// Whether unsaved work may be asked about (the interactive shell); otherwise it is an error
  /// that says which words to add.
  var canAsk = false

  /// Whether the session (windows, view state, focus) is saved after every line, so a crash
  /// of the shell loses at most the line it was running. The interactive shell does this;
  /// batch runs start without windows and leave the stored session alone.
  var savesSessionAfterEachLine = false
  /// The session as last saved, so a line that changed no window writes nothing.
  private var savedSession: SessionRecord?

  /// The line that carries out a choice about unsaved work.
  func followUp(_ choice: LeaveChoice, windows: [WindowID], quitting: Bool) -> String? {
    guard choice != .cancel else { return nil }
    if quitting { return "quit \(choice.rawValue)" }
    guard let id = windows.first, choice != .keep else { return nil }
    return "close \(id.number) \(choice.rawValue)"
  }

  /// Runs one line. Errors are reported with `place` (`<stdin>:3`) in front, when given.
  func execute(_ line: String, place: String?) -> Outcome {
    let outcome = run(line, place: place)
    if savesSessionAfterEachLine, outcome != .quit { saveSessionIfChanged() }
    return outcome
  }

  private func run(_ line: String, place: String?) -> Outcome {
    recorder?.prepare(line, host: host)
    var quit = false
    var question: Outcome? = nil
    do throws(CommandError) {
      try host.run(line: line) { result throws(CommandError) in
        switch result {
        case .quit:
          quit = true
        case .unsavedWork(let windows, let quitting):
          let summaries = windows.compactMap { id in
            host.window(id).map { "window \($0.label) has \(host.unsavedSummary(of: id) ?? "unsaved work")" }
          }
          let what = summaries.joined(separator: "; ")
          guard canAsk else { throw CommandError(host.unsavedWorkMessage(windows: windows, quitting: quitting)) }
          question = .ask(question: what, windows: windows, quitting: quitting)
        case .relaunch:
          try relaunch()
          output.write(host.focusedWindowID.map(CommandOutput.frame) ?? .text("no windows are open"), host: host)
        case .recordStart(let path):
          guard recorder == nil else { throw CommandError("already recording; `record stop` first") }
          recorder = try SessionRecorder(path: path, host: host)
          output.write(.text("recording to \(path); `record stop` writes it"), host: host)
        case .recordStop:
          guard let active = recorder else { throw CommandError("not recording; `record start FILE` first") }
          recorder = nil
          let count = try active.finish(host: host)
          output.write(.text("wrote \(active.path) (\(count) steps)"), host: host)
        default:
          output.write(result, host: host)
        }
      }
      recorder?.commit()
      if let question { return question }
      return quit ? .quit : .ran
    } catch {
      let column = error.column.map { ":\($0)" } ?? ""
      if let place {
        output.writeError(error.message, place: place + column)
      } else {
        output.writeError((error.column.map { "column \($0): " } ?? "") + error.message, place: nil)
      }
      return .failed(usage: error.isUsageError)
    }
  }

  /// Saves the session, tears the host down and builds a new one from the workspace: the path
  /// quitting and starting again takes.
  private func relaunch() throws(CommandError) {
    let store = workspace.store
    do {
      try store.saveSession(try host.sessionRecord(includingDocuments: false))
      workspace = try Workspace.restore(
        from: store, modules: modules, environment: ScreenEnvironment(viewportRows: options.viewportRows),
        restoringWindows: true)
    } catch let error as StoreError {
      throw CommandError(error.message)
    } catch let error as CommandError {
      throw error
    } catch {
      throw CommandError("the session could not be restored: \(error)")
    }
    for warning in host.restorationWarnings { output.writeError(warning.message, place: nil) }
  }

  /// Saves the session when a window, its view state or the focus changed since the last save;
  /// reports a failure once per line and carries on (the next line tries again).
  private func saveSessionIfChanged() {
    do {
      let record = try host.sessionRecord(includingDocuments: false)
      guard record != savedSession else { return }
      try workspace.store.saveSession(record)
      savedSession = record
    } catch let error as StoreError {
      output.writeError("the session was not saved: \(error.message)", place: nil)
    } catch {
      output.writeError("the session was not saved: \(error)", place: nil)
    }
  }

  /// Saves the session's windows to the workspace; reports and returns false if it cannot.
  func saveSession() -> Bool {
    do {
      let record = try host.sessionRecord(includingDocuments: false)
      try workspace.store.saveSession(record)
      savedSession = record
      return true
    } catch let error as StoreError {
      output.writeError("the session was not saved: \(error.message)", place: nil)
    } catch {
      output.writeError("the session was not saved: \(error)", place: nil)
    }
    return false
  }
}
