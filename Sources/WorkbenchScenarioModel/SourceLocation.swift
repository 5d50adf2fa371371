/// A place in a file: 1-based line and column.
public struct SourceLocation: Codable, Equatable, Hashable, Sendable, CustomStringConvertible {
  /// The file's path as the user gave it (or as an include resolved it).
  public var file: String
  /// The 1-based line.
  public var line: Int
  /// The 1-based column.
  public var column: Int

  /// A location.
  public init(file: String, line: Int, column: Int) {
    self.file = file
    self.line = line
    self.column = column
  }

  /// `file:line:column`.
  public var description: String { "\(file):\(line):\(column)" }
}

/// A problem in a scenario file, reported as `file:line:column: message`.
public struct ScenarioFileError: Error, Codable, Equatable, Sendable, CustomStringConvertible {
  /// Where the problem is.
  public var location: SourceLocation
  /// What is wrong and what to do about it.
  public var message: String

  /// The file's other problems, after this one, when the loader went on to find them all (as
  /// a compiler does); `nil` when this is the only one.
  public var more: [ScenarioFileError]?

  /// An error at a location.
  public init(_ message: String, at location: SourceLocation) {
    self.message = message
    self.location = location
  }

  public var description: String { "\(location): \(message)" }

  /// This problem and the file's others, each on its own, in the order found.
  public var all: [ScenarioFileError] {
    var first = self
    first.more = nil
    return [first] + (more ?? [])
  }
}
