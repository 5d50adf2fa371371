// The habits of Examples/habits (habits.py, habits.js) on the Swift kit, for the tests that hold
// the three kits to one calendar: each habit keeps the day it was last done and its streak,
// `done ID` marks it done today, and a day passes at midnight on the session's calendar
// (`services.clock.date`), which a scenario's `date:` states and a recording keeps.
import WorkbenchModuleKit

/// Milliseconds in a day.
let day = 86_400_000

struct Habit: Codable, Equatable, Sendable {
  var id: Int
  var name: String
  /// The day it was last done (days since 1970-01-01), `nil` when never.
  var lastDone: Int?
  var streak: Int
}

struct HabitsDocument: DocumentBody {
  var habits: [Habit]
}

struct HabitsViewState: ViewStateValue {}

@MainActor
final class HabitsScreen: FramedScreen {
  private(set) var document: HabitsDocument
  private(set) var viewState: HabitsViewState
  let services: SessionServices

  init(document: HabitsDocument, viewState: HabitsViewState, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
    services = environment.services
    Midnight.of(services).wake()
  }

  func documentReplaced(_ document: HabitsDocument) { self.document = document }
  func restore(_ viewState: HabitsViewState) { self.viewState = viewState }

  /// The session's day: days since 1970-01-01 on its calendar.
  var today: Int { services.clock.date.day }

  var typedFrame: HabitsFrame {
    let today = self.today
    let rows: [FrameValue] = document.habits.map { habit in
      // Done today or yesterday: the streak holds.
      let kept = habit.lastDone.map { $0 >= today - 1 } ?? false
      return [
        "id": .integer(habit.id), "name": .string(habit.name), "streak": .integer(kept ? habit.streak : 0),
        "doneToday": .bool(habit.lastDone == today),
      ]
    }
    // The day as YYYY-MM-DD: the first ten characters of its ISO 8601 text.
    let date = CalendarDate(milliseconds: today * day).description.prefix(10)
    return HabitsFrame(today: String(date), rows: .list(rows))
  }
}

/// The session's timer for the next midnight, which wakes the habits windows so the new day
/// shows unasked.
@MainActor
final class Midnight {
  let services: SessionServices
  private var timer: Cancellation?

  init(services: SessionServices) { self.services = services }

  static func of(_ services: SessionServices) -> Midnight {
    services.shared(Midnight.self, named: "midnight") { Midnight(services: services) }
  }

  func wake() {
    guard timer == nil else { return }
    let untilMidnight = day - ((services.clock.date.milliseconds % day) + day) % day
    timer = services.clock.schedule(after: .milliseconds(untilMidnight)) { [weak self] in
      self?.timer = nil
      self?.wake()
    }
  }
}

/// What a habits window shows.
struct HabitsFrame: FrameRecord {
  /// The session's day, as YYYY-MM-DD.
  var today = ""
  /// Each habit: id, name, streak (0 once a day is missed), doneToday.
  var rows: FrameValue = .list([])

  static let fields: FrameFields<HabitsFrame> = [
    FrameField("today", \.today, "the session's day, as YYYY-MM-DD"),
    FrameField("rows", \.rows, "each habit: id, name, streak (0 once a day is missed), doneToday"),
  ]
}

enum HabitsArguments {
  static let id = Argument<Int>.integer("id", in: 1...1_000_000, help: "the habit's id")
}

struct HabitsModule: FeatureModule {
  var manifest: ModuleManifest {
    ModuleManifest(
      name: "habits", version: "1.0", summary: "habits done once a day, with their streaks, on the session's calendar")
  }

  @MainActor func register(into registrar: Registrar) {
    registrar.documentKind(
      HabitsDocument.self, name: "habits", summary: "habits and the days they were done",
      samples: [
        "routine": HabitsDocument(habits: [
          Habit(id: 1, name: "Read", lastDone: nil, streak: 0), Habit(id: 2, name: "Walk", lastDone: nil, streak: 0),
        ])
      ])
    registrar.screen(HabitsScreen.self, name: "habits", documentKind: "habits", summary: "habits, done today or not") {
      (frame: HabitsFrame) in
      let lines = (frame.rows.elements ?? []).map { row in
        "  \(row["id"]?.integerValue ?? 0)  \(row["name"]?.stringValue ?? "")  streak \(row["streak"]?.integerValue ?? 0)"
          + (row["doneToday"]?.boolValue == true ? "  done today" : "")
      }
      return ([frame.today] + lines).joined(separator: "\n")
    }
    registrar.command(
      CommandSpec(
        "done", arguments: [HabitsArguments.id], summary: "mark a habit done today",
        scope: .window(screens: ["habits"])
      ) { context in
        let screen = try context.model(HabitsScreen.self)
        let id = context.arguments[HabitsArguments.id]
        let today = screen.today
        var habits = screen.document.habits
        guard let index = habits.firstIndex(where: { $0.id == id }) else {
          throw CommandError("no habit \(id) (habits: \(habits.map { String($0.id) }.joined(separator: ", ")))")
        }
        guard habits[index].lastDone != today else { throw CommandError("habit \(id) is done today already") }
        habits[index].streak = habits[index].lastDone == today - 1 ? habits[index].streak + 1 : 1
        habits[index].lastDone = today
        try context.commit(HabitsDocument(habits: habits), summary: "habit \(id) done")
        return .frame(try context.requireWindow().id)
      })
  }
}

ModuleMain.run(HabitsModule())
