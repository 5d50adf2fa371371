// Habits on the Swift kit, written the one way docs/writing-a-module.md shows: a document of
// shared facts, a view state of one window's choices, a screen model that takes actions
// (`ActionHandling`) and projects a typed frame (`FramedScreen`), and commands made from actions
// (`ScreenCommands.sending`). The same module as habits.py and habits.js beside it: each habit
// keeps the day it was last done and its streak, `done ID` marks it done today, `filter due` hides
// what is done today in one window, and a day passes at midnight on the session's calendar
// (`services.clock.date`), where a timer wakes every window so the new day shows unasked.
import WorkbenchModuleKit

/// Milliseconds in a day.
let millisecondsPerDay = 86_400_000

/// One habit, as the document keeps it.
public struct Habit: Codable, Equatable, Sendable {
  public var id: Int
  public var name: String
  /// The day it was last done (days since 1970-01-01 on the session's calendar), `nil` when never.
  public var lastDone: Int?
  /// Days in a row it was done, up to `lastDone`.
  public var streak: Int

  public init(id: Int, name: String, lastDone: Int? = nil, streak: Int = 0) {
    self.id = id
    self.name = name
    self.lastDone = lastDone
    self.streak = streak
  }
}

/// The shared facts: the habits. Ids are unique, names are not empty, streaks are not negative.
public struct HabitsDocument: DocumentBody {
  public private(set) var habits: [Habit]

  public init(habits: [Habit]) throws(CommandError) {
    var ids = Set<Int>()
    for (index, habit) in habits.enumerated() {
      guard ids.insert(habit.id).inserted else {
        throw CommandError("habits[\(index)]: the id \(habit.id) is used twice; give each habit an id of its own")
      }
      guard !habit.name.allSatisfy(\.isWhitespace) else { throw CommandError("habits[\(index)]: the name is empty") }
      guard habit.streak >= 0 else { throw CommandError("habits[\(index)]: the streak is \(habit.streak), below 0") }
    }
    self.habits = habits
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(habits: try container.decode([Habit].self, forKey: .habits))
  }

  /// The sample every session starts with: two habits never done.
  static let routine = HabitsDocument(unchecked: [Habit(id: 1, name: "Read"), Habit(id: 2, name: "Walk")])

  private init(unchecked habits: [Habit]) { self.habits = habits }
  private enum CodingKeys: String, CodingKey { case habits }
}

/// Which habits a window lists.
public enum HabitsFilter: String, Codable, CaseIterable, Sendable {
  /// Every habit.
  case all
  /// Only those not done today.
  case due
}

/// One window's own choice, kept apart from the shared document.
public struct HabitsViewState: ViewStateValue {
  public var filter: HabitsFilter = .all
  public init() {}
}

/// Everything a user can do to a habits window.
public enum HabitsAction: Equatable, Sendable {
  /// The habit with this id was done today.
  case done(Int)
  /// The window lists these habits from now on.
  case filtered(HabitsFilter)
}

/// A habit as a window shows it.
public struct HabitRow: FrameRecord {
  public var id = 0
  public var name = ""
  public var streak = 0
  public var doneToday = false
  public init() {}

  public static let fields: FrameFields<HabitRow> = [
    FrameField("id", \.id, "the habit's id, what `done` takes"),
    FrameField("name", \.name, "what the habit is"),
    FrameField("streak", \.streak, "days in a row it was done; 0 once a day is missed"),
    FrameField("doneToday", \.doneToday, "whether it was done on the session's day"),
  ]
}

/// What a habits window shows.
public struct HabitsFrame: FrameRecord {
  public var today = ""
  public var filter = HabitsFilter.all.rawValue
  public var rows: [HabitRow] = []
  public init() {}

  public static let fields: FrameFields<HabitsFrame> = [
    FrameField("today", \.today, "the session's day, as YYYY-MM-DD"),
    FrameField("filter", \.filter, "which habits this window lists: all, or due (not done today)"),
    FrameField("rows", \.rows, "the habits listed"),
  ]
}

/// A habits window: the document, the window's view state, and the day it reads off the
/// session's clock.
@MainActor
public final class HabitsScreen: ActionHandling, FramedScreen {
  public private(set) var document: HabitsDocument
  public private(set) var viewState: HabitsViewState
  private let clock: SessionTime

  public init(document: HabitsDocument, viewState: HabitsViewState, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
    clock = environment.services.clock
    Midnight.of(environment.services).wake()
  }

  public func documentReplaced(_ document: HabitsDocument) { self.document = document }
  public func restore(_ viewState: HabitsViewState) { self.viewState = viewState }

  /// The session's day: days since 1970-01-01 on its calendar.
  public var today: Int { clock.date.day }

  @discardableResult
  public func send(_ action: HabitsAction) throws(CommandError) -> DocumentChange<HabitsDocument>? {
    switch action {
    case .done(let id):
      let today = self.today
      var habits = document.habits
      guard let index = habits.firstIndex(where: { $0.id == id }) else {
        throw CommandError("no habit \(id) (habits: \(habits.map { String($0.id) }.joined(separator: ", ")))")
      }
      guard habits[index].lastDone != today else { throw CommandError("habit \(id) is done today already") }
      // Done yesterday: the streak goes on; else it starts again.
      let (longer, overflow) = habits[index].streak.addingReportingOverflow(1)
      habits[index].streak = habits[index].lastDone == today - 1 && !overflow ? longer : 1
      habits[index].lastDone = today
      return DocumentChange(try HabitsDocument(habits: habits), summary: "habit \(id) done")
    case .filtered(let filter):
      viewState.filter = filter
      return nil
    }
  }

  public var typedFrame: HabitsFrame {
    let today = self.today
    var frame = HabitsFrame()
    // The day as YYYY-MM-DD: the first ten characters of its ISO 8601 text.
    frame.today = String(CalendarDate(milliseconds: today &* millisecondsPerDay).description.prefix(10))
    frame.filter = viewState.filter.rawValue
    for habit in document.habits where viewState.filter == .all || habit.lastDone != today {
      var row = HabitRow()
      row.id = habit.id
      row.name = habit.name
      // Done today or yesterday: the streak holds.
      row.streak = habit.lastDone.map { $0 >= today - 1 } == true ? habit.streak : 0
      row.doneToday = habit.lastDone == today
      frame.rows.append(row)
    }
    return frame
  }
}

/// The session's timer for its next midnight: it wakes every habits window, so the new day
/// shows without a command, and sets itself again for the midnight after. One per session
/// (`services.shared`), started by the first window.
@MainActor
final class Midnight {
  private let clock: SessionTime
  private var timer: Cancellation?

  init(clock: SessionTime) { self.clock = clock }

  static func of(_ services: SessionServices) -> Midnight {
    services.shared(Midnight.self, named: "midnight") { Midnight(clock: services.clock) }
  }

  func wake() {
    guard timer == nil else { return }
    let sinceMidnight = ((clock.date.milliseconds % millisecondsPerDay) + millisecondsPerDay) % millisecondsPerDay
    timer = clock.schedule(after: .milliseconds(millisecondsPerDay - sinceMidnight)) { [weak self] in
      self?.timer = nil
      self?.wake()
    }
  }
}

/// The terminal text of a habits window.
enum HabitsRendering {
  static func text(_ frame: HabitsFrame) -> String {
    let heading = frame.today + (frame.filter == HabitsFilter.due.rawValue ? " (due only)" : "")
    let lines = frame.rows.map { row in
      "  \(row.id)  \(row.name)  streak \(row.streak)" + (row.doneToday ? "  done today" : "")
    }
    return ([heading] + lines).joined(separator: "\n")
  }
}

/// The commands, and the keys their handlers read their arguments by.
enum HabitsCommands {
  static let screens = ["habits"]
  static let id = Argument<Int>.integer("id", in: 1...1_000_000, help: "the habit's id")
  static let which = Argument<HabitsFilter>.choice("which", help: "all, or due: only those not done today")

  static let all = [done, filter]

  static let done = ScreenCommands.sending(
    "done", to: HabitsScreen.self, screens: screens, arguments: [id], summary: "mark a habit done today"
  ) { arguments, _ in .done(arguments[id]) }

  static let filter = ScreenCommands.sending(
    "filter", to: HabitsScreen.self, screens: screens, arguments: [which],
    summary: "list every habit in this window, or only those due today"
  ) { arguments, _ in .filtered(arguments[which]) }
}

public struct HabitsModule: FeatureModule {
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(
      name: "habits", version: "1.1", summary: "habits done once a day, with their streaks, on the session's calendar")
  }

  @MainActor public func register(into registrar: Registrar) {
    registrar.register(
      document: HabitsDocument.self, kind: "habits", summary: "habits and the days they were done",
      samples: ["routine": .routine],
      screens: [
        .screen(HabitsScreen.self, name: "habits", summary: "habits, done today or not", render: HabitsRendering.text)
      ],
      commands: HabitsCommands.all)
  }
}
