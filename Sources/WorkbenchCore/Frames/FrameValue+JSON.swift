extension FrameValue {
  /// The frame as compact JSON on one line, members in their order.
  public var jsonText: String {
    var output = ""
    appendJSON(to: &output)
    return output
  }

  func appendJSON(to output: inout String) {
    switch self {
    case .null: output += "null"
    case .bool(let value): output += value ? "true" : "false"
    case .integer(let value): output += String(value)
    case .number(let value): output += value.isFinite ? String(value) : "null"
    case .string(let value): FrameValue.appendJSONString(value, to: &output)
    case .list(let elements):
      output += "["
      for (index, element) in elements.enumerated() {
        if index > 0 { output += "," }
        element.appendJSON(to: &output)
      }
      output += "]"
    case .object(let object):
      output += "{"
      for (index, member) in object.members.enumerated() {
        if index > 0 { output += "," }
        FrameValue.appendJSONString(member.key, to: &output)
        output += ":"
        member.value.appendJSON(to: &output)
      }
      output += "}"
    }
  }

  static func appendJSONString(_ string: String, to output: inout String) {
    output += "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: output.unicodeScalars.append(scalar)
      }
    }
    output += "\""
  }
}
