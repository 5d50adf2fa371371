extension FrameValue {
  /// The frame as compact JSON on one line, members in their order.
  public var jsonText: String {
    var output: [UInt8] = []
    output.reserveCapacity(256)
    appendJSON(to: &output)
    return String(decoding: output, as: UTF8.self)
  }

  /// Appends the frame's JSON as UTF-8 bytes (a byte buffer: appending to a `String` a
  /// character at a time was most of the cost of writing traces).
  ///
  /// With `escapingLessThan`, `<` is written `\u003c` (the same JSON), so the text can sit
  /// inside an HTML `<script>` element.
  public func appendJSON(to output: inout [UInt8], escapingLessThan: Bool = false) {
    switch self {
    case .null: output += "null".utf8
    case .bool(let value): output += (value ? "true" : "false").utf8
    case .integer(let value): output += String(value).utf8
    case .number(let value): output += (value.isFinite ? String(value) : "null").utf8
    case .string(let value): FrameValue.appendJSONString(value, to: &output, escapingLessThan: escapingLessThan)
    case .list(let elements):
      output.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        element.appendJSON(to: &output, escapingLessThan: escapingLessThan)
      }
      output.append(UInt8(ascii: "]"))
    case .object(let object):
      output.append(UInt8(ascii: "{"))
      for (index, member) in object.members.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        FrameValue.appendJSONString(member.key, to: &output, escapingLessThan: escapingLessThan)
        output.append(UInt8(ascii: ":"))
        member.value.appendJSON(to: &output, escapingLessThan: escapingLessThan)
      }
      output.append(UInt8(ascii: "}"))
    }
  }

  /// Appends `string` as a JSON string: quotes, backslashes and control characters escaped,
  /// everything else (UTF-8 included) copied as it is, in runs; `<` too unless
  /// `escapingLessThan`.
  package static func appendJSONString(_ string: String, to output: inout [UInt8], escapingLessThan: Bool = false) {
    output.append(UInt8(ascii: "\""))
    var string = string
    string.withUTF8 { bytes in
      var runStart = 0
      for index in 0..<bytes.count {
        let byte = bytes[index]
        guard
          byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
            || (escapingLessThan && byte == UInt8(ascii: "<"))
        else { continue }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
        runStart = index + 1
        switch byte {
        case UInt8(ascii: "\""): output += #"\""#.utf8
        case UInt8(ascii: "\\"): output += #"\\"#.utf8
        case UInt8(ascii: "\n"): output += #"\n"#.utf8
        case UInt8(ascii: "\r"): output += #"\r"#.utf8
        case UInt8(ascii: "\t"): output += #"\t"#.utf8
        case UInt8(ascii: "<"): output += #"\u003c"#.utf8
        default:
          let hex = Array("0123456789abcdef".utf8)
          output += #"\u00"#.utf8
          output.append(hex[Int(byte >> 4)])
          output.append(hex[Int(byte & 0x0f)])
        }
      }
      output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }
    output.append(UInt8(ascii: "\""))
  }
}

extension FrameValue {
  /// The frame as indented JSON for people to read (two spaces a level, a member or an element a
  /// line, `"key" : value` as Foundation's pretty printer wrote the runner's JSON report before,
  /// empty lists and objects as `[]` and `{}`), ending without a newline.
  package var prettyJSONText: String {
    var output: [UInt8] = []
    appendPrettyJSON(to: &output, indent: 0)
    return String(decoding: output, as: UTF8.self)
  }

  private func appendPrettyJSON(to output: inout [UInt8], indent: Int) {
    func newline(_ level: Int) {
      output.append(UInt8(ascii: "\n"))
      output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
    }
    switch self {
    case .list(let elements) where !elements.isEmpty:
      output.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        newline(indent + 1)
        element.appendPrettyJSON(to: &output, indent: indent + 1)
      }
      newline(indent)
      output.append(UInt8(ascii: "]"))
    case .object(let object) where !object.members.isEmpty:
      output.append(UInt8(ascii: "{"))
      for (index, member) in object.members.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        newline(indent + 1)
        FrameValue.appendJSONString(member.key, to: &output)
        output += " : ".utf8
        member.value.appendPrettyJSON(to: &output, indent: indent + 1)
      }
      newline(indent)
      output.append(UInt8(ascii: "}"))
    default: appendJSON(to: &output)
    }
  }
}
