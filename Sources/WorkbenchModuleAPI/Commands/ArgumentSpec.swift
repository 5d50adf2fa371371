/// What kind of value an argument takes. The kind drives parsing, validation, help and
/// completion, so every front end treats an argument the same way.
public enum ArgumentKind: Sendable {
  /// A whole number, optionally limited to a range.
  case integer(ClosedRange<Int>? = nil)
  /// One word of text.
  case word
  /// Every remaining word, joined by single spaces. Only valid as the last argument.
  case rest
  /// One of a fixed set of words.
  case choice([String])
  /// An open window, by name or number.
  case window
  /// An open window, or one of these words (a window with that name wins).
  case windowOr([String])
  /// A document in the workspace, by name.
  case document
  /// A kind of screen registered by a module.
  case screen
  /// An identifier that exists in the document bound to the target window.
  case reference(ReferenceSource)
  /// A length of time with its unit: `300ms`, `2s`, `1.5s`, `1m` (`SessionClock.parseDuration`).
  case duration
  /// A path to a file, as typed (the shell completes it from the file system).
  case file
  /// The name of a command, as `help` takes it.
  case command
}

/// Where the valid identifiers for a `.reference` argument come from: the screen model of the
/// window the command runs in.
public struct ReferenceSource: Sendable {
  /// What an identifier names, for messages (`book`).
  public let noun: String
  /// Whether identifiers are whole numbers.
  package let isInteger: Bool
  package let identifiers: @MainActor @Sendable (AnyObject) -> [String]?
  package let contains: @MainActor @Sendable (AnyObject, String) -> Bool?
  package let label: @MainActor @Sendable (AnyObject, String) -> String?

  /// A source that reads identifiers from screens of type `Model`.
  ///
  /// - Parameters:
  ///   - noun: what an identifier names, used in messages.
  ///   - isInteger: whether identifiers are whole numbers.
  ///   - identifiers: every identifier, in the order completion should offer them.
  ///   - contains: whether one identifier exists; cheaper than listing all of them.
  ///   - label: what the identifier names, shown beside it when completion lists candidates
  ///     (a book's title beside its id); `nil` shows the identifier alone.
  public init<Model: ScreenModel>(
    noun: String,
    isInteger: Bool = true,
    in model: Model.Type,
    identifiers: @escaping @MainActor @Sendable (Model) -> [String],
    contains: @escaping @MainActor @Sendable (Model, String) -> Bool,
    label: @escaping @MainActor @Sendable (Model, String) -> String? = { _, _ in nil }
  ) {
    self.noun = noun
    self.isInteger = isInteger
    self.identifiers = { object in (object as? Model).map(identifiers) }
    self.contains = { object, identifier in (object as? Model).map { contains($0, identifier) } }
    self.label = { object, identifier in (object as? Model).flatMap { label($0, identifier) } }
  }
}

/// One argument of a command: its name, kind, whether it may be left out, and help.
public struct ArgumentSpec: Sendable {
  /// The name used in usage lines and by handlers to read the value.
  public let name: String
  /// What values it takes.
  public let kind: ArgumentKind
  /// Whether it may be left out. Optional arguments come after required ones.
  package let isOptional: Bool
  /// One line of help.
  public let help: String

  /// An argument.
  public init(_ name: String, _ kind: ArgumentKind, optional: Bool = false, help: String = "") {
    self.name = name
    self.kind = kind
    self.isOptional = optional
    self.help = help
  }

  /// How the argument appears in a usage line: `ID`, `[OFFSET]`, `on|off`, `TITLE...`.
  package var usage: String {
    var text: String
    switch kind {
    case .choice(let words): text = words.joined(separator: "|")
    case .windowOr(let words): text = name.uppercased() + "|" + words.joined(separator: "|")
    case .rest: text = name.uppercased() + "..."
    default: text = name.uppercased()
    }
    if isOptional { text = "[\(text)]" }
    return text
  }
}
