import WorkbenchModuleAPI

/// The virtual time a replay of a recording will be at, worked out while the session records
/// on real time.
///
/// A replay runs on a virtual clock that moves only at `clock advance` steps; a module process
/// is told the session's time with every request (`now`). For a replay to be the session again,
/// its clock must read at each step what the live clock read there. So the live clock on real
/// time counts whole milliseconds, holds still while a line runs (every command of a line, and
/// every request it sends, has the time the line started) and while a timer runs (its time is
/// the time it was due); the timeline writes, before each line, the time that passed since the
/// last one, whatever the timers did meanwhile. A pause shorter than anyone types, with no
/// timer firing in it, is the machine's noise (a script's next line read a few milliseconds
/// late): the live clock does not count it either, so one session recorded twice is the same
/// file and the clocks still agree.
@MainActor
public final class ReplayTimeline {
  /// The replay's virtual time now.
  public private(set) var now: Duration = .zero
  /// The live clock's time when the replay's read zero.
  private var origin: Duration = .zero
  /// Whether a timer fired since the last line started.
  private var firedSinceLine = false
  /// The replay's time of the last timer that fired during the line that runs (a `settle`).
  private var lastFiredInLine: Duration?
  /// How far the replay's clock must move before the line that started, not yet written.
  private var unwrittenAdvance: Duration = .zero

  public init() {}

  /// Recording starts with the live clock at `liveNow`: the replay's clock reads zero there.
  public func begin(at liveNow: Duration) {
    origin = liveNow
    now = .zero
    firedSinceLine = false
    lastFiredInLine = nil
    unwrittenAdvance = .zero
  }

  /// A line starts at `liveNow`, once the timers due by then have fired: the time since the
  /// replay's clock last moved becomes an advance of it.
  ///
  /// - Returns: the time the live clock is not to count (a pause that is only noise).
  public func lineStarts(at liveNow: Duration) -> Duration {
    let target = liveNow - origin
    var advance = max(.zero, target - now)
    var dropped = Duration.zero
    if !firedSinceLine, advance < Self.noise {
      // The live clock drops it, so from here on it reads what the replay's does.
      dropped = advance
      advance = .zero
    }
    now += advance
    unwrittenAdvance += advance
    firedSinceLine = false
    lastFiredInLine = nil
    return dropped
  }

  /// The advance to write before the next step; zero once taken.
  public func takeAdvance() -> Duration {
    defer { unwrittenAdvance = .zero }
    return unwrittenAdvance
  }

  /// A timer due at `liveDue` on the live clock fired.
  func fired(due liveDue: Duration) {
    firedSinceLine = true
    let due = liveDue - origin
    lastFiredInLine = max(lastFiredInLine ?? due, due)
  }

  /// The session's host was rebuilt with a new clock, as a replay's relaunch rebuilds it: time
  /// starts again at zero on both.
  public func restart() {
    begin(at: .zero)
  }

  /// After a line: timers it fired (a `settle`) moved the replay's clock to the last one's time,
  /// as they move the live one.
  public func lineFinished() {
    if let last = lastFiredInLine, last > now { now = last }
    lastFiredInLine = nil
    firedSinceLine = false
  }

  /// The longest pause between lines that is taken as noise when no timer fired in it.
  public static let noise = Duration.milliseconds(20)
}
