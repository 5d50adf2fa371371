import WorkbenchModuleAPI

/// What the host reports about each command it ran, success or failure, as it runs: the
/// session's recorder and its journal listen to these and keep the command as a value, so they
/// never read a line or resolve a command again. A command that cannot be resolved (an unknown
/// command, a window that is not open) reports nothing: it did not run.
public struct RanCommand: Sendable {
  /// What the command is and where it ran: its spec, module, window and how it named it.
  public let resolved: ResolvedCommand
  /// The command as it ran, bound; `nil` when its arguments did not bind.
  public let command: BoundCommand?
  /// What it asked of the session, if anything.
  package let request: SessionRequest?
  /// Why it failed, when it did (its arguments did not bind, or its handler refused).
  public let failure: CommandError?
  /// The values it was given, for a command given as values (a call, a command bound elsewhere)
  /// whose values did not bind where it ran.
  public let values: CommandCall?

  /// A command that ran as `resolved`, bound as `command` (or given `values` that did not bind).
  package init(
    resolved: ResolvedCommand, command: BoundCommand? = nil, values: CommandCall? = nil,
    request: SessionRequest? = nil, failure: CommandError?
  ) {
    self.resolved = resolved
    self.command = command
    self.values = values
    self.request = request
    self.failure = failure
  }

  /// The window it ran in, as it was named when it ran.
  public var window: DirectoryWindow? { resolved.window }
  /// The module whose command it is; `nil` for a host command.
  public var module: String? { resolved.module }
  /// The command (or subcommand) it ran.
  public var spec: CommandSpec { resolved.spec }
  /// Whether its window was named (a scenario's `w1: undo`, `@w1 undo`) rather than the focused
  /// one: a host command that ran in a named window runs there again on a replay.
  public var windowNamed: Bool { resolved.target != .focused }
  /// Whether the command is the host's (`open`, `relaunch`) rather than a module's.
  public var isHostCommand: Bool { module == nil }
  /// Whether it is a host command that only shows something (`frame`, `windows`, `clock`).
  public var onlyLooks: Bool { isHostCommand && HostCommands.onlyLooks(spec) }
  /// Whether it is the shell's `record`, `quit` or `exit`: what a recording or a replay leaves
  /// out (it records, or ends the session).
  public var isLeavingOrRecording: Bool {
    guard isHostCommand else { return false }
    let command = spec.name.prefix { $0 != " " }
    return command == "record" || command == "quit" || command == "exit"
  }

  /// The command as text: as bound, written the one way a command is written; one given values
  /// that did not bind, with those values; one whose words did not bind, as they were typed.
  public var text: String {
    if let command { return command.text }
    if let values { return values.text }
    let words = [resolved.nameToken] + resolved.argumentTokens
    return ([resolved.spec.name] + words.dropFirst().map { CommandTokenizer.quoted($0.text) }).joined(separator: " ")
  }
}
