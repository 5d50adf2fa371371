import Testing

@testable import WorkbenchCore

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

  @Test func theTimelineMovesTheReplayPastFiredTimersAndShortOfPendingOnes() {
    let clock = SessionClock(mode: .virtual)
    let timeline = ReplayTimeline()
    // The session's facts own the timeline; the clock reports to it.
    let facts = SessionFacts()
    facts.timeline = timeline
    clock.facts = facts
    var fired: [String] = []
    clock.schedule(after: .milliseconds(300)) { fired.append("load") }
    clock.schedule(after: .milliseconds(2000)) { fired.append("detect") }
    #expect(timeline.hasWork)
    try? clock.advance(by: .milliseconds(305))  // the load fired in "real" time
    // Only 250 ms of real time were measured (the command came late): the replay still moves
    // past the load...
    #expect(timeline.advance(afterRealTime: .milliseconds(250)) == .milliseconds(300))
    // A few milliseconds between two lines with no timer firing is noise, not time to replay;
    // a wait anyone could make is time.
    #expect(timeline.advance(afterRealTime: .milliseconds(5)) == .zero)
    #expect(timeline.advance(afterRealTime: .milliseconds(40)) == .milliseconds(40))
    // ...and never as far as a timer that had not fired, however long the wait looked.
    #expect(timeline.advance(afterRealTime: .milliseconds(5000)) == .milliseconds(1659))
    #expect(fired == ["load"])
    timeline.restart()
    #expect(timeline.now == .zero)
    #expect(!timeline.hasWork)
    // Nothing pending: no time is recorded at all.
    #expect(timeline.advance(afterRealTime: .seconds(3)) == .zero)
  }
}
