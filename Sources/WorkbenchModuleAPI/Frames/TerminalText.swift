/// Text from outside (a title from an imported file, a name from a workspace row, a module's
/// frame) made safe to put on a terminal: control characters become visible, as `less` shows
/// them, so `ESC ] 52` cannot write the clipboard and `ESC [ 2J` cannot clear the screen.
package enum TerminalText {
  /// `text` with every control character but newline and tab written visibly: C0 controls and
  /// DEL in caret notation (`^[` for ESC, `^M` for a carriage return, `^?` for DEL), C1
  /// controls and the bidirectional overrides as `<U+009B>`.
  ///
  /// - Complexity: O(n); text without such characters is returned as it is after one pass
  ///   over its bytes.
  package static func visible(_ text: String) -> String {
    guard needsEscaping(text) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 16)
    for scalar in text.unicodeScalars {
      if let shown = shown(scalar) {
        result += shown
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// The first character of `text` that `visible` would rewrite, newline and tab included:
  /// for names, which are refused where they enter rather than shown escaped.
  package static func controlCharacter(in text: String) -> Unicode.Scalar? {
    text.unicodeScalars.first { $0 == "\n" || $0 == "\t" || shown($0) != nil }
  }

  /// How a scalar is written, or `nil` when it is written as it is.
  private static func shown(_ scalar: Unicode.Scalar) -> String? {
    switch scalar.value {
    case 0x0A, 0x09: return nil
    case 0x00..<0x20: return "^" + String(Unicode.Scalar(UInt8(scalar.value + 0x40)))
    case 0x7F: return "^?"
    case 0x80..<0xA0, 0x202A...0x202E, 0x2066...0x2069:
      let hex = String(scalar.value, radix: 16, uppercase: true)
      return "<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">"
    default: return nil
    }
  }

  /// Whether `text` holds a character `shown` rewrites, by its UTF-8 bytes (one pass, no
  /// decoding): C0 controls but newline and tab, DEL, C1 controls (`C2 80`-`C2 9F`), and the
  /// bidirectional controls (`E2 80 AA`-`E2 80 AE`, `E2 81 A6`-`E2 81 A9`).
  private static func needsEscaping(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
      var index = 0
      while index < bytes.count {
        let byte = bytes[index]
        if (byte < 0x20 && byte != 0x0A && byte != 0x09) || byte == 0x7F { return true }
        if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) { return true }
        if byte == 0xE2, index + 2 < bytes.count {
          let second = bytes[index + 1]
          let third = bytes[index + 2]
          if second == 0x80 && (0xAA...0xAE).contains(third) { return true }
          if second == 0x81 && (0xA6...0xA9).contains(third) { return true }
        }
        index += 1
      }
      return false
    }
  }
}
