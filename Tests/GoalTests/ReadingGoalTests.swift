import Goal
import Testing
import WorkbenchCore
import WorkbenchModuleAPI

/// The checks seed 003 makes, and the rules the model owns.
@Suite struct ReadingGoalTests {
  @Test func aNonPositiveTargetIsRejected() {
    #expect(throws: GoalFailure.invalidTarget(0)) { try ReadingGoal(target: 0) }
    #expect(throws: GoalFailure.invalidTarget(-3)) { try ReadingGoal(target: -3) }
  }

  @Test func completingPastTheTargetIsRejected() throws {
    var goal = try ReadingGoal(target: 2)
    try goal.completeOne()
    try goal.completeOne()
    #expect(goal.isFinished)
    #expect(throws: GoalFailure.alreadyFinished(target: 2)) { try goal.completeOne() }
    #expect(goal.completed == 2)
  }

  @Test func theTargetCannotFallBelowProgress() throws {
    var goal = try ReadingGoal(target: 5, completed: 3)
    #expect(throws: GoalFailure.targetBelowProgress(target: 2, completed: 3)) { try goal.retarget(2) }
    try goal.retarget(3)
    #expect(goal.isFinished)
  }

  @Test func aStoredRecordGoesThroughTheSameRules() {
    #expect(throws: GoalFailure.self) { try ReadingGoal(target: 3, completed: 4) }
    #expect(throws: (any Error).self) { try decode(#"{"target": 0}"#) }
    #expect(throws: (any Error).self) { try decode(#"{"target": 2, "completed": -1}"#) }
  }

  private func decode(_ json: String) throws -> GoalDocument {
    try JSONDecoderForTests.decode(GoalDocument.self, json)
  }
}
