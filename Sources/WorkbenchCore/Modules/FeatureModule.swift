/// What a module says about itself.
public struct ModuleManifest: Equatable, Sendable {
  /// The module's name; also the prefix of its qualified commands (`catalog.select`).
  public let name: String
  /// The module's version.
  public let version: String
  /// One line that says what the module is.
  public let summary: String

  /// A manifest.
  public init(name: String, version: String, summary: String) {
    self.name = name
    self.version = version
    self.summary = summary
  }
}

/// A feature module: it declares a manifest and registers document kinds, screens and
/// commands. The host knows modules only through this registration.
public protocol FeatureModule: Sendable {
  /// The module's name, version and summary.
  var manifest: ModuleManifest { get }
  /// Registers the module's document kinds, screens and commands.
  @MainActor func register(into registrar: Registrar)
}
