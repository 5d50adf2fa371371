import Goal
import Testing
import WorkbenchCore

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

  private func frame(_ window: String) -> FrameValue { host.window(named: window)?.frame ?? .null }

  private func failure(_ line: String) -> String? {
    do {
      _ = try host.run(line: line)
      return nil
    } catch {
      return error.message
    }
  }

  @Test func theSeedsSequence() throws {
    #expect(frame("left")["progress"] == "0 of 2")
    _ = try host.run(line: "@left complete; @left complete")
    #expect(frame("left")["progress"] == "2 of 2")
    #expect(frame("left")["canComplete"] == false)
    #expect(frame("left")["message"] == .null)
    // The extra completion a disabled control would prevent: the model still refuses it.
    #expect(failure("@left complete") == "This goal is already complete (2 of 2); raise the target to read more.")
    #expect(frame("left")["progress"] == "2 of 2")
    #expect(frame("left")["message"] == "This goal is already complete (2 of 2); raise the target to read more.")
  }

  @Test func theMessageIsClearedByTheNextSuccess() throws {
    _ = try host.run(line: "@left complete; @left complete")
    _ = failure("@left complete")
    _ = try host.run(line: "@left target 3; @left save; @left complete")
    #expect(frame("left")["message"] == .null)
    #expect(frame("left")["progress"] == "3 of 3")
  }

  @Test func completingThroughEitherWindowUpdatesBoth() throws {
    _ = try host.run(line: "@left complete")
    #expect(frame("right")["progress"] == "1 of 2")
    _ = try host.run(line: "@right complete")
    #expect(frame("left")["progress"] == "2 of 2")
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
    #expect(frame("left")["showing"] == "draft")
    #expect(frame("left")["draft"]?["progress"] == "1 of 5")
    #expect(frame("left")["progress"] == "0 of 2")  // the shared goal is untouched
    #expect(frame("right")["draft"] == .null)
    #expect(frame("right")["progress"] == "0 of 2")
    _ = try host.run(line: "@left save")
    #expect(frame("right")["progress"] == "1 of 5")
    #expect(frame("left")["showing"] == "saved")
  }

  @Test func aDraftOverAGoalThatMovedIsNotSavedSilently() throws {
    _ = try host.run(line: "@left target 4; @right complete")
    #expect(failure("@left save")?.hasPrefix("the shared goal changed since this draft started") == true)
    _ = try host.run(line: "@left save force")
    #expect(frame("right")["progress"] == "0 of 4")
  }

  @Test func badInputChangesNothing() throws {
    #expect(failure("@left target 0") == "A reading goal needs a positive target, not 0.")
    #expect(failure("@left target -2") == "A reading goal needs a positive target, not -2.")
    #expect(frame("left")["draft"] == .null)
    _ = try host.run(line: "@left complete")
    #expect(failure("@left target 0")?.contains("positive target") == true)
    #expect(failure("@left discard") == "there is no draft to discard in this window")
    #expect(failure("@left save") == "there is no draft to save in this window")
    #expect(host.document(named: "reading")?.revision == 2)
  }

  @Test func leavingADraftAsksAndTheChoiceIsCarriedOut() throws {
    _ = try host.run(line: "@left target 7")
    #expect(try host.run(line: "close left") == [.unsavedWork(windows: [WindowID(1)], quitting: false)])
    #expect(host.window(named: "left") != nil)
    _ = try host.run(line: "close left save")
    #expect(host.window(named: "left") == nil)
    #expect(frame("right")["target"] == 7)
  }
}
