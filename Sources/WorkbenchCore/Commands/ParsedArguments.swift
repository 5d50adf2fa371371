/// A parsed, validated argument value.
public enum ArgumentValue: Equatable, Sendable {
  case integer(Int)
  case text(String)
  case window(WindowID)
}

/// The arguments of one command after parsing and validation, read by name.
public struct ParsedArguments: Sendable {
  var values: [String: ArgumentValue] = [:]

  /// The text of a word, rest, choice, document, screen or reference argument.
  public func text(_ name: String) -> String? {
    switch values[name] {
    case .text(let value): return value
    case .integer(let value): return String(value)
    case .window(let id): return String(id.number)
    case nil: return nil
    }
  }

  /// The value of an integer argument, or of a reference whose identifiers are numbers.
  public func integer(_ name: String) -> Int? {
    switch values[name] {
    case .integer(let value): return value
    case .text(let value): return Int(value)
    default: return nil
    }
  }

  /// The window an argument named.
  public func window(_ name: String) -> WindowID? {
    if case .window(let id) = values[name] { return id }
    return nil
  }
}
