import WorkbenchModuleAPI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The session's clock: real time in the shell, virtual time in scenarios, where only
/// `clock advance` moves it, so every run sees the same times.
@MainActor
public final class SessionClock: SessionTime {
  /// Where the time comes from.
  public enum Mode: Equatable, Sendable {
    /// The system's monotonic clock.
    case real
    /// A clock that starts at zero and moves only when told to.
    case virtual
  }

  /// Where the time comes from.
  public private(set) var mode: Mode
  private var virtualNow: Duration = .zero
  /// A timer set on the clock: when it is due, its number (the order it was set in), whether it
  /// may run early to catch up (`fireNow`), the window whose work set it, what it runs, the handle
  /// its setter holds, and what to tell when an undo or redo puts it back or takes it away.
  private struct Timer {
    var due: Duration
    let order: Int
    let catchesUp: Bool
    let window: Int?
    let action: @MainActor () -> Void
    let handle: Cancellation
    let moved: (@MainActor (_ back: Bool, _ handle: Cancellation) -> Void)?
  }
  private var timers: [Timer] = []
  private var timerCount = 0
  /// Timers cancelled lately, by number, which an undo may put back (`TimerChanges`): the most
  /// recent `keptCancelled`.
  private var cancelled: [Int: Timer] = [:]
  /// How many cancelled timers the clock keeps for undo.
  static var keptCancelled: Int { 256 }
  /// The numbers of the timers cancelled while a window's command ran (`beginChanges`), in order.
  private var cancelledLog: [Int] = []
  /// How many windows' commands note what they do to timers now (one inside another's).
  private var noting = 0
  /// The window whose work runs now (a command in it, its opening, a timer it set): the timers set
  /// meanwhile are that window's, which an undo in its view history puts back or takes away.
  package var actingWindow: Int?
  /// When a real clock read zero; moved later by the pauses a recording does not count.
  private var realStart: Duration
  /// The time a real clock reads while a line or a timer runs (the line's start, the timer's
  /// due time), so every command of a line and every request it sends has one time, the one a
  /// replay's virtual clock has there.
  private var heldAt: Duration?
  /// The time the last line ended at (on a real clock).
  private var endedAt: Duration?
  /// Whether the next line was already waiting when the last one ended (a script's lines come
  /// through a pipe all at once): the time between them is the machine's, not the session's,
  /// so the line starts at the time the last one ended, however slow the machine (a sanitizer
  /// build took 40 ms between two lines, and a recording wrote it as a `clock advance`).
  /// Taken by the next `beginLine`.
  public var nextLineWasWaiting = false

  /// How a real clock waits for its next timer (`settle`): `true` once the time passed, `false`
  /// when the wait was interrupted (Ctrl-C in the shell). Without one, the wait is not
  /// interrupted. The front end that owns the session's terminal sets it.
  public var interruptibleWait: ((Duration) -> Bool)?

  /// The session's scheduler: changes that timers cause are delivered after each timer.
  package let scheduler: ConnectionScheduler
  /// The module whose code runs now (the one that registered the command, timer or live source
  /// being run); `nil` while the host's own code runs. A timer runs as the module that set it:
  /// the host knows who writes, and nothing a module passes says so.
  package var acting: String?
  /// The session's facts, which own the timeline a recording follows (set by the host).
  public weak var facts: SessionFacts?
  /// Follows the timers while a session records, to work out how far a replay's virtual clock
  /// must move between commands: the facts' timeline, which every clock of the session (a
  /// relaunch makes a new one) reports to.
  var timeline: ReplayTimeline? { facts?.timeline }

  /// A clock of the given mode, delivering changes through `scheduler`.
  package init(mode: Mode, scheduler: ConnectionScheduler = ConnectionScheduler()) {
    self.mode = mode
    self.scheduler = scheduler
    self.realStart = SessionClock.monotonic()
    self.calendarOrigin = mode == .real ? SessionClock.wallTime() : .scenarioDefault
  }

  /// The time since the session started: on a real clock in whole milliseconds, and the
  /// line's (or the timer's) while one runs.
  public var now: Duration {
    switch mode {
    case .virtual: return virtualNow
    case .real: return heldAt ?? runningNow
    }
  }

  /// Where the clock reads zero on the calendar: the wall time a real clock started at, a
  /// scenario's `date:` (or its default) on a virtual one. A relaunch's clock starts where the
  /// last one had got to; a replay's where its recording's did.
  public var calendarOrigin: CalendarDate

  /// `now` on the calendar.
  public var date: CalendarDate { calendarOrigin.adding(now) }

  /// The wall time now, for a real clock's calendar origin.
  public nonisolated static func wallTime() -> CalendarDate {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return CalendarDate(milliseconds: time.tv_sec * 1000 + time.tv_nsec / 1_000_000)
  }

  /// A real clock's time as it runs, in whole milliseconds.
  private var runningNow: Duration {
    .milliseconds((SessionClock.monotonic() - realStart).wholeMilliseconds)
  }

  /// A line starts. On a real clock the timers due by now fire first, each at its own time;
  /// then the clock holds the line's time until `endLine` (a recording may not count the pause
  /// before it, as noise). A virtual clock moves only when told.
  public func beginLine() {
    guard mode == .real else { return }
    if nextLineWasWaiting, heldAt == nil, let endedAt { realStart = SessionClock.monotonic() - endedAt }
    nextLineWasWaiting = false
    heldAt = nil
    var start = runningNow
    fireDue(upTo: start)
    if let timeline {
      let dropped = timeline.lineStarts(at: start)
      realStart += dropped
      start -= dropped
    }
    heldAt = start
  }

  /// The line finished: a real clock runs again, from the time it held. The time the line
  /// took to run is not the session's (a replay's virtual clock does not move while a line
  /// runs either), so what a recording writes between two lines is the pause between them,
  /// however fast the machine ran the lines: the same file on a loaded machine, under a
  /// sanitizer, or on a slower module.
  public func endLine() {
    guard mode == .real, let held = heldAt else { return }
    realStart = SessionClock.monotonic() - held
    endedAt = held
    heldAt = nil
  }

  /// Turns a real clock virtual where it is (`clock advance` in the shell): from here its time
  /// moves only as `clock advance` and `settle` move it, as a scenario's does, so a person can
  /// see midnight without waiting for it. Nothing due is lost: timers keep their times.
  public func turnVirtual() {
    guard mode == .real else { return }
    virtualNow = now
    heldAt = nil
    endedAt = nil
    nextLineWasWaiting = false
    mode = .virtual
  }

  /// Moves a virtual clock forward.
  ///
  /// - Throws: `CommandError` on a real clock, which cannot be moved.
  public func advance(by duration: Duration) throws(CommandError) {
    guard mode == .virtual else {
      throw CommandError("this session runs on real time; `clock advance` works in scenarios, on virtual time")
    }
    guard duration >= .zero else { throw CommandError("the clock only moves forward") }
    try advance(to: virtualNow + duration, firingDueThen: true)
  }

  /// Moves a virtual clock forward to `target`, firing the timers due on the way, and those due
  /// at `target` itself only when `firingDueThen` (a module's kit leaves them to the host's
  /// `timer` request for each, so timers due at one moment run in the host's order).
  package func advance(to target: Duration, firingDueThen: Bool) throws(CommandError) {
    guard mode == .virtual else {
      throw CommandError("this session runs on real time; `clock advance` works in scenarios, on virtual time")
    }
    // Timers fire in order, each at its own time, as the clock passes them. Timers that keep
    // setting others due at the same moment, without end (a module process can), are stopped
    // there, not followed forever.
    while let next = timers.filter({ $0.due < target || (firingDueThen && $0.due == target) }).min(
      by: Self.firesFirst)
    {
      if next.due == lastFiring.moment {
        lastFiring.count += 1
        guard lastFiring.count <= Self.mostTimersAtOnce else {
          throw CommandError(
            "more than \(Self.mostTimersAtOnce) timers came due at \(Self.describe(next.due)): something keeps "
              + "setting timers that are due at once (a module's timer loop?); the clock stopped there")
        }
      } else {
        lastFiring = (next.due, 1)
      }
      virtualNow = max(virtualNow, next.due)
      timers.removeAll { $0.order == next.order }
      next.action()
      scheduler.flush()
    }
    virtualNow = max(virtualNow, target)
  }

  /// The most timers a virtual clock runs at one moment before it refuses to go on: far beyond
  /// what a module needs, short of hanging on a timer that sets itself again at once.
  public static let mostTimersAtOnce = 1000
  /// The moment the last timer fired at, and how many fired then.
  private var lastFiring: (moment: Duration, count: Int) = (.zero, 0)

  /// Runs `action` once the clock has moved `delay` past now: on a virtual clock when
  /// `advance` passes that time; on a real one at the first chance after it (`fireDue`).
  @discardableResult
  public func schedule(after delay: Duration, _ action: @escaping @MainActor () -> Void) -> Cancellation {
    schedule(after: delay, catchingUp: true, action)
  }

  /// `schedule(after:_:)`, saying whether the timer may run before it is due to catch up with
  /// work already done (`fireNow`): a module process's may only when its kit runs a timer the
  /// host names before its time (hello `catchUp`, §14).
  @discardableResult
  package func schedule(
    after delay: Duration, catchingUp: Bool, _ action: @escaping @MainActor () -> Void
  ) -> Cancellation {
    schedule(after: delay, catchingUp: catchingUp, moved: nil, action)
  }

  /// `schedule(after:catchingUp:_:)`, with what to tell when an undo or redo puts the timer back
  /// (`true`) or takes it away (`false`): a module process's timer, which its kit must put back
  /// too.
  @discardableResult
  package func schedule(
    after delay: Duration, catchingUp: Bool, moved: (@MainActor (_ back: Bool, _ handle: Cancellation) -> Void)?,
    _ action: @escaping @MainActor () -> Void
  ) -> Cancellation {
    timerCount += 1
    let order = timerCount
    let module = acting
    let window = actingWindow
    let handle = Cancellation { [weak self] in self?.cancel(order) }
    timers.append(
      Timer(
        due: now + delay, order: order, catchesUp: catchingUp, window: window,
        action: { [weak self] in
          guard let self else { return action() }
          let (outer, outerWindow) = (acting, actingWindow)
          (acting, actingWindow) = (module, window)
          defer { (acting, actingWindow) = (outer, outerWindow) }
          action()
        }, handle: handle, moved: moved))
    return handle
  }

  /// A timer cancelled through its handle: kept a while, so an undo can put it back.
  private func cancel(_ order: Int) {
    guard let index = timers.firstIndex(where: { $0.order == order }) else { return }
    keep(timers.remove(at: index))
    if noting > 0 { cancelledLog.append(order) }
  }

  /// Keeps a cancelled timer, letting go of the oldest past `keptCancelled`.
  private func keep(_ timer: Timer) {
    cancelled[timer.order] = timer
    if cancelled.count > Self.keptCancelled, let oldest = cancelled.keys.min() { cancelled[oldest] = nil }
  }

  // MARK: What a window's command did to its timers

  /// Where a window's command starts, for `changes(since:window:)`.
  package struct ChangeMark {
    let timers: Int
    let cancelled: Int
  }

  /// Starts noting the timers a command cancels.
  package func beginChanges() -> ChangeMark {
    noting += 1
    return ChangeMark(timers: timerCount, cancelled: cancelledLog.count)
  }

  /// What the work since `mark` did to the timers of window `window`: the timers it set that
  /// wait, and the ones set before that it cancelled. An undo puts them back as they were.
  package func changes(since mark: ChangeMark, window: Int) -> TimerChanges? {
    noting -= 1
    defer { if noting == 0 { cancelledLog.removeAll() } }
    let set = timers.filter { $0.order > mark.timers && $0.window == window }.map(\.order)
    let dropped = cancelledLog[min(mark.cancelled, cancelledLog.count)...].filter {
      $0 <= mark.timers && cancelled[$0]?.window == window
    }
    guard !set.isEmpty || !dropped.isEmpty else { return nil }
    let relayed = (set + dropped).contains { order in
      (timers.first { $0.order == order } ?? cancelled[order])?.moved != nil
    }
    return TimerChanges(clock: self, window: window, set: set, cancelled: Array(dropped), relayed: relayed)
  }

  /// How many undo and redo steps moved their window's timers as the history kept them (a
  /// screen that set its timers from its restored view state itself, or a module process that
  /// did, moved none): what explore holds the timers to after an undo.
  package var historyTimerMoves = 0
  /// The history step whose timers a module process is being told of, while its `restore` runs.
  package weak var movingHistory: TimerChanges?

  /// Puts a cancelled timer back as it was (its number, time and handle); `false` when the clock
  /// no longer keeps it.
  @discardableResult
  package func putBack(_ order: Int) -> Bool {
    guard let timer = cancelled.removeValue(forKey: order) else { return false }
    timer.handle.renew { [weak self] in self?.cancel(order) }
    timers.append(timer)
    timer.moved?(true, timer.handle)
    return true
  }

  /// Takes a waiting timer away as its handle would cancel it (kept, so a redo can put it back);
  /// `false` when it no longer waits.
  @discardableResult
  package func takeAway(_ order: Int) -> Bool {
    guard let index = timers.firstIndex(where: { $0.order == order }) else { return false }
    let timer = timers.remove(at: index)
    timer.handle.cancelQuietly()
    keep(timer)
    timer.moved?(false, timer.handle)
    return true
  }

  /// Runs `body` as window `number`'s work: the timers it sets are the window's (its view
  /// history puts them back; at one moment they fire in the window's place).
  package func inWindow<Result, Failure: Error>(_ number: Int?, _ body: () throws(Failure) -> Result)
    throws(Failure) -> Result
  {
    let outer = actingWindow
    actingWindow = number
    defer { actingWindow = outer }
    return try body()
  }

  /// Which of two timers fires first: the one due first; at one moment, window by window (by
  /// the windows' numbers, the session's own first) and each window's in the order they were
  /// set. So a window opened again, whose timers are set anew, keeps its place among the others.
  private static func firesFirst(_ one: Timer, _ other: Timer) -> Bool {
    (one.due, one.window ?? 0, one.order) < (other.due, other.window ?? 0, other.order)
  }

  /// How long until the next timer is due, if any waits.
  public var untilNextTimer: Duration? {
    timers.map(\.due).min().map { max(.zero, $0 - now) }
  }

  /// Lets time pass until no timer is pending: a virtual clock moves to each next timer in turn,
  /// a real clock sleeps until it is due and fires it; changes are delivered after each.
  ///
  /// - Parameter leavingLater: stop, without an error, at the first timer due past `limit` (a
  ///   timer every midnight, which never settles), leaving it and those after it waiting.
  /// - Returns: how much time passed.
  /// - Throws: `CommandError` saying what is still pending when `limit` would be passed first
  ///   (unless `leavingLater`), or that the wait was interrupted.
  @discardableResult
  package func settle(
    within limit: Duration, flush scheduler: ConnectionScheduler, leavingLater: Bool = false
  ) throws(CommandError) -> Duration {
    // A real clock runs while it waits; the line then has the time of the last timer that
    // fired (as a replay's virtual clock has), or its own if none did.
    let held = heldAt
    heldAt = nil
    var lastFired: Duration?
    defer {
      if let held { heldAt = max(held, lastFired ?? held) }
    }
    let start = now
    var waited = false
    let setBefore = timerCount
    scheduler.flush()
    while let next = untilNextTimer {
      let passed = now - start
      guard passed + next <= limit else {
        if leavingLater { return passed }
        // The advice is more than was waited, and enough for the next timer at least.
        let seconds = max(limit * 2, passed + next).components.seconds
        let advice = SessionClock.describe(.seconds(OutsideNumbers.saturatingSuccessor(of: Int(seconds))))
        // What it did, in words: it stops at once when the next timer is past the limit.
        // (On real time a moment passes whatever fires: what fired is what says it did something.)
        let did =
          !waited
          ? "nothing was due within \(SessionClock.describe(limit))"
          : "settled \(SessionClock.describe(passed)), and nothing more was due within \(SessionClock.describe(limit))"
        // Timers that set others as they fire may never end (a timer every midnight): a longer
        // settle would only meet the next one. Moving the clock is what shows such a session.
        let recurring =
          waited && timerCount > setBefore
          ? "; the timers that fired set others, and one that sets itself again without end (a timer every "
            + "midnight) never lets `settle` end"
            + (mode == .virtual
              ? ": move the clock as far as you want to see instead (`clock advance \(SessionClock.describe(limit))`)"
              : "")
          : ""
        var error = CommandError("\(did): \(pendingSummary) (give a longer time: `settle \(advice)`\(recurring))")
        // The time that passed, and what its timers did, stays.
        error.isPartial = waited || passed > .zero
        throw error
      }
      waited = true
      if mode == .virtual {
        try advance(by: next)
      } else {
        if next > .zero {
          if let wait = interruptibleWait {
            guard wait(next) else {
              var error = CommandError(
                "interrupted after \(SessionClock.describe(now - start)): \(pendingSummary) still pending, "
                  + "nothing was undone (`settle` again to go on waiting)")
              error.isPartial = true
              throw error
            }
          } else {
            let (seconds, attoseconds) = next.components
            var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            var left = timespec()
            while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
          }
        }
        if let fired = fireDue(upTo: runningNow) { lastFired = max(lastFired ?? fired, fired) }
      }
      scheduler.flush()
    }
    return now - start
  }

  /// Runs the timers that are due (on a real clock; a virtual clock runs them as it advances).
  @discardableResult
  public func fireDue() -> Bool {
    guard mode == .real else { return false }
    return fireDue(upTo: now) != nil
  }

  /// Runs the timers due by `current`, each with the clock at its due time (so what it sets
  /// counts from there, as on a virtual clock); the due time of the last, or `nil` if none was.
  @discardableResult
  private func fireDue(upTo current: Duration) -> Duration? {
    var last: Duration?
    // One at a time: a timer's work may set another that is due by then too.
    while let next = timers.filter({ $0.due <= current }).min(by: Self.firesFirst) {
      timers.removeAll { $0.order == next.order }
      timeline?.fired(due: next.due)
      let held = heldAt
      heldAt = next.due
      next.action()
      heldAt = held
      last = next.due
    }
    if last != nil { scheduler.flush() }
    return last
  }

  /// The number the next timer set will be above: timers numbered past it were set since.
  package var timerMark: Int { timerCount }

  /// The waiting timers set since `mark` that may run before they are due (`fireNow`), each with
  /// its number and due time.
  package func timersToCatchUp(since mark: Int) -> [(number: Int, due: Duration)] {
    timers.filter { $0.order > mark && $0.catchesUp }.map { ($0.order, $0.due) }
  }

  /// Runs the waiting timer numbered `number` now, with the clock where it is: how a window
  /// opened again catches up with work the window it replaces had finished (a load whose answer
  /// the run already took). `false` when no such timer waits.
  @discardableResult
  package func fireNow(_ number: Int) -> Bool {
    guard let index = timers.firstIndex(where: { $0.order == number }) else { return false }
    let timer = timers.remove(at: index)
    let held = heldAt
    heldAt = now
    timer.action()
    heldAt = held
    scheduler.flush()
    return true
  }

  /// How many timers wait.
  public var pendingTimers: Int { timers.count }

  /// What waits, in words: `2 timers, the next in 300ms`; `no timer` when none does.
  public var pendingSummary: String {
    guard let next = untilNextTimer else { return "no timer" }
    return "\(timers.count) timer\(timers.count == 1 ? "" : "s"), the next in \(SessionClock.describe(next))"
  }

  /// The timers that wait, each with its number (in the order they were set) and when it is
  /// due: what a module process reports to the host as its own timers (protocol 2).
  public var waitingTimers: [(number: Int, due: Duration)] {
    timers.map { ($0.order, $0.due) }.sorted { $0.number < $1.number }
  }

  /// The waiting timers' numbers, each with the window whose work set it (`nil`: none's), in
  /// the order they were set: what an undo in a window may put back or take away is its own.
  package var waitingTimerWindows: [(number: Int, window: Int?)] {
    timers.map { ($0.order, $0.window) }.sorted { $0.number < $1.number }
  }

  private static func monotonic() -> Duration {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
  }

  /// A duration a user typed, or an error that says how to write one (`DurationText`).
  public static func duration(_ text: String) throws(CommandError) -> Duration { try DurationText.duration(text) }

  /// The duration `text` says, or `nil` (`DurationText.parse`).
  public nonisolated static func parseDuration(_ text: String) -> Duration? { DurationText.parse(text) }

  /// A duration as text: `1.5s`, `300ms` (`DurationText.describe`).
  public nonisolated static func describe(_ duration: Duration) -> String { DurationText.describe(duration) }
}
