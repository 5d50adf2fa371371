import WorkbenchModuleAPI

/// A small seeded random number generator (SplitMix64): the same sequence for the same seed on
/// every machine (the standard library's generator is seeded from the system), so a random
/// session (`workbench explore`, a property test) can be run again from its seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  public var state: UInt64
  public init(seed: UInt64) { state = seed }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }

  /// A number in `0..<count` (`count` above zero).
  public mutating func below(_ count: Int) -> Int { Int(next() % UInt64(max(1, count))) }

  /// True `percent` times in a hundred.
  public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

  /// One of `items` (not empty).
  public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
