/// Bytes that arrive in pieces (a pipe's reads) handed out a whole line at a time: a worker's
/// JSON lines, a run's progress, piped commands. Lines are taken from the front without moving
/// the rest each time; what they left is dropped when the next piece comes.
public struct LineBuffer: Sendable {
  private var bytes: [UInt8] = []
  private var start = 0

  public init() {}

  /// Whether no byte is waiting to be taken.
  public var isEmpty: Bool { start == bytes.count }

  /// Adds a piece read.
  public mutating func append(_ piece: some Sequence<UInt8>) {
    if start > 0 {
      bytes.removeSubrange(..<start)
      start = 0
    }
    bytes.append(contentsOf: piece)
  }

  /// The next whole line, without its line feed; `nil` until one has come.
  public mutating func nextLine() -> ArraySlice<UInt8>? {
    guard let newline = bytes[start...].firstIndex(of: 0x0A) else { return nil }
    defer { start = newline + 1 }
    return bytes[start..<newline]
  }

  /// Every whole line there is, in order.
  public mutating func takeLines() -> [ArraySlice<UInt8>] {
    var lines: [ArraySlice<UInt8>] = []
    while let line = nextLine() { lines.append(line) }
    return lines
  }

  /// What is left after the last line feed (a last line without one, at the end of input),
  /// taken; `nil` when nothing is.
  public mutating func takeRest() -> ArraySlice<UInt8>? {
    guard !isEmpty else { return nil }
    defer { start = bytes.count }
    return bytes[start...]
  }
}
