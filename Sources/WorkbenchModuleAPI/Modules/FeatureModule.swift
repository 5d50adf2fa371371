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
  /// The names the module registers, said without registering: the modules built with the host
  /// say them, so a start that uses one module does not build every module's commands and
  /// samples. Leave it out: the default, `nil`, registers the module as the host starts.
  var declaredIndex: ModuleIndex? { get }
}

extension FeatureModule {
  /// No index: the module is registered as the host starts.
  public var declaredIndex: ModuleIndex? { nil }
}

/// The names a module registers, as plain text: its screens (with the document kind each
/// shows), its document kinds (with their samples' names) and its top-level commands. The host
/// checks a module's registration against its index when it registers it; one that differs is
/// reported as a registration error, not trusted. (Lists, not dictionaries: making the first
/// dictionary of a process costs more than a start should.)
public struct ModuleIndex: Equatable, Sendable {
  /// A screen's name, and the document kind it shows.
  package struct Screen: Equatable, Sendable {
    package var name: String
    package var documentKind: String
  }
  /// A document kind's name, and the names of its samples.
  package struct Kind: Equatable, Sendable {
    package var name: String
    package var samples: [String]
  }

  /// The screens.
  package var screens: [Screen]
  /// The document kinds.
  package var documentKinds: [Kind]
  /// The top-level commands' names.
  package var commands: [String]

  /// An index: `screens` as (screen, document kind) pairs, `documentKinds` as (kind, sample
  /// names) pairs.
  package init(screens: [(String, String)], documentKinds: [(String, [String])], commands: [String]) {
    self.screens = screens.map { Screen(name: $0.0, documentKind: $0.1) }
    self.documentKinds = documentKinds.map { Kind(name: $0.0, samples: $0.1) }
    self.commands = commands
  }

  /// The same index in one order (by name), for comparing two.
  package var sorted: ModuleIndex {
    var index = self
    index.screens.sort { $0.name < $1.name }
    index.documentKinds = documentKinds.map { Kind(name: $0.name, samples: $0.samples.sorted()) }
      .sorted { $0.name < $1.name }
    index.commands.sort()
    return index
  }

  /// The kind the screen named `name` shows, when the index has the screen.
  package func kind(ofScreen name: String) -> String? { screens.first { $0.name == name }?.documentKind }

  /// Whether the index has the document kind named `name`.
  package func hasKind(_ name: String) -> Bool { documentKinds.contains { $0.name == name } }
}
