import WorkbenchModuleAPI

/// Why a catalog document or an edit to it is invalid. Decoding untrusted input reports
/// these instead of trapping.
public struct CatalogValidationError: UserFacingError, Equatable, Sendable, CustomStringConvertible {
  /// What is wrong and what to do about it.
  public let message: String

  /// An error with a message.
  public init(_ message: String) { self.message = message }

  public var description: String { message }
  public var userMessage: String { message }
}
