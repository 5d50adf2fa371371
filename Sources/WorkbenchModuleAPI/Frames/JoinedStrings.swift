extension Array where Element == String {
  /// The strings one after another, `separator` between each two.
  ///
  /// It shadows the standard library's `joined(separator:)` for arrays of strings in this
  /// package's modules only (`package`: a module written against the kit does not get it). That one is generic over the collection and is not
  /// specialised for arrays, so its first call in a process looked its associated types up by
  /// name and scanned the binary's conformance records, 0.15 M instructions of a one-shot
  /// `workbench -c` (docs/performance.md). The text is the same.
  package func joined(separator: String = "") -> String {
    guard count > 1 else { return first ?? "" }
    var length = separator.utf8.count * (count - 1)
    for element in self { length += element.utf8.count }
    var result = ""
    result.reserveCapacity(length)
    result += self[0]
    for element in self[1...] {
      result += separator
      result += element
    }
    return result
  }
}
