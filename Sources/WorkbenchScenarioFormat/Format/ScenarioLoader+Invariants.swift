import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioModel

extension ScenarioLoader {
  /// The keys of an invariants file.
  public static let invariantKeys = ["always", "description"]

  /// Reads an invariants file: `always:` maps screen names to the frame each of their windows
  /// shows after every step.
  ///
  /// ```yaml
  /// always:
  ///   catalog:
  ///     matches: {$between: [0, 1000000]}
  /// ```
  public func loadInvariants(_ path: String) throws(ScenarioFileError) -> [Invariant] {
    let documents = try parseFile(path, at: SourceLocation(file: path, line: 1, column: 1))
    return try invariants(in: documents, path: path)
  }

  /// Reads an invariants file's bytes (see `loadInvariants(_:)`).
  public func loadInvariants(bytes: [UInt8], path: String) throws(ScenarioFileError) -> [Invariant] {
    try invariants(in: try parse(bytes, path: path), path: path)
  }

  private func invariants(in documents: [YAMLNode], path: String) throws(ScenarioFileError) -> [Invariant] {
    guard documents.count == 1, let document = documents.first else {
      throw ScenarioFileError(
        "an invariants file holds one YAML document (`always:`), not \(documents.count)",
        at: documents.dropFirst().first?.location ?? SourceLocation(file: path, line: 1, column: 1))
    }
    guard document.pairs != nil else {
      throw ScenarioFileError(
        "an invariants file is a mapping with `always:`, not \(document.kindDescription)", at: document.location)
    }
    try checkKeys(document, allowed: Self.invariantKeys, what: "an invariants file")
    guard let always = document["always"] else {
      throw ScenarioFileError(
        "missing `always:`: map each screen to the frame its windows show after every step", at: document.location)
    }
    guard let screens = always.pairs, !screens.isEmpty else {
      throw ScenarioFileError(
        "always maps screen names to expectations, such as `catalog: {matches: {$between: [0, 1000000]}}`",
        at: always.location)
    }
    let known = registry.screens.map(\.name)
    var seen: Set<String> = []
    var invariants: [Invariant] = []
    for pair in screens {
      guard known.contains(pair.key) else {
        throw ScenarioFileError(
          "no screen '\(pair.key)'\(Suggestions.didYouMean(pair.key, in: known)) (the screens: "
            + "\(known.joined(separator: ", ")))",
          at: pair.keyLocation)
      }
      guard seen.insert(pair.key).inserted else {
        throw ScenarioFileError(
          "screen '\(pair.key)' is named twice under always: put its fields in one mapping", at: pair.keyLocation)
      }
      guard let fields = pair.value.pairs, !fields.isEmpty else {
        throw ScenarioFileError(
          "the invariant of '\(pair.key)' is a mapping of frame fields, as under `expect:`, "
            + "not \(pair.value.kindDescription)",
          at: pair.value.location)
      }
      if let declared = registry.frameFields(ofScreen: pair.key) {
        for field in fields where !declared.contains(field.key) {
          throw ScenarioFileError(
            "screen '\(pair.key)' has no frame field '\(field.key)'\(Suggestions.didYouMean(field.key, in: declared)) "
              + "(its fields: \(declared.joined(separator: ", ")))",
            at: field.keyLocation)
        }
      }
      if let problem = MatcherSyntax.problem(in: pair.value) { throw problem }
      invariants.append(Invariant(screen: pair.key, expected: pair.value, location: pair.keyLocation))
    }
    return invariants
  }
}
