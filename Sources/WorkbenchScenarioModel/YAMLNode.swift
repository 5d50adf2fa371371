import WorkbenchCore
import WorkbenchModuleAPI

/// A node of a parsed YAML document, with where it was written.
public struct YAMLNode: Sendable {
  /// What the node holds.
  public enum Content: Sendable {
    /// A scalar's text; `isPlain` is false for quoted and block scalars, which are always text.
    case scalar(String, isPlain: Bool)
    case sequence([YAMLNode])
    case mapping([YAMLPair])
  }

  /// What the node holds.
  public var content: Content
  /// Where the node starts.
  public var location: SourceLocation

  /// A node holding `content`, written at `location`.
  public init(content: Content, location: SourceLocation) {
    self.content = content
    self.location = location
  }

  /// The text of a scalar, or `nil`.
  public var scalarText: String? {
    if case .scalar(let text, _) = content { return text }
    return nil
  }

  /// The pairs of a mapping, or `nil`.
  public var pairs: [YAMLPair]? {
    if case .mapping(let pairs) = content { return pairs }
    return nil
  }

  /// The items of a sequence, or `nil`.
  public var items: [YAMLNode]? {
    if case .sequence(let items) = content { return items }
    return nil
  }

  /// The value of `key` in a mapping.
  public subscript(key: String) -> YAMLNode? {
    pairs?.first { $0.key == key }?.value
  }

  /// What kind of node this is, for messages ("a list", "a mapping", "text").
  public var kindDescription: String {
    switch content {
    case .scalar: return "a single value"
    case .sequence: return "a list"
    case .mapping: return "a mapping"
    }
  }

  /// The node as a frame value, with plain scalars resolved by YAML 1.2's core schema: null,
  /// booleans, integers and floats; everything else is a string.
  public var frameValue: FrameValue {
    switch content {
    case .scalar(let text, let isPlain):
      return isPlain ? YAMLNode.resolvePlain(text) : .string(text)
    case .sequence(let items):
      return .list(items.map(\.frameValue))
    case .mapping(let pairs):
      var object = FrameObject()
      for pair in pairs { object[pair.key] = pair.value.frameValue }
      return .object(object)
    }
  }

  static func resolvePlain(_ text: String) -> FrameValue {
    switch text {
    case "", "~", "null", "Null", "NULL": return .null
    case "true", "True", "TRUE": return .bool(true)
    case "false", "False", "FALSE": return .bool(false)
    case ".inf", ".Inf", ".INF", "+.inf": return .number(.infinity)
    case "-.inf", "-.Inf", "-.INF": return .number(-.infinity)
    case ".nan", ".NaN", ".NAN": return .number(.nan)
    default: break
    }
    if let integer = Int(text) { return .integer(integer) }
    if text.hasPrefix("0x"), let integer = Int(text.dropFirst(2), radix: 16) { return .integer(integer) }
    if text.hasPrefix("0o"), let integer = Int(text.dropFirst(2), radix: 8) { return .integer(integer) }
    let looksNumeric = text.first.map { $0.isNumber || $0 == "-" || $0 == "+" || $0 == "." } ?? false
    if looksNumeric, text.contains(where: \.isNumber), let number = Double(text) { return .number(number) }
    return .string(text)
  }
}

/// A key and its value in a mapping. Keys are scalars.
public struct YAMLPair: Sendable {
  /// The key's text.
  public var key: String
  /// Where the key was written.
  public var keyLocation: SourceLocation
  /// The value.
  public var value: YAMLNode

  /// A pair whose key `key` was written at `keyLocation`.
  public init(key: String, keyLocation: SourceLocation, value: YAMLNode) {
    self.key = key
    self.keyLocation = keyLocation
    self.value = value
  }
}
