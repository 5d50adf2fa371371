/// Objects a module shares across the windows of one session: a simulated bridge per home,
/// a network, a cache. Created on first use, dropped with the host (a relaunch starts new ones).
///
/// A service is found by its type, and by a name where a session holds several of one type
/// (one bridge per home document): `services.shared(HomeBridge.self, named: "home") { ... }`.
@MainActor
public final class SessionServices {
  private struct Key: Hashable {
    let type: ObjectIdentifier
    let name: String
  }
  private var values: [Key: AnyObject] = [:]
  /// The session's clock.
  public let clock: SessionClock
  /// The session's scheduler, which delivers source changes after they land.
  public var scheduler: ConnectionScheduler { clock.scheduler }
  /// The session's external facts: every answer, event or state an effect takes from outside
  /// goes through them, so a recording keeps it and a replay substitutes it.
  public let facts: SessionFacts

  /// The services of a session on `clock`. A host makes its own; a screen built outside a host
  /// (in a unit test) gets a private session on a virtual clock.
  public init(clock: SessionClock, facts: SessionFacts = SessionFacts()) {
    self.clock = clock
    self.facts = facts
  }

  /// The `Service` stored under `name`, made by `make` the first time.
  public func shared<Service: AnyObject>(_ type: Service.Type, named name: String = "", make: () -> Service)
    -> Service
  {
    let key = Key(type: ObjectIdentifier(type), name: name)
    if let existing = values[key] as? Service { return existing }
    let made = make()
    values[key] = made
    return made
  }
}
