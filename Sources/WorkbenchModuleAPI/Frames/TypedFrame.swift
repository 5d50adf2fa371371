/// A value a typed frame's field holds: written as a frame value, and read back from one
/// exactly (`Self(frameValue: value.frameValue) == value`).
public protocol FrameFieldValue: Sendable {
  /// The value as a frame value.
  var frameValue: FrameValue { get }
  /// The value a frame value holds, or `nil` when it holds something else.
  init?(frameValue: FrameValue)
  /// The fields inside such a value, as far as `depth` levels down: a record's, or those of the
  /// record an optional or a list holds; none for a number, text or a truth value.
  static func fieldSchema(depth: Int) -> [FrameFieldSchema]
}

extension FrameFieldValue {
  public static func fieldSchema(depth: Int) -> [FrameFieldSchema] { [] }
}

/// A field of a typed frame as an editor offers it: its name, what it means, and the fields of
/// the value inside it.
public struct FrameFieldSchema: Equatable, Sendable {
  public var name: String
  public var summary: String
  public var fields: [FrameFieldSchema]

  public init(name: String, summary: String, fields: [FrameFieldSchema]) {
    self.name = name
    self.summary = summary
    self.fields = fields
  }

  /// The fields at `path` below `fields` (`["viewport"]`: the viewport's), or `nil` when the path
  /// leaves them.
  public static func fields(at path: [String], in fields: [FrameFieldSchema]) -> [FrameFieldSchema]? {
    var level = fields
    for name in path {
      guard let field = level.first(where: { $0.name == name }) else { return nil }
      level = field.fields
    }
    return level
  }
}

extension Int: FrameFieldValue {
  @inlinable
  public var frameValue: FrameValue { .integer(self) }
  @inlinable
  public init?(frameValue: FrameValue) {
    guard case .integer(let number) = frameValue else { return nil }
    self = number
  }
}

extension String: FrameFieldValue {
  @inlinable
  public var frameValue: FrameValue { .string(self) }
  @inlinable
  public init?(frameValue: FrameValue) {
    guard case .string(let text) = frameValue else { return nil }
    self = text
  }
}

extension Bool: FrameFieldValue {
  @inlinable
  public var frameValue: FrameValue { .bool(self) }
  @inlinable
  public init?(frameValue: FrameValue) {
    guard case .bool(let flag) = frameValue else { return nil }
    self = flag
  }
}

/// Any frame value, for a field whose shape the screen does not declare.
extension FrameValue: FrameFieldValue {
  @inlinable
  public var frameValue: FrameValue { self }
  @inlinable
  public init?(frameValue: FrameValue) { self = frameValue }
}

/// `nil` is `null`. (So a field cannot tell a missing value from a `null` one it holds: an
/// optional of an optional is not a frame field's type.)
extension Optional: FrameFieldValue where Wrapped: FrameFieldValue {
  public static func fieldSchema(depth: Int) -> [FrameFieldSchema] { Wrapped.fieldSchema(depth: depth) }
  @inlinable
  public var frameValue: FrameValue {
    guard let wrapped = self else { return .null }
    return wrapped.frameValue
  }
  @inlinable
  public init?(frameValue: FrameValue) {
    if case .null = frameValue {
      self = .none
    } else if let wrapped = Wrapped(frameValue: frameValue) {
      self = .some(wrapped)
    } else {
      return nil
    }
  }
}

extension Array: FrameFieldValue where Element: FrameFieldValue {
  public static func fieldSchema(depth: Int) -> [FrameFieldSchema] { Element.fieldSchema(depth: depth) }
  @inlinable
  public var frameValue: FrameValue {
    var elements: [FrameValue] = []
    elements.reserveCapacity(count)
    for element in self { elements.append(element.frameValue) }
    return .list(elements)
  }
  @inlinable
  public init?(frameValue: FrameValue) {
    guard case .list(let elements) = frameValue else { return nil }
    var values: [Element] = []
    values.reserveCapacity(elements.count)
    for element in elements {
      guard let value = Element(frameValue: element) else { return nil }
      values.append(value)
    }
    self = values
  }
}

/// A typed frame, or a record inside one (a row, a draft): its fields declared once, in order, in
/// `fields`. The table gives the frame's JSON (an object with exactly those members, in that
/// order), reads one back, and gives a screen its frame schema: the field names a scenario is
/// checked against, what each means in an editor, and which count the window's life, show a
/// refusal or are the window's own (`FramedScreen`).
public protocol FrameRecord: FrameFieldValue, Equatable {
  /// The record every field is read into: its values are all replaced.
  init()
  /// The fields, in the order the frame shows them (an array literal). Declare it `static let`:
  /// it is read for every frame.
  static var fields: FrameFields<Self> { get }
}

extension FrameRecord {
  /// The table's fields with what each holds inside, as far as `depth` levels down (a record
  /// that holds its own kind ends there).
  public static func fieldSchema(depth: Int) -> [FrameFieldSchema] {
    guard depth > 0 else { return [] }
    return fields.map { FrameFieldSchema(name: $0.name, summary: $0.summary, fields: $0.innerSchema(depth - 1)) }
  }

  @inlinable
  public var frameValue: FrameValue {
    let fields = Self.fields
    var members: [(key: String, value: FrameValue)] = []
    members.reserveCapacity(fields.count)
    // Read in place: a field copied out of the table would retain its name and both closures.
    fields.fields.withUnsafeBufferPointer { table in
      for index in table.indices { members.append((table[index].name, table[index].write(self))) }
    }
    return .object(fields.namesRepeat ? FrameObject(members: members) : FrameObject(uniqueMembers: members))
  }

  /// The record an object holds: every field of the table, of its type, and nothing else (a
  /// member the table does not know would be lost, so such an object is not this record).
  @inlinable
  public init?(frameValue: FrameValue) {
    let fields = Self.fields
    guard case .object(let object) = frameValue, object.members.count == fields.count else { return nil }
    self.init()
    let read = fields.fields.withUnsafeBufferPointer { table in
      for index in table.indices {
        // Members come in the table's order when the record wrote them: looked up only when not.
        let member = object.members[index]
        let name = table[index].name
        guard let value = member.key == name ? member.value : object[name], table[index].read(&self, value)
        else { return false }
      }
      return true
    }
    if !read { return nil }
  }
}

/// A typed frame's fields, in order (`FrameRecord.fields`, written as an array literal). Their
/// names are checked for repeats once, as the table is made, not in every frame written.
public struct FrameFields<Record>: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
  @usableFromInline package let fields: [FrameField<Record>]
  /// Whether two fields share a name: a mistake in the table. The frame keeps the last one's
  /// value (where the first stood), and reads back as no record.
  @usableFromInline package let namesRepeat: Bool

  /// The table of `fields`, in order.
  public init(_ fields: [FrameField<Record>]) {
    self.fields = fields
    namesRepeat = Set(fields.map(\.name)).count != fields.count
  }

  public init(arrayLiteral fields: FrameField<Record>...) { self.init(fields) }

  @inlinable public var startIndex: Int { 0 }
  @inlinable public var endIndex: Int { fields.count }
  @inlinable public subscript(position: Int) -> FrameField<Record> { fields[position] }
}

/// What a field has to do with a window's life beyond showing its document and view state.
public struct FrameFieldRole: OptionSet, Sendable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }
  /// It counts what happened in the window's life (loads started since it opened): a replay
  /// opens the window fresh and does not live that life again (`ScreenModel.lifetimeFields`).
  public static let lifetime = FrameFieldRole(rawValue: 1)
  /// It shows why the last command was refused: a refusal may change it and nothing else
  /// (`ScreenModel.refusalFields`).
  public static let refusal = FrameFieldRole(rawValue: 2)
  /// The window holds it of its own, beyond its view state: two windows on one document with
  /// one view state may differ there (`ScreenModel.ownFields`).
  public static let own = FrameFieldRole(rawValue: 4)
}

/// One field of a typed frame (`FrameRecord.fields`): its name, what it means, what role it has
/// in the window's life, and the stored property that holds it.
public struct FrameField<Record>: Sendable {
  /// The field's name in the frame.
  public let name: String
  /// What it means, in a few words (an editor shows it over an expectation's field); empty
  /// when unsaid.
  public let summary: String
  /// Its role beyond showing the document and the view state.
  public let role: FrameFieldRole
  @usableFromInline package let write: @Sendable (Record) -> FrameValue
  @usableFromInline package let read: @Sendable (inout Record, FrameValue) -> Bool
  /// The fields inside the field's value (`Value.fieldSchema(depth:)`).
  @usableFromInline package let innerSchema: @Sendable (Int) -> [FrameFieldSchema]

  /// The field `name`, held by the stored property `path`.
  @inlinable
  public init<Value: FrameFieldValue>(
    _ name: String, _ path: WritableKeyPath<Record, Value> & Sendable, role: FrameFieldRole = [], _ summary: String = ""
  ) {
    let property = StoredProperty(path)
    self.name = name
    self.summary = summary
    self.role = role
    innerSchema = { Value.fieldSchema(depth: $0) }
    write = { property.get($0).frameValue }
    read = { record, value in
      guard let read = Value(frameValue: value) else { return false }
      property.set(&record, read)
      return true
    }
  }
}

/// A screen whose frame is a typed value: the frame's JSON, its fields, their summaries and
/// their roles all come from the frame's field table, so they cannot drift apart; its rendering
/// can take the typed frame (`Registrar.screen(_:name:documentKind:summary:render:)`).
@MainActor
public protocol FramedScreen: ScreenModel {
  /// The screen's frame.
  associatedtype Frame: FrameRecord
  /// The frame projected from the document and the view state.
  var typedFrame: Frame { get }
}

extension FramedScreen {
  public var frame: FrameValue { typedFrame.frameValue }
  public static var frameFields: [String]? { Frame.fields.map(\.name) }
  public static var frameFieldSummaries: [String: String] {
    var summaries: [String: String] = [:]
    for field in Frame.fields where !field.summary.isEmpty { summaries[field.name] = field.summary }
    return summaries
  }
  public static var lifetimeFields: [String] { Frame.fields.filter { $0.role.contains(.lifetime) }.map(\.name) }
  public static var refusalFields: [String] { Frame.fields.filter { $0.role.contains(.refusal) }.map(\.name) }
  public static var ownFields: [String] { Frame.fields.filter { $0.role.contains(.own) }.map(\.name) }

  /// Text for a frame value from a typed rendering: the frame read back as `Frame`, or its
  /// outline when it is not one (a window showing a module's error).
  package static func rendering(_ render: @escaping @Sendable (Frame) -> String) -> @Sendable (FrameValue) -> String {
    { value in Frame(frameValue: value).map(render) ?? value.outlineText }
  }
}
