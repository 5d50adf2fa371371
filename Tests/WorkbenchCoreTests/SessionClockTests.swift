import Testing

@testable import WorkbenchCore
@testable import WorkbenchModuleAPI

/// A virtual clock runs every timer it passes, in order, and stops on a timer that keeps setting
/// another due at the same moment (a module process's loop) instead of hanging.
@MainActor
struct SessionClockTests {
  @Test func aTimerThatSetsItselfAgainAtOnceIsStoppedNotFollowedForever() {
    let clock = SessionClock(mode: .virtual)
    var runs = 0
    func again() {
      runs += 1
      clock.schedule(after: .zero) { again() }
    }
    clock.schedule(after: .milliseconds(5)) { again() }
    #expect(throws: CommandError.self) { try clock.advance(by: .seconds(1)) }
    #expect(runs == SessionClock.mostTimersAtOnce)
    do {
      try clock.advance(by: .seconds(1))
    } catch {
      #expect(error.message.contains("timers came due at 5ms: something keeps setting timers"))
    }
  }

  @Test func manyTimersAtTheirOwnMomentsAllRun() throws {
    let clock = SessionClock(mode: .virtual)
    var runs = 0
    for index in 0..<1500 { clock.schedule(after: .milliseconds(index)) { runs += 1 } }
    try clock.advance(by: .seconds(10))
    #expect(runs == 1500)
  }

  /// A `settle` past its limit keeps what it did: the timers it fired, even at once (a load
  /// with no latency, due now), make it a partial failure, not a refusal that changed nothing
  /// (explore took it for one: the window's frame had changed).
  @Test func aSettlePastItsLimitThatFiredATimerNowIsPartial() {
    let clock = SessionClock(mode: .virtual)
    var fired = 0
    clock.schedule(after: .zero) { fired += 1 }
    clock.schedule(after: .seconds(90)) { fired += 1 }
    do {
      try clock.settle(within: .seconds(60), flush: ConnectionScheduler())
      Issue.record("settle went past its limit")
    } catch {
      #expect(fired == 1)
      #expect(error.isPartial, "\(error.message)")
      #expect(error.message.hasPrefix("settled 0s, and nothing more was due within 60s"), "\(error.message)")
    }
    // Nothing fired: a refusal that changed nothing.
    let idle = SessionClock(mode: .virtual)
    idle.schedule(after: .seconds(90)) {}
    do {
      try idle.settle(within: .seconds(60), flush: ConnectionScheduler())
    } catch {
      #expect(!error.isPartial, "\(error.message)")
    }
  }
}

/// The session's calendar: ISO 8601 read and written back, days and fields in UTC, and numbers
/// from outside that never trap.
struct CalendarDateTests {
  @Test func isoTextReadsAndWritesBack() throws {
    let cases: [(String, String)] = [
      ("2026-12-07", "2026-12-07T00:00:00Z"), ("2026-12-07T23:59", "2026-12-07T23:59:00Z"),
      ("2026-12-07T23:59:30.250Z", "2026-12-07T23:59:30.250Z"), ("2026-12-07T09:00:00+01:00", "2026-12-07T08:00:00Z"),
      ("2024-02-29T12:00:00-05:30", "2024-02-29T17:30:00Z"), ("1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"),
      ("0001-01-01", "0001-01-01T00:00:00Z"), ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
    ]
    for (text, written) in cases {
      let date = try #require(CalendarDate(parsing: text), "\(text)")
      #expect(date.description == written, "\(text)")
      #expect(CalendarDate(parsing: date.description) == date, "\(text)")
    }
    #expect(CalendarDate(parsing: "2026-01-01")?.milliseconds == CalendarDate.scenarioDefault.milliseconds)
    for bad in [
      "2026-02-29", "2026-13-01", "2026-12-07T24:00", "2026-12-7", "10000-01-01", "0000-01-01", "", "today",
      "2026-12-07T09:00Zx", "2026-12-07T09:00+1:00",
    ] {
      #expect(CalendarDate(parsing: bad) == nil, "\(bad)")
    }
  }

  @Test func daysAndFieldsAreUTC() throws {
    let date = try #require(CalendarDate(parsing: "2026-12-07T23:59:30.250Z"))
    let fields = date.fields
    #expect(fields.year == 2026 && fields.month == 12 && fields.day == 7)
    #expect(fields.hour == 23 && fields.minute == 59 && fields.second == 30 && fields.millisecond == 250)
    #expect(fields.weekday == 1)  // a Monday
    #expect(date.day == 20_794)
    #expect(date.adding(.seconds(30)).day == 20_795)
    #expect(CalendarDate(milliseconds: -1).day == -1)
    #expect(CalendarDate(milliseconds: -1).description == "1969-12-31T23:59:59.999Z")
  }

  /// A `date` a module sends back, a `clock advance` of years: nothing traps.
  @Test func extremeNumbersDoNotTrap() {
    for milliseconds in [Int.max, Int.min, Int.max - 1, Int.min + 1, 0] {
      let date = CalendarDate(milliseconds: milliseconds)
      _ = date.description
      _ = date.fields
      _ = date.day
      #expect(date.adding(.seconds(Int64.max)).milliseconds >= date.milliseconds)
      #expect(date.adding(.seconds(Int64.min)).milliseconds <= date.milliseconds)
    }
    #expect(CalendarDate(milliseconds: .max).adding(.milliseconds(1)).milliseconds == .max)
  }
}
