import FoundationEssentials
import WorkbenchCore

/// What the shell does with each line, in both interactive and batch sessions: runs it on the
/// host, shows what it produced, and carries out the requests only a front end can (relaunch,
/// recording).
@MainActor
final class ShellController {
  private(set) var host: Host
  let modules: [any FeatureModule]
  let options: ShellOptions
  let output: OutputWriter
  private var recorder: SessionRecorder?

  init(host: Host, modules: [any FeatureModule], options: ShellOptions, output: OutputWriter) {
    self.host = host
    self.modules = modules
    self.options = options
    self.output = output
  }

  enum Outcome: Equatable {
    case ran
    case failed(usage: Bool)
    case quit
  }

  /// Runs one line. Errors are reported with `place` (`<stdin>:3`) in front, when given.
  func execute(_ line: String, place: String?) -> Outcome {
    recorder?.prepare(line, host: host)
    do throws(CommandError) {
      for result in try host.run(line: line) {
        switch result {
        case .quit:
          recorder?.note(line, host: host)
          return .quit
        case .relaunch:
          try relaunch()
          output.write(host.focusedWindowID.map(CommandOutput.frame) ?? .text("no windows are open"), host: host)
        case .recordStart(let path):
          guard recorder == nil else { throw CommandError("already recording; `record stop` first") }
          recorder = try SessionRecorder(path: path, host: host)
          output.write(.text("recording to \(path); `record stop` writes it"), host: host)
          return .ran
        case .recordStop:
          guard let active = recorder else { throw CommandError("not recording; `record start FILE` first") }
          recorder = nil
          let count = try active.finish(host: host)
          output.write(.text("wrote \(active.path) (\(count) steps)"), host: host)
          return .ran
        default:
          output.write(result, host: host)
        }
      }
      recorder?.note(line, host: host)
      return .ran
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

  /// Saves the session, tears the host down and builds a new one from the saved record, through
  /// JSON as a store would.
  private func relaunch() throws(CommandError) {
    let record = try host.sessionRecord()
    let restored: SessionRecord
    do {
      restored = try JSONDecoder().decode(SessionRecord.self, from: try JSONEncoder().encode(record))
    } catch {
      throw CommandError("the session could not be saved: \(error)")
    }
    do {
      host = try Host(
        modules: modules, environment: ScreenEnvironment(viewportRows: options.viewportRows), restoring: restored)
    } catch {
      throw CommandError("the session could not be restored: \(error.message)")
    }
    for warning in host.restorationWarnings { output.writeError(warning.message, place: nil) }
  }
}
