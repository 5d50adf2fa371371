import Testing

@testable import WorkbenchCore
@testable import WorkbenchModuleAPI

#if canImport(Glibc)
  import Glibc
#endif

/// The pieces a recording's replay rests on: facts served in order per window and source, and
/// the timeline that turns real time into `clock advance` steps.
@MainActor struct ReplayTests {
  @Test func factsAreServedInOrderPerScopeAndSource() {
    let recording = SessionFacts()
    recording.startRecording()
    var live = 0
    func next() -> FrameValue {
      live += 1
      return .integer(live)
    }
    _ = recording.value(of: "answer", in: "window 1", live: next)
    _ = recording.value(of: "answer", in: "window 2", live: next)
    _ = recording.value(of: "answer", in: "window 1", live: next)
    let kept = recording.stopRecording()
    #expect(kept.map(\.sequence) == [1, 1, 2])

    var facts: [SessionFacts.Key: [FrameValue]] = [:]
    for entry in kept { facts[entry.key, default: []].append(entry.value) }
    let replay = SessionFacts(replaying: facts)
    // Window 2 asks first this time: it still gets its own answer.
    #expect(replay.value(of: "answer", in: "window 2") { .null } == .integer(2))
    #expect(replay.value(of: "answer", in: "window 1") { .null } == .integer(1))
    #expect(replay.firstUnused()?.contains("answer #2 of window 1") == true)
    #expect(replay.value(of: "answer", in: "window 1") { .null } == .integer(3))
    #expect(replay.firstUnused() == nil)
    #expect(replay.divergence == nil)
    _ = replay.value(of: "answer", in: "window 1") { .string("live") }
    #expect(replay.divergence?.contains("answer #3 of window 1, which the recording does not have") == true)
  }

  @Test func aServiceStateIsCapturedWhenRecordingStarts() {
    let facts = SessionFacts()
    var lights = 2
    _ = facts.state(of: "bridge", in: "home", live: { .integer(lights) }, capture: { .integer(lights) })
    lights = 3
    facts.startRecording()
    #expect(facts.stopRecording().map(\.value) == [.integer(3)])
    // A replay that never makes the service leaves its state unused without diverging.
    let replay = SessionFacts(replaying: [SessionFacts.Key(scope: "home", source: "bridge.state"): [.integer(3)]])
    #expect(replay.firstUnused() == nil)
  }

  /// A replay beside its recording (explore's second run): each step's facts are handed over
  /// once, after the recording took them, and served in order; without `capturingStates` the
  /// services' states are not kept, as the replay set itself up live.
  @Test func aReplayBesideItsRecordingIsServedWhatItTook() {
    let recording = SessionFacts()
    var lights = 2
    _ = recording.state(of: "bridge", in: "home", live: { .integer(lights) }, capture: { .integer(lights) })
    let replay = SessionFacts()
    _ = replay.state(of: "bridge", in: "home", live: { .integer(lights) }, capture: { .integer(lights) })
    recording.startRecording(capturingStates: false)
    replay.startReplaying()
    #expect(recording.takeRecorded().isEmpty)
    lights = 5
    _ = recording.value(of: "answer", in: "window 1") { .integer(lights) }
    let first = recording.takeRecorded()
    #expect(first.map(\.value) == [.integer(5)])
    #expect(recording.takeRecorded().isEmpty)  // handed over once
    replay.serve(first)
    lights = 6
    #expect(replay.value(of: "answer", in: "window 1") { .integer(lights) } == .integer(5))
    #expect(replay.divergence == nil)
    // The next step's facts come after.
    _ = recording.value(of: "answer", in: "window 1") { .integer(lights) }
    replay.serve(recording.takeRecorded())
    #expect(replay.value(of: "answer", in: "window 1") { .integer(0) } == .integer(6))
    // A fact the recording never took is a divergence, named.
    _ = replay.value(of: "answer", in: "window 9") { .null }
    #expect(replay.divergence?.contains("answer #1 of window 9") == true)
    #expect(recording.stopRecording().map(\.value) == [.integer(5), .integer(6)])
  }

  /// The replay's clock is moved, before each line, by the session time that passed since the
  /// last one, whatever the timers did meanwhile: a countdown whose timer set the next one,
  /// paused 2.5 s in, is 2.5 s later in the replay too, and a pause of 3.2 s with no timer is
  /// 3.2 s (not the time to the last timer that fired, nor nothing).
  @Test func theTimelineWritesTheTimeThatPassedBetweenLines() {
    let timeline = ReplayTimeline()
    timeline.begin(at: .milliseconds(10_000))  // recording starts 10 s into the session
    timeline.fired(due: .milliseconds(11_000))
    timeline.fired(due: .milliseconds(12_000))  // set by the one before
    #expect(timeline.lineStarts(at: .milliseconds(12_500)) == .zero)
    #expect(timeline.takeAdvance() == .milliseconds(2_500))
    #expect(timeline.takeAdvance() == .zero)  // taken once
    timeline.lineFinished()
    #expect(timeline.lineStarts(at: .milliseconds(15_700)) == .zero)
    #expect(timeline.takeAdvance() == .milliseconds(3_200))
    timeline.lineFinished()
    // A few milliseconds with no timer firing is noise: not written, and the live clock is told
    // to drop it (so it reads what the replay's will).
    #expect(timeline.lineStarts(at: .milliseconds(15_705)) == .milliseconds(5))
    #expect(timeline.takeAdvance() == .zero)
    timeline.lineFinished()
    // The live clock, 5 ms behind since, reads 16_700 a second later.
    #expect(timeline.lineStarts(at: .milliseconds(16_700)) == .zero)
    #expect(timeline.takeAdvance() == .milliseconds(1_000))
    // A line that waits for timers (`settle`) ends at the last one's time, as the replay's does;
    // the next line counts from there.
    timeline.fired(due: .milliseconds(16_900))
    timeline.fired(due: .milliseconds(17_200))
    timeline.lineFinished()
    #expect(timeline.now == .milliseconds(7_200))
    // The pause after it has no timer firing in it: noise again.
    #expect(timeline.lineStarts(at: .milliseconds(17_204)) == .milliseconds(4))
    #expect(timeline.takeAdvance() == .zero)
    // A timer that fired between lines makes the pause time, however short.
    timeline.fired(due: .milliseconds(17_206))
    #expect(timeline.lineStarts(at: .milliseconds(17_208)) == .zero)
    #expect(timeline.takeAdvance() == .milliseconds(8))
    timeline.restart()
    #expect(timeline.now == .zero)
    #expect(timeline.lineStarts(at: .milliseconds(2_000)) == .zero)
    #expect(timeline.takeAdvance() == .milliseconds(2_000))
  }

  /// On real time a line has one time (every command of it, every request it sends), and a
  /// timer runs at the time it was due, so what it sets counts from there, as on the virtual
  /// clock of a replay.
  @Test func aRealClockHoldsTheLinesTimeAndATimersDueTime() {
    let clock = SessionClock(mode: .real)
    clock.beginLine()
    let start = clock.now
    #expect(start == .milliseconds(start.wholeMilliseconds))  // whole milliseconds
    var seen: [Duration] = []
    clock.schedule(after: .milliseconds(1)) {
      seen.append(clock.now)
      clock.schedule(after: .milliseconds(1)) { seen.append(clock.now) }
    }
    usleep(3_000)
    #expect(clock.now == start)  // held while the line runs
    clock.endLine()
    #expect(clock.now < start + .milliseconds(3))  // the line's own time is not the session's
    usleep(3_000)
    clock.beginLine()  // both are due by now: each runs at its own due time
    #expect(seen == [start + .milliseconds(1), start + .milliseconds(2)])
    clock.endLine()
  }

  /// A line that takes long to run (a slow module, a sanitizer, a loaded machine) does not move
  /// the session's time: the next line starts where it left off, so a recording writes no
  /// `clock advance` for it and its replay is the same file on any machine. (Under
  /// AddressSanitizer `record start` took 32 ms and the recording began with `clock advance
  /// 32ms`, which a faster run does not write.)
  @Test func aLineThatTakesLongDoesNotMoveTheSessionsTime() {
    let clock = SessionClock(mode: .real)
    clock.beginLine()
    let start = clock.now
    usleep(60_000)  // the line runs for 60 ms
    clock.endLine()
    clock.beginLine()
    #expect(clock.now - start < ReplayTimeline.noise, "\(clock.now - start)")
    clock.endLine()
    usleep(30_000)  // a pause between lines is the session's
    clock.beginLine()
    #expect(clock.now - start >= .milliseconds(30))
    clock.endLine()
  }

  /// A line that was already waiting when the last ended (a script's, through a pipe) starts at
  /// the time the last ended, however long the machine took between them: under ThreadSanitizer
  /// the shell took 40 ms between two piped lines, and the README's recording got a `clock
  /// advance 40ms` a fast run does not write. A line waited for still counts its pause.
  @Test func aLineThatWasWaitingStartsWhereTheLastEnded() {
    let clock = SessionClock(mode: .real)
    clock.beginLine()
    clock.endLine()
    let ended = clock.now
    usleep(60_000)  // the machine between two lines of a pipe
    clock.nextLineWasWaiting = true
    clock.beginLine()
    #expect(clock.now - ended < .milliseconds(5), "\(clock.now - ended)")
    #expect(!clock.nextLineWasWaiting)  // taken
    clock.endLine()
    usleep(30_000)  // a line typed later
    clock.beginLine()
    #expect(clock.now - ended >= .milliseconds(30))
    clock.endLine()
  }
}
