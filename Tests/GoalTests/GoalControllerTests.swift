import Goal
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

/// The controller role through the host: intents to transitions, facts to a presentation, and
/// one goal shared by two windows.
@MainActor
@Suite struct GoalControllerTests {
  let host: Host

  init() throws {
    host = try Host(modules: [GoalModule()])
    try host.seedDocument(named: "reading", kind: "goal", json: Array(#"{"target": 2}"#.utf8))
    _ = try host.run(line: "open goal reading left; open goal reading right")
  }

  @Test func theSeedsSequence() throws {
    #expect(host.frame(of: "left")["progress"] == "0 of 2")
    _ = try host.run(line: "@left complete; @left complete")
    #expect(host.frame(of: "left")["progress"] == "2 of 2")
    #expect(host.frame(of: "left")["canComplete"] == false)
    #expect(host.frame(of: "left")["message"] == .null)
    // The extra completion a disabled control would prevent: the model still refuses it.
    #expect(host.failure("@left complete") == "This goal is already complete (2 of 2); raise the target to read more.")
    #expect(host.frame(of: "left")["progress"] == "2 of 2")
    #expect(
      host.frame(of: "left")["message"] == "This goal is already complete (2 of 2); raise the target to read more.")
  }

  @Test func theMessageIsClearedByTheNextSuccess() throws {
    _ = try host.run(line: "@left complete; @left complete")
    _ = host.failure("@left complete")
    _ = try host.run(line: "@left target 3; @left save; @left complete")
    #expect(host.frame(of: "left")["message"] == .null)
    #expect(host.frame(of: "left")["progress"] == "3 of 3")
  }

  @Test func completingThroughEitherWindowUpdatesBoth() throws {
    _ = try host.run(line: "@left complete")
    #expect(host.frame(of: "right")["progress"] == "1 of 2")
    _ = try host.run(line: "@right complete")
    #expect(host.frame(of: "left")["progress"] == "2 of 2")
    #expect(host.document(named: "reading")?.revision == 3)
  }

  @Test func aClosedWindowIsReleasedAndReceivesNothing() throws {
    weak let closed = host.window(named: "right")?.model(as: GoalScreen.self)
    let kept = try #require(host.window(named: "left")?.model(as: GoalScreen.self))
    #expect(closed != nil)
    _ = try host.run(line: "close right")
    #expect(closed == nil)  // nothing holds the screen: its subscription went with it
    let before = kept.notifications
    _ = try host.run(line: "@left complete")
    #expect(kept.notifications == before + 1)
  }

  @Test func aDraftIsThisWindowsOnlyUntilSaved() throws {
    _ = try host.run(line: "@left target 5; @left complete")
    #expect(host.frame(of: "left")["showing"] == "draft")
    #expect(host.frame(of: "left")["draft"]?["progress"] == "1 of 5")
    #expect(host.frame(of: "left")["progress"] == "0 of 2")  // the shared goal is untouched
    #expect(host.frame(of: "right")["draft"] == .null)
    #expect(host.frame(of: "right")["progress"] == "0 of 2")
    _ = try host.run(line: "@left save")
    #expect(host.frame(of: "right")["progress"] == "1 of 5")
    #expect(host.frame(of: "left")["showing"] == "saved")
  }

  @Test func aDraftOverAGoalThatMovedIsNotSavedSilently() throws {
    _ = try host.run(line: "@left target 4; @right complete")
    #expect(host.failure("@left save")?.hasPrefix("the shared goal changed since this draft started") == true)
    _ = try host.run(line: "@left save force")
    #expect(host.frame(of: "right")["progress"] == "0 of 4")
  }

  @Test func badInputChangesNothing() throws {
    #expect(host.failure("@left target 0") == "A reading goal needs a positive target, not 0.")
    #expect(host.failure("@left target -2") == "A reading goal needs a positive target, not -2.")
    #expect(host.frame(of: "left")["draft"] == .null)
    _ = try host.run(line: "@left complete")
    #expect(host.failure("@left target 0")?.contains("positive target") == true)
    #expect(host.failure("@left discard") == "there is no draft to discard in this window")
    #expect(host.failure("@left save") == "there is no draft to save in this window")
    #expect(host.document(named: "reading")?.revision == 2)
  }

  @Test func leavingADraftAsksAndTheChoiceIsCarriedOut() throws {
    _ = try host.run(line: "@left target 7")
    #expect(
      try host.results(line: "close left").map(\.request) == [.unsavedWork(windows: [WindowID(1)], quitting: false)])
    #expect(host.window(named: "left") != nil)
    _ = try host.run(line: "close left save")
    #expect(host.window(named: "left") == nil)
    #expect(host.frame(of: "right")["target"] == 7)
  }
}
