import WorkbenchCore
import WorkbenchModuleAPI

/// A module's own rule about its frames: an expectation, written as under `expect:` (same
/// fields, same matchers), that every window on `screen` meets after every step. `workbench
/// explore --always FILE` checks them.
public struct Invariant: Sendable {
  /// The screen whose windows it is about.
  public var screen: String
  /// The frame it expects, as a subset (`{matches: {$between: [0, 1000000]}}`).
  public var expected: YAMLNode
  /// Where the screen's name was written.
  public var location: SourceLocation

  public init(screen: String, expected: YAMLNode, location: SourceLocation) {
    self.screen = screen
    self.expected = expected
    self.location = location
  }
}
