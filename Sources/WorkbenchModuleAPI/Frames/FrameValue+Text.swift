extension FrameValue {
  /// A plain, indented text rendering of any frame: what a screen without a renderer of its
  /// own shows in the terminal.
  public var outlineText: String {
    var lines: [String] = []
    appendOutline(indent: "", to: &lines)
    return lines.joined(separator: "\n")
  }

  /// A short one-line form of a scalar or small value.
  package var inlineText: String {
    switch self {
    case .null: return "-"
    case .bool(let value): return value ? "yes" : "no"
    case .integer(let value): return String(value)
    case .number(let value): return String(value)
    case .string(let value): return value
    case .list, .object: return jsonText
    }
  }

  private func appendOutline(indent: String, to lines: inout [String]) {
    switch self {
    case .object(let object):
      for member in object.members {
        switch member.value {
        case .object, .list:
          lines.append("\(indent)\(member.key):")
          member.value.appendOutline(indent: indent + "  ", to: &lines)
        default:
          lines.append("\(indent)\(member.key): \(member.value.inlineText)")
        }
      }
    case .list(let elements):
      if elements.isEmpty { lines.append("\(indent)(none)") }
      for element in elements {
        switch element {
        case .object(let object) where !object.members.isEmpty:
          let fields = object.members.map { "\($0.key): \($0.value.inlineText)" }
          lines.append("\(indent)- " + fields.joined(separator: ", "))
        default:
          lines.append("\(indent)- \(element.inlineText)")
        }
      }
    default:
      lines.append(indent + inlineText)
    }
  }
}
