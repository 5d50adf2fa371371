import Dispatch
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// A module's standard error, copied to its log file by a thread of its own, with a cap: the
/// module writes into a pipe this side drains at once (so it never blocks on its own printing),
/// and the log is rotated when it reaches `fileLimit` bytes: `NAME.log` becomes `NAME.log.1`
/// (replacing the one before) and a new `NAME.log` starts. A module's logs never hold more
/// than twice the limit, however much it prints.
final class ModuleLog: Sendable {
  /// The most bytes one log file holds before it is rotated.
  static let fileLimit = 1024 * 1024

  let path: String
  private let limit: Int
  /// Signalled when the pipe has closed and everything in it is in the log.
  private let drained = DispatchSemaphore(value: 0)

  /// Opens (rotating first if it is full) the log at `path`, writes `banner`, and starts
  /// draining `descriptor` (the read end of the module's standard error) into it until the
  /// last writer closes it.
  init(path: String, banner: String, draining descriptor: Int32, limit: Int = ModuleLog.fileLimit) {
    self.path = path
    self.limit = limit
    var file = Self.open(path)
    var size = Self.size(of: file)
    if size >= limit {
      close(file)
      file = Self.rotate(path)
      size = 0
    }
    size += Self.write(Array(banner.utf8)[...], to: file)
    let state = (file: file, size: size)
    DispatchQueue(label: "workbench.module-log").async { [self] in
      self.drain(descriptor, into: state.file, size: state.size)
    }
  }

  private func drain(_ descriptor: Int32, into file: Int32, size: Int) {
    var file = file
    var size = size
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = read(descriptor, &chunk, chunk.count)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      var bytes = chunk[..<count]
      while !bytes.isEmpty {
        if size >= limit {
          close(file)
          file = Self.rotate(path)
          size = 0
        }
        let room = limit - size
        let part = bytes.prefix(room)
        size += Self.write(part, to: file)
        bytes = bytes.dropFirst(part.count)
      }
    }
    close(descriptor)
    close(file)
    drained.signal()
  }

  /// The last `count` lines the module printed since `banner` (its latest start), each shown
  /// visibly and cut to 200 characters: what a module that died at start said (a Python
  /// traceback, a missing library). Waits briefly for the module's last words to reach the file.
  func tail(after banner: String, lines count: Int = 10) -> [String] {
    finish(within: 500)
    guard let bytes = try? FileSystem.read(path) else { return [] }
    let text = String(decoding: bytes, as: UTF8.self)
    let start = text.ranges(of: banner).last?.upperBound ?? text.startIndex
    return text[start...].split(separator: "\n", omittingEmptySubsequences: true).suffix(count).map { line in
      let shown = TerminalText.visible(String(line))
      return shown.count > 200 ? String(shown.prefix(200)) + "…" : shown
    }
  }

  /// Waits (at most `milliseconds`) until what the module printed before it ended is in the
  /// log, so a message naming the log, or a host about to exit, does not run ahead of it.
  func finish(within milliseconds: Int) {
    if drained.wait(timeout: .now() + .milliseconds(milliseconds)) == .success { drained.signal() }
  }

  private static func open(_ path: String) -> Int32 {
    Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
  }

  private static func size(of file: Int32) -> Int {
    var info = stat()
    return fstat(file, &info) == 0 ? Int(info.st_size) : 0
  }

  /// `path` becomes `path.1`; a new, empty `path` is opened.
  private static func rotate(_ path: String) -> Int32 {
    rename(path, path + ".1")
    return open(path)
  }

  /// Writes all of `bytes` (a failing file is given up on: the module's printing must not stop
  /// because its log cannot be written); returns how many were written.
  @discardableResult
  private static func write(_ bytes: ArraySlice<UInt8>, to file: Int32) -> Int {
    guard file >= 0 else { return 0 }
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress! + written, $0.count - written) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      written += count
    }
    return written
  }
}
