import WorkbenchModuleAPI

/// A module a workspace has seen loaded (an external module, by its executable): what it was
/// called and what it registered, so a document, a window or a scenario that needs it while it
/// is not loaded can say which module that is and how to load it.
public struct KnownModule: Codable, Equatable, Sendable {
  /// The module's name.
  public var name: String
  /// Its executable.
  public var path: String
  /// The document kinds it registered.
  public var documentKinds: [String]
  /// The screens it registered.
  public var screens: [String]

  /// A module seen with these.
  public init(name: String, path: String, documentKinds: [String], screens: [String]) {
    self.name = name
    self.path = path
    self.documentKinds = documentKinds
    self.screens = screens
  }

  /// How to load it: for a message.
  public var howToLoad: String {
    "load it with `-m \(path)`, or `workbench modules add \(path)` for every start"
  }
}

extension [KnownModule] {
  /// The module that registered document kind `kind`, if one was seen.
  public func owner(ofKind kind: String) -> KnownModule? { first { $0.documentKinds.contains(kind) } }

  /// The module that registered screen `screen`, if one was seen.
  public func owner(ofScreen screen: String) -> KnownModule? { first { $0.screens.contains(screen) } }

  /// How a listing marks a document or window of a module that is not loaded, whose owner
  /// (when the workspace saw it) is `owner`.
  public static func dormantMark(owner: KnownModule?) -> String {
    "dormant: " + (owner.map { "the module \($0.name) is not loaded" } ?? "its module is not loaded")
  }

  /// What a message about an unknown screen adds: the module it may be, and how to load it.
  public func hint(forScreen screen: String) -> String {
    guard let module = owner(ofScreen: screen) else { return "" }
    return " (it is a screen of the module \(module.name), which is not loaded: \(module.howToLoad))"
  }
}
