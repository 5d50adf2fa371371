/// A request to stop from the person at the terminal (Ctrl-C), for a command that can take
/// long (sorting a million books). The front end that owns a terminal sets `requested` around
/// each line it runs (the interactive shell does; scripts and scenarios never stop midway, so
/// a replay does what its recording did). A command checks it where stopping leaves nothing
/// half done, and throws: what it changed is nothing yet.
public enum Interruption {
  /// Whether stopping was asked for since the line began; `nil` where nothing can ask.
  @TaskLocal public static var requested: (@Sendable () -> Bool)?

  /// Whether the person asked the running command to stop.
  public static var isRequested: Bool { requested?() == true }

  /// Throws when the person asked the running command to stop, saying `what` stopped.
  ///
  /// - Throws: `CommandError`: "interrupted (Ctrl-C): WHAT stopped; nothing changed".
  public static func check(_ what: String) throws(CommandError) {
    if isRequested { throw stopped(what) }
  }

  /// The error a command stopped by Ctrl-C throws.
  public static func stopped(_ what: String) -> CommandError {
    CommandError("interrupted (Ctrl-C): \(what) stopped; nothing changed")
  }
}
