import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The protocol between the host and a module running in its own process: messages are JSON
/// objects, each preceded by its length as four bytes, big-endian, on the module's stdin and
/// stdout. The module's own printing goes to stderr.
public enum ModuleProtocol {
  /// The newest version this build speaks. A module says in its handshake which one it speaks.
  public static let version = 2
  /// Every version this build speaks: a module speaking another is refused at the handshake.
  public static let versions: ClosedRange<Int> = 1...2
  /// The environment variable the host starts a module with, listing the versions it speaks
  /// (`1,2`), so the module can pick the newest both sides speak.
  public static let hostVersionsVariable = "WORKBENCH_HOST_PROTOCOLS"
  /// The most timers a module may have pending in one session (§11): one past it is stopped.
  public static let maximumPendingTimers = 256
  /// The longest delay a timer may ask for, in milliseconds (a day).
  public static let maximumTimerDelay = 86_400_000
  /// The most windows one reply may update besides its own (§11).
  public static let maximumUpdatesPerReply = 256
  /// The most changes a module may send unasked between two commands (§11, §19).
  public static let maximumWaitingChanges = 100
  /// The largest message accepted, so a module writing garbage cannot make the host allocate
  /// without bound.
  public static let maximumMessage = 16 * 1024 * 1024

  /// The environment a module starts with: the user's, and the versions this host speaks in
  /// `WORKBENCH_HOST_PROTOCOLS` (§3), as `NAME=value` entries.
  public static func moduleEnvironment() -> [String] {
    let variable = hostVersionsVariable + "="
    var environment: [String] = []
    var entry = environ
    while let pointer = entry.pointee {
      let text = String(cString: pointer)
      if !text.hasPrefix(variable) { environment.append(text) }
      entry += 1
    }
    environment.append(variable + versions.map(String.init).joined(separator: ","))
    return environment
  }
}

/// Why a message could not be read.
public enum ChannelError: Error, Equatable, Sendable, CustomStringConvertible {
  case closed
  case timedOut(Int)
  case malformed(String)

  public var description: String {
    switch self {
    case .closed: "it closed the connection (it exited or crashed)"
    case .timedOut(let milliseconds): "it did not answer within \(milliseconds) ms"
    case .malformed(let detail): "it sent a malformed message (\(detail))"
    }
  }
}

/// One end of a module connection: reads and writes framed messages on two descriptors.
public final class MessageChannel {
  let input: Int32
  let output: Int32
  /// What was read and not yet taken: the one reader of frames (`InputBuffer`).
  private var buffer = InputBuffer()

  /// Whether a message (or part of one) was read past the last one returned.
  public var hasBufferedInput: Bool { !buffer.isEmpty }

  /// Whether what came next announced more than a message may hold (§11): the stream cannot be
  /// read on from there. (A whole message whose body is not JSON leaves it readable.)
  public var isFramingBroken: Bool { (buffer.announcedLength ?? 0) > ModuleProtocol.maximumMessage }

  /// Whether a whole message was read past the last one returned (`receive` returns it without
  /// waiting).
  public var holdsAMessage: Bool { buffer.holdsAFrame }

  /// Whether a message is written at once, and the descriptor waited on only when it is full;
  /// otherwise it is polled for room before each write.
  let writesBeforeLooking: Bool

  /// A channel reading from `input` and writing to `output`.
  ///
  /// - Parameter writesBeforeLooking: write without polling first; by default where this
  ///   process ignores SIGPIPE (the host does), so a reader gone is EPIPE and not the signal.
  public init(input: Int32, output: Int32, writesBeforeLooking: Bool = MessageChannel.ignoresBrokenPipes) {
    self.input = input
    self.output = output
    self.writesBeforeLooking = writesBeforeLooking
  }

  /// Writes one message, waiting at most `timeout` milliseconds (-1: forever) for the other
  /// end to take it. A peer that stops reading cannot block the writer past the deadline: a
  /// non-blocking descriptor never waits inside `write` (the host makes its ends non-blocking;
  /// see `makeNonBlocking`), and the wait for room is polled under the deadline.
  public func send(_ message: some WireWritable, timeout: Int32 = -1) throws(ChannelError) {
    // The length and the body in one buffer, the body encoded straight into it after four
    // bytes kept for the length.
    var frame: [UInt8] = [0, 0, 0, 0]
    frame.reserveCapacity(512)
    message.appendWire(to: &frame)
    let length = UInt32(truncatingIfNeeded: frame.count - 4)
    frame[0] = UInt8(length >> 24)
    frame[1] = UInt8((length >> 16) & 0xFF)
    frame[2] = UInt8((length >> 8) & 0xFF)
    frame[3] = UInt8(length & 0xFF)
    let deadline = Deadline(timeout: timeout)
    // A pipe almost always has room: where a reader gone cannot kill this process (SIGPIPE
    // ignored, as the host has it), the message is written at once, and the wait is only for a
    // pipe that is full. A module keeps SIGPIPE's default, so it looks first: a write to a host
    // that has gone would end it by the signal, not as its loop ends.
    var mayWrite = writesBeforeLooking
    var offset = 0
    while offset < frame.count {
      if !mayWrite {
        guard let happened = try deadline.wait(for: output, .writable) else { continue }
        // An error or a hang-up alone: the reader is gone (write would fail with EPIPE).
        if !happened.contains(.writable) { throw .closed }
      }
      mayWrite = writesBeforeLooking
      let written = frame.withUnsafeBytes { write(output, $0.baseAddress! + offset, frame.count - offset) }
      if written < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN {
          mayWrite = false
          continue
        }
        throw .closed  // EPIPE among others: the module exited or closed its input
      }
      offset += written
    }
  }

  /// Whether this process ignores SIGPIPE (the host does; a module keeps its default), read
  /// once: then a write to a reader that has gone fails with EPIPE rather than ending it.
  public static let ignoresBrokenPipes: Bool = {
    var current = sigaction()
    guard sigaction(SIGPIPE, nil, &current) == 0 else { return false }
    guard let handler = current.__sigaction_handler.sa_handler else { return false }
    return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
  }()

  /// Reads what is waiting into the buffer: the count, or -1 with `errno` set.
  fileprivate func readSome() -> Int { buffer.read(from: input) }

  /// Makes a descriptor non-blocking, so no single read or write can wait past a deadline.
  public static func makeNonBlocking(_ descriptor: Int32) {
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
  }

  /// Reads one message, waiting at most `timeout` milliseconds (-1: forever).
  public func receive(timeout: Int32) throws(ChannelError) -> FrameValue {
    try Self.value(of: receiveText(timeout: timeout))
  }

  /// Reads one message's JSON text, unparsed, waiting at most `timeout` milliseconds (-1:
  /// forever): for a reader that reads a message straight from its text
  /// (`ModuleMessage(json:)`), and parses it (`value(of:)`) only when that does not read it.
  ///
  /// - Parameter process: a descriptor readable once the writer's process ended (the host's
  ///   for a module, `ProcessEnds.descriptor(of:)`): once it is, and nothing more is there to
  ///   read, the message will not come (though a child of the process may hold the pipe open)
  ///   and this throws `closed` at once instead of waiting out the deadline.
  public func receiveText(timeout: Int32, process: Int32? = nil) throws(ChannelError) -> [UInt8] {
    let deadline = Deadline(timeout: timeout)
    // With no deadline the first read goes first: a module's kit asks once it saw the request
    // come, so looking again before reading would cost a system call a message. (A descriptor
    // that does not block answers that there is nothing yet, and then it waits.)
    var waitsFirst = timeout >= 0
    while true {
      if let text = try Self.nextText(in: &buffer) { return text }
      if waitsFirst, let process {
        // What was written before the process ended is read first, and only then is it gone.
        // (The descriptor is the caller's to keep open while it waits.)
        guard let (arrived, ended) = try deadline.wait(for: input, .readable, or: process) else { continue }
        if !arrived.happened, ended.contains(.readable) { throw .closed }
      } else if waitsFirst {
        guard try deadline.wait(for: input, .readable) != nil else { continue }
      }
      waitsFirst = true
      let count = readSome()
      if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
      guard count > 0 else { throw .closed }
    }
  }

  /// Takes the first complete message off the front of `buffer`, or returns `nil` (taking
  /// nothing) when it does not hold one yet.
  ///
  /// - Throws: `ChannelError.malformed` for a length over the limit (nothing taken) or a body
  ///   that is not JSON (taken: the next message can be read).
  public static func nextMessage(in buffer: inout InputBuffer) throws(ChannelError) -> FrameValue? {
    try nextText(in: &buffer).map { text throws(ChannelError) in try value(of: text) }
  }

  /// The JSON text of the first complete message in `buffer`, taken off its front, or `nil`
  /// (taking nothing) when it does not hold one yet.
  ///
  /// - Throws: `ChannelError.malformed` for a length over the limit (nothing taken).
  static func nextText(in buffer: inout InputBuffer) throws(ChannelError) -> [UInt8]? {
    do {
      return try buffer.nextFrame(maximum: ModuleProtocol.maximumMessage).map(Array.init)
    } catch {
      throw .malformed("a message of \(error.length) bytes announced")
    }
  }

  /// A message's JSON text parsed.
  ///
  /// - Throws: `ChannelError.malformed` for text that is not JSON.
  public static func value(of text: [UInt8]) throws(ChannelError) -> FrameValue {
    do {
      return try FrameValue.parse(json: text)
    } catch {
      throw .malformed("not JSON: \(error)")
    }
  }

  /// A point in time a read or write must finish by (none for a timeout of -1).
  struct Deadline {
    let timeout: Int32
    let end: Int

    init(timeout: Int32) {
      self.timeout = timeout
      end = MessageChannel.milliseconds() + Int(timeout)
    }

    /// Waits until `descriptor` is ready for `wanted` or the deadline passes.
    ///
    /// - Returns: what happened, or `nil` when a signal interrupted the wait (try again).
    /// - Throws: `.timedOut` when the deadline passed, `.closed` when waiting failed.
    func wait(for descriptor: Int32, _ wanted: Readiness) throws(ChannelError) -> Readiness? {
      try taken(Descriptors.wait(for: descriptor, wanted, milliseconds: try left()))
    }

    /// Waits as `wait(for:_:)` does, until `descriptor` is ready for `wanted` or `other` is
    /// readable: what happened to each.
    func wait(for descriptor: Int32, _ wanted: Readiness, or other: Int32) throws(ChannelError) -> (
      Readiness, Readiness
    )? {
      try taken(Descriptors.wait(for: (descriptor, wanted), and: (other, .readable), milliseconds: try left()))
    }

    /// The milliseconds left to wait (-1: for ever).
    private func left() throws(ChannelError) -> Int {
      guard timeout >= 0 else { return -1 }
      let left = end - MessageChannel.milliseconds()
      guard left > 0 else { throw .timedOut(Int(timeout)) }
      return left
    }

    private func taken<Value>(_ outcome: WaitOutcome<Value>) throws(ChannelError) -> Value? {
      switch outcome {
      case .ready(let happened): return happened
      case .interrupted: return nil
      case .timedOut: throw .timedOut(Int(timeout))
      case .failed: throw .closed
      }
    }
  }

  static func milliseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
  }
}

/// Command specs in the handshake.
public enum SpecCoding {
  /// A spec as the handshake sends it.
  @MainActor public static func encode(_ spec: CommandSpec) -> WireCommandSpec {
    var encoded = WireCommandSpec()
    encoded.name = spec.name
    encoded.summary = spec.summary
    encoded.details = spec.details
    if case .window(let names) = spec.scope { encoded.screens = names }
    encoded.arguments = spec.arguments.map { argument in
      var wire = WireArgument()
      wire.name = argument.name
      wire.optional = argument.isOptional
      wire.help = argument.help
      wire.extra = .null
      switch argument.kind {
      case .integer(let range):
        wire.kind = "integer"
        if let range { wire.extra = [.integer(range.lowerBound), .integer(range.upperBound)] }
      case .rest: wire.kind = "rest"
      case .choice(let words):
        wire.kind = "choice"
        wire.extra = .list(words.map(FrameValue.string))
      case .window: wire.kind = "window"
      default: wire.kind = "word"
      }
      return wire
    }
    // The windows it opens or closes, for the scenario check (§17).
    switch spec.windowEffect {
    case .opens(let screenArgument, let nameArgument)?:
      encoded.windowEffect = [
        "opens": ["screenArgument": .string(screenArgument), "nameArgument": .string(nameArgument)]
      ]
    case .opensFrom(let screens, let nameArgument)?:
      let pairs = screens.sorted { $0.key < $1.key }.map { (key: $0.key, value: FrameValue.string($0.value)) }
      encoded.windowEffect = [
        "opensFrom": ["screens": .object(FrameObject(members: pairs)), "nameArgument": .string(nameArgument)]
      ]
    case .closes(let argument)?: encoded.windowEffect = ["closes": ["argument": .string(argument)]]
    case nil: break
    }
    // Subcommands (`network fail`, `network latency 300ms`), each a spec of its own (§3).
    if !spec.subcommands.isEmpty {
      encoded.subcommands = spec.subcommands.map { encode($0) }
      encoded.requiresSubcommand = spec.requiresSubcommand
    }
    return encoded
  }

  /// The window effect a spec the handshake sent declares (§17), if any.
  public static func windowEffect(_ spec: WireCommandSpec) -> WindowEffect? {
    guard let effect = spec.windowEffect else { return nil }
    if let opens = effect["opens"], let screen = opens["screenArgument"]?.stringValue,
      let name = opens["nameArgument"]?.stringValue
    {
      return .opens(screenArgument: screen, nameArgument: name)
    }
    if let opens = effect["opensFrom"], case .object(let screens)? = opens["screens"],
      let name = opens["nameArgument"]?.stringValue
    {
      var map: [String: String] = [:]
      for member in screens.members { if let to = member.value.stringValue { map[member.key] = to } }
      return .opensFrom(screens: map, nameArgument: name)
    }
    if let argument = effect["closes"]?["argument"]?.stringValue { return .closes(argument: argument) }
    return nil
  }

  /// The argument specs of a spec the handshake sent.
  public static func arguments(_ spec: WireCommandSpec) -> [ArgumentSpec] {
    (spec.arguments ?? []).map { argument in
      let kind: ArgumentKind
      switch argument.kind {
      case "integer":
        if let bounds = argument.extra?.elements, bounds.count == 2, let low = bounds[0].integerValue,
          let high = bounds[1].integerValue, low <= high
        {
          kind = .integer(low...high)
        } else {
          kind = .integer()
        }
      case "rest": kind = .rest
      case "choice": kind = .choice(argument.extra?.elements?.compactMap(\.stringValue) ?? [])
      case "window": kind = .window
      default: kind = .word
      }
      return ArgumentSpec(argument.name, kind, optional: argument.optional ?? false, help: argument.help ?? "")
    }
  }
}

/// What a reply must be for the request it answers (docs/protocol.md §4-§8, §12): the host and
/// `workbench module-check` hold every reply to these rules, so a module that answers with the
/// wrong kind of message is stopped rather than read as something it is not. The fields come
/// from the message declarations (`ModuleMessage`); the rules say which message answers what.
public enum ReplyRules {
  /// The requests answered with a result (or an error).
  public static let resultRequests: Set<String> = ["open", "command", "refresh", "restore", "leave"]

  /// The name the rules know a `command` without a `key` by: a command run in no window
  /// (protocol 2, §16), answered with `ok`.
  public static let commandInNoWindow = "command in no window"

  /// The reply read, or what is wrong with it as the answer to a request of type `request`.
  public static func reply(_ reply: FrameValue, toRequest request: String) -> Result<ModuleMessage, WireProblems> {
    let message: ModuleMessage
    do throws(WireProblems) {
      message = try ModuleMessage(wire: reply)
    } catch {
      return .failure(error)
    }
    return Self.reply(message, toRequest: request)
  }

  /// A message read, held to the request of type `request` it answers: the kind of message
  /// that answers it, or an error.
  public static func reply(_ message: ModuleMessage, toRequest request: String) -> Result<ModuleMessage, WireProblems> {
    switch message {
    case .error: return .success(message)
    case .result where resultRequests.contains(request): return .success(message)
    case .ok where !resultRequests.contains(request): return .success(message)
    case .hello, .changed, .result, .ok:
      return .failure(
        WireProblems(problems: [
          resultRequests.contains(request)
            ? "a `result` or an `error` for `\(request)`, got `\(message.type)`"
            : "`ok` or an `error` for `\(request)`, got `\(message.type)`"
        ]))
    }
  }

  /// What is wrong with `reply` as the answer to a request of type `request`; empty when it is
  /// a well-formed answer.
  public static func problems(with reply: FrameValue, toRequest request: String) -> [String] {
    switch Self.reply(reply, toRequest: request) {
    case .success: return []
    case .failure(let problems): return problems.problems
    }
  }

  /// What is wrong with a `changed` (§19), or with the updates of anything that has them.
  public static func changeProblems(_ change: FrameValue) -> [String] {
    do throws(WireProblems) {
      _ = try WireChanged(wire: change)
      return []
    } catch {
      return error.problems
    }
  }
}

extension MessageChannel {
  /// Whether the other end has sent something that was not asked for: a message already read
  /// past the last reply, or bytes waiting on the pipe. A closed pipe is not such a message
  /// (the next request finds the module gone).
  ///
  /// - Parameter milliseconds: how long to wait for bytes when none are there yet (0: not at all).
  public func hasUnaskedInput(within milliseconds: Int = 0) -> Bool {
    if hasBufferedInput { return true }
    guard case .ready(let happened) = Descriptors.wait(for: input, .readable, milliseconds: milliseconds),
      happened.contains(.readable)
    else { return false }
    return readSome() > 0
  }

  /// `hasUnaskedInput()` and whether `other` is readable (a module's process descriptor: the
  /// process ended), asked in one `poll`, without waiting.
  public func hasUnaskedInput(besides other: Int32) -> (unasked: Bool, otherIsReadable: Bool) {
    if hasBufferedInput { return (true, Descriptors.isReadable(other)) }
    guard
      case .ready(let (otherHappened, inputHappened)) = Descriptors.wait(
        for: (other, .readable), and: (input, .readable), milliseconds: 0)
    else { return (false, false) }
    return (inputHappened.contains(.readable) && readSome() > 0, otherHappened.contains(.readable))
  }

  /// Whether the other end closed its side with nothing left to read: a module that exited.
  public var peerHasClosed: Bool {
    guard !hasBufferedInput, case .ready(let happened) = Descriptors.wait(for: input, .readable, milliseconds: 0)
    else { return false }
    return !happened.contains(.readable) && !happened.isDisjoint(with: [.hangUp, .failed])
  }
}
