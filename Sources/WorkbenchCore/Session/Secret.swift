/// A value that must never be stored: a credential, a token, anything a session needs only
/// while it runs. It encodes as a marker instead of its value, and the workspace store refuses
/// to write any text that holds the marker, so a secret put into view state by mistake is
/// caught at the store rather than written to disk. Decoding gives an empty secret.
public struct Secret<Value: Sendable & Equatable>: Codable, Equatable, Sendable {
  /// The marker secrets encode as.
  public static var marker: String { Secrets.marker }

  /// The value, while the session runs.
  public var value: Value?

  /// A secret holding `value`.
  public init(_ value: Value?) { self.value = value }

  public init(from decoder: any Decoder) throws {
    value = nil
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(Secrets.marker)
  }
}

/// What stores check for.
public enum Secrets {
  /// The text a `Secret` encodes as; no stored text may contain it.
  public static let marker = "\u{1}workbench:secret:not-storable\u{1}"

  /// Whether JSON text holds an encoded secret (JSON writes the control characters escaped).
  public static func containsSecret(_ json: String) -> Bool {
    json.contains("workbench:secret:not-storable")
  }
}
