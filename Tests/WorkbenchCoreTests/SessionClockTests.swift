import Testing

@testable import WorkbenchCore

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
}
