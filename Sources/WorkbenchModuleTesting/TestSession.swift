import WorkbenchCore
import WorkbenchModuleAPI

/// A session of modules in the test's own process, on a virtual clock (only `advance` moves
/// it): what a module's unit test drives as the shell or a scenario would, line by line, and
/// reads back by window. The host behind it is the one the shell and the runner use; the test
/// sees only the session's face.
@MainActor
public final class TestSession {
  private let host: Host

  /// A session with `modules` registered and their sample documents loaded, no window open,
  /// whose clock reads zero at `date` on the calendar (`SessionTime.date`; a scenario's `date:`,
  /// 2026-01-01T00:00:00Z unless given).
  ///
  /// - Throws: why the modules cannot be registered together (two of one name, a clash).
  public init(modules: [any FeatureModule], date: CalendarDate? = nil) throws {
    host = try Host(modules: modules, clock: .virtual)
    if let date { host.clock.calendarOrigin = date }
  }

  /// Runs a line as the shell would (`open tasks todo a; add Buy milk`, `@a done 1`): what
  /// each command showed.
  ///
  /// - Throws: `CommandError` for the first command refused; the ones before it ran.
  @discardableResult
  public func run(_ line: String) throws(CommandError) -> [CommandOutput] {
    try host.run(line: line)
  }

  /// The labels of the open windows (a name, or the number), in the order they opened.
  public var windows: [String] { host.windows.map(\.label) }

  /// The frame the window named (or numbered) `window` shows now.
  public func frame(of window: String) -> FrameValue? { host.window(named: window)?.frame }

  /// The terminal text the window named (or numbered) `window` shows now.
  public func text(of window: String) -> String? { host.window(named: window)?.text }

  /// The document named `name` as it is now.
  public func document(named name: String) -> DocumentSnapshot? { host.document(named: name) }

  /// The session's time.
  public var now: Duration { host.clock.now }

  /// The session's time on its calendar: the date it started at plus `now`.
  public var date: CalendarDate { host.clock.date }

  /// Moves the session's time forward: the timers due on the way fire, in order.
  ///
  /// - Throws: `CommandError` when what a timer did went wrong (it is said as a step's error).
  public func advance(by duration: Duration) throws(CommandError) {
    _ = try host.run(line: "clock advance \(duration.wholeMilliseconds)ms")
  }
}
