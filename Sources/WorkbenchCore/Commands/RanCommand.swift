/// What the host reports about each command it ran, success or failure, as it runs: the
/// session's recorder listens to these, so it never re-reads the line or resolves a command
/// again. A line whose command cannot be resolved (an unknown command, a window that is not
/// open) reports nothing for that command: it did not run.
public struct RanCommand: Sendable {
  /// The command's words after any `@WINDOW` prefix (the name first).
  public let words: [CommandToken]
  /// The window it ran in, as it was named when it ran.
  public let window: DirectoryWindow?
  /// The module whose command it is; `nil` for a host command.
  public let module: String?
  /// What it asked of the session, if anything.
  public let request: SessionRequest?
  /// The command as it ran, bound; `nil` when its arguments did not bind.
  public var command: BoundCommand?
  /// Why it failed, when it did (its arguments did not bind, or its handler refused).
  public let failure: CommandError?
  /// Whether its window was named (a scenario's `w1: undo`, `@w1 undo`) rather than the focused
  /// one: a host command that ran in a named window runs there again on a replay.
  public var windowNamed = false

  /// Whether the command is the host's (`open`, `relaunch`) rather than a module's.
  public var isHostCommand: Bool { module == nil }
  /// Whether it is a host command that only shows something (`frame`, `windows`, `clock`).
  public var onlyLooks: Bool { isHostCommand && HostCommands.onlyLooks(words.map(\.text)) }
}
