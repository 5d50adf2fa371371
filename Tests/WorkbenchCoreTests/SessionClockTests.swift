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
