/// Decodes `Decodable` values from frame values, and so from JSON text (`FrameValue.parse`): the
/// workspace's documents and view states, a runner worker's messages.
///
/// It stands in for Foundation's `JSONDecoder` (see `FrameValueEncoder` for why) and reports
/// problems the same way, as `DecodingError`s with the coding path, which `DecodingErrorText`
/// turns into `books[2].title is missing`. Text that is not JSON is a `dataCorrupted` error that
/// says what is wrong and at which byte. Nesting is bounded by the parser (512 levels).
package struct FrameValueDecoder {
  package init() {}

  /// A value of type `Value` read from `value`.
  package func decode<Value: Decodable>(_ type: Value.Type, from value: FrameValue) throws -> Value {
    try SlotDecoder(value: value, codingPath: []).decodeValue(type)
  }

  /// A value of type `Value` read from JSON text.
  package func decode<Value: Decodable>(_ type: Value.Type, fromJSON bytes: [UInt8]) throws -> Value {
    let value: FrameValue
    do {
      value = try FrameValue.parse(json: bytes)
    } catch {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: [], debugDescription: "not JSON: \(error)"))
    }
    return try decode(type, from: value)
  }
}

private struct SlotDecoder: Decoder {
  package let value: FrameValue
  package let codingPath: [any CodingKey]
  package var userInfo: [CodingUserInfoKey: Any] { [:] }

  package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let object) = value else {
      throw FrameValueDecoding.mismatch([String: FrameValue].self, value, codingPath)
    }
    return KeyedDecodingContainer(KeyedFrameContainer<Key>(object: object, codingPath: codingPath))
  }

  package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .list(let items) = value else { throw FrameValueDecoding.mismatch([FrameValue].self, value, codingPath) }
    return UnkeyedFrameContainer(items: items, codingPath: codingPath)
  }

  package func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleFrameContainer(value: value, codingPath: codingPath)
  }

  /// Plain values straight from the tree, frame values as they are, anything else through its
  /// `init(from:)`.
  package func decodeValue<Value: Decodable>(_ type: Value.Type) throws -> Value {
    switch type {
    case is FrameValue.Type: return value as! Value
    case is String.Type: return try FrameValueDecoding.string(value, codingPath) as! Value
    case is Int.Type: return try FrameValueDecoding.integer(Int.self, value, codingPath) as! Value
    case is Bool.Type: return try FrameValueDecoding.bool(value, codingPath) as! Value
    case is Double.Type: return try FrameValueDecoding.double(value, codingPath) as! Value
    default: return try Value(from: self)
    }
  }
}

/// The rules for reading plain values, shared by the containers.
package enum FrameValueDecoding {
  package static func mismatch(_ type: Any.Type, _ value: FrameValue, _ codingPath: [any CodingKey]) -> DecodingError {
    if case .null = value {
      return .valueNotFound(type, DecodingError.Context(codingPath: codingPath, debugDescription: "found null"))
    }
    return .typeMismatch(
      type, DecodingError.Context(codingPath: codingPath, debugDescription: "found \(describe(value)) instead"))
  }

  package static func describe(_ value: FrameValue) -> String {
    switch value {
    case .null: return "null"
    case .bool: return "true or false"
    case .integer, .number: return "a number"
    case .string: return "text"
    case .list: return "a list"
    case .object: return "a mapping"
    }
  }

  package static func string(_ value: FrameValue, _ codingPath: [any CodingKey]) throws -> String {
    guard case .string(let string) = value else { throw mismatch(String.self, value, codingPath) }
    return string
  }

  package static func bool(_ value: FrameValue, _ codingPath: [any CodingKey]) throws -> Bool {
    guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, codingPath) }
    return bool
  }

  package static func double(_ value: FrameValue, _ codingPath: [any CodingKey]) throws -> Double {
    switch value {
    case .number(let number): return number
    case .integer(let integer): return Double(integer)
    default: throw mismatch(Double.self, value, codingPath)
    }
  }

  /// A whole number that fits `Integer`; a number with a fraction, or out of range, is a
  /// `dataCorrupted` error that says so (never a trap).
  package static func integer<Integer: FixedWidthInteger>(
    _ type: Integer.Type, _ value: FrameValue, _ codingPath: [any CodingKey]
  ) throws -> Integer {
    let fitted: Integer?
    switch value {
    case .integer(let integer): fitted = Integer(exactly: integer)
    case .number(let number): fitted = Integer(exactly: number)
    default: throw mismatch(type, value, codingPath)
    }
    guard let fitted else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: codingPath, debugDescription: "\(value.jsonText) does not fit \(type)"))
    }
    return fitted
  }
}

private struct KeyedFrameContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  package let object: FrameObject
  package let codingPath: [any CodingKey]
  /// Positions by key, for objects big enough that searching the members would cost more.
  private let positions: [String: Int]?

  package init(object: FrameObject, codingPath: [any CodingKey]) {
    self.object = object
    self.codingPath = codingPath
    if object.members.count > 16 {
      var positions: [String: Int] = [:]
      for (position, member) in object.members.enumerated() { positions[member.key] = position }
      self.positions = positions
    } else {
      positions = nil
    }
  }

  package var allKeys: [Key] { object.members.compactMap { Key(stringValue: $0.key) } }

  private func member(_ key: Key) -> FrameValue? {
    if let positions { return positions[key.stringValue].map { object.members[$0].value } }
    return object[key.stringValue]
  }

  private func required(_ key: Key) throws -> FrameValue {
    guard let value = member(key) else {
      throw DecodingError.keyNotFound(
        key, DecodingError.Context(codingPath: codingPath, debugDescription: "no member '\(key.stringValue)'"))
    }
    return value
  }

  package func contains(_ key: Key) -> Bool { member(key) != nil }

  package func decodeNil(forKey key: Key) throws -> Bool {
    if case .null = try required(key) { return true }
    return false
  }

  package func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try SlotDecoder(value: try required(key), codingPath: codingPath + [key]).decodeValue(type)
  }

  package func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try SlotDecoder(value: try required(key), codingPath: codingPath + [key]).container(keyedBy: type)
  }

  package func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try SlotDecoder(value: try required(key), codingPath: codingPath + [key]).unkeyedContainer()
  }

  package func superDecoder() throws -> any Decoder {
    SlotDecoder(
      value: object[PlainCodingKey.superKey.stringValue] ?? .null, codingPath: codingPath + [PlainCodingKey.superKey])
  }

  package func superDecoder(forKey key: Key) throws -> any Decoder {
    SlotDecoder(value: member(key) ?? .null, codingPath: codingPath + [key])
  }
}

private struct UnkeyedFrameContainer: UnkeyedDecodingContainer {
  package let items: [FrameValue]
  package let codingPath: [any CodingKey]
  package var currentIndex = 0

  package init(items: [FrameValue], codingPath: [any CodingKey]) {
    self.items = items
    self.codingPath = codingPath
  }

  package var count: Int? { items.count }
  package var isAtEnd: Bool { currentIndex >= items.count }

  private var path: [any CodingKey] { codingPath + [PlainCodingKey(intValue: currentIndex)] }

  private func current(_ type: Any.Type) throws -> FrameValue {
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(
        type, DecodingError.Context(codingPath: path, debugDescription: "the list has only \(items.count) items"))
    }
    return items[currentIndex]
  }

  package mutating func decodeNil() throws -> Bool {
    guard case .null = try current(Never.self) else { return false }
    currentIndex += 1
    return true
  }

  package mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let value = try SlotDecoder(value: try current(type), codingPath: path).decodeValue(type)
    currentIndex += 1
    return value
  }

  package mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    let container = try SlotDecoder(value: try current(FrameObject.self), codingPath: path).container(keyedBy: type)
    currentIndex += 1
    return container
  }

  package mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let container = try SlotDecoder(value: try current([FrameValue].self), codingPath: path).unkeyedContainer()
    currentIndex += 1
    return container
  }

  package mutating func superDecoder() throws -> any Decoder {
    let decoder = SlotDecoder(value: try current(FrameValue.self), codingPath: path)
    currentIndex += 1
    return decoder
  }
}

private struct SingleFrameContainer: SingleValueDecodingContainer {
  package let value: FrameValue
  package let codingPath: [any CodingKey]

  package func decodeNil() -> Bool {
    if case .null = value { return true }
    return false
  }

  package func decode(_ type: Bool.Type) throws -> Bool { try FrameValueDecoding.bool(value, codingPath) }
  package func decode(_ type: String.Type) throws -> String { try FrameValueDecoding.string(value, codingPath) }
  package func decode(_ type: Double.Type) throws -> Double { try FrameValueDecoding.double(value, codingPath) }
  package func decode(_ type: Float.Type) throws -> Float { Float(try FrameValueDecoding.double(value, codingPath)) }
  package func decode(_ type: Int.Type) throws -> Int { try FrameValueDecoding.integer(type, value, codingPath) }
  package func decode(_ type: Int8.Type) throws -> Int8 { try FrameValueDecoding.integer(type, value, codingPath) }
  package func decode(_ type: Int16.Type) throws -> Int16 { try FrameValueDecoding.integer(type, value, codingPath) }
  package func decode(_ type: Int32.Type) throws -> Int32 { try FrameValueDecoding.integer(type, value, codingPath) }
  package func decode(_ type: Int64.Type) throws -> Int64 { try FrameValueDecoding.integer(type, value, codingPath) }
  package func decode(_ type: UInt.Type) throws -> UInt { try FrameValueDecoding.integer(type, value, codingPath) }
  package func decode(_ type: UInt8.Type) throws -> UInt8 { try FrameValueDecoding.integer(type, value, codingPath) }
  package func decode(_ type: UInt16.Type) throws -> UInt16 { try FrameValueDecoding.integer(type, value, codingPath) }
  package func decode(_ type: UInt32.Type) throws -> UInt32 { try FrameValueDecoding.integer(type, value, codingPath) }
  package func decode(_ type: UInt64.Type) throws -> UInt64 { try FrameValueDecoding.integer(type, value, codingPath) }

  package func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try SlotDecoder(value: value, codingPath: codingPath).decodeValue(type)
  }
}
