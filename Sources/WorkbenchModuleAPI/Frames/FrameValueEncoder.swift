/// Encodes `Encodable` values as frame values, and so as JSON text: what the workspace stores
/// for a document or a window's view state, and what the runner's reports are written from.
///
/// It stands in for Foundation's `JSONEncoder`: linking Foundation's JSON coders into the binary
/// cost every start of `workbench` about 77 page faults and 0.3 M instructions before `main`
/// (the loader relocating their metadata), whether or not anything was encoded
/// (docs/performance.md). The JSON is the same as `JSONEncoder`'s for every value the workbench
/// stores, but for numbers: a `Double` that is whole is written `2.0`, not `2`, and both read
/// back the same.
package struct FrameValueEncoder {
  /// Whether object members are written sorted by key (`JSONEncoder`'s `.sortedKeys`), so the
  /// same value always gives the same text. Otherwise they keep the order they were encoded in.
  package var sortsKeys: Bool

  package init(sortsKeys: Bool = false) { self.sortsKeys = sortsKeys }

  /// The value as a frame value.
  ///
  /// - Throws: `EncodingError` for a value JSON cannot hold (a `Double` that is not finite), or
  ///   whatever the value's own `encode(to:)` throws.
  package func encode<Value: Encodable>(_ value: Value) throws -> FrameValue {
    let root = EncodingSlot()
    try EncodingSlot.store(value, in: root, codingPath: [])
    return root.value(sortingKeys: sortsKeys)
  }

  /// The value as compact JSON text.
  package func json<Value: Encodable>(_ value: Value) throws -> String {
    try encode(value).jsonText
  }
}

/// Where one encoded value goes: filled by a single value, or by a keyed or unkeyed container
/// whose members are slots of their own (a nested container writes into its parent's tree).
package final class EncodingSlot {
  package enum Content {
    case empty
    case value(FrameValue)
    case object([(key: String, slot: EncodingSlot)])
    case list([EncodingSlot])
  }

  package var content: Content = .empty

  /// Stores `value` in `slot`: plain values directly, frame values as they are, everything
  /// else through its `encode(to:)`.
  package static func store<Value: Encodable>(_ value: Value, in slot: EncodingSlot, codingPath: [any CodingKey]) throws
  {
    if let plain = try plainValue(value, codingPath: codingPath) {
      slot.content = .value(plain)
    } else {
      try value.encode(to: SlotEncoder(slot: slot, codingPath: codingPath))
    }
  }

  /// The frame value of a value JSON holds as one token, or `nil` for anything else.
  package static func plainValue<Value: Encodable>(_ value: Value, codingPath: [any CodingKey]) throws -> FrameValue? {
    switch value {
    case let value as FrameValue: return value
    case let value as String: return .string(value)
    case let value as Bool: return .bool(value)
    case let value as Int: return .integer(value)
    case let value as Double: return try number(value, codingPath: codingPath)
    default: return nil
    }
  }

  package static func number(_ value: Double, codingPath: [any CodingKey]) throws -> FrameValue {
    guard value.isFinite else {
      throw EncodingError.invalidValue(
        value, EncodingError.Context(codingPath: codingPath, debugDescription: "\(value) cannot be written as JSON"))
    }
    return .number(value)
  }

  /// The keyed members, taking over what was there (a container asked for again continues it).
  package func objectMembers() -> [(key: String, slot: EncodingSlot)] {
    if case .object(let members) = content { return members }
    return []
  }

  /// The slot filled so far, as a frame value; an empty slot is an empty object, as
  /// `JSONEncoder` writes a value that encoded nothing.
  package func value(sortingKeys: Bool) -> FrameValue {
    switch content {
    case .empty: return .object(FrameObject())
    case .value(let value): return sortingKeys ? Self.sorted(value) : value
    case .list(let slots): return .list(slots.map { $0.value(sortingKeys: sortingKeys) })
    case .object(let members):
      var ordered = members
      if sortingKeys { ordered.sort { $0.key < $1.key } }
      return .object(
        FrameObject(members: ordered.map { (key: $0.key, value: $0.slot.value(sortingKeys: sortingKeys)) }))
    }
  }

  /// A frame value stored whole, its objects' members sorted too.
  private static func sorted(_ value: FrameValue) -> FrameValue {
    switch value {
    case .object(let object):
      return .object(FrameObject(members: object.members.sorted { $0.key < $1.key }.map { ($0.key, sorted($0.value)) }))
    case .list(let items): return .list(items.map(sorted))
    default: return value
    }
  }
}

private struct SlotEncoder: Encoder {
  package let slot: EncodingSlot
  package let codingPath: [any CodingKey]
  package var userInfo: [CodingUserInfoKey: Any] { [:] }

  package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    slot.content = .object(slot.objectMembers())
    return KeyedEncodingContainer(KeyedSlotContainer<Key>(slot: slot, codingPath: codingPath))
  }

  package func unkeyedContainer() -> any UnkeyedEncodingContainer {
    if case .list = slot.content {} else { slot.content = .list([]) }
    return UnkeyedSlotContainer(slot: slot, codingPath: codingPath)
  }

  package func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleSlotContainer(slot: slot, codingPath: codingPath)
  }
}

/// A coding key made from a string or an index (`super`, a list's positions in a path).
package struct PlainCodingKey: CodingKey {
  package var stringValue: String
  package var intValue: Int?
  package init(stringValue: String) { self.stringValue = stringValue }
  package init(intValue: Int) {
    self.stringValue = String(intValue)
    self.intValue = intValue
  }
  package static let superKey = PlainCodingKey(stringValue: "super")
}

private struct KeyedSlotContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  package let slot: EncodingSlot
  package let codingPath: [any CodingKey]

  /// A new slot for `key` (a key encoded again replaces its value, in its first place).
  private func member(_ key: any CodingKey) -> EncodingSlot {
    let member = EncodingSlot()
    var members = slot.objectMembers()
    if let index = members.firstIndex(where: { $0.key == key.stringValue }) {
      members[index].slot = member
    } else {
      members.append((key.stringValue, member))
    }
    slot.content = .object(members)
    return member
  }

  package mutating func encodeNil(forKey key: Key) throws { member(key).content = .value(.null) }

  package mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try EncodingSlot.store(value, in: member(key), codingPath: codingPath + [key])
  }

  package mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let nested = member(key)
    nested.content = .object([])
    return KeyedEncodingContainer(KeyedSlotContainer<NestedKey>(slot: nested, codingPath: codingPath + [key]))
  }

  package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let nested = member(key)
    nested.content = .list([])
    return UnkeyedSlotContainer(slot: nested, codingPath: codingPath + [key])
  }

  package mutating func superEncoder() -> any Encoder {
    SlotEncoder(slot: member(PlainCodingKey.superKey), codingPath: codingPath + [PlainCodingKey.superKey])
  }

  package mutating func superEncoder(forKey key: Key) -> any Encoder {
    SlotEncoder(slot: member(key), codingPath: codingPath + [key])
  }
}

private struct UnkeyedSlotContainer: UnkeyedEncodingContainer {
  package let slot: EncodingSlot
  package let codingPath: [any CodingKey]

  package var count: Int {
    if case .list(let slots) = slot.content { return slots.count }
    return 0
  }

  private func next() -> EncodingSlot {
    let element = EncodingSlot()
    var slots: [EncodingSlot] = []
    if case .list(let existing) = slot.content { slots = existing }
    // Drop the parent's reference first, so the array is appended to in place.
    slot.content = .empty
    slots.append(element)
    slot.content = .list(slots)
    return element
  }

  package mutating func encodeNil() throws { next().content = .value(.null) }

  package mutating func encode<T: Encodable>(_ value: T) throws {
    let path = codingPath + [PlainCodingKey(intValue: count)]
    try EncodingSlot.store(value, in: next(), codingPath: path)
  }

  package mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<
      NestedKey
    >
  {
    let path = codingPath + [PlainCodingKey(intValue: count)]
    let nested = next()
    nested.content = .object([])
    return KeyedEncodingContainer(KeyedSlotContainer<NestedKey>(slot: nested, codingPath: path))
  }

  package mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let path = codingPath + [PlainCodingKey(intValue: count)]
    let nested = next()
    nested.content = .list([])
    return UnkeyedSlotContainer(slot: nested, codingPath: path)
  }

  package mutating func superEncoder() -> any Encoder {
    let path = codingPath + [PlainCodingKey(intValue: count)]
    return SlotEncoder(slot: next(), codingPath: path)
  }
}

private struct SingleSlotContainer: SingleValueEncodingContainer {
  package let slot: EncodingSlot
  package let codingPath: [any CodingKey]

  package mutating func encodeNil() throws { slot.content = .value(.null) }
  package mutating func encode(_ value: Bool) throws { slot.content = .value(.bool(value)) }
  package mutating func encode(_ value: String) throws { slot.content = .value(.string(value)) }
  package mutating func encode(_ value: Double) throws {
    slot.content = .value(try EncodingSlot.number(value, codingPath: codingPath))
  }
  package mutating func encode(_ value: Float) throws {
    slot.content = .value(try EncodingSlot.number(Double(value), codingPath: codingPath))
  }
  package mutating func encode(_ value: Int) throws { slot.content = .value(.integer(value)) }
  package mutating func encode(_ value: Int8) throws { slot.content = .value(.integer(Int(value))) }
  package mutating func encode(_ value: Int16) throws { slot.content = .value(.integer(Int(value))) }
  package mutating func encode(_ value: Int32) throws { slot.content = .value(.integer(Int(value))) }
  package mutating func encode(_ value: Int64) throws { slot.content = .value(.integer(Int(value))) }
  package mutating func encode(_ value: UInt8) throws { slot.content = .value(.integer(Int(value))) }
  package mutating func encode(_ value: UInt16) throws { slot.content = .value(.integer(Int(value))) }
  package mutating func encode(_ value: UInt32) throws { slot.content = .value(.integer(Int(value))) }
  package mutating func encode(_ value: UInt) throws { try encodeUnsigned(UInt64(value)) }
  package mutating func encode(_ value: UInt64) throws { try encodeUnsigned(value) }

  /// An unsigned value above `Int.max` has no exact frame value: refused, not rounded.
  private func encodeUnsigned(_ value: UInt64) throws {
    guard let integer = Int(exactly: value) else {
      throw EncodingError.invalidValue(
        value, EncodingError.Context(codingPath: codingPath, debugDescription: "\(value) is above \(Int.max)"))
    }
    slot.content = .value(.integer(integer))
  }

  package mutating func encode<T: Encodable>(_ value: T) throws {
    try EncodingSlot.store(value, in: slot, codingPath: codingPath)
  }
}
