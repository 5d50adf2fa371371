/// A line diff of two texts: unchanged lines start with two spaces, lines only in the first
/// text with `-`, lines only in the second with `+`; runs of unchanged lines beyond `context`
/// lines from a change are shown as `...`.
package enum LineDiff {
  /// The diff from `expected` to `actual`.
  ///
  /// - Complexity: O(n·m) in the two line counts; texts whose product exceeds four million
  ///   lines are summarised instead.
  package static func lines(expected: String, actual: String, context: Int = 2) -> [String] {
    let old = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let new = actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard old.count * new.count <= 4_000_000 else {
      return ["- (expected, \(old.count) lines)", "+ (actual, \(new.count) lines)"]
    }
    // Longest common subsequence, then walk it.
    var table = [[Int]](repeating: [Int](repeating: 0, count: new.count + 1), count: old.count + 1)
    for i in stride(from: old.count - 1, through: 0, by: -1) {
      for j in stride(from: new.count - 1, through: 0, by: -1) {
        table[i][j] = old[i] == new[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
      }
    }
    var output: [(String, Bool)] = []
    var i = 0
    var j = 0
    while i < old.count || j < new.count {
      if i < old.count, j < new.count, old[i] == new[j] {
        output.append(("  " + old[i], false))
        i += 1
        j += 1
      } else if i < old.count, j == new.count || table[i + 1][j] >= table[i][j + 1] {
        // Removed lines before added ones, as diff and git print them.
        output.append(("- " + old[i], true))
        i += 1
      } else {
        output.append(("+ " + new[j], true))
        j += 1
      }
    }
    // Keep changed lines and a little context around them.
    var keep = [Bool](repeating: false, count: output.count)
    for (index, line) in output.enumerated() where line.1 {
      for near in max(0, index - context)...min(output.count - 1, index + context) { keep[near] = true }
    }
    var result: [String] = []
    var skipped = false
    for (index, line) in output.enumerated() {
      if keep[index] {
        result.append(line.0)
        skipped = false
      } else if !skipped {
        result.append("  ...")
        skipped = true
      }
    }
    return result
  }
}
