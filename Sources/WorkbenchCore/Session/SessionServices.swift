/// Objects a module shares across the windows of one session: a simulated bridge per home,
/// a cache. Created on first use, dropped with the host (a relaunch starts new ones).
@MainActor
public final class SessionServices {
  private var values: [String: AnyObject] = [:]
  /// The session's clock.
  public let clock: SessionClock

  init(clock: SessionClock) {
    self.clock = clock
  }

  /// The object stored under `key`, made by `make` the first time.
  public func shared<Service: AnyObject>(_ key: String, make: () -> Service) -> Service {
    if let existing = values[key] as? Service { return existing }
    let made = make()
    values[key] = made
    return made
  }
}
