import WorkbenchModuleAPI

/// What one command in a window did to the timers that window started: the ones it set and the
/// ones it cancelled. Kept with the step it made in the window's view history, so `undo view`
/// takes the set ones away and puts the cancelled ones back (at the times they were due, with
/// the handles their screen kept), and `redo view` does the command's again.
///
/// A screen that sets its timers from its view state as it is restored (a feed that loads
/// again for the query it is given back) keeps them: when its `restore` sets or cancels one of
/// its window's timers, the host leaves the timers as the screen made them. A module process
/// decides the same in its kit: its timers move first, and the `restore` that follows tells it
/// which (§18).
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
    guard let clock else { return restore() }
    func apply() {
      for order in away { clock.takeAway(order) }
      for order in back { clock.putBack(order) }
      clock.historyTimerMoves += 1
    }
    if relayed {
      apply()
      return restore()
    }
    let mark = clock.beginChanges()
    restore()
    if clock.changes(since: mark, window: window) == nil { apply() }
  }
}
