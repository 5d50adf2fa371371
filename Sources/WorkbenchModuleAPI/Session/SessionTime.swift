/// The session's time as a module's code sees it: the time now, and timers on it. The host drives it (real time in the shell, virtual time
/// in scenarios); a module never moves it.
@MainActor
public protocol SessionTime: AnyObject {
  /// The time since the session started: on a real clock the line's (or the timer's) while one
  /// runs, so every request of a line has one time.
  var now: Duration { get }
  /// `now` on the calendar: where the session's clock read zero (the wall time a shell
  /// started at, a scenario's `date:`) plus `now`. A replay reads the dates its recording read.
  var date: CalendarDate { get }
  /// Runs `action` once the session's time has moved `delay` past now; cancel it with the
  /// result.
  @discardableResult
  func schedule(after delay: Duration, _ action: @escaping @MainActor () -> Void) -> Cancellation
}

/// What a module's effects take from outside the session (a network's answer, a device's state),
/// as the session keeps it: live, recorded while the host records, served back while it replays.
@MainActor
public protocol OutsideFacts: AnyObject {
  /// The value of a fact: on replay the recorded one; otherwise `live()`, kept when recording.
  /// A fact that answers a question says what was `asked`: a replay serves the answer only to
  /// the same question.
  func value(of source: String, in scope: String, asked: FrameValue?, live: () -> FrameValue) -> FrameValue
  /// The state a long-lived service starts in (a bridge's lights), as `value` gives it, which a
  /// recording that starts while the service exists captures as it is then (`capture`).
  func state(of source: String, in scope: String, live: () -> FrameValue, capture: @escaping () -> FrameValue?)
    -> FrameValue
  /// Whether a replay is setting up the windows its recording started with: they load live, and
  /// a module does not count that work again (the recorded states count it).
  var isRelivingRecordedStart: Bool { get }
}

extension OutsideFacts {
  /// The value of a fact that answers no question (see `value(of:in:asked:live:)`).
  public func value(of source: String, in scope: String, live: () -> FrameValue) -> FrameValue {
    value(of: source, in: scope, asked: nil, live: live)
  }
}

/// A session's time for a screen made outside a host (a unit test's): it stays at zero, and a
/// timer set on it never fires.
@MainActor
package final class StillTime: SessionTime {
  package var now: Duration { .zero }
  package var date: CalendarDate { .scenarioDefault }
  package func schedule(after delay: Duration, _ action: @escaping @MainActor () -> Void) -> Cancellation {
    Cancellation {}
  }
}

/// Facts for a screen made outside a host: every one live, nothing kept.
@MainActor
package final class LiveFacts: OutsideFacts {
  package var isRelivingRecordedStart: Bool { false }
  package func value(of source: String, in scope: String, asked: FrameValue?, live: () -> FrameValue) -> FrameValue {
    live()
  }
  package func state(of source: String, in scope: String, live: () -> FrameValue, capture: @escaping () -> FrameValue?)
    -> FrameValue
  { live() }
}
