import WorkbenchModuleAPI

/// A command of a line still to run: words read from a line's text (the shell's, a step whose
/// commands the loader could not bind), or a command bound elsewhere (a scenario's step, a
/// replayed one, explore's).
package enum LineCommand: Sendable {
  /// Words, resolved and bound against the session's windows just before they run, in `window`
  /// unless they name one.
  case words([CommandToken], window: String?)
  /// A bound command, bound again against the session's windows just before it runs
  /// (`CommandResolver.rebind`: only what is live is checked again).
  case bound(BoundCommand)
  /// A command given as values, bound against the session's windows just before it runs (a
  /// value the spec refuses is refused then, as its word would be).
  case call(CommandCall)
}
