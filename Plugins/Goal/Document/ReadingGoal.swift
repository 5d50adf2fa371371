import WorkbenchModuleAPI

/// Why a reading goal refused a change. Each case says what to do.
public enum GoalFailure: UserFacingError, Equatable, Sendable, CustomStringConvertible {
  /// The target is zero or negative.
  case invalidTarget(Int)
  /// The target would fall below the books already completed.
  case targetBelowProgress(target: Int, completed: Int)
  /// Progress outside zero and the target (a record written by someone else).
  case invalidProgress(completed: Int, target: Int)
  /// The goal is finished; nothing more can be completed.
  case alreadyFinished(target: Int)

  /// The description as a sentence: capitalised, with a full stop.
  public var userMessage: String {
    (description.first.map { String($0).uppercased() + description.dropFirst() } ?? description) + "."
  }

  public var description: String {
    switch self {
    case .invalidTarget(let target):
      return "a reading goal needs a positive target, not \(target)"
    case .targetBelowProgress(let target, let completed):
      return "the target cannot be \(target): \(completed) books are already completed"
    case .invalidProgress(let completed, let target):
      return "progress must be between 0 and the target \(target), not \(completed)"
    case .alreadyFinished(let target):
      return "this goal is already complete (\(target) of \(target)); raise the target to read more"
    }
  }
}

/// A reading goal: a positive target and the books completed, between zero and the target.
///
/// The rules live here, for every caller (a command, a scenario, a restored record): the only
/// ways to change a goal are the throwing transitions below.
public struct ReadingGoal: Codable, Equatable, Sendable {
  /// How many books the goal is for.
  public private(set) var target: Int
  /// How many are done.
  public private(set) var completed: Int

  /// A goal with nothing completed yet.
  public init(target: Int) throws(GoalFailure) {
    try self.init(target: target, completed: 0)
  }

  /// A goal with some progress, as stored.
  public init(target: Int, completed: Int) throws(GoalFailure) {
    guard target > 0 else { throw .invalidTarget(target) }
    guard (0...target).contains(completed) else { throw .invalidProgress(completed: completed, target: target) }
    self.target = target
    self.completed = completed
  }

  /// A goal known to be valid, for constants in this module.
  init(checkedTarget target: Int, completed: Int) {
    self.target = max(1, target)
    self.completed = min(max(0, completed), self.target)
  }

  /// Completes one book.
  public mutating func completeOne() throws(GoalFailure) {
    guard completed < target else { throw .alreadyFinished(target: target) }
    completed += 1
  }

  /// Sets a new target, which must be positive and not below the books completed.
  public mutating func retarget(_ newTarget: Int) throws(GoalFailure) {
    guard newTarget > 0 else { throw .invalidTarget(newTarget) }
    guard newTarget >= completed else { throw .targetBelowProgress(target: newTarget, completed: completed) }
    target = newTarget
  }

  /// Whether every book is done.
  public var isFinished: Bool { completed == target }

  private enum CodingKeys: String, CodingKey { case target, completed }

  // Decoding goes through the same rules: a stored goal with a zero target or progress past its
  // target is an error, not a goal.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(
      target: try container.decode(Int.self, forKey: .target),
      completed: try container.decodeIfPresent(Int.self, forKey: .completed) ?? 0)
  }
}
