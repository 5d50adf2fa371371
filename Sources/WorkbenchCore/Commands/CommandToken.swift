import WorkbenchModuleAPI

/// One word of a command line, with the column it started at.
public struct CommandToken: Equatable, Sendable {
  /// The word after quotes and escapes are resolved.
  public var text: String
  /// The 1-based column of the word's first character in its line.
  public var column: Int
  /// Whether any part of the word was quoted (a quoted `@x` is text, not a window).
  public var wasQuoted: Bool

  /// A token; `wasQuoted` defaults to false.
  public init(text: String, column: Int, wasQuoted: Bool = false) {
    self.text = text
    self.column = column
    self.wasQuoted = wasQuoted
  }
}

/// A problem with the text of a command line, found before any command runs.
public struct CommandSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What is wrong and what to do about it.
  public var message: String
  /// The 1-based column the problem was found at.
  public var column: Int

  public var description: String { message }
}

extension CommandToken {
  /// The window this word names when it stands first on a command (`@left`): an unquoted word
  /// starting with `@`; `nil` for any other word (a quoted `"@x"` is text).
  public var windowReference: String? {
    guard !wasQuoted, text.hasPrefix("@") else { return nil }
    return String(text.dropFirst())
  }
}

extension CommandToken {
  /// A window reference as a user may type it in an argument (`left`, `2`, `@left`), without
  /// its `@`.
  public static func bareWindowReference(_ reference: String) -> String {
    reference.hasPrefix("@") ? String(reference.dropFirst()) : reference
  }
}

extension Collection where Element == CommandToken {
  /// A command's words split at its `@WINDOW` prefix: the window named (and its token), if
  /// any, and the words after it. The one place a command's window prefix is read: dispatch,
  /// completion, the scenario loader's check and the recorder all go through it.
  public var windowPrefix: (window: String?, token: CommandToken?, rest: SubSequence) {
    guard let first, let reference = first.windowReference else { return (nil, nil, self[...]) }
    return (reference, first, dropFirst())
  }
}
