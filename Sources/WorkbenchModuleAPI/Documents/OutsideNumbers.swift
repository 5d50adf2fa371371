/// Arithmetic on integers that came from outside the process: a file, a workspace row, a
/// recording, a module. Such a number can be anything an `Int` holds (`Int.max` in a
/// hand-edited row), so nothing computed from one may trap: these never do.
public enum OutsideNumbers {
  /// `value + 1`, or `nil` when `value` is `Int.max`.
  public static func successor(of value: Int) -> Int? {
    value < .max ? value + 1 : nil
  }

  /// `value + 1`, staying at `Int.max` (for counters that only report).
  public static func saturatingSuccessor(of value: Int) -> Int {
    value < .max ? value + 1 : .max
  }

  /// `a + b`, held at `Int.min` or `Int.max` where it would overflow.
  package static func saturatingSum(_ a: Int, _ b: Int) -> Int {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? (b > 0 ? .max : .min) : sum
  }

  /// An id for something new beside `ids`: one more than the largest, or, when the largest is
  /// `Int.max`, the smallest positive id none of them has (there always is one).
  public static func newID(among ids: some Sequence<Int>) -> Int {
    let largest = ids.max() ?? 0
    if let next = successor(of: max(0, largest)) { return next }
    let taken = Set(ids)
    var candidate = 1
    while taken.contains(candidate) { candidate += 1 }
    return candidate
  }

  /// The message for a document that cannot take another revision.
  package static func lastRevision(of document: String) -> String {
    "document '\(document)' is at revision \(Int.max), the largest there is, so it cannot take another edit "
      + "(nothing was saved): export it and import it under a new name to go on"
  }
}
