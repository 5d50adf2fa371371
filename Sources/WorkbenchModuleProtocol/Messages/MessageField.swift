import WorkbenchCore
import WorkbenchModuleAPI

/// How a field's value looks on the wire, for reading it, saying what was expected when it is
/// not that, and describing it in the JSON Schema (docs/protocol.schema.json).
public indirect enum WireType: Sendable, Equatable {
  case string
  case integer(minimum: Int? = nil, maximum: Int? = nil)
  case boolean
  /// Any JSON value.
  case anyValue
  /// Any JSON object (a frame).
  case anyObject
  /// An object whose values are all of one type, by any keys (facts by source).
  case map(WireType)
  case list(WireType, maximumCount: Int? = nil)
  /// A structure declared elsewhere (a definition of the schema).
  case structure(String)
  /// The type, or null.
  case nullable(WireType)
  /// One of these words.
  case choice([String])

  /// What a value of the type is, for a problem (`... as text`).
  var phrase: String {
    switch self {
    case .string: return "text"
    case .integer(let minimum, let maximum):
      switch (minimum, maximum) {
      case (let low?, let high?): return "a whole number from \(low) to \(high)"
      case (let low?, nil): return "a whole number of at least \(low)"
      default: return "a whole number"
      }
    case .boolean: return "true or false"
    case .anyValue: return "a value"
    case .anyObject, .map: return "an object"
    case .list(_, let maximum?): return "a list of at most \(maximum)"
    case .list: return "a list"
    case .structure: return "an object"
    case .nullable(let type): return type.phrase + " or null"
    case .choice(let words): return "one of " + words.joined(separator: ", ")
    }
  }

  /// Whether `value` is of the type (a structure is checked by its own fields).
  func admits(_ value: FrameValue) -> Bool {
    switch (self, value) {
    case (.string, .string), (.boolean, .bool), (.anyValue, _), (.anyObject, .object), (.structure, .object):
      return true
    case (.integer(let minimum, let maximum), .integer(let number)):
      return number >= (minimum ?? Int.min) && number <= (maximum ?? Int.max)
    case (.map(let type), .object(let object)): return object.members.allSatisfy { type.admits($0.value) }
    case (.list(let type, let maximum), .list(let items)):
      return items.count <= (maximum ?? Int.max) && items.allSatisfy { type.admits($0) }
    case (.nullable, .null): return true
    case (.nullable(let type), _): return type.admits(value)
    case (.choice(let words), .string(let word)): return words.contains(word)
    default: return false
    }
  }
}

/// What is written as JSON straight into a message's frame (`MessageChannel.send`): a message
/// of the protocol, or any frame value.
public protocol WireWritable {
  /// Appends the JSON text of the message as UTF-8.
  func appendWire(to output: inout [UInt8])
}

extension FrameValue: WireWritable {
  public func appendWire(to output: inout [UInt8]) { appendJSON(to: &output) }
}

/// One field of a protocol message or structure, declared once: its name on the wire, its type,
/// whether it must be there, what it means, and how it reads from and writes to the Swift value.
/// Decoding, encoding, the checks of a reply and the JSON Schema all come from these.
public struct MessageField<Message>: Sendable {
  /// The key on the wire.
  public let name: String
  public let type: WireType
  /// Whether a message without it is malformed.
  public let required: Bool
  /// What the field means (the schema's description).
  public let description: String
  /// What a problem says was expected, when it says more than the type (`a list of {id, after}
  /// objects`); `nil` to use the type's phrase.
  public let expected: String?
  let read: @Sendable (inout Message, FrameValue) throws(FieldProblem) -> Void
  let write: @Sendable (Message) -> FrameValue?
  /// Whether the field is read and written at its byte offset; `false` when its key path has
  /// none (a computed property, or a protocol's requirement), which costs a key path's run-time
  /// projection on every message.
  let isInline: Bool
  /// `"name":` as JSON, written before the field's value.
  let key: [UInt8]
  /// The name's UTF-8, which a key read straight from a message's text is compared with.
  let nameBytes: [UInt8]
  /// Appends the field's value as JSON, as `write` gives it, without the `FrameValue` between;
  /// appends nothing and says `false` when the field has no value.
  let appendValue: @Sendable (Message, inout [UInt8]) -> Bool
  /// Reads the field's value from JSON text at the cursor, at a depth of nesting, without the
  /// `FrameValue` between where the field can; says `false` for anything `read` would not take
  /// whole (then the message is read again the long way, which says what is wrong).
  let readJSON: @Sendable (inout Message, inout JSONCursor, Int) -> Bool

  init<Value>(
    _ name: String, _ type: WireType, required: Bool, _ description: String, expected: String? = nil,
    property: StoredProperty<Message, Value>,
    read: @escaping @Sendable (inout Message, FrameValue) throws(FieldProblem) -> Void,
    write: @escaping @Sendable (Message) -> FrameValue?,
    appendValue: (@Sendable (Message, inout [UInt8]) -> Bool)? = nil,
    readJSON: (@Sendable (inout Message, inout JSONCursor, Int) -> Bool)? = nil
  ) {
    self.readJSON =
      readJSON ?? { message, cursor, depth in
        guard let value = try? cursor.value(depth: depth) else { return false }
        do throws(FieldProblem) {
          try read(&message, value)
          return true
        } catch {
          return false
        }
      }
    isInline = property.offset != nil
    var key: [UInt8] = []
    FrameValue.appendJSONString(name, to: &key)
    key.append(UInt8(ascii: ":"))
    self.key = key
    nameBytes = Array(name.utf8)
    self.appendValue =
      appendValue ?? { message, output in
        guard let value = write(message) else { return false }
        value.appendJSON(to: &output)
        return true
      }
    self.name = name
    self.type = type
    self.required = required
    self.description = description
    self.expected = expected
    self.read = read
    self.write = write
  }

  /// What a problem with this field says: "`timers` as a list of {id, after} objects".
  var problem: String { "`\(name)` as \(expected ?? type.phrase)" }
}

/// Why a field could not be read: said by the field's own problem text, or more precisely.
struct FieldProblem: Error {
  var detail: String?
}

/// A structure of the protocol: its fields, declared once. A message is one with a `type`.
public protocol WireStructure: Sendable, Equatable {
  /// A value with every field at its default, which reading fills in.
  init()
  /// The fields, in the order they are written.
  static var fields: [MessageField<Self>] { get }
  /// Its name among the schema's definitions.
  static var definitionName: String { get }
  /// What it is, for the schema.
  static var summary: String { get }
  /// What is wrong with it beyond its fields' types (a timer with both `after` and `at`).
  func problems() -> [String]
}

extension WireStructure {
  public func problems() -> [String] { [] }
}

/// What is wrong with a message: every problem, each as "`name` as what it must be".
public struct WireProblems: Error, Equatable, Sendable, CustomStringConvertible {
  public var problems: [String]
  public var description: String { problems.joined(separator: "; ") }
}

extension WireStructure {
  /// Reads a structure from its wire form.
  ///
  /// - Throws: `WireProblems` listing every field missing or of the wrong type.
  public init(wire value: FrameValue) throws(WireProblems) {
    guard case .object(let object) = value else {
      throw WireProblems(problems: ["an object, got \(WireProblems.excerpt(value))"])
    }
    self.init()
    var problems: [String] = []
    // Read in place: a field copied out of the table retains its name, its key and every closure.
    Self.fields.withUnsafeBufferPointer { fields in
      for index in fields.indices {
        guard let member = object[fields[index].name] else {
          if fields[index].required { problems.append(fields[index].problem) }
          continue
        }
        do throws(FieldProblem) {
          try fields[index].read(&self, member)
        } catch {
          problems.append(error.detail.map { "`\(fields[index].name)`: \($0)" } ?? fields[index].problem)
        }
      }
    }
    if problems.isEmpty { problems = self.problems() }
    if !problems.isEmpty { throw WireProblems(problems: problems) }
  }

  /// Reads the structure straight from JSON text at the cursor (an object at `depth` levels of
  /// nesting), with no `FrameValue` made for it or its structures; `nil` for anything that
  /// `init(wire:)` might not read the same (a missing field, a value of another type, a key with
  /// an escape, text that is not JSON), which is then read that way to say what is wrong.
  package static func read(json cursor: inout JSONCursor, depth: Int) -> Self? {
    guard depth < 512, cursor.take(UInt8(ascii: "{")) else { return nil }
    var structure = Self()
    guard structure.readMembers(json: &cursor, depth: depth, afterType: false) else { return nil }
    return structure
  }

  /// Reads the members of an object whose `{` the cursor has passed, up to its `}`, into the
  /// fields; an unknown member is read and left. With `afterType`, its first member was read
  /// already (a message's `type`), and a second `type` is not read here.
  mutating func readMembers(json cursor: inout JSONCursor, depth: Int, afterType: Bool) -> Bool {
    let read = Self.fields.withUnsafeBufferPointer { fields -> Bool in
      guard fields.count <= 64 else { return false }
      var seen: UInt64 = 0
      var more = afterType ? cursor.take(UInt8(ascii: ",")) : !cursor.take(UInt8(ascii: "}"))
      if afterType, !more, !cursor.take(UInt8(ascii: "}")) { return false }
      while more {
        // A key is compared as it is written; one with an escape or beyond ASCII is read the
        // long way.
        guard cursor.isAt(UInt8(ascii: "\"")), let key = cursor.plainString(),
          !(afterType && cursor.bytes(at: key, equal: JSONCursor.typeKey)), cursor.take(UInt8(ascii: ":"))
        else { return false }
        var index = 0
        while index < fields.count, !cursor.bytes(at: key, equal: fields[index].nameBytes) { index += 1 }
        if index < fields.count {
          // A field given twice keeps its last value, as an object does.
          seen |= 1 << UInt64(index)
          guard fields[index].readJSON(&self, &cursor, depth + 1) else { return false }
        } else {
          guard (try? cursor.value(depth: depth + 1)) != nil else { return false }
        }
        more = cursor.take(UInt8(ascii: ","))
        if !more, !cursor.take(UInt8(ascii: "}")) { return false }
      }
      for index in fields.indices where fields[index].required && seen & (1 << UInt64(index)) == 0 {
        return false
      }
      return true
    }
    return read && problems().isEmpty
  }

  /// Reads a list of structures (at most `maximum`) straight from JSON text, as `read(json:)`.
  static func readList(json cursor: inout JSONCursor, depth: Int, maximum: Int?) -> [Self]? {
    guard depth < 512, cursor.take(UInt8(ascii: "[")) else { return nil }
    var structures: [Self] = []
    if cursor.take(UInt8(ascii: "]")) { return structures }
    while true {
      guard structures.count < (maximum ?? Int.max), let structure = read(json: &cursor, depth: depth + 1) else {
        return nil
      }
      structures.append(structure)
      if cursor.take(UInt8(ascii: ",")) { continue }
      return cursor.take(UInt8(ascii: "]")) ? structures : nil
    }
  }

  /// Appends the structure's JSON, byte for byte what `wire.jsonText` gives, without making
  /// the `FrameValue` between: what a message costs on every round trip.
  public func appendWire(to output: inout [UInt8]) {
    output.append(UInt8(ascii: "{"))
    appendWireMembers(to: &output, first: true)
    output.append(UInt8(ascii: "}"))
  }

  /// Appends the fields that have a value as JSON members, each after a comma unless it is the
  /// `first` member of its object.
  func appendWireMembers(to output: inout [UInt8], first: Bool) {
    var first = first
    // Read in place: a field copied out of the table retains its name, its key and every closure.
    Self.fields.withUnsafeBufferPointer { fields in
      for index in fields.indices {
        let mark = output.count
        if !first { output.append(UInt8(ascii: ",")) }
        output += fields[index].key
        if fields[index].appendValue(self, &output) {
          first = false
        } else {
          output.removeLast(output.count - mark)
        }
      }
    }
  }

  /// Appends a list of structures as JSON.
  static func appendWire(_ structures: [Self], to output: inout [UInt8]) {
    output.append(UInt8(ascii: "["))
    for (index, structure) in structures.enumerated() {
      if index > 0 { output.append(UInt8(ascii: ",")) }
      structure.appendWire(to: &output)
    }
    output.append(UInt8(ascii: "]"))
  }

  /// The structure's wire form: its fields in order, those without a value left out.
  public var wire: FrameValue {
    var members: [(key: String, value: FrameValue)] = []
    members.reserveCapacity(Self.fields.count)
    Self.fields.withUnsafeBufferPointer { fields in
      for index in fields.indices {
        if let value = fields[index].write(self) { members.append((fields[index].name, value)) }
      }
    }
    return .object(FrameObject(members: members))
  }
}

extension JSONCursor {
  static let typeKey = Array("type".utf8)

  /// Whether the bytes at `range` (from `plainString()`) are `other`'s. (Here, beside the one
  /// reader that compares every member's key with each field's name: a comparison the caller
  /// cannot see into costs a retain of the name for every field it is compared with.)
  func bytes(at range: Range<Int>, equal other: [UInt8]) -> Bool {
    range.count == other.count && range.lowerBound >= 0 && range.upperBound <= bytes.count
      && bytes[range].elementsEqual(other)
  }

  /// The `type` of a message read straight from its text, when the text begins with it: `{`,
  /// then `"type"` and its text, as every kit writes a message. `nil` for any other start.
  mutating func messageType() -> String? {
    guard take(UInt8(ascii: "{")), isAt(UInt8(ascii: "\"")), (try? string()) == "type", take(UInt8(ascii: ":")),
      isAt(UInt8(ascii: "\""))
    else { return nil }
    return try? string()
  }
}

extension WireStructure {
  /// The rest of a message whose `type` `messageType()` read: its other members, then nothing
  /// but space.
  static func readMessage(json cursor: inout JSONCursor) -> Self? {
    var message = Self()
    guard message.readMembers(json: &cursor, depth: 0, afterType: true) else { return nil }
    cursor.skipSpace()
    return cursor.isAtEnd ? message : nil
  }
}

extension WireProblems {
  static func excerpt(_ value: FrameValue) -> String {
    let text = value.jsonText
    return text.count > 120 ? String(text.prefix(120)) + "…" : text
  }
}
