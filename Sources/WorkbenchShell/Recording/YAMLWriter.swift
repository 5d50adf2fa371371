import WorkbenchCore

/// Writes values as the block-style YAML the project's scenarios use: mappings one key per
/// line, short values in flow style (`{id: 1, title: Swift}`, `[1, 2]`), plain words unquoted.
enum YAMLWriter {
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

  /// A mapping key: plain when it reads back as the same text.
  static func key(_ text: String) -> String { scalar(text, inFlow: true) }

  /// A string: plain when YAML reads it back as the same string, else single-quoted, else
  /// double-quoted (JSON's escapes are YAML's).
  static func scalar(_ text: String, inFlow: Bool = false) -> String {
    if isPlain(text, inFlow: inFlow) { return text }
    if !text.contains("'"), text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) {
      return "'" + text + "'"
    }
    return FrameValue.string(text).jsonText
  }

  private static let reserved: Set<String> = [
    "true", "false", "null", "yes", "no", "on", "off", "y", "n", "~",
  ]

  static func isPlain(_ text: String, inFlow: Bool) -> Bool {
    guard let first = text.first, let last = text.last, first != " ", last != " " else { return false }
    guard !reserved.contains(text.lowercased()) else { return false }
    let extra: Set<Character> =
      inFlow
      ? ["_", ".", "-", "/", " ", "'"]
      : ["_", ".", "-", "/", " ", "'", ";", "=", "+", "(", ")", "!", "?", "<", ">", "@"]
    guard text.allSatisfy({ ($0.isLetter || $0.isNumber) && $0.isASCII || extra.contains($0) }) else { return false }
    if first.isLetter { return true }
    // A word that starts with a digit stays a string only when it is no number (`300ms`, `1-60`).
    guard first.isNumber, !text.contains(" "), Int(text) == nil, Double(text) == nil,
      !text.hasPrefix("0x"), !text.hasPrefix("0o")
    else { return false }
    return true
  }

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
