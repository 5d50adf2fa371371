/// One node of a frame: the structured projection of a document and a window's view state.
///
/// A frame is a tree of strings, numbers, bools, nulls, lists and ordered objects. Tests and
/// scenarios assert on this tree; the text a terminal shows is rendered from it, never the
/// other way round. Frames are never stored: they are derived again whenever they are needed.
public enum FrameValue: Equatable, Sendable {
  case null
  case bool(Bool)
  case integer(Int)
  case number(Double)
  case string(String)
  case list([FrameValue])
  case object(FrameObject)

  /// The member named `key` when this is an object, otherwise `nil`.
  public subscript(key: String) -> FrameValue? {
    guard case .object(let object) = self else { return nil }
    return object[key]
  }

  /// The elements when this is a list, otherwise `nil`.
  public var elements: [FrameValue]? {
    guard case .list(let elements) = self else { return nil }
    return elements
  }

  /// The integer when this is an integer, otherwise `nil`.
  public var integerValue: Int? {
    guard case .integer(let value) = self else { return nil }
    return value
  }

  /// The string when this is a string, otherwise `nil`.
  /// The number when this is a number or an integer, otherwise `nil`.
  public var numberValue: Double? {
    switch self {
    case .number(let value): return value
    case .integer(let value): return Double(value)
    default: return nil
    }
  }

  public var stringValue: String? {
    guard case .string(let value) = self else { return nil }
    return value
  }

  /// The bool when this is a bool, otherwise `nil`.
  public var boolValue: Bool? {
    guard case .bool(let value) = self else { return nil }
    return value
  }
}

/// An object whose members keep the order they were added in.
public struct FrameObject: Equatable, Sendable {
  /// The members in order.
  public private(set) var members: [(key: String, value: FrameValue)]

  /// An empty object.
  public init() { members = [] }

  /// An object with the given members, in order.
  public init(_ members: KeyValuePairs<String, FrameValue>) {
    self.members = members.map { (key: $0.key, value: $0.value) }
  }

  /// An object with the given members, in order; when a key repeats, the last value wins.
  public init(members: [(key: String, value: FrameValue)]) {
    if !FrameObject.hasDuplicateKeys(members) {
      self.members = members
    } else {
      self.members = []
      for member in members { self[member.key] = member.value }
    }
  }

  /// An object with the given members, in order, whose keys the caller knows are distinct (a
  /// typed frame's table, checked once): not checked again.
  @usableFromInline
  package init(uniqueMembers members: [(key: String, value: FrameValue)]) { self.members = members }

  /// Whether two members share a key. Objects are small, so comparing pairs beats hashing.
  package static func hasDuplicateKeys(_ members: [(key: String, value: FrameValue)]) -> Bool {
    guard members.count > 1 else { return false }
    if members.count > 32 {
      var seen = Set<String>()
      return !members.allSatisfy { seen.insert($0.key).inserted }
    }
    for index in members.indices.dropFirst() where members[..<index].contains(where: { $0.key == members[index].key }) {
      return true
    }
    return false
  }

  /// The value of `key`; setting replaces it in place or appends it.
  public subscript(key: String) -> FrameValue? {
    get { members.first(where: { $0.key == key })?.value }
    set {
      let index = members.firstIndex(where: { $0.key == key })
      switch (index, newValue) {
      case (let index?, let value?): members[index].value = value
      case (let index?, nil): members.remove(at: index)
      case (nil, let value?): members.append((key: key, value: value))
      case (nil, nil): break
      }
    }
  }

  /// The keys in order.
  public var keys: [String] { members.map(\.key) }

  public static func == (lhs: FrameObject, rhs: FrameObject) -> Bool {
    lhs.members.count == rhs.members.count
      && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
  }
}

extension FrameValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
  ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral,
  ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int) { self = .integer(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(nilLiteral: ()) { self = .null }
  public init(arrayLiteral elements: FrameValue...) { self = .list(elements) }
  public init(floatLiteral value: Double) { self = .number(value) }
  public init(dictionaryLiteral elements: (String, FrameValue)...) {
    self = .object(FrameObject(members: elements.map { (key: $0.0, value: $0.1) }))
  }
}

extension FrameValue {
  /// `.integer` for a present value, `.null` for `nil`.
  public init(_ value: Int?) { self = value.map(FrameValue.integer) ?? .null }
  /// `.string` for a present value, `.null` for `nil`.
  public init(_ value: String?) { self = value.map(FrameValue.string) ?? .null }
}
