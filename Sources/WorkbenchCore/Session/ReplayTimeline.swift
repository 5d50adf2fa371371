/// The virtual time a replay of a recording will be at, worked out while the session records
/// on real time.
///
/// A replay runs on a virtual clock that moves only at `clock advance` steps, and a timer fires
/// there once the clock passes `schedule time + delay`. Commands take no virtual time, so the
/// timeline follows each timer's due time in replay terms; before each command it says how far
/// the replay must move so that exactly the timers that fired in real time fire in the replay,
/// and no others, keeping the real time that passed where that allows.
@MainActor
public final class ReplayTimeline {
  /// The replay's virtual time now.
  public private(set) var now: Duration = .zero
  private var pending: [Int: Duration] = [:]
  private var firedSinceMark: [Duration] = []
  /// The real time up to which the time that passed has been accounted for.
  private var accountedUntil = ContinuousClock.now
  /// How far the replay's clock must move before the line that started, not yet written.
  private var unwrittenAdvance: Duration = .zero

  public init() {}

  /// A line starts (the host calls this once the timers that came due have fired): the real
  /// time since the last line becomes an advance of the replay's clock.
  public func lineStarts() {
    let now = ContinuousClock.now
    unwrittenAdvance += advance(afterRealTime: now - accountedUntil)
    accountedUntil = now
  }

  /// The advance to write before the next step; zero once taken.
  public func takeAdvance() -> Duration {
    defer { unwrittenAdvance = .zero }
    return unwrittenAdvance
  }

  func scheduled(_ timer: Int, after delay: Duration) { pending[timer] = now + delay }

  func cancelled(_ timer: Int) { pending[timer] = nil }

  func fired(_ timer: Int) {
    guard let due = pending.removeValue(forKey: timer) else { return }
    firedSinceMark.append(due)
  }

  /// Whether a timer waits, or fired since the last command.
  public var hasWork: Bool { !pending.isEmpty || !firedSinceMark.isEmpty }

  /// How far the replay's clock must move before the next command, given that `real` time
  /// passed since the last one: at least to the last timer that fired meanwhile, short of the
  /// first that did not. Moves the timeline; `.zero` when nothing waited.
  public func advance(afterRealTime real: Duration) -> Duration {
    defer { firedSinceMark = [] }
    guard hasWork else { return .zero }
    // A gap in which no timer fired, shorter than anyone types, is the machine's noise (a
    // script's next line read a few milliseconds late on a busy machine): it moves nothing, so
    // one session recorded twice is the same file.
    if firedSinceMark.isEmpty, real < Self.noise { return .zero }
    let needed = max(.zero, (firedSinceMark.max() ?? now) - now)
    var advance = max(Self.wholeMilliseconds(real), Self.roundedUp(needed))
    if let first = pending.values.min(), now + advance >= first {
      // A timer that had not fired must not fire in the replay either.
      let limit = first - now - .milliseconds(1)
      advance = max(needed, min(advance, limit))
    }
    now += advance
    return advance
  }

  /// The session's host was rebuilt with a new clock, as a replay's relaunch rebuilds it:
  /// time starts again at zero and the old timers are gone.
  public func restart() {
    now = .zero
    pending = [:]
    firedSinceMark = []
  }

  /// After a line: timers it fired (a `settle`) moved the replay's clock to their due time.
  public func lineFinished() {
    if let last = firedSinceMark.max(), last > now { now = last }
    firedSinceMark = []
    accountedUntil = ContinuousClock.now
  }

  /// The longest gap between lines that is taken as noise when no timer fired in it.
  static let noise = Duration.milliseconds(20)

  private static func wholeMilliseconds(_ duration: Duration) -> Duration {
    .milliseconds(duration.wholeMilliseconds)
  }

  private static func roundedUp(_ duration: Duration) -> Duration {
    let whole = wholeMilliseconds(duration)
    return whole < duration ? whole + .milliseconds(1) : whole
  }
}
