/// Delivers source changes after they are applied. Observation reports a change before it
/// lands, so notifications wait here and run when the host flushes: after every command, and
/// whenever a front end asks. Delivery is in order and on the main actor.
///
/// Each session has its own (`SessionServices.scheduler`): a change in one host's sources is
/// delivered by that host's flush, never by another's.
@MainActor
package final class ConnectionScheduler {
  private var pending: [@MainActor () -> Void] = []

  /// An empty scheduler.
  package init() {}

  /// Queues a notification.
  package func enqueue(_ work: @escaping @MainActor () -> Void) {
    pending.append(work)
  }

  /// Whether notifications wait.
  package var hasPending: Bool { !pending.isEmpty }

  /// Runs every waiting notification, including ones they queue, in order.
  package func flush() {
    var rounds = 0
    while !pending.isEmpty && rounds < 10_000 {
      let batch = pending
      pending = []
      for work in batch { work() }
      rounds += 1
    }
  }
}

/// What a source calls when its value changed: the subscriber's reaction, with the session's
/// scheduler, through which a source that hears of a change before it lands (Observation)
/// delivers it after. Call it like a function: `onChange()`.
@MainActor
package struct ChangeSink {
  /// The scheduler of the session the subscriber belongs to.
  package let scheduler: ConnectionScheduler
  package let action: @MainActor () -> Void

  /// A sink that runs `action`, in the session of `scheduler`.
  package init(scheduler: ConnectionScheduler, _ action: @escaping @MainActor () -> Void) {
    self.scheduler = scheduler
    self.action = action
  }

  /// Reacts to the change now.
  package func callAsFunction() { action() }
}
