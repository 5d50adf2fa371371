import WorkbenchCore

/// Runs commands without a terminal: from a pipe or from `-c`. No prompt and no terminal
/// control; the first error stops the run unless `--keep-going`.
@MainActor
struct BatchSession {
  let controller: ShellController
  var options: ShellOptions { controller.options }
  var output: OutputWriter { controller.output }

  /// Runs the `-c` commands, then returns the exit code.
  func run(commands: String) -> Int32 {
    var failed = false
    let lines = commands.split(separator: "\n", omittingEmptySubsequences: false)
    for (number, line) in lines.enumerated() {
      switch execute(String(line), place: "-c", lineNumber: number + 1) {
      case .ok: continue
      case .quit: return failed ? ExitCode.failure : ExitCode.success
      case .failed:
        failed = true
        if !options.keepGoing { return ExitCode.failure }
      }
    }
    return failed ? ExitCode.failure : ExitCode.success
  }

  /// Reads standard input to its end, then returns the exit code.
  func runStandardInput() -> Int32 {
    var input = StandardInputLines()
    var lineNumber = 0
    var failed = false
    while let line = input.next() {
      lineNumber += 1
      let outcome: Outcome
      switch line {
      case .invalidUTF8:
        output.writeError(
          "the line is not valid UTF-8; convert the input to UTF-8 (for example with iconv)",
          place: "<stdin>:\(lineNumber)")
        outcome = .failed
      case .text(let text):
        outcome = execute(text, place: "<stdin>", lineNumber: lineNumber)
      }
      switch outcome {
      case .ok: continue
      case .quit: return failed ? ExitCode.failure : ExitCode.success
      case .failed:
        failed = true
        if !options.keepGoing { return ExitCode.failure }
      }
    }
    return failed ? ExitCode.failure : ExitCode.success
  }

  enum Outcome { case ok, failed, quit }

  private func execute(_ line: String, place: String, lineNumber: Int) -> Outcome {
    if options.echo, !line.allSatisfy(\.isWhitespace) {
      output.emit(ShellPrompt.plain(for: controller.host) + line)
    }
    switch controller.execute(line, place: "\(place):\(lineNumber)") {
    case .ran: return .ok
    case .failed: return .failed
    case .quit: return .quit
    }
  }
}
