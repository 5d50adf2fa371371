/// Bounds on the regular expressions a scenario or a command line may give `TextPattern`.
///
/// Its parser recurses once per nesting level, so a pattern such as `[[[[…` two thousand deep
/// would overflow the stack and kill the process. Patterns are checked here first, so such
/// input gets a message instead of a crash. (Matching itself needs no bound: `TextPattern`
/// cannot backtrack.)
public enum RegexLimits {
  /// The longest pattern accepted, in characters.
  public static let maximumLength = 1000
  /// The deepest nesting of groups and character classes accepted.
  public static let maximumNesting = 32

  /// Why `pattern` may not reach the regex engine, or `nil` when it may.
  ///
  /// - Complexity: O(n) in the pattern's length.
  public static func problem(with pattern: String) -> String? {
    var length = 0
    var depth = 0
    var deepest = 0
    var escaped = false
    for character in pattern.unicodeScalars {
      length += 1
      if length > maximumLength {
        return "it is longer than \(maximumLength) characters: use a shorter pattern or a plain substring"
      }
      if escaped {
        escaped = false
        continue
      }
      switch character {
      case "\\": escaped = true
      case "(", "[":
        depth += 1
        deepest = max(deepest, depth)
        if deepest > maximumNesting {
          return "it nests groups and classes more than \(maximumNesting) deep: simplify it"
        }
      case ")", "]": depth = max(0, depth - 1)
      default: break
      }
    }
    return nil
  }

  /// The compiled pattern, or why there is none: too long, too deep, or not valid.
  public static func compile(_ pattern: String) -> Result<TextPattern, RegexProblem> {
    if let problem = problem(with: pattern) { return .failure(RegexProblem(message: problem)) }
    do throws(RegexProblem) {
      return .success(try TextPattern(pattern))
    } catch {
      return .failure(error)
    }
  }
}
