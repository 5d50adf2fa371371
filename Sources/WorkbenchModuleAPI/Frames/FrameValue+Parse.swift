/// A problem in JSON text.
package struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What is wrong.
  package let message: String
  /// The byte offset it was found at.
  package let offset: Int
  package var description: String { "\(message) at byte \(offset)" }
}

extension FrameValue {
  /// Parses JSON text into a frame value, keeping the order of object members. Faster than a
  /// `Decoder` for the module protocol's messages, and bounded: nesting deeper than 512 levels is
  /// an error, not a stack overflow.
  package static func parse(json bytes: [UInt8]) throws(JSONParseError) -> FrameValue {
    var parser = JSONCursor(bytes: bytes)
    let value = try parser.value(depth: 0)
    parser.skipSpace()
    guard parser.index == bytes.count else { throw parser.error("text after the value") }
    return value
  }
}

/// A place in JSON text, read a piece at a time: what `FrameValue.parse` reads with, and what a
/// reader that wants some values without the objects around them (a protocol message read
/// straight into its fields) steps through itself.
package struct JSONCursor {
  package let bytes: [UInt8]
  /// The byte offset of the next byte to read.
  package var index = 0

  package init(bytes: [UInt8]) { self.bytes = bytes }

  package func error(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: index) }

  /// Whether every byte has been read (after `skipSpace`, whether only space was left).
  package var isAtEnd: Bool { index == bytes.count }

  /// Steps past `byte` after any space, and says whether it was there (taking nothing if not).
  package mutating func take(_ byte: UInt8) -> Bool {
    skipSpace()
    guard index < bytes.count, bytes[index] == byte else { return false }
    index += 1
    return true
  }

  /// Whether the next byte after any space is `byte` (taking nothing but the space).
  package mutating func isAt(_ byte: UInt8) -> Bool {
    skipSpace()
    return index < bytes.count && bytes[index] == byte
  }

  /// Steps past space (blanks, tabs, line ends).
  package mutating func skipSpace() {
    while index < bytes.count,
      bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
    {
      index += 1
    }
  }

  /// Reads the value that comes next, at `depth` levels of nesting (deeper than 512 is an error).
  package mutating func value(depth: Int) throws(JSONParseError) -> FrameValue {
    guard depth < 512 else { throw error("nesting too deep") }
    skipSpace()
    guard index < bytes.count else { throw error("unexpected end") }
    switch bytes[index] {
    case UInt8(ascii: "{"):
      index += 1
      var members: [(key: String, value: FrameValue)] = []
      skipSpace()
      if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
        index += 1
        return .object(FrameObject(members: members))
      }
      // Room for a small object's members (and a short list's items) at once: grown one by one,
      // four members took three allocations, and a module's reply read a fifth slower. (None
      // for an empty one.)
      members.reserveCapacity(4)
      while true {
        skipSpace()
        let key = try string()
        skipSpace()
        try expect(UInt8(ascii: ":"))
        members.append((key, try value(depth: depth + 1)))
        skipSpace()
        guard index < bytes.count else { throw error("unclosed object") }
        if bytes[index] == UInt8(ascii: ",") {
          index += 1
          continue
        }
        try expect(UInt8(ascii: "}"))
        return .object(FrameObject(members: members))
      }
    case UInt8(ascii: "["):
      index += 1
      var items: [FrameValue] = []
      skipSpace()
      if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
        index += 1
        return .list(items)
      }
      items.reserveCapacity(4)
      while true {
        items.append(try value(depth: depth + 1))
        skipSpace()
        guard index < bytes.count else { throw error("unclosed list") }
        if bytes[index] == UInt8(ascii: ",") {
          index += 1
          continue
        }
        try expect(UInt8(ascii: "]"))
        return .list(items)
      }
    case UInt8(ascii: "\""):
      return .string(try string())
    case UInt8(ascii: "t"):
      try word("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try word("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try word("null")
      return .null
    default:
      return try number()
    }
  }

  package mutating func expect(_ byte: UInt8) throws(JSONParseError) {
    guard index < bytes.count, bytes[index] == byte else {
      throw error("expected '\(Character(Unicode.Scalar(byte)))'")
    }
    index += 1
  }

  package mutating func word(_ text: String) throws(JSONParseError) {
    for byte in text.utf8 { try expect(byte) }
  }

  package mutating func number() throws(JSONParseError) -> FrameValue {
    let start = index
    var isInteger = true
    while index < bytes.count {
      let byte = bytes[index]
      if (0x30...0x39).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") {
        index += 1
      } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
        isInteger = false
        index += 1
      } else {
        break
      }
    }
    if isInteger, let integer = Self.integer(bytes[start..<index]) { return .integer(integer) }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    if isInteger, let integer = Int(text) { return .integer(integer) }
    guard let number = Double(text), !text.isEmpty else { throw error("not a value") }
    return .number(number)
  }

  /// Decimal digits with an optional minus, read without making a string; `nil` for anything
  /// else (a plus, a lone minus, a number past `Int`'s range), which `Int(_:)` then judges.
  package static func integer(_ digits: ArraySlice<UInt8>) -> Int? {
    var rest = digits[...]
    let negative = rest.first == UInt8(ascii: "-")
    if negative { rest = rest.dropFirst() }
    guard !rest.isEmpty, rest.count <= 18 else { return nil }
    var value = 0
    for byte in rest {
      guard (0x30...0x39).contains(byte) else { return nil }
      value = value * 10 + Int(byte - 0x30)
    }
    return negative ? -value : value
  }

  /// Reads a string (the cursor must be at its opening quote).
  package mutating func string() throws(JSONParseError) -> String {
    try expect(UInt8(ascii: "\""))
    // Most strings hold no escape and only ASCII: made from the bytes in place.
    let start = index
    let ascii: Bool
    (index, ascii) = scanned(from: start)
    if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
      defer { index += 1 }
      if ascii {
        return bytes.withUnsafeBufferPointer {
          String(decoding: UnsafeBufferPointer(rebasing: $0[start..<index]), as: UTF8.self)
        }
      }
      let text = bytes.withUnsafeBufferPointer {
        String(validating: UnsafeBufferPointer(rebasing: $0[start..<index]), as: UTF8.self)
      }
      guard let text else { throw error("invalid UTF-8") }
      return text
    }
    var result = Array(bytes[start..<index])
    while true {
      guard index < bytes.count else { throw error("unclosed string") }
      let byte = bytes[index]
      index += 1
      if byte == UInt8(ascii: "\"") { break }
      guard byte == UInt8(ascii: "\\") else {
        result.append(byte)
        continue
      }
      guard index < bytes.count else { throw error("unclosed string") }
      let escaped = bytes[index]
      index += 1
      switch escaped {
      case UInt8(ascii: "n"): result.append(0x0A)
      case UInt8(ascii: "t"): result.append(0x09)
      case UInt8(ascii: "r"): result.append(0x0D)
      case UInt8(ascii: "b"): result.append(0x08)
      case UInt8(ascii: "f"): result.append(0x0C)
      case UInt8(ascii: "u"):
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
          bytes[index + 1] == UInt8(ascii: "u")
        {
          index += 2
          let low = try hex4()
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw error("bad \\u escape") }
        result += Array(String(Character(unicode)).utf8)
      default: result.append(escaped)
      }
    }
    guard let text = String(validating: result, as: UTF8.self) else { throw error("invalid UTF-8") }
    return text
  }

  /// Where the unescaped run of a string's bytes from `start` ends (at its closing quote, a
  /// backslash, or the end of the text), and whether it was all ASCII.
  private func scanned(from start: Int) -> (end: Int, ascii: Bool) {
    bytes.withUnsafeBufferPointer { buffer in
      var end = start
      var bits: UInt8 = 0
      while end < buffer.count {
        let byte = buffer[end]
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
        bits |= byte
        end += 1
      }
      return (end, bits < 0x80)
    }
  }

  /// Steps past a string that holds only ASCII and no escape (a key, as messages write them),
  /// giving where its bytes are (`bytes(at:equal:)` compares them); `nil`, taking nothing, at
  /// anything else.
  package mutating func plainString() -> Range<Int>? {
    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
    let (end, ascii) = scanned(from: index + 1)
    guard ascii, end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
    defer { index = end + 1 }
    return (index + 1)..<end
  }

  package mutating func hex4() throws(JSONParseError) -> UInt32 {
    guard index + 4 <= bytes.count,
      let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
    else { throw error("bad \\u escape") }
    index += 4
    return value
  }
}
