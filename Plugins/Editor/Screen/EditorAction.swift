/// Every edit a user makes to an editor window's draft, named for what happened.
public enum EditorAction: Equatable, Sendable {
  /// The draft's title was set.
  case titleSet(String)
  /// A line was added at the end.
  case lineAppended(String)
  /// A line was inserted before line `at` (one past the last appends).
  case lineInserted(String, at: Int)
  /// Line `number` was replaced.
  case lineReplaced(Int, with: String)
  /// Lines `first` through `last` were deleted.
  case linesDeleted(Int, through: Int)
}
