/// Lengths of time as users and files write them: `300ms`, `2s`, `1.5s`, `1m`, `2h`, `1d`, `250us`.
public enum DurationText {
  /// The duration `text` says, or `nil` when it is not one (a number, then `ns`, `us`, `µs`,
  /// `ms`, `s`, `m`, `h` or `d`; at most about 31 years).
  public nonisolated static func parse(_ text: String) -> Duration? {
    let units: [(String, Double)] = [
      ("ms", 1e-3), ("us", 1e-6), ("µs", 1e-6), ("ns", 1e-9), ("s", 1), ("m", 60), ("h", 3600),
      ("d", 86400),
    ]
    for (suffix, scale) in units where text.hasSuffix(suffix) {
      guard let value = Double(text.dropLast(suffix.count)), value.isFinite, value >= 0 else { return nil }
      let nanoseconds = (value * scale * 1e9).rounded()
      guard nanoseconds < 1e18 else { return nil }
      return .nanoseconds(Int64(nanoseconds))
    }
    return nil
  }

  /// A duration a user typed, or an error that says how to write one.
  public static func duration(_ text: String) throws(CommandError) -> Duration {
    guard let duration = parse(text) else {
      throw CommandError("'\(text)' is not a duration: write a number and a unit, such as 300ms, 2s, 1m, 2h or 1d")
    }
    return duration
  }

  /// A duration as text: `1.5s` is `1500ms`, whole seconds `2s`.
  public nonisolated static func describe(_ duration: Duration) -> String {
    let milliseconds = duration.wholeMilliseconds
    if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
    return "\(milliseconds)ms"
  }
}

extension Duration {
  /// The duration in whole milliseconds, rounded toward zero.
  /// Saturates at `Int64.min` and `Int64.max` milliseconds: a duration made from a number that
  /// came from outside (a module's timer, a file) never traps here.
  public var wholeMilliseconds: Int64 {
    let (seconds, attoseconds) = components
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
    guard !overflow else { return seconds < 0 ? .min : .max }
    let (sum, carried) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
    guard !carried else { return seconds < 0 ? .min : .max }
    return sum
  }
}
