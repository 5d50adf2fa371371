/// How the program ends, as its exit status: one name per meaning, the same for every
/// subcommand and front end (docs/shell.md and docs/scenarios.md list them).
public enum ExitCode: Int32, Error, Sendable, Equatable {
  /// Everything worked (or the session was left with Ctrl-D or `quit`).
  case success = 0
  /// A command, a scenario or a check failed; or two runs compared differ.
  case failure = 1
  /// The program was invoked wrongly (an unknown option, a missing value), a file could not be
  /// read or loaded, or a module named on the command line did not start.
  case usage = 2
  /// Nothing ran: a filter matched no scenario, or the files hold none (as pytest's 5).
  case nothingRan = 5

  /// The status a process ends with.
  public var code: Int32 { rawValue }
}
