import WorkbenchModuleAPI

/// Why a text document or an edit to it is invalid.
public struct TextValidationError: UserFacingError, Equatable, Sendable, CustomStringConvertible {
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
  public var userMessage: String { message }
}

/// A text document: a title and a body of lines.
///
/// Every instance is valid: the title is not blank and at most `maximumTitleLength`
/// characters, and no line holds a line break.
public struct TextDocument: DocumentBody {
  public let title: String
  public let lines: [String]

  /// The longest title, in characters.
  public static let maximumTitleLength = 80

  /// A document, after checking the title and lines.
  public init(title: String, lines: [String]) throws(TextValidationError) {
    try Self.validateTitle(title)
    for (index, line) in lines.enumerated() where line.contains(where: \.isNewline) {
      throw TextValidationError("lines[\(index)] holds a line break: each line is one line")
    }
    self.title = title
    self.lines = lines
  }

  static func validateTitle(_ title: String) throws(TextValidationError) {
    if title.allSatisfy(\.isWhitespace) {
      throw TextValidationError("the title is empty: give the document a title")
    }
    if title.count > maximumTitleLength {
      throw TextValidationError(
        "the title is \(title.count) characters long; the limit is \(maximumTitleLength)")
    }
  }

  private enum CodingKeys: String, CodingKey { case title, lines }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(
      title: try container.decode(String.self, forKey: .title),
      lines: try container.decodeIfPresent([String].self, forKey: .lines) ?? [])
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(title, forKey: .title)
    try container.encode(lines, forKey: .lines)
  }

  /// A new workspace's notes.
  public static let sample = TextDocument(
    checkedTitle: "Reading notes",
    lines: [
      "Finish the chapter on explicit view state.",
      "Compare MVC and MVVM for the transaction feed.",
      "Try two editors on one document.",
    ])

  private init(checkedTitle: String, lines: [String]) {
    self.title = checkedTitle
    self.lines = lines
  }
}
