#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Bytes that arrive in pieces (a pipe's reads) handed out a message at a time, the one reader
/// of every framing the program reads: lines (a worker's JSON lines, a run's progress, piped
/// commands) and length-prefixed frames (a module's messages, docs/protocol.md §2). Messages are
/// taken from the front without moving the rest each time; what they left is dropped when the
/// next piece comes.
public struct InputBuffer: Sendable {
  private var bytes: [UInt8] = []
  private var start = 0

  public init() {}

  /// A buffer holding `bytes` already (a test's, a fuzzer's input).
  public init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// Whether no byte is waiting to be taken.
  public var isEmpty: Bool { start == bytes.count }

  /// The bytes not taken yet.
  public var unread: ArraySlice<UInt8> { bytes[start...] }

  /// Adds a piece read (not generic: a caller in another module gets no unspecialised copy that
  /// walks the piece a byte at a time).
  public mutating func append(_ piece: ArraySlice<UInt8>) {
    if start > 0 {
      if start == bytes.count {
        bytes.removeAll(keepingCapacity: true)
      } else {
        bytes.removeSubrange(..<start)
      }
      start = 0
    }
    bytes.append(contentsOf: piece)
  }

  /// Adds a piece read.
  public mutating func append(_ piece: [UInt8]) { append(piece[...]) }

  /// Where each read lands before it is added, made at the first read and kept (a fresh 64 KB
  /// for each read cost more than a module's round trip).
  private var landing: [UInt8] = []

  /// Reads what `descriptor` has into the buffer, once: the count read, 0 at the end of input,
  /// or -1 with `errno` set (`EINTR`, or `EAGAIN` for a non-blocking descriptor with nothing).
  public mutating func read(from descriptor: Int32) -> Int {
    if landing.isEmpty { landing = [UInt8](repeating: 0, count: 65536) }
    let count = landing.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress!, $0.count) }
    if count > 0 { append(landing[..<count]) }
    return count
  }

  // MARK: Lines

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

  // MARK: Length-prefixed frames

  /// The length the next frame announces (its first four bytes, big-endian), once they came.
  public var announcedLength: Int? {
    guard bytes.count - start >= 4 else { return nil }
    return Int(bytes[start]) << 24 | Int(bytes[start + 1]) << 16 | Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
  }

  /// Whether a whole frame is waiting.
  public var holdsAFrame: Bool {
    guard let length = announcedLength else { return false }
    return bytes.count - start - 4 >= length
  }

  /// The body of the next whole frame, taken; `nil` (nothing taken) until all of it came.
  ///
  /// - Throws: `FrameTooLong` when the frame announces more than `maximum` bytes: the stream
  ///   cannot be read on from there, and nothing is taken.
  public mutating func nextFrame(maximum: Int) throws(FrameTooLong) -> ArraySlice<UInt8>? {
    guard let length = announcedLength else { return nil }
    guard length <= maximum else { throw FrameTooLong(length: length) }
    guard bytes.count - start - 4 >= length else { return nil }
    let body = start + 4
    start = body + length
    return bytes[body..<start]
  }
}

/// A frame announced a length over the limit.
public struct FrameTooLong: Error, Equatable, Sendable {
  /// The length it announced.
  public let length: Int

  public init(length: Int) { self.length = length }
}

/// `read(2)`, named apart from `InputBuffer.read`.
private func systemRead(_ descriptor: Int32, _ into: UnsafeMutableRawPointer, _ count: Int) -> Int {
  read(descriptor, into, count)
}
