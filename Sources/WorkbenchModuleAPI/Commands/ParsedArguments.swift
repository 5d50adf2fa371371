/// A parsed, validated argument value.
public enum ArgumentValue: Equatable, Sendable {
  case integer(Int)
  case text(String)
  case window(WindowID)
}

/// The arguments of one command after parsing and validation. Handlers read them by their
/// `Argument` keys; commands whose arguments are only known at run time (an external module's)
/// read them by name.
public struct ParsedArguments: Sendable {
  package var values: [String: ArgumentValue] = [:]
  /// The names the command declares, to tell a key from another command.
  package var declared: Set<String> = []
  /// The command's name, for the message when a handler asks for a key its command lacks.
  package var command = ""

  /// No arguments (a command's context outside a command).
  public init() {}

  package init(values: [String: ArgumentValue], declared: Set<String>, command: String) {
    self.values = values
    self.declared = declared
    self.command = command
  }

  /// The value of a declared argument: a required one as its value, an optional one as an
  /// optional (`nil` when left out).
  public subscript<Value>(_ argument: Argument<Value>) -> Value {
    // Keys are code, not input: asking for one the command does not declare is a programmer's
    // error, found the first time the command runs.
    precondition(
      declared.contains(argument.spec.name), "\(command) asks for '\(argument.spec.name)', which it does not declare")
    if let raw = values[argument.spec.name], let value = argument.read(raw) { return value }
    guard let absent = argument.absent else {
      preconditionFailure("\(command): the required argument '\(argument.spec.name)' is missing or of another kind")
    }
    return absent
  }

  /// The text of an argument, by name: for commands declared at run time (external modules).
  public func text(named name: String) -> String? { values[name]?.textValue }

  /// The value of an argument, by name, as bound (a number as a number); `nil` when left out.
  public func value(named name: String) -> ArgumentValue? { values[name] }
}
