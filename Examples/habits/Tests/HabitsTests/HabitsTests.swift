import Habits
import Testing
import WorkbenchModuleKit
import WorkbenchModuleTesting

/// The habits module in the test's own process, on a virtual clock that starts a minute before
/// midnight: two windows on one document, a day passing, and undo.
@MainActor
@Suite struct HabitsTests {
  static let lateEvening = CalendarDate(parsing: "2026-12-07T23:59:00Z")

  /// The rows a window lists, as (id, streak, done today).
  func rows(_ session: TestSession, _ window: String) -> [[String: FrameValue]] {
    (session.frame(of: window)?["rows"]?.elements ?? []).map { row in
      ["id": row["id"] ?? .null, "streak": row["streak"] ?? .null, "doneToday": row["doneToday"] ?? .null]
    }
  }

  @Test func twoWindowsShareTheHabitsAndKeepTheirOwnFilter() throws {
    let session = try TestSession(modules: [HabitsModule()], date: Self.lateEvening)
    try session.run("open habits routine all; open habits routine due; filter due; @all done 1")
    #expect(session.frame(of: "all")?["filter"] == "all")
    #expect(session.frame(of: "due")?["filter"] == "due")
    #expect(rows(session, "all").map { $0["id"] } == [1, 2])
    #expect(rows(session, "due") == [["id": 2, "streak": 0, "doneToday": false]])
  }

  // docs/writing-a-module.md shows the first lines of this test: keep them as they are there.
  @Test func aDayPassesAtMidnightAndTheStreakGoesOn() throws {
    let date = CalendarDate(parsing: "2026-12-07T23:59:00Z")
    let session = try TestSession(modules: [HabitsModule()], date: date)
    try session.run("open habits routine h; done 1")
    #expect(throws: CommandError.self) { try session.run("done 1") }
    // The midnight timer fires on the way: the window shows the new day without a command.
    try session.advance(by: .seconds(60))
    #expect(session.frame(of: "h")?["today"] == "2026-12-08")
    #expect(rows(session, "h").first == ["id": 1, "streak": 1, "doneToday": false])
    try session.run("done 1")
    #expect(rows(session, "h").first == ["id": 1, "streak": 2, "doneToday": true])
    // A missed day: two midnights later the streak reads 0, and starts again at 1.
    try session.advance(by: .seconds(2 * 86_400))
    #expect(session.frame(of: "h")?["today"] == "2026-12-10")
    #expect(rows(session, "h").first == ["id": 1, "streak": 0, "doneToday": false])
    try session.run("done 1")
    #expect(rows(session, "h").first == ["id": 1, "streak": 1, "doneToday": true])
  }

  @Test func undoTakesADoneBackInEveryWindow() throws {
    let session = try TestSession(modules: [HabitsModule()], date: Self.lateEvening)
    try session.run("open habits routine a; open habits routine b; @a done 2")
    #expect(rows(session, "b").last == ["id": 2, "streak": 1, "doneToday": true])
    try session.run("@a undo")
    #expect(rows(session, "b").last == ["id": 2, "streak": 0, "doneToday": false])
    try session.run("@a redo")
    #expect(rows(session, "b").last == ["id": 2, "streak": 1, "doneToday": true])
  }

  /// What cannot be is refused, changes nothing, and says why.
  @Test func whatCannotBeIsRefused() throws {
    let session = try TestSession(modules: [HabitsModule()], date: Self.lateEvening)
    try session.run("open habits routine h")
    #expect(throws: CommandError.self) { try session.run("done 9") }
    #expect(rows(session, "h").allSatisfy { $0["doneToday"] == false })
    #expect(throws: (any Error).self) {
      try HabitsDocument(habits: [Habit(id: 1, name: "A"), Habit(id: 1, name: "B")])
    }
    #expect(throws: (any Error).self) { try HabitsDocument(habits: [Habit(id: 1, name: " ")]) }
  }
}
