import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSession
import WorkbenchSystem

/// Where a scenario's steps are in its file, and the shell command that opens one there.
extension ScenarioRunner {
  /// How many of `scenario`'s steps run to reach `line` of `file`: every step up to the last one
  /// written at or before it (a step from an included file counts at its `include:` line).
  public static func stepCount(reaching line: Int, of file: String, in scenario: Scenario) -> Int {
    var count = 0
    for (index, step) in scenario.steps.enumerated() where position(of: step, in: file).map({ $0 <= line }) ?? false {
      count = index + 1
    }
    return count
  }

  /// The line of `file` a step is at: its own, or that of the include or repeat it came from.
  package nonisolated static func position(of step: Step, in file: String) -> Int? {
    position(of: step.location, origin: step.origin, in: file)
  }

  /// The line of `file` a step written at `location` is at, through the includes and repeats of
  /// `origin` when it was written in another file.
  package nonisolated static func position(of location: SourceLocation, origin: [String], in file: String) -> Int? {
    if location.file == file { return location.line }
    for origin in origin {
      guard let place = origin.split(separator: " ").last else { continue }
      let parts = place.split(separator: ":", omittingEmptySubsequences: false)
      guard parts.count >= 3, let line = Int(parts[parts.count - 2]),
        parts.dropLast(2).joined(separator: ":") == file
      else { continue }
      return line
    }
    return nil
  }

  /// The command that opens the shell where a scenario of `file` failed (`workbench run
  /// FILE:LINE --shell`), as a failure message and the report give it.
  nonisolated public static func shellCommand(file: String, failure: ScenarioFailure) -> String {
    let line = position(of: failure.location, origin: failure.origin, in: file) ?? failure.location.line
    return shellCommand(file: file, line: line)
  }

  /// `workbench run FILE:LINE --shell`, the path quoted for a POSIX shell when it needs it.
  nonisolated public static func shellCommand(file: String, line: Int) -> String {
    let plain = file.allSatisfy { $0.isLetter || $0.isNumber || "/._-+@%".contains($0) }
    let path =
      plain ? file : "'" + file.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    return "workbench run \(path):\(line) --shell"
  }

  /// Fails the step in which something went wrong outside its commands (a module that stopped
  /// while an expectation looked at its windows, or between steps).
}
