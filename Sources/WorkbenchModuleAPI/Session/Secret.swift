/// A value that must never be stored: a credential, a token, anything a session needs only
/// while it runs. It encodes as a marker instead of its value, and the workspace store refuses
/// to write any text that holds the marker, so a secret put into view state by mistake is
/// caught at the store rather than written to disk. Decoding gives an empty secret.
package struct Secret<Value: Sendable & Equatable>: Codable, Equatable, Sendable {
  /// The marker secrets encode as.
  package static var marker: String { Secrets.marker }

  /// The value, while the session runs.
  package var value: Value?

  /// A secret holding `value`.
  package init(_ value: Value?) { self.value = value }

  package init(from decoder: any Decoder) throws {
    value = nil
  }

  package func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(Secrets.marker)
  }
}

/// What stores check for.
package enum Secrets {
  /// The text a `Secret` encodes as; no stored text may contain it.
  package static let marker = "\u{1}workbench:secret:not-storable\u{1}"

  /// Whether JSON text holds an encoded secret: the marker as a JSON writer escapes it
  /// (`\u0001workbench:secret:not-storable\u0001`), or raw. Text a user typed is data, never a
  /// secret: the words alone, or typed with a backslash (`\u0001...`, which JSON writes with the
  /// backslash escaped, `\\u0001...`), do not count.
  ///
  /// - Complexity: O(n), one search for the marker's words.
  package static func containsSecret(_ json: String) -> Bool {
    let text = Array(json.utf8)
    let words = Array("workbench:secret:not-storable".utf8)
    let escape = Array(#"\u0001"#.utf8)
    var index = 0
    while let found = find(words, in: text, from: index) {
      index = found + 1
      let end = found + words.count
      // Raw: the control characters themselves around the words.
      if found > 0, text[found - 1] == 1, end < text.count, text[end] == 1 { return true }
      // Escaped: `\u{1}` on both sides, the first backslash not escaped itself.
      let start = found - escape.count
      guard start >= 0, Array(text[start..<found]) == escape, end + escape.count <= text.count,
        Array(text[end..<(end + escape.count)]) == escape
      else { continue }
      var backslashes = 0
      while start - backslashes - 1 >= 0, text[start - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
      if backslashes % 2 == 0 { return true }
    }
    return false
  }

  private static func find(_ pattern: [UInt8], in text: [UInt8], from start: Int) -> Int? {
    guard let first = pattern.first, text.count >= pattern.count else { return nil }
    var index = start
    while index + pattern.count <= text.count {
      if text[index] == first, Array(text[index..<(index + pattern.count)]) == pattern { return index }
      index += 1
    }
    return nil
  }
}
