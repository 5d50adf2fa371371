import WorkbenchCore

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
  /// `WORKBENCH_HOST_PROTOCOLS` (§3). For `posix_spawn`; free each string after.
  public static func moduleEnvironment() -> [UnsafeMutablePointer<CChar>?] {
    let variable = hostVersionsVariable + "="
    var environment: [UnsafeMutablePointer<CChar>?] = []
    var entry = environ
    while let pointer = entry.pointee {
      if !String(cString: pointer).hasPrefix(variable) { environment.append(strdup(pointer)) }
      entry += 1
    }
    environment.append(strdup(variable + versions.map(String.init).joined(separator: ",")))
    environment.append(nil)
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
  private var buffer: [UInt8] = []

  private func take(_ bytes: ArraySlice<UInt8>) { buffer += bytes }

  /// Whether a message (or part of one) was read past the last one returned.
  public var hasBufferedInput: Bool { !buffer.isEmpty }

  /// Whether a whole message was read past the last one returned (`receive` returns it without
  /// waiting).
  public var holdsAMessage: Bool {
    guard buffer.count >= 4 else { return false }
    let length = Int(buffer[0]) << 24 | Int(buffer[1]) << 16 | Int(buffer[2]) << 8 | Int(buffer[3])
    return buffer.count >= 4 + length
  }

  /// A channel reading from `input` and writing to `output`.
  public init(input: Int32, output: Int32) {
    self.input = input
    self.output = output
  }

  /// Writes one message, waiting at most `timeout` milliseconds (-1: forever) for the other
  /// end to take it. A peer that stops reading cannot block the writer past the deadline: the
  /// descriptor is polled for room before each write, and a non-blocking descriptor never
  /// waits inside `write` (the host makes its ends non-blocking; see `makeNonBlocking`).
  public func send(_ message: FrameValue, timeout: Int32 = -1) throws(ChannelError) {
    let body = Array(message.jsonText.utf8)
    let length = UInt32(body.count)
    var frame: [UInt8] = [
      UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF),
    ]
    frame += body
    let deadline = Deadline(timeout: timeout)
    var offset = 0
    while offset < frame.count {
      guard let revents = try deadline.wait(for: output, events: POLLOUT) else { continue }
      // POLLERR or POLLHUP alone: the reader is gone (write would fail with EPIPE).
      if revents & Int16(POLLOUT) == 0 { throw .closed }
      let written = frame.withUnsafeBytes { write(output, $0.baseAddress! + offset, frame.count - offset) }
      if written < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        throw .closed  // EPIPE among others: the module exited or closed its input
      }
      offset += written
    }
  }

  /// Makes a descriptor non-blocking, so no single read or write can wait past a deadline.
  public static func makeNonBlocking(_ descriptor: Int32) {
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
  }

  /// Reads one message, waiting at most `timeout` milliseconds (-1: forever).
  public func receive(timeout: Int32) throws(ChannelError) -> FrameValue {
    let deadline = Deadline(timeout: timeout)
    while true {
      if let message = try Self.nextMessage(in: &buffer) { return message }
      guard try deadline.wait(for: input, events: POLLIN) != nil else { continue }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let count = read(input, &chunk, chunk.count)
      if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
      guard count > 0 else { throw .closed }
      buffer += chunk[..<count]
    }
  }

  /// Takes the first complete message off the front of `buffer`, or returns `nil` (leaving
  /// `buffer` alone) when it does not hold one yet.
  ///
  /// - Throws: `ChannelError.malformed` for a length over the limit or a body that is not JSON.
  public static func nextMessage(in buffer: inout [UInt8]) throws(ChannelError) -> FrameValue? {
    guard buffer.count >= 4 else { return nil }
    let length = Int(buffer[0]) << 24 | Int(buffer[1]) << 16 | Int(buffer[2]) << 8 | Int(buffer[3])
    guard length <= ModuleProtocol.maximumMessage else {
      throw .malformed("a message of \(length) bytes announced")
    }
    guard buffer.count >= 4 + length else { return nil }
    let body = Array(buffer[4..<(4 + length)])
    buffer.removeFirst(4 + length)
    do {
      return try FrameValue.parse(json: body)
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

    /// Waits until `descriptor` is ready for `events` or the deadline passes.
    ///
    /// - Returns: the events that happened, or `nil` when a signal interrupted the wait (try
    ///   again).
    /// - Throws: `.timedOut` when the deadline passed, `.closed` when polling failed.
    func wait(for descriptor: Int32, events: Int32) throws(ChannelError) -> Int16? {
      var wait: Int32 = -1
      if timeout >= 0 {
        let left = end - MessageChannel.milliseconds()
        guard left > 0 else { throw .timedOut(Int(timeout)) }
        wait = Int32(left)
      }
      var polled = pollfd(fd: descriptor, events: Int16(events), revents: 0)
      let ready = poll(&polled, 1, wait)
      if ready < 0 {
        if errno == EINTR { return nil }
        throw .closed
      }
      if ready == 0 { throw .timedOut(Int(timeout)) }
      return polled.revents
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
  @MainActor public static func encode(_ spec: CommandSpec) -> FrameValue {
    let arguments = spec.arguments.map { argument -> FrameValue in
      var kind = "word"
      var extra: FrameValue = .null
      switch argument.kind {
      case .integer(let range):
        kind = "integer"
        if let range { extra = [.integer(range.lowerBound), .integer(range.upperBound)] }
      case .rest: kind = "rest"
      case .choice(let words):
        kind = "choice"
        extra = .list(words.map(FrameValue.string))
      default: kind = "word"
      }
      return [
        "name": .string(argument.name), "kind": .string(kind), "extra": extra, "optional": .bool(argument.isOptional),
        "help": .string(argument.help),
      ]
    }
    var screens: FrameValue = .null
    if case .window(let names) = spec.scope { screens = .list(names.map(FrameValue.string)) }
    var encoded: FrameValue = [
      "name": .string(spec.name), "summary": .string(spec.summary), "details": .string(spec.details),
      "screens": screens, "arguments": .list(arguments),
    ]
    // The windows it opens or closes, for the scenario check (§17).
    if let effect = spec.windowEffect, case .object(var object) = encoded {
      switch effect {
      case .opens(let screenArgument, let nameArgument):
        object["windowEffect"] = [
          "opens": ["screenArgument": .string(screenArgument), "nameArgument": .string(nameArgument)]
        ]
      case .opensFrom(let screens, let nameArgument):
        let pairs = screens.sorted { $0.key < $1.key }.map { (key: $0.key, value: FrameValue.string($0.value)) }
        object["windowEffect"] = [
          "opensFrom": ["screens": .object(FrameObject(members: pairs)), "nameArgument": .string(nameArgument)]
        ]
      case .closes(let argument):
        object["windowEffect"] = ["closes": ["argument": .string(argument)]]
      }
      encoded = .object(object)
    }
    // Subcommands (`network fail`, `network latency 300ms`), each a spec of its own (§3).
    if !spec.subcommands.isEmpty, case .object(var object) = encoded {
      object["subcommands"] = .list(spec.subcommands.map { encode($0) })
      object["requiresSubcommand"] = .bool(spec.requiresSubcommand)
      encoded = .object(object)
    }
    return encoded
  }

  /// The window effect a spec the handshake sent declares (§17), if any.
  public static func windowEffect(_ value: FrameValue) -> WindowEffect? {
    guard let effect = value["windowEffect"] else { return nil }
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
  public static func arguments(_ value: FrameValue) -> [ArgumentSpec] {
    (value["arguments"]?.elements ?? []).map { argument in
      let name = argument["name"]?.stringValue ?? "argument"
      let optional = argument["optional"]?.boolValue ?? false
      let help = argument["help"]?.stringValue ?? ""
      let kind: ArgumentKind
      switch argument["kind"]?.stringValue {
      case "integer":
        if let bounds = argument["extra"]?.elements, bounds.count == 2, let low = bounds[0].integerValue,
          let high = bounds[1].integerValue, low <= high
        {
          kind = .integer(low...high)
        } else {
          kind = .integer()
        }
      case "rest": kind = .rest
      case "choice": kind = .choice(argument["extra"]?.elements?.compactMap(\.stringValue) ?? [])
      default: kind = .word
      }
      return ArgumentSpec(name, kind, optional: optional, help: help)
    }
  }
}

/// What a reply must be for the request it answers (docs/protocol.md §4-§8, §12): the host and
/// `workbench module-check` hold every reply to these rules, so a module that answers with the
/// wrong kind of message is stopped rather than read as something it is not.
public enum ReplyRules {
  /// The requests answered with a result (or an error).
  public static let resultRequests: Set<String> = ["open", "command", "refresh", "restore"]

  /// What is wrong with `reply` as the answer to a request of type `request`; empty when it is
  /// a well-formed answer.
  public static func problems(with reply: FrameValue, toRequest request: String) -> [String] {
    guard case .object = reply, let type = reply["type"]?.stringValue else {
      return ["a message with a `type`, got \(excerpt(reply))"]
    }
    if type == "error" {
      // A refusal may carry the facts the work used before it was refused (§12): an outside
      // answer that made it fail is kept like any other.
      return (reply["message"]?.stringValue == nil ? ["an error with a `message` as text"] : []) + factProblems(reply)
    }
    if resultRequests.contains(request) {
      guard type == "result" else { return ["a `result` or an `error` for `\(request)`, got `\(type)`"] }
      return resultProblems(reply)
    }
    guard type == "ok" else { return ["`ok` or an `error` for `\(request)`, got `\(type)`"] }
    // A due timer and a command run in no window (protocol 2) answer `ok`, and may update
    // windows and set timers.
    if request == "capture" { return factProblems(reply) }
    return request == commandInNoWindow || request == "timer" ? timerProblems(reply) + updateProblems(reply) : []
  }

  /// The name the rules know a `command` without a `key` by: a command run in no window
  /// (protocol 2, §16), answered with `ok`.
  public static let commandInNoWindow = "command in no window"

  /// What is missing or wrong in a `result`.
  public static func resultProblems(_ reply: FrameValue) -> [String] {
    var problems: [String] = []
    if case .object? = reply["frame"] {} else { problems.append("`frame` as an object") }
    if reply["text"]?.stringValue == nil { problems.append("`text` as text") }
    if reply["state"]?.stringValue == nil { problems.append("`state` as JSON text") }
    // The commit's JSON is checked where it is parsed (it can be a whole big document):
    // here only that it is text.
    if let commit = reply["commit"], commit != .null, commit.stringValue == nil {
      problems.append("`commit` as JSON text or null")
    }
    return problems + factProblems(reply) + timerProblems(reply) + updateProblems(reply)
  }

  /// What is wrong with a reply's `facts` and `divergence` (§12).
  public static func factProblems(_ reply: FrameValue) -> [String] {
    var problems: [String] = []
    if let facts = reply["facts"], facts != .null {
      let wellFormed =
        facts.elements?.allSatisfy { fact in
          if case .object = fact, fact["source"]?.stringValue != nil, fact["value"] != nil { return true }
          return false
        } ?? false
      if !wellFormed {
        problems.append("`facts` as a list of {source, value} objects, with `asked` when one answers a question (§12)")
      }
    }
    if let divergence = reply["divergence"], divergence != .null, divergence.stringValue == nil {
      problems.append("`divergence` as text")
    }
    return problems
  }

  /// What is wrong with a reply's `timers` and `cancel` (protocol 2, §14).
  public static func timerProblems(_ reply: FrameValue) -> [String] {
    var problems: [String] = []
    if let timers = reply["timers"], timers != .null {
      let wellFormed =
        timers.elements?.allSatisfy { timer in
          guard timer["id"]?.stringValue?.isEmpty == false, let after = timer["after"]?.integerValue else {
            return false
          }
          return (0...ModuleProtocol.maximumTimerDelay).contains(after)
        } ?? false
      if !wellFormed {
        problems.append(
          "`timers` as a list of {id, after} objects: an id (text) and a delay in milliseconds from 0 to "
            + "\(ModuleProtocol.maximumTimerDelay) (§14)")
      }
    }
    if let cancel = reply["cancel"], cancel != .null,
      !(cancel.elements?.allSatisfy { $0.stringValue != nil } ?? false)
    {
      problems.append("`cancel` as a list of timer ids (§14)")
    }
    return problems
  }

  /// What is wrong with a reply's `updates`: other windows' new frames (protocol 2, §15).
  public static func updateProblems(_ reply: FrameValue) -> [String] {
    guard let updates = reply["updates"], updates != .null else { return [] }
    guard let list = updates.elements, list.count <= ModuleProtocol.maximumUpdatesPerReply else {
      return ["`updates` as a list of at most \(ModuleProtocol.maximumUpdatesPerReply) windows (§15)"]
    }
    for update in list {
      guard update["key"]?.stringValue != nil else { return ["each of `updates` with the window's `key` (§15)"] }
      let problems = resultProblems(setting(update, "type", "result"))
      if !problems.isEmpty { return problems.map { "in `updates`: " + $0 } }
    }
    return []
  }

  private static func setting(_ value: FrameValue, _ key: String, _ new: FrameValue) -> FrameValue {
    guard case .object(var object) = value else { return value }
    object[key] = new
    return .object(object)
  }

  static func excerpt(_ value: FrameValue) -> String {
    let text = value.jsonText
    return text.count > 120 ? String(text.prefix(120)) + "…" : text
  }
}

extension MessageChannel {
  /// Whether the other end has sent something that was not asked for: a message already read
  /// past the last reply, or bytes waiting on the pipe. A closed pipe is not such a message
  /// (the next request finds the module gone).
  public func hasUnaskedInput() -> Bool {
    if hasBufferedInput { return true }
    var polled = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
    guard poll(&polled, 1, 0) > 0, polled.revents & Int16(POLLIN) != 0 else { return false }
    var chunk = [UInt8](repeating: 0, count: 65536)
    let count = read(input, &chunk, chunk.count)
    guard count > 0 else { return false }
    take(chunk[..<count])
    return true
  }
}
