import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI

/// Runs commands without a terminal: from a pipe or from `-c`. No prompt and no terminal
/// control; the first error stops the run unless `--keep-going`.
@MainActor
struct BatchSession {
  let controller: ShellController
  var options: ShellOptions { controller.options }
  var output: OutputWriter { controller.output }

  /// Runs the `-c` commands, then returns the exit code.
  func run(commands: String) -> ExitCode {
    var lines = commands.split(separator: "\n", omittingEmptySubsequences: false).makeIterator()
    return runLines(place: "-c") { lines.next().map { .text(String($0)) } }
  }

  /// Reads standard input to its end, then returns the exit code.
  func runStandardInput() -> ExitCode {
    var input = StandardInputLines()
    return runLines(place: "<stdin>") {
      let line = input.next()
      controller.host.clock.nextLineWasWaiting = input.lastWasWaiting
      return line
    }
  }

  /// Runs lines until they end, `quit`, or the first error (unless `--keep-going`).
  private func runLines(place: String, next: () -> StandardInputLines.Line?) -> ExitCode {
    var lineNumber = 0
    var failed = false
    while let line = next() {
      lineNumber += 1
      let succeeded: Bool
      switch line {
      case .invalidUTF8:
        output.writeError(
          "the line is not valid UTF-8; convert the input to UTF-8 (for example with iconv)",
          place: "\(place):\(lineNumber)")
        succeeded = false
      case .text(let text):
        if options.echo, !text.allSatisfy(\.isWhitespace) {
          output.emit(ShellPrompt.plain(for: controller.host) + TerminalText.visible(text))
        }
        switch controller.execute(text, place: "\(place):\(lineNumber)") {
        case .ran, .ask: succeeded = true
        case .failed: succeeded = false
        case .quit: return failed ? .failure : .success
        }
      }
      if !succeeded {
        failed = true
        if !options.keepGoing { return .failure }
      }
    }
    let lost = reportLostWork()
    return failed || lost ? .failure : .success
  }

  /// Scripts do not keep their session: unsaved work left at the end is lost. That is a
  /// failure (exit 1), reported like any error, so a script never loses work with status 0.
  ///
  /// - Returns: whether any work was lost.
  private func reportLostWork() -> Bool {
    let host = controller.host
    var lost = false
    for window in host.windows {
      guard let summary = host.unsavedSummary(of: window.id) else { continue }
      lost = true
      output.writeError(
        "window \(window.label) ended with \(summary), which is lost: end scripts with `quit save` or "
          + "`quit discard` to say what to do", place: nil)
    }
    return lost
  }
}
