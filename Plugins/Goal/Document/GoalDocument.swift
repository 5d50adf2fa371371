import WorkbenchModuleAPI

/// The shared goal, owned by the workspace: reopening a window or relaunching keeps progress.
public struct GoalDocument: DocumentBody {
  /// The goal.
  public var goal: ReadingGoal

  /// A document holding `goal`.
  public init(goal: ReadingGoal) { self.goal = goal }

  public init(from decoder: any Decoder) throws {
    goal = try ReadingGoal(from: decoder)
  }

  public func encode(to encoder: any Encoder) throws {
    try goal.encode(to: encoder)
  }

  /// A new workspace's goal: twelve books this year.
  public static let sample = GoalDocument(goal: ReadingGoal(checkedTarget: 12, completed: 0))
}
