/// Everything a user can do to a goal window, named for what happened.
public enum GoalAction: Equatable, Sendable {
  /// One more book was completed: on this window's draft when it has one, otherwise on the
  /// shared goal.
  case completeTapped
  /// A new target was chosen; it goes in this window's draft (saved only by `save`).
  case targetChosen(Int)
}
