/// Delivers source changes after they are applied. Observation reports a change before it
/// lands, so notifications wait here and run when the host flushes: after every command, and
/// whenever a front end asks. Delivery is in order and on the main actor.
@MainActor
public final class ConnectionScheduler {
  /// The one scheduler of the process (sessions run on the main actor, one at a time).
  public static let shared = ConnectionScheduler()

  private var pending: [@MainActor () -> Void] = []

  /// Queues a notification.
  public func enqueue(_ work: @escaping @MainActor () -> Void) {
    pending.append(work)
  }

  /// Runs every waiting notification, including ones they queue, in order.
  public func flush() {
    var rounds = 0
    while !pending.isEmpty && rounds < 10_000 {
      let batch = pending
      pending = []
      for work in batch { work() }
      rounds += 1
    }
  }
}
