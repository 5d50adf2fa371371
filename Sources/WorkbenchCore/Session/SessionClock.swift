#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The session's clock: real time in the shell, virtual time in scenarios, where only
/// `clock advance` moves it, so every run sees the same times.
@MainActor
public final class SessionClock {
  /// Where the time comes from.
  public enum Mode: Equatable, Sendable {
    /// The system's monotonic clock.
    case real
    /// A clock that starts at zero and moves only when told to.
    case virtual
  }

  /// Where the time comes from.
  public let mode: Mode
  private var virtualNow: Duration = .zero
  private let realStart: Duration

  /// A clock of the given mode.
  public init(mode: Mode) {
    self.mode = mode
    self.realStart = SessionClock.monotonic()
  }

  /// The time since the session started.
  public var now: Duration {
    mode == .virtual ? virtualNow : SessionClock.monotonic() - realStart
  }

  /// Moves a virtual clock forward.
  ///
  /// - Throws: `CommandError` on a real clock, which cannot be moved.
  public func advance(by duration: Duration) throws(CommandError) {
    guard mode == .virtual else {
      throw CommandError("this session runs on real time; `clock advance` works in scenarios, on virtual time")
    }
    guard duration >= .zero else { throw CommandError("the clock only moves forward") }
    virtualNow += duration
  }

  private static func monotonic() -> Duration {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
  }

  /// Parses a duration such as `300ms`, `2s`, `1.5s`, `1m` or `250us`.
  public static func parseDuration(_ text: String) -> Duration? {
    let units: [(String, Double)] = [
      ("ms", 1e-3), ("us", 1e-6), ("µs", 1e-6), ("ns", 1e-9), ("s", 1), ("m", 60), ("h", 3600),
    ]
    for (suffix, scale) in units where text.hasSuffix(suffix) {
      guard let value = Double(text.dropLast(suffix.count)), value.isFinite, value >= 0 else { return nil }
      let nanoseconds = (value * scale * 1e9).rounded()
      guard nanoseconds < 1e18 else { return nil }
      return .nanoseconds(Int64(nanoseconds))
    }
    return nil
  }

  /// A duration as text: `1.5s`, `300ms`.
  public static func describe(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
    if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
    return "\(milliseconds)ms"
  }
}
