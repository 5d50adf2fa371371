#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Writes to standard output and standard error (and any descriptor) through file descriptors. C's `stdout`
/// and `stderr` are shared mutable globals that Swift 6 rightly refuses to touch; a `write`
/// per message also keeps output and errors in the order they happened.
public enum StandardStreams {
  /// Writes `text` to standard output.
  public static func out(_ text: String) { write(text, to: STDOUT_FILENO) }
  /// Writes `text` to standard error.
  public static func error(_ text: String) { write(text, to: STDERR_FILENO) }

  /// Writes `text` to a descriptor, whole (a closed pipe ends it quietly).
  public static func write(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { bytes in
      guard let base = bytes.baseAddress else { return }  // nothing to write
      var offset = 0
      while offset < bytes.count {
        let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          return  // a closed pipe: nothing more can be written
        }
        offset += written
      }
    }
  }
}
