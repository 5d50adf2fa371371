import WorkbenchModuleAPI

/// What one command in a window did to the timers that window started: the ones it set and the
/// ones it cancelled. Kept with the step it made in the window's view history, so `undo view`
/// takes the set ones away and puts the cancelled ones back (at the times they were due, with
/// the handles their screen kept), and `redo view` does the command's again.
///
/// The timers move first, then the screen takes the state back (`restore`), finding its timers
/// as they were: one that sets its timers from its view state (a feed that loads again for the
/// query it is given back) and sets or cancels one then keeps its own, and those put back go
/// again. A module process's kit does the same as the `restore` that carries them says (§18).
@MainActor
package final class TimerChanges: StepTimers {
  private weak var clock: SessionClock?
  /// The window whose timers they are.
  let window: Int
  /// The numbers of the timers it set, and of those it cancelled.
  package let set: [Int]
  package let cancelled: [Int]
  /// Whether they are a module process's, relayed to it with the `restore`.
  let relayed: Bool
  /// Whether the screen took its timers over (its `restore` set or cancelled one as an undo or
  /// redo gave it the state): from then on the step moves no timer.
  private var takenOver = false

  init(clock: SessionClock, window: Int, set: [Int], cancelled: [Int], relayed: Bool) {
    self.clock = clock
    self.window = window
    self.set = set
    self.cancelled = cancelled
    self.relayed = relayed
  }

  package func undo(restoring restore: () -> Void) {
    move(away: set, back: cancelled, restoring: restore)
  }

  package func redo(restoring restore: () -> Void) {
    move(away: cancelled, back: set, restoring: restore)
  }

  private func move(away: [Int], back: [Int], restoring restore: () -> Void) {
    guard let clock, !takenOver else { return restore() }
    for order in away { clock.takeAway(order) }
    let returned = back.filter { clock.putBack($0) }
    clock.historyTimerMoves += 1
    // A module process's kit decides as its screen takes the state (its reply says, §18).
    if relayed {
      clock.movingHistory = self
      defer { clock.movingHistory = nil }
      return restore()
    }
    let mark = clock.beginChanges()
    restore()
    guard clock.changes(since: mark, window: window) != nil else { return }
    // The screen set or cancelled timers as it took the state: it keeps its timers from the state
    // itself, so those put back go again (and those taken away stay away).
    for order in returned { clock.takeAway(order) }
    takeOver()
  }

  /// The screen keeps its timers from the state itself: the step moves none from now on.
  package func takeOver() {
    guard !takenOver else { return }
    takenOver = true
    clock?.historyTimerMoves -= 1
  }
}
