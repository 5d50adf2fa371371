extension FrameValue: Codable {
  private struct Key: CodingKey {
    package var stringValue: String
    package var intValue: Int? { nil }
    package init(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }
  }

  /// Decodes any JSON value. Object members come in the order the decoder gives them.
  public init(from decoder: any Decoder) throws {
    if let object = try? decoder.container(keyedBy: Key.self) {
      var result = FrameObject()
      for key in object.allKeys { result[key.stringValue] = try object.decode(FrameValue.self, forKey: key) }
      self = .object(result)
      return
    }
    if var array = try? decoder.unkeyedContainer() {
      var items: [FrameValue] = []
      while !array.isAtEnd { items.append(try array.decode(FrameValue.self)) }
      self = .list(items)
      return
    }
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      self = .null
    } else if let bool = try? single.decode(Bool.self) {
      self = .bool(bool)
    } else if let integer = try? single.decode(Int.self) {
      self = .integer(integer)
    } else if let number = try? single.decode(Double.self) {
      self = .number(number)
    } else {
      self = .string(try single.decode(String.self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .object(let object):
      var container = encoder.container(keyedBy: Key.self)
      for member in object.members { try container.encode(member.value, forKey: Key(stringValue: member.key)) }
    case .list(let items):
      var container = encoder.unkeyedContainer()
      for item in items { try container.encode(item) }
    case .null:
      var container = encoder.singleValueContainer()
      try container.encodeNil()
    case .bool(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .integer(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .number(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case .string(let value):
      var container = encoder.singleValueContainer()
      try container.encode(value)
    }
  }
}
