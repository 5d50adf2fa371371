import CSystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// What a descriptor is waited for, and what happened to it: readable, room to write, the other
/// end hung up, an error.
public struct Readiness: OptionSet, Sendable, Equatable {
  public let rawValue: Int16
  public init(rawValue: Int16) { self.rawValue = rawValue }

  /// Bytes to read (or the end of input).
  public static let readable = Readiness(rawValue: Int16(POLLIN))
  /// Room to write.
  public static let writable = Readiness(rawValue: Int16(POLLOUT))
  /// The other end closed (said whether or not it was asked for).
  public static let hangUp = Readiness(rawValue: Int16(POLLHUP))
  /// An error on the descriptor, or one that is not open (said whether or not asked for).
  public static let failed = Readiness(rawValue: Int16(POLLERR) | Int16(POLLNVAL))

  /// Whether anything at all happened.
  public var happened: Bool { rawValue != 0 }
}

/// How a wait ended.
public enum WaitOutcome<Value> {
  /// Something happened: to each descriptor, what (nothing for those that stayed quiet).
  case ready(Value)
  /// The time passed first.
  case timedOut
  /// A signal came first: wait again when it still makes sense.
  case interrupted
  /// Waiting itself failed (`errno` says why).
  case failed
}

/// The one wait for descriptors every loop of the program uses (module pipes, workers, the
/// language server's input and runs, the shell's keys and live sources): `poll(2)` in one
/// place, with its signal and time-out cases named.
public enum Descriptors {
  /// Waits until `descriptor` is ready for `wanted` (or hung up, or failed), at most
  /// `milliseconds` (negative: for ever; above `Int32.max`: as long as `poll` allows).
  @inlinable
  public static func wait(for descriptor: Int32, _ wanted: Readiness, milliseconds: Int) -> WaitOutcome<Readiness> {
    var polled = pollfd(fd: descriptor, events: wanted.rawValue, revents: 0)
    return outcome(of: poll(&polled, 1, clamped(milliseconds))) { Readiness(rawValue: polled.revents) }
  }

  /// Waits until any of `descriptors` is ready for what it is wanted for, at most
  /// `milliseconds`; what happened to each, in their order.
  public static func wait(
    forAny descriptors: [(descriptor: Int32, wanted: Readiness)], milliseconds: Int
  ) -> WaitOutcome<[Readiness]> {
    var polled = descriptors.map { pollfd(fd: $0.descriptor, events: $0.wanted.rawValue, revents: 0) }
    let count = poll(&polled, nfds_t(polled.count), clamped(milliseconds))
    return outcome(of: count) { polled.map { Readiness(rawValue: $0.revents) } }
  }

  /// Waits until either of two descriptors is ready for what it is wanted for, at most
  /// `milliseconds`: what happened to each. One `poll`, with nothing allocated (it is asked
  /// before every request to a module).
  public static func wait(
    for first: (descriptor: Int32, wanted: Readiness), and second: (descriptor: Int32, wanted: Readiness),
    milliseconds: Int
  ) -> WaitOutcome<(Readiness, Readiness)> {
    var polled = (
      pollfd(fd: first.descriptor, events: first.wanted.rawValue, revents: 0),
      pollfd(fd: second.descriptor, events: second.wanted.rawValue, revents: 0)
    )
    let count = withUnsafeMutableBytes(of: &polled) { bytes in
      poll(bytes.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, clamped(milliseconds))
    }
    return outcome(of: count) { (Readiness(rawValue: polled.0.revents), Readiness(rawValue: polled.1.revents)) }
  }

  /// Whether `descriptor` has something to read now, without waiting.
  @inlinable
  public static func isReadable(_ descriptor: Int32) -> Bool {
    if case .ready(let what) = wait(for: descriptor, .readable, milliseconds: 0) { return what.contains(.readable) }
    return false
  }

  @inlinable
  static func clamped(_ milliseconds: Int) -> Int32 {
    milliseconds < 0 ? -1 : Int32(clamping: milliseconds)
  }

  @inlinable
  static func outcome<Value>(of count: Int32, _ happened: () -> Value) -> WaitOutcome<Value> {
    if count > 0 { return .ready(happened()) }
    if count == 0 { return .timedOut }
    return errno == EINTR ? .interrupted : .failed
  }
}

extension Descriptors {
  /// A pipe whose ends are close-on-exec from the moment they exist (`pipe2`), so no child
  /// another thread starts meanwhile holds an end (a reader would then never see the end of
  /// input): `nil` when none could be made.
  public static func pipe() -> (read: Int32, write: Int32)? {
    var ends: [Int32] = [-1, -1]
    guard workbench_pipe_closed_on_exec(&ends) == 0 else { return nil }
    return (ends[0], ends[1])
  }
}
