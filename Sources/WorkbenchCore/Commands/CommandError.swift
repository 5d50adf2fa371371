/// An error a user can cause: a mistyped command, a wrong argument, a rule a model enforces.
///
/// The message says what went wrong and what to do. The column, when known, points into the
/// command line so front ends can report `file:line:column`.
public struct CommandError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What went wrong and what to do about it.
  public var message: String
  /// The 1-based column in the command line the error is about, when there is one.
  public var column: Int?

  /// An error with a message and, optionally, the column it points at.
  public init(_ message: String, column: Int? = nil) {
    self.message = message
    self.column = column
  }

  public var description: String { message }
}
