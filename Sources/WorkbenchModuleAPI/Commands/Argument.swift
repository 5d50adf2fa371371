/// A typed key for one argument of a command: the argument's spec, and how its value reads.
///
/// A command declares its arguments as keys and its handler reads them back by key,
/// `context.arguments[Self.books]`: a required argument reads as its value (the binder has
/// refused the line without it), an optional one as an optional, and nothing falls back to a
/// silent default. A handler cannot ask for a name by string, and asking for a key its command
/// does not declare is a programmer's error caught the first time the command runs.
public struct Argument<Value: Sendable>: Sendable {
  /// The argument as help, completion and validation see it.
  public let spec: ArgumentSpec
  package let read: @Sendable (ArgumentValue) -> Value?
  /// What a left-out argument reads as: `nil` for a required one, which cannot be left out.
  package let absent: Value?

  package init(_ spec: ArgumentSpec, read: @escaping @Sendable (ArgumentValue) -> Value?, absent: Value? = nil) {
    self.spec = spec
    self.read = read
    self.absent = absent
  }

  /// The same argument, which may be left out; it then reads as `nil`.
  public var optional: Argument<Value?> {
    let read = self.read
    return Argument<Value?>(
      ArgumentSpec(spec.name, spec.kind, optional: true, help: spec.help), read: { value in read(value).map { $0 } },
      absent: .some(nil))
  }
}

extension Argument where Value == Int {
  /// A whole number, optionally limited to a range.
  public static func integer(_ name: String, in range: ClosedRange<Int>? = nil, help: String = "") -> Self {
    Self(ArgumentSpec(name, .integer(range), help: help), read: \.integerValue)
  }

  /// A whole-number identifier that exists in the target window's document (a book id).
  public static func reference(_ name: String, _ source: ReferenceSource, help: String = "") -> Self {
    Self(ArgumentSpec(name, .reference(source), help: help), read: \.integerValue)
  }
}

extension Argument where Value == String {
  /// One word of text.
  public static func word(_ name: String, help: String = "") -> Self {
    Self(ArgumentSpec(name, .word, help: help), read: \.textValue)
  }

  /// Every remaining word, joined by single spaces (the last argument only).
  public static func rest(_ name: String, help: String = "") -> Self {
    Self(ArgumentSpec(name, .rest, help: help), read: \.textValue)
  }

  /// A length of time with its unit (`300ms`, `2s`), checked where the line is bound: a scenario's
  /// `clock advance 5` is refused when the file is checked, at the number.
  public static func duration(_ name: String, help: String = "") -> Self {
    Self(ArgumentSpec(name, .duration, help: help), read: \.textValue)
  }

  /// A path to a file, as typed: the shell completes it from the folder typed so far.
  package static func file(_ name: String, help: String = "") -> Self {
    Self(ArgumentSpec(name, .file, help: help), read: \.textValue)
  }

  /// The name of a command (completed from the commands of the window it runs in).
  package static func command(_ name: String, help: String = "") -> Self {
    Self(ArgumentSpec(name, .command, help: help), read: \.textValue)
  }

  /// One of a fixed set of words.
  public static func choice(_ name: String, _ words: [String], help: String = "") -> Self {
    Self(ArgumentSpec(name, .choice(words), help: help), read: \.textValue)
  }

  /// A document in the workspace, by name.
  public static func document(_ name: String, help: String = "") -> Self {
    Self(ArgumentSpec(name, .document, help: help), read: \.textValue)
  }

  /// A kind of screen a module registered.
  public static func screen(_ name: String, help: String = "") -> Self {
    Self(ArgumentSpec(name, .screen, help: help), read: \.textValue)
  }

  /// An identifier that exists in the target window's document (a room id).
  public static func reference(_ name: String, _ source: ReferenceSource, help: String = "") -> Self {
    Self(ArgumentSpec(name, .reference(source), help: help), read: \.textValue)
  }
}

extension Argument where Value == WindowID {
  /// An open window, by name or number.
  public static func window(_ name: String, help: String = "") -> Self {
    Self(ArgumentSpec(name, .window, help: help), read: \.windowValue)
  }
}

/// A window, or one of a few words (`close [WINDOW|save|discard]`).
public enum WindowOrWord: Equatable, Sendable {
  case window(WindowID)
  case word(String)
}

extension Argument where Value == WindowOrWord {
  /// An open window, or one of these words (a window with that name wins).
  public static func windowOr(_ name: String, _ words: [String], help: String = "") -> Self {
    Self(ArgumentSpec(name, .windowOr(words), help: help)) { value in
      switch value {
      case .window(let id): return .window(id)
      case .text(let word): return .word(word)
      case .integer(let number): return .word(String(number))
      }
    }
  }
}

extension ArgumentValue {
  package var integerValue: Int? {
    switch self {
    case .integer(let value): value
    case .text(let text): Int(text)
    case .window: nil
    }
  }

  package var textValue: String? {
    switch self {
    case .text(let text): text
    case .integer(let value): String(value)
    case .window(let id): String(id.number)
    }
  }

  package var windowValue: WindowID? {
    if case .window(let id) = self { return id }
    return nil
  }
}

/// Something that declares an argument: an `Argument` key, or an `ArgumentSpec` (for commands
/// whose arguments are only known at run time, such as an external module's).
public protocol ArgumentDeclaration: Sendable {
  /// The argument as help, completion and validation see it.
  var spec: ArgumentSpec { get }
}

extension Argument: ArgumentDeclaration {}

extension ArgumentSpec: ArgumentDeclaration {
  public var spec: ArgumentSpec { self }
}

extension Argument where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
  /// One of an enumeration's cases, by raw value (`sort title|id|reverse`).
  public static func choice(_ name: String, help: String = "") -> Self {
    // A closure, not `\.rawValue`: a key path into a generic type is made anew at each call, and
    // every start makes the choices of the commands it registers.
    Self(ArgumentSpec(name, .choice(Value.allCases.map { $0.rawValue }), help: help)) { value in
      value.textValue.flatMap(Value.init(rawValue:))
    }
  }
}
