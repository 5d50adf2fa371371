/// An exact amount of money in cents. Never binary floating point.
public struct Money: Codable, Comparable, Hashable, Sendable, CustomStringConvertible {
  /// The amount in cents; negative for money going out.
  public var cents: Int64

  public init(cents: Int64) { self.cents = cents }

  /// Parses `12`, `12.3` or `12.34` (at most two decimals, optionally negative).
  public init?(parsing text: String) {
    var digits = Substring(text)
    let negative = digits.hasPrefix("-")
    if negative { digits = digits.dropFirst() }
    let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].allSatisfy(\.isASCIIDigit),
      parts[0].count <= 13
    else { return nil }
    var cents = Int64(parts[0])! * 100
    if parts.count == 2 {
      let fraction = parts[1]
      guard (1...2).contains(fraction.count), fraction.allSatisfy(\.isASCIIDigit) else { return nil }
      cents += Int64(fraction.count == 1 ? String(fraction) + "0" : String(fraction))!
    }
    self.cents = negative ? -cents : cents
  }

  public static func < (lhs: Money, rhs: Money) -> Bool { lhs.cents < rhs.cents }

  /// `-12.05`, `1234.50`.
  public var description: String {
    let magnitude = cents.magnitude
    let fraction = magnitude % 100
    return (cents < 0 ? "-" : "") + "\(magnitude / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
  }
}

extension Character {
  var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
