import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

@testable import WorkbenchScenarioModel

/// `TextPattern`, the regex engine of `$matches`, `fails: /…/` and `--filter`: the same answers
/// as Swift's `Regex` on the syntax both take, refusals with a column for what it does not
/// take, and work that grows with the text, never exponentially.
@Suite struct TextPatternTests {
  static let patterns = [
    "abc", "^abc", "abc$", "^$", "a.c", "a*", "a+b", "ab?c", "a{2}", "a{2,}", "a{1,3}b", "(ab)+", "(?:ab|cd)+e",
    "a|b|c", "^(a|ab)c$", "[abc]+", "[^abc]", "[a-c0-9]+x", "\\d+", "\\D", "\\w+", "\\W", "\\s", "\\S+", "\\bab",
    "ab\\b", "\\Bb", "x*y*z*", "(a*)*b", "(a|aa)*c", "[-a]", "[a-]", "a\\.b", "\\(", "[\\]a]", "(?<word>ab)c",
    "b+?", "a{0}b", "é", "[é]", ".*", "OFFSET must be between 0 and \\d+", "no book with id \\d+", "^Algo",
    "(?i)abc", "(?i)[a-c]+", "{", "a{,2}", "a{2", "a{x}",
  ]

  static let alphabet: [Character] = [
    "a", "b", "c", "d", "x", "y", "z", "0", "7", " ", ".", "(", "-", "é", "A", "B", "\n",
  ]

  @Test func answersAsSwiftRegexDoesOnRandomTexts() throws {
    var random = SplitMix64(seed: 0x9A77_E2)
    for pattern in Self.patterns {
      let ours = try TextPattern(pattern)
      let theirs = try Regex(pattern)
      // `\b` is the simple boundary here, Unicode's word rules in Swift's Regex: they differ
      // only where punctuation joins words (`e.g`), so those texts leave out the `.`.
      let alphabet =
        pattern.contains("\\b") || pattern.contains("\\B") ? Self.alphabet.filter { $0 != "." } : Self.alphabet
      for _ in 0..<300 {
        let length = Int.random(in: 0..<12, using: &random)
        let text = String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
        #expect(
          ours.matches(in: text) == text.contains(theirs),
          "/\(pattern)/ on \(text.debugDescription): ours \(ours.matches(in: text))")
      }
    }
  }

  @Test func refusesWhatWouldNeedBacktrackingWithAColumn() {
    let refused: [(String, String)] = [
      ("(a)\\1", "a backreference (column 5)"), ("a(?=b)", "lookaround (column 3)"),
      ("(?<!a)b", "lookaround (column 2)"), ("a*+", "a possessive quantifier"), ("no book (", "a group is not closed"),
      ("*a", "has nothing before it to repeat"), ("a)", "a `)` closes a group that was never opened"),
      ("[abc", "a class `[` is not closed"), ("\\q", "`\\q` is not an escape"), ("[z-a]", "out of order"),
      ("x{2,1}", "the count {2,1} is out of order"),
      ("(a{100}){300}", "too large once its counted repetitions are expanded"),
    ]
    for (pattern, message) in refused {
      guard case .failure(let problem) = RegexLimits.compile(pattern) else {
        Issue.record("/\(pattern)/ was accepted")
        continue
      }
      #expect(problem.message.contains(message), "/\(pattern)/: \(problem.message)")
    }
  }

  /// The patterns that make a backtracking engine take minutes: the automaton's work is at most
  /// a few visits per instruction per character.
  @Test func workGrowsWithTheTextNotExponentially() throws {
    for pattern in ["(a+)+$", "(a|aa)+$", "(a*)*b", "^(\\w+\\s?)*$", "(x+x+)+y", "(.*a){12}"] {
      let compiled = try TextPattern(pattern)
      for length in [10, 22, 200, 2_000] {
        let subject = String(repeating: "a", count: length) + "!"
        var steps = 0
        _ = compiled.matches(in: subject, steps: &steps)
        let bound = 3 * (length + 2) * compiled.program.count
        #expect(steps <= bound, "/\(pattern)/ against \(length) a's: \(steps) steps, bound \(bound)")
        if steps > bound { break }  // longer subjects would only take longer
      }
    }
  }
}
