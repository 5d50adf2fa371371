import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioModel

/// A command that ran, kept to run again (by the journal's replay) or to write (by a recording):
/// the bound command itself, in the window it ran in, written as text only when a step is made.
struct KeptCommand {
  /// The window it runs in again, or `nil` for a host command that ran in the focused window
  /// (the focused window may be another on the replay).
  var window: String?
  /// The command as it ran, to find its window by `window`; `nil` for one whose arguments did
  /// not bind (it failed, and is kept as its words).
  var command: BoundCommand?
  /// The text of a command with no value (`command == nil`): its words as typed, or a step the
  /// recorder writes itself (`clock advance 250ms`).
  var words: String
  /// What it failed with, when it failed.
  var failure: String?

  /// `ran`, kept: a host command keeps its window only when one was named (`w1: undo view`).
  /// (The command keeps how it named its window; a replay runs it in `window`, `Step.boundCommands(in:)`.)
  init(_ ran: RanCommand) {
    window = ran.isHostCommand && !ran.windowNamed ? nil : ran.window?.label
    command = ran.command
    words = ran.command == nil ? ran.text : ""
    failure = ran.failure?.message
  }

  /// A command with no value, run in no window: `text` as it will be written.
  init(text: String) {
    window = nil
    command = nil
    words = text
    failure = nil
  }

  /// The command as text, the one way a bound command is written.
  var line: String { command?.text ?? words }

  /// The command with a question's answer given (`close main save`), as a script must say it;
  /// `nil` when no argument takes it.
  func answering(_ choice: LeaveChoice) -> KeptCommand? {
    var answered = self
    if let command {
      guard let given = command.adding(choice.rawValue) else { return nil }
      answered.command = given
    } else {
      answered.words += " " + choice.rawValue
    }
    return answered
  }

  /// The command as a step of a scenario, at `here`: it runs bound when it has a value, and as
  /// its text when it has none.
  func step(at here: SourceLocation) -> Step {
    let line = self.line
    let resolution = command.map {
      [StepCommand(tokens: [], lineStart: here, resolution: .init($0, windowChange: nil))]
    }
    return Step(
      action: window.map { .command(window: $0, line: line) } ?? .host(line: line), location: here,
      failure: failure.map(FailureMatcher.substring), commands: resolution ?? [])
  }
}
