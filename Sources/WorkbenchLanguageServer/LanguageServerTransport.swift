import WorkbenchCore
import WorkbenchModuleAPI

/// LSP's framing: `Content-Length: N` headers, a blank line, N bytes of JSON.
///
/// Bytes go in as they are read (`append`); messages come out (`next`). Whatever the bytes,
/// the transport keeps going: a header without a usable length, a header that never ends, or a
/// length that does not match its body is reported once (`.malformed`, which the server answers
/// with a parse error) and the transport picks up again at the next well-formed header. No byte
/// is scanned twice, and a header is never kept past `largestHeader` bytes, so garbage costs
/// time and memory in proportion to its length, not its square.
public struct LanguageServerTransport {
  /// What the next bytes made.
  public enum Event: Equatable {
    /// A message's body.
    case message([UInt8])
    /// Bytes that were not a message, said in words (a parse error for the client).
    case malformed(String)
  }

  /// The most a header may take before it is dropped as garbage. Real headers are under 100
  /// bytes (`Content-Length` and, rarely, `Content-Type`).
  public static let largestHeader = 4096
  /// The most a message may announce; more is refused as garbage (64 MB).
  public static let largestMessage = 64 << 20

  private var buffer: [UInt8] = []
  /// Where the unread part of `buffer` starts (the front is cut off in one go once it is large).
  private var start = 0
  /// How far the search for the current header's end (or the body's embedded header) got.
  private var scanned = 0
  /// The body being waited for: where it starts and how long it said it is.
  private var body: (start: Int, length: Int)?
  /// Dropping bytes until the next header, after a report (so one run of garbage is one report).
  private var discarding = false

  public init() {}

  /// How many bytes the transport holds (what it keeps of garbage stays bounded).
  public var retainedBytes: Int { buffer.count }

  /// Adds bytes as they were read.
  public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
    if start > 65536, start * 2 > buffer.count {
      buffer.removeSubrange(..<start)
      scanned -= start
      if let waiting = body { body = (waiting.start - start, waiting.length) }
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// The next message or report the bytes so far make; `nil` until more bytes come.
  public mutating func next() -> Event? {
    while true {
      if let waiting = body {
        switch takeBody(start: waiting.start, length: waiting.length) {
        case .waiting: return nil
        case .event(let event): return event
        }
      }
      if discarding {
        guard skipToNextHeader() else { return nil }
        discarding = false
      }
      switch takeHeader() {
      case .waiting: return nil
      case .event(let event): return event
      case nil: continue  // a body to wait for, or garbage dropped before a header
      }
    }
  }

  private enum Step {
    case waiting
    case event(Event)
  }

  /// Reads the header at `start`: sets `body` when it is good; reports it when it is not.
  private mutating func takeHeader() -> Step? {
    let limit = min(buffer.count, start + Self.largestHeader + 4)
    var index = max(start, scanned)
    var end: Int?
    while index + 3 < limit {
      if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
        end = index
        break
      }
      index += 1
    }
    guard let end else {
      scanned = max(start, index)
      guard buffer.count - start > Self.largestHeader + 3 else { return .waiting }
      // A header this long is not one: dropped, and the next header looked for from here.
      discarding = true
      start += 1
      scanned = start
      return .event(.malformed("a header of more than \(Self.largestHeader) bytes without its blank line"))
    }
    // Bytes before a `Content-Length` line that is not the first are what was left of an earlier
    // message whose length was too small (or other garbage): dropped without a word, since the
    // message they belonged to was already answered.
    if let field = Self.find(Self.contentLength, in: buffer, from: start, to: end), field > start,
      buffer[field - 1] != 10
    {
      start = field
      scanned = start
      return nil
    }
    var length: Int?
    var problem = "a header without Content-Length"
    var lineStart = start
    while lineStart < end {
      var lineEnd = lineStart
      while lineEnd < end, !(buffer[lineEnd] == 13 && buffer[lineEnd + 1] == 10) { lineEnd += 1 }
      if Self.matches(Self.contentLength, in: buffer, at: lineStart) {
        let value = String(decoding: buffer[(lineStart + Self.contentLength.count)..<lineEnd], as: UTF8.self)
        let digits = value.trimmingPrefix(while: { $0 == " " || $0 == "\t" })
        let trimmed = digits.reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed()
        if let number = Int(String(trimmed)), number >= 0, number <= Self.largestMessage, !trimmed.contains("+") {
          length = number
        } else {
          length = nil
          problem = "Content-Length '\(String(trimmed.prefix(40)))' is not a length from 0 to \(Self.largestMessage)"
        }
      }
      lineStart = lineEnd + 2
    }
    let after = end + 4
    guard let length else {
      // The body that followed is garbage before the next header, dropped there.
      start = after
      scanned = start
      return .event(.malformed(problem))
    }
    body = (after, length)
    start = after
    scanned = after
    return nil
  }

  /// Takes the body when it is whole; reports it when a header turns up inside it (its length
  /// was too large: a JSON body cannot hold a raw line break inside a string, nor the word
  /// `Content-Length` outside one, so the header is the next message's).
  private mutating func takeBody(start bodyStart: Int, length: Int) -> Step {
    let available = min(buffer.count, bodyStart + length)
    // A header inside has `Content-Length:` followed by digits and a line break; its first byte
    // may sit a little before what is new, so the search goes back the pattern's length.
    let from = max(bodyStart, scanned - Self.contentLength.count - 24)
    if let field = Self.embeddedHeader(in: buffer, from: from, to: available) {
      let taken = field - bodyStart
      body = nil
      start = field
      scanned = field
      return .event(
        .malformed("Content-Length said \(length) bytes, and the next header came after \(taken)"))
    }
    guard buffer.count >= bodyStart + length else {
      scanned = available
      return .waiting
    }
    body = nil
    start = bodyStart + length
    scanned = start
    return .event(.message(Array(buffer[bodyStart..<(bodyStart + length)])))
  }

  /// Drops bytes up to the next `Content-Length` field; `false` while none has come (all but
  /// a field's length of the tail is dropped meanwhile, so garbage does not pile up).
  private mutating func skipToNextHeader() -> Bool {
    if let field = Self.find(Self.contentLength, in: buffer, from: max(start, scanned), to: buffer.count) {
      start = field
      scanned = field
      return true
    }
    start = max(start, buffer.count - Self.contentLength.count + 1)
    scanned = start
    return false
  }

  static let contentLength = Array("content-length:".utf8)

  /// Whether `pattern` (lower case) is at `index`, ignoring case.
  static func matches(_ pattern: [UInt8], in bytes: [UInt8], at index: Int) -> Bool {
    guard index >= 0, index + pattern.count <= bytes.count else { return false }
    for offset in 0..<pattern.count {
      var byte = bytes[index + offset]
      if byte >= 65 && byte <= 90 { byte += 32 }
      if byte != pattern[offset] { return false }
    }
    return true
  }

  /// The first place in `from..<to` where `pattern` starts (ignoring case), whole within `bytes`.
  static func find(_ pattern: [UInt8], in bytes: [UInt8], from: Int, to: Int) -> Int? {
    var index = max(0, from)
    while index < to, index + pattern.count <= bytes.count {
      if matches(pattern, in: bytes, at: index) { return index }
      index += 1
    }
    return nil
  }

  /// The first `Content-Length:` field (digits, then CR LF) starting in `from..<to`.
  static func embeddedHeader(in bytes: [UInt8], from: Int, to: Int) -> Int? {
    var index = from
    while let field = find(contentLength, in: bytes, from: index, to: to) {
      var cursor = field + contentLength.count
      while cursor < bytes.count, bytes[cursor] == 32 { cursor += 1 }
      let digits = cursor
      while cursor < bytes.count, bytes[cursor] >= 48, bytes[cursor] <= 57 { cursor += 1 }
      if cursor > digits, cursor + 1 < bytes.count, bytes[cursor] == 13, bytes[cursor + 1] == 10 { return field }
      index = field + 1
    }
    return nil
  }

  /// One message with its header, as bytes to write.
  public static func framed(_ message: FrameValue) -> [UInt8] {
    let body = Array(message.jsonText.utf8)
    return Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
  }
}
