/// A window's view state as stored: the screen's view-state version and the state as JSON.
/// Decoding goes through this boundary so a record from another version is recognised.
public struct ViewStateRecord: Codable, Equatable, Sendable {
  /// The version of the view-state type that wrote the record.
  public var version: Int
  /// The view state as JSON.
  public var state: String

  /// A record.
  public init(version: Int, state: String) {
    self.version = version
    self.state = state
  }
}
