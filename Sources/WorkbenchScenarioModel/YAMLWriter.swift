import WorkbenchCore
import WorkbenchModuleAPI

/// Writes values as the block-style YAML the project's scenarios use: mappings one key per
/// line, short values in flow style (`{id: 1, title: Swift}`, `[1, 2]`), plain words unquoted.
public enum YAMLWriter {
  /// How wide a line may grow before a value goes on lines of its own.
  static let width = 100

  /// `key: value` at `indent`, on one line when it fits, else the key and the value's block.
  static func entry(_ key: String, _ value: FrameValue, indent: Int) -> [String] {
    let head = String(repeating: " ", count: indent) + self.key(key) + ":"
    let flowText = flow(value)
    if isScalar(value) || head.count + 1 + flowText.count <= width || isEmptyCollection(value) {
      return [head + " " + flowText]
    }
    return [head] + block(value, indent: indent + 2)
  }

  /// A mapping's or a list's lines at `indent`.
  static func block(_ value: FrameValue, indent: Int) -> [String] {
    let pad = String(repeating: " ", count: indent)
    switch value {
    case .object(let object):
      return object.members.flatMap { entry($0.key, $0.value, indent: indent) }
    case .list(let items):
      var lines: [String] = []
      for item in items {
        let flowText = flow(item)
        if isScalar(item) || pad.count + 2 + flowText.count <= width || isEmptyCollection(item) {
          lines.append(pad + "- " + flowText)
        } else {
          // The item's block, its first line after the dash.
          var itemLines = block(item, indent: indent + 2)
          if case .list = item {
            lines.append(pad + "-")
          } else if !itemLines.isEmpty {
            itemLines[0] = pad + "- " + itemLines[0].dropFirst(indent + 2)
          }
          lines += itemLines
        }
      }
      return lines
    default:
      return [pad + flow(value)]
    }
  }

  /// A value on one line.
  static func flow(_ value: FrameValue) -> String {
    switch value {
    case .null: return "null"
    case .bool(let flag): return flag ? "true" : "false"
    case .integer, .number: return value.jsonText
    case .string(let text): return scalar(text, inFlow: true)
    case .list(let items): return "[" + items.map(flow).joined(separator: ", ") + "]"
    case .object(let object):
      return "{" + object.members.map { key($0.key) + ": " + flow($0.value) }.joined(separator: ", ") + "}"
    }
  }

  /// A mapping key, as it is written inside `{...}` or on a line of its own: plain when it
  /// reads back as the same text, else quoted (a field named `a: b` or `#c`).
  public static func key(_ text: String) -> String { scalar(text, inFlow: true) }

  /// A string: plain when YAML reads it back as the same string, else single-quoted, else
  /// double-quoted (JSON's escapes are YAML's).
  static func scalar(_ text: String, inFlow: Bool = false) -> String {
    if isPlain(text, inFlow: inFlow) { return text }
    if !text.contains("'"), text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && isPrintable($0) }) {
      return "'" + text + "'"
    }
    return doubleQuoted(text)
  }

  /// Whether YAML may hold the character as it is, inside quotes, and read it back as itself:
  /// YAML's printable set, less the characters it reads as line breaks (NEL, LS, PS).
  static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x09, 0x0A, 0x0D, 0x20...0x7E, 0xA0...0x2027, 0x202A...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF:
      return scalar.value != 0xFEFF
    default:
      return false
    }
  }

  /// A double-quoted scalar: JSON's escapes for quotes, backslashes and breaks, `\uXXXX` for
  /// every character YAML would not read back as itself (DEL, C1 controls, NEL, LS, PS, BOM).
  static func doubleQuoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\t": result += "\\t"
      case "\r": result += "\\r"
      default:
        if scalar.value >= 0x20, isPrintable(scalar) {
          result.unicodeScalars.append(scalar)
        } else {
          let hex = String(scalar.value, radix: 16, uppercase: true)
          result +=
            scalar.value > 0xFFFF
            ? "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
            : "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
      }
    }
    return result + "\""
  }

  /// Words YAML may read as something else (none is longer than 5 letters).
  private static let reserved: Set<String> = [
    "true", "false", "null", "yes", "no", "on", "off", "y", "n", "~",
  ]

  static func isPlain(_ text: String, inFlow: Bool) -> Bool {
    let bytes = text.utf8
    guard let first = bytes.first, let last = bytes.last, first != UInt8(ascii: " "), last != UInt8(ascii: " ")
    else { return false }
    let punctuation = inFlow ? flowPunctuation : blockPunctuation
    var hasSpace = false
    var hasNonASCII = false
    for byte in bytes {
      if byte >= 0x80 {
        hasNonASCII = true
        continue
      }
      // ASCII letters and digits, and punctuation YAML reads as text in that position.
      let isWordByte =
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
        || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
      guard isWordByte || punctuation.contains(byte) else { return false }
      if byte == UInt8(ascii: " ") { hasSpace = true }
    }
    guard bytes.count > 5 || !reserved.contains(text.lowercased()) else { return false }
    // Letters beyond ASCII read as text too (`Gödel`, `Война`); spaces, breaks and invisible
    // characters beyond ASCII do not stay plain.
    if hasNonASCII,
      text.unicodeScalars.contains(where: { scalar in
        guard scalar.value >= 0x80 else { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator, .privateUse, .unassigned,
          .surrogate:
          return true
        default:
          return false
        }
      })
    {
      return false
    }
    if first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9") {
      // A word that starts with a digit stays a string only when it is no number (`300ms`, `1-60`).
      return !hasSpace && Int(text) == nil && Double(text) == nil && !text.hasPrefix("0x") && !text.hasPrefix("0o")
    }
    return (first >= UInt8(ascii: "a") && first <= UInt8(ascii: "z"))
      || (first >= UInt8(ascii: "A") && first <= UInt8(ascii: "Z")) || first >= 0x80
  }

  private static let flowPunctuation: Set<UInt8> = Set("_.-/ '".utf8)
  private static let blockPunctuation: Set<UInt8> = Set("_.-/ ';=+()!?<>@".utf8)

  private static func isScalar(_ value: FrameValue) -> Bool {
    switch value {
    case .list, .object: return false
    default: return true
    }
  }

  private static func isEmptyCollection(_ value: FrameValue) -> Bool {
    switch value {
    case .list(let items): return items.isEmpty
    case .object(let object): return object.members.isEmpty
    default: return false
    }
  }
}
