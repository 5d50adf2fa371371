import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Reads standard input one line at a time as bytes, so invalid UTF-8 can be reported
/// instead of being silently replaced.
struct StandardInputLines {
  enum Line: Equatable {
    case text(String)
    case invalidUTF8
  }

  private var buffer = InputBuffer()
  private var atEnd = false
  /// Whether the line `next` gave was there already when it was asked for (read before, or
  /// in the pipe), rather than waited for.
  private(set) var lastWasWaiting = false

  /// The next line without its line break, or `nil` at the end of input.
  mutating func next() -> Line? {
    lastWasWaiting = true
    while true {
      if let line = buffer.nextLine() { return decode(line) }
      if atEnd { return buffer.takeRest().map(decode) }
      if lastWasWaiting {
        var ready = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        lastWasWaiting = poll(&ready, 1, 0) == 1
      }
      fill()
    }
  }

  private mutating func fill() {
    let count = buffer.read(from: STDIN_FILENO)
    if count < 0 && errno == EINTR { return }
    if count <= 0 { atEnd = true }
  }

  private func decode(_ bytes: ArraySlice<UInt8>) -> Line {
    var bytes = bytes
    if bytes.last == 0x0D { bytes.removeLast() }
    guard let text = String(validating: bytes, as: UTF8.self) else { return .invalidUTF8 }
    return .text(text)
  }
}
