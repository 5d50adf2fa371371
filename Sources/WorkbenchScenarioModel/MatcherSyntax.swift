import WorkbenchCore
import WorkbenchModuleAPI

/// The matchers an expectation may hold in place of a value (`{$between: [0, 100]}`), checked
/// where a file is read: a misspelt name, a value of the wrong shape or a pattern that does not
/// compile is an error at its line and column before anything runs, never a failure blamed on
/// what the module showed.
public enum MatcherSyntax {
  /// The matchers, as a message lists them.
  public static let summary =
    "{$any: true}, {$matches: PATTERN}, {$between: [LOW, HIGH]}, {$contains: [ITEMS]}, {$anyOf: [CHOICES]}"
  static let names = ["$any", "$matches", "$between", "$contains", "$anyOf"]

  /// The first matcher in `node` (at any depth) that is written wrong, as an error at its place.
  public static func problem(in node: YAMLNode) -> ScenarioFileError? {
    switch node.content {
    case .scalar: return nil
    case .sequence(let items):
      for item in items {
        if let problem = problem(in: item) { return problem }
      }
      return nil
    case .mapping(let pairs):
      if let matcher = pairs.first(where: { $0.key.hasPrefix("$") }) {
        guard pairs.count == 1 else {
          return ScenarioFileError(
            "a matcher is a mapping of one key, such as {$between: [0, 100]}; this one has \(pairs.count) "
              + "(\(pairs.map(\.key).joined(separator: ", ")))", at: matcher.keyLocation)
        }
        return problem(ofMatcher: matcher)
      }
      for pair in pairs {
        if let problem = problem(in: pair.value) { return problem }
      }
      return nil
    }
  }

  private static func problem(ofMatcher pair: YAMLPair) -> ScenarioFileError? {
    let value = pair.value
    func error(_ message: String, at location: SourceLocation? = nil) -> ScenarioFileError {
      ScenarioFileError(message, at: location ?? value.location)
    }
    switch pair.key {
    case "$any":
      guard value.scalarText == "true" else { return error("$any takes true: {$any: true}") }
      return nil
    case "$matches":
      guard let pattern = value.scalarText else {
        return error("$matches takes a pattern as text, such as {$matches: '^[0-9]+$'}, not \(value.kindDescription)")
      }
      if case .failure(let problem) = RegexLimits.compile(pattern) {
        return error("the pattern of $matches does not compile: \(problem.message)")
      }
      return nil
    case "$between":
      guard let bounds = value.items, bounds.count == 2 else {
        return error("$between takes two numbers, [LOW, HIGH], such as {$between: [0, 100]}")
      }
      guard let low = bounds[0].scalarText.flatMap(Double.init), let high = bounds[1].scalarText.flatMap(Double.init)
      else {
        return error("$between takes two numbers, [LOW, HIGH], such as {$between: [0, 100]}")
      }
      guard low <= high else { return error("$between [\(low), \(high)] holds no number: put the lower bound first") }
      return nil
    case "$contains":
      guard let items = value.items else {
        return error("$contains takes a list of the items the field holds, such as {$contains: [1, 2]}")
      }
      for item in items {
        if let problem = problem(in: item) { return problem }
      }
      return nil
    case "$anyOf":
      guard let choices = value.items, !choices.isEmpty else {
        return error(
          "$anyOf takes a list of the values or matchers one of which the field meets, such as "
            + "{$anyOf: [null, {$between: [0, 100]}]}")
      }
      for choice in choices {
        if let problem = problem(in: choice) { return problem }
      }
      return nil
    default:
      return ScenarioFileError(
        "'\(pair.key)' is not a matcher\(Suggestions.didYouMean(pair.key, in: names)) (matchers: \(summary))",
        at: pair.keyLocation)
    }
  }
}
