/// An error a user can cause: a mistyped command, a wrong argument, a rule a model enforces.
///
/// The message says what went wrong and what to do. The column, when known, points into the
/// command line so front ends can report `file:line:column`.
public struct CommandError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What went wrong and what to do about it.
  public var message: String
  /// The 1-based column in the command line the error is about, when there is one.
  package var column: Int?
  /// Whether the command line itself was wrong (syntax, an unknown command or window, a bad
  /// argument), as opposed to a well-formed command that was rejected when it ran. Shells keep
  /// only lines that parsed in their history.
  package var isUsageError: Bool
  /// The module whose process stopped (crashed, hung, broke the protocol) while the command
  /// ran, when that is why it failed: not a refusal of the command, but a module gone.
  package var stoppedModule: String? = nil
  /// Whether the command did part of its work before it failed, as its help says it may
  /// (`settle` lets time pass until its limit): a failure, not a refusal that changes nothing.
  package var isPartial = false

  /// An error with a message and, optionally, the column it points at.
  public init(_ message: String, column: Int? = nil, isUsageError: Bool = false) {
    self.message = message
    self.column = column
    self.isUsageError = isUsageError
  }

  public var description: String { message }

  /// Any error a command's handler throws, as the command's error: a run-time refusal points at
  /// its command (`column`) as a parse error points at its word; a module's own error meant for
  /// the user (`UserFacingError`) is converted here, once, for every module.
  package init(converting error: any Error, column: Int) {
    switch error {
    case let error as CommandError:
      self = error
      if self.column == nil { self.column = column }
    case let error as any UserFacingError:
      self.init(error.userMessage, column: column)
    default:
      self.init(String(describing: error), column: column)
    }
  }
}

/// An error a module's own code throws (a validation failure, a rule of its model) whose message
/// is meant for the user as it is: a command handler lets it through, and the host turns it into
/// the command's error once (with the command's column), so no module bridges its errors to
/// `CommandError` by hand.
public protocol UserFacingError: Error {
  /// What went wrong and what to do, as the user reads it.
  var userMessage: String { get }
}
