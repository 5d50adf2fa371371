import Goal
import Testing
import WorkbenchCore
import WorkbenchModuleAPI

/// The goal screen without a host: actions in, a document change (or none) and a frame out, as
/// every module's screen takes them.
@MainActor
@Suite struct GoalActionTests {
  func screen(target: Int, completed: Int = 0) throws -> GoalScreen {
    GoalScreen(
      document: GoalDocument(goal: try ReadingGoal(target: target, completed: completed)),
      viewState: GoalViewState(), environment: ScreenEnvironment())
  }

  @Test func completingTheSharedGoalHandsBackTheChangeToCommit() throws {
    let goal = try screen(target: 2)
    let change = try goal.send(.completeTapped)
    #expect(change?.document.goal.completed == 1)
    #expect(change?.summary == "complete a book")
    // Nothing changes in the window until the host commits and hands the document back.
    #expect(goal.frame["progress"] == "0 of 2")
  }

  @Test func aDraftChangesOnlyThisWindow() throws {
    let goal = try screen(target: 2)
    #expect(try goal.send(.targetChosen(3)) == nil)
    #expect(try goal.send(.completeTapped) == nil)
    #expect(goal.frame["draft"]?["progress"] == "1 of 3")
    #expect(goal.frame["progress"] == "0 of 2")
  }

  @Test func aRefusedActionKeepsTheStateAndSaysWhy() throws {
    let goal = try screen(target: 1, completed: 1)
    #expect(throws: GoalFailure.self) { try goal.send(.completeTapped) }
    #expect(goal.frame["message"]?.stringValue?.hasPrefix("This goal is already complete") == true)
    #expect(throws: GoalFailure.self) { try goal.send(.targetChosen(0)) }
    #expect(goal.viewState.draft == nil)
  }
}
