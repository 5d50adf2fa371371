import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Prints a run the way test runners do: one line per scenario as it finishes, then each
/// failure with its step, its `file:line:column` and what differed, and last
/// `N passed, N failed`.
public final class ConsoleReporter {
  let color: Bool
  /// Print only failures and the summary (`run -q`).
  let quiet: Bool

  /// A reporter; colour only when asked (the caller checks the terminal and NO_COLOR).
  public init(color: Bool, quiet: Bool = false) {
    self.color = color
    self.quiet = quiet
  }

  /// `text` in a colour. What is painted and what is printed plain can quote scenario files,
  /// documents and modules, so its control characters are shown, not sent (`TerminalText`).
  private func paint(_ text: String, _ code: String) -> String {
    color ? "\u{1B}[\(code)m\(TerminalText.visible(text))\u{1B}[0m" : TerminalText.visible(text)
  }

  private func shown(_ text: String) -> String { TerminalText.visible(text) }

  func scenarioFinished(_ result: ScenarioResult) {
    if quiet && result.passed { return }
    if let reason = result.skipped {
      let place = paint("\(result.file):\(result.location.line)", "2")
      StandardStreams.write(
        "\(paint("↷", "33")) \(shown(result.name))  \(place) (skipped: \(shown(reason)))\n", to: STDOUT_FILENO)
      return
    }
    let mark = result.passed ? paint("✔", "32") : paint("✘", "31")
    let time = formatDuration(result.duration)
    var text = "\(mark) \(shown(result.name))  \(paint("\(result.file):\(result.location.line)", "2")) (\(time))\n"
    // `-v`: each step run, the failing one marked.
    for (index, step) in (result.stepLog ?? []).enumerated() {
      let failed = !result.passed && index == (result.stepLog?.count ?? 0) - 1
      text += "    \(failed ? paint("✘", "31") : paint("✔", "32")) \(shown(step))\n"
    }
    StandardStreams.write(text, to: STDOUT_FILENO)
  }

  func fileFailed(_ error: ScenarioFileError) {
    // Every problem the loader found in the file, each at its place, as a compiler lists them.
    for problem in error.all {
      StandardStreams.write("\(paint("error:", "1;31")) \(shown("\(problem)"))\n", to: STDERR_FILENO)
    }
  }

  /// The failures in detail, orphaned snapshots, and the closing line.
  /// Why a run that selected nothing selected nothing, for its summary.
  public var nothingRunReason: String?

  public func summary(_ report: SuiteReport) {
    var lines: [String] = []
    let failures = report.results.filter { !$0.passed }
    if !failures.isEmpty {
      lines.append("")
      lines.append(paint("Failures:", "1"))
      for (number, result) in failures.enumerated() {
        guard let failure = result.failure else { continue }
        lines.append("")
        lines.append("\(number + 1)) \(shown(result.name))")
        lines.append("   \(shown("\(failure.location)")): \(paint(failure.step, "1"))")
        for origin in failure.origin.reversed() { lines.append("   (\(shown("\(origin)")))") }
        lines.append("   " + paint(failure.message, "31"))
        for detail in failure.details { lines.append("     " + colorDiff(detail)) }
        // A row of a table is opened by its own line, run as far as the run took it.
        let open =
          result.isRow == true
          ? ScenarioRunner.shellCommand(file: result.file, line: result.location.line)
          : ScenarioRunner.shellCommand(file: result.file, failure: failure)
        lines.append("   open the session there: " + open)
      }
    }
    for orphan in report.orphanedSnapshots {
      lines.append("warning: orphaned snapshot \(orphan): no scenario uses it; delete it")
    }
    // Errors of no file (at `-`) are the run's own: a worker process that died between files.
    let unloaded = report.fileErrors.filter { $0.location.file != "-" }
    let files = unloaded.count
    let others = report.fileErrors.count - files
    if files > 0 {
      // Where, by name: captured with `2>&1` the errors (on stderr) may come out after this.
      let named = unloaded.prefix(5).map { shown("\($0.location)") }.joined(separator: ", ")
      lines.append("")
      lines.append(
        "\(files) file\(files == 1 ? "" : "s") could not be loaded (\(files == 1 ? "its" : "their") errors are on stderr): "
          + named + (files > 5 ? ", and \(files - 5) more" : ""))
    }
    if others > 0 {
      if files == 0 { lines.append("") }
      lines.append(
        "\(others) worker process\(others == 1 ? "" : "es") ended abnormally outside a scenario (see the errors above)")
    }
    if let notRun = report.filesNotRunAfterFailure {
      lines.append("")
      lines.append(
        "stopped at the first failure (-x): "
          + (notRun == 0 ? "every file was reached" : "\(notRun) file\(notRun == 1 ? "" : "s") not run"))
    }
    let written = report.results.flatMap(\.snapshotsWritten)
    if !written.isEmpty { lines.append("wrote \(written.count) snapshot\(written.count == 1 ? "" : "s")") }
    lines.append("")
    lines.append(
      "\(report.passed) passed, \(report.failed) failed" + (report.skipped > 0 ? ", \(report.skipped) skipped" : ""))
    if report.results.isEmpty && report.fileErrors.isEmpty {
      lines.append("no scenario was run: \(nothingRunReason ?? "the files hold none") (exit code 5)")
    }
    StandardStreams.write(lines.joined(separator: "\n") + "\n", to: STDOUT_FILENO)
  }

  private func colorDiff(_ line: String) -> String {
    if line.hasPrefix("+ ") || line.hasPrefix("    actual:") { return paint(line, "32") }
    if line.hasPrefix("- ") || line.hasPrefix("    expected:") { return paint(line, "31") }
    return shown(line)
  }
}

func formatDuration(_ seconds: Double) -> String {
  if seconds < 0.001 { return "\(Int((seconds * 1_000_000).rounded())) µs" }
  if seconds < 1 { return "\((seconds * 10_000).rounded() / 10) ms" }
  return "\((seconds * 100).rounded() / 100) s"
}
