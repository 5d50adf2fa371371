/// Did-you-mean suggestions for names a user mistyped.
public enum Suggestions {
  /// The candidate closest to `word`, if one is close enough to be a likely typo.
  ///
  /// Closeness is the edit distance (insertions, deletions, substitutions and swaps of
  /// neighbouring characters), allowed to grow with the word's length, and less than the whole
  /// of either (so a one-character name never suggests another); a candidate that starts with
  /// the word also counts. Ties go to the candidate listed first.
  package static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
    let lowered = word.lowercased()
    var best: (name: String, distance: Int)? = nil
    for candidate in candidates {
      let distance = editDistance(lowered, candidate.lowercased())
      if best == nil || distance < best!.distance {
        best = (candidate, distance)
      }
    }
    guard let best else { return nil }
    let allowed = max(1, min(3, word.count / 3))
    // A candidate every character of which would change is no likely typo (`a` is not `1`).
    if best.distance <= allowed, best.distance < max(lowered.count, best.name.count) { return best.name }
    let prefixMatches = candidates.filter { $0.lowercased().hasPrefix(lowered) }.sorted()
    return lowered.count >= 2 ? prefixMatches.first : nil
  }

  /// The one way a message offers a correction: `. Did you mean 'x'?` for the candidate closest
  /// to `word`, or nothing when none is close. `separator` starts it (`; ` inside a diff line);
  /// an option is named bare (`Did you mean --workspace?`), everything else quoted.
  public static func didYouMean(
    _ word: String, in candidates: some Sequence<String>, separator: String = ". ", quoted: Bool = true
  ) -> String {
    sentence(for: closest(to: word, in: candidates), separator: separator, quoted: quoted)
  }

  /// `didYouMean`'s sentence for a suggestion already found (or nothing for `nil`).
  public static func sentence(for suggestion: String?, separator: String = ". ", quoted: Bool = true) -> String {
    guard let suggestion else { return "" }
    let capital = separator.hasPrefix(".") ? "Did" : "did"
    return separator + capital + " you mean " + (quoted ? "'\(suggestion)'" : suggestion) + "?"
  }

  /// The restricted Damerau-Levenshtein distance between two strings.
  package static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previousPrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          current[j] = min(current[j], previousPrevious[j - 2] + 1)
        }
      }
      (previousPrevious, previous, current) = (previous, current, previousPrevious)
    }
    return previous[b.count]
  }
}
