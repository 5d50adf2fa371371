import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// The connection: each request numbered, sent with its session's time, and answered by exactly
/// one reply of the kind the request gets (§7); changes a live source sent meanwhile are kept.
extension ModuleProcess {
  /// Sends a request and waits for the answer, held to the protocol. Any failure stops the
  /// module; a refusal (`error`) is thrown as the module's message.
  func call(_ request: HostMessage) throws(CommandError) -> ModuleMessage {
    if let stopReason {
      // A stop noticed just before (between lines, as the module's changes were looked for) is
      // this request's error: said once, here, not again at the next line.
      if let incident = reportedIncident, let session = request.header.session {
        entry(of: session)?.services?.withdraw(incident: incident)
      }
      throw stoppedError(stopReason)
    }
    guard let channel else { throw stoppedError("it is not running") }
    let rule = request.replyRule
    // Sessions that ended are told first (their own requests, before this one's line is noted).
    if version >= 2, rule != "end" { try endSessions() }
    if case .command(let command) = request { runningLine = command.line }
    let outer = requestInFlight
    requestInFlight = rule
    defer {
      runningLine = nil
      requestInFlight = outer
    }
    // A module that left after the last session it served had ended (answering its `end`) is
    // started again for this one: the next session is not charged for it, nor the last (§16).
    let wasIdle = isIdle && rule != "end"
    if wasIdle, try startAgainIfItLeft() {
      return try call(request)
    }
    // A process that exited since the last request (or whose child kept its pipes after it
    // exited, §9) is stopped now, not served through whatever holds its pipes. Whether it
    // exited and whether it sent something unasked (below) are one look.
    let (ended, unasked) = lookBeforeRequest(on: channel)
    if let ended {
      stop("it ended between requests", status: ended)
      throw stoppedError(stopReason ?? "it ended")
    }
    // Every request is numbered; a reply that carries an id must carry this one (§7): a late
    // second reply to an earlier request can then never be taken for this one's. A protocol 2
    // request about a session carries the session's time (§14).
    requestCount = OutsideNumbers.saturatingSuccessor(of: requestCount)
    let id = requestCount
    var now: Int?
    var date: Int?
    if version >= 2, let number = request.header.session, let entry = entry(of: number),
      let clock = entry.services?.clock
    {
      let milliseconds = clock.now.wholeMilliseconds
      now = Int(clamping: milliseconds)
      date = clock.date.milliseconds
      entry.requestTime = .milliseconds(milliseconds)
    }
    let message = request.with(id: id, now: now, date: date)
    // Every request gets exactly one reply (§7). Something waiting before a request is sent was
    // not asked for (a second reply, or a message of the module's own): read as the answer to
    // this request, it would put every later reply one command late.
    // Protocol 2: what came unasked must be a change a live source saw (§19), kept for the
    // next time between commands.
    if unasked {
      guard version >= 2 else {
        throw violation("it sent a message nobody asked for (a second reply to an earlier request?)")
      }
      try readChanges(from: channel)
    }
    let sent = Self.milliseconds()
    let reply: ReceivedReply
    do {
      logMessage(message.wire, from: "host")
      try channel.send(message, timeout: timeoutMilliseconds)
      // A module that ends while a child it forked holds its pipe is seen at once (§9), not
      // when the time is up (and so in `awaitReply`).
      let text = try channel.receiveText(timeout: timeoutMilliseconds, process: processDescriptor)
      reply = try ReceivedReply(text)
      logMessage((try? MessageChannel.value(of: text)) ?? .null, from: "module")
    } catch {
      // Leaving as this request went out, after its last session ended: the same, a moment later.
      if wasIdle, case .closed = error, try startAgainIfItLeft(waiting: 1000) {
        return try call(request)
      }
      stop(error.description)
      throw stoppedError(stopReason ?? error.description)
    }
    if rule != "end" { endedEverySession = false }
    if version >= 2, case .parsed(let change) = reply, change["type"]?.stringValue == "changed" {
      // A change sent while the request was on its way: kept, and the reply is the next one,
      // within the same time a reply has (changes do not buy a module more).
      try keep(change: change)
      return try awaitReply(to: rule, id: id, on: channel, deadline: sent + Int64(timeoutMilliseconds))
    }
    if channel.hasBufferedInput {
      guard version >= 2 else { throw violation("it answered `\(rule)` with more than one message") }
      try readChanges(from: channel, after: rule)
    }
    switch reply {
    case .read(let message): return try checked(message, to: rule, id: id)
    case .parsed(let value): return try checked(value, to: rule, id: id)
    }
  }

  /// Before a request: the process's wait status when it ended since the last one (reaped now),
  /// and whether something it sent waits unasked. With the process's descriptor both are one
  /// `poll`; without it, `waitpid` and a `poll`.
  private func lookBeforeRequest(on channel: MessageChannel) -> (ended: Int32?, unasked: Bool) {
    guard let processDescriptor else {
      if let status = reapIfEnded() { return (status, false) }
      return (nil, channel.hasUnaskedInput())
    }
    let (unasked, ended) = channel.hasUnaskedInput(besides: processDescriptor)
    if ended, let status = reapIfEnded() { return (status, false) }
    return (nil, unasked)
  }

  /// A reply as it was read: straight from its text into the message when it is a well-formed
  /// answer to a request, or else parsed (a change sent meanwhile, or a reply the straight way
  /// does not read), for the long way to read, which says what is wrong.
  private enum ReceivedReply {
    case read(ModuleMessage)
    case parsed(FrameValue)

    /// - Throws: `ChannelError.malformed` for text that is not JSON.
    init(_ text: [UInt8]) throws(ChannelError) {
      switch ModuleMessage(json: text) {
      case .changed?, nil: self = .parsed(try MessageChannel.value(of: text))
      case let message?: self = .read(message)
      }
    }
  }

  /// A request answered by a `result` (open, command in a window, refresh, restore).
  func result(of request: HostMessage) throws(CommandError) -> WireResult {
    guard case .result(let result) = try call(request) else { throw stoppedError("it did not answer") }
    return result
  }

  /// A request answered by `ok` (timer, close, end, capture, sync, live, a command in no window).
  func ok(of request: HostMessage) throws(CommandError) -> WireOk {
    guard case .ok(let ok) = try call(request) else { throw stoppedError("it did not answer") }
    return ok
  }

  /// The reply that follows changes a module sent while a request was on its way (§19).
  private func awaitReply(to rule: String, id: Int, on channel: MessageChannel, deadline: Int64)
    throws(CommandError) -> ModuleMessage
  {
    while true {
      let reply: FrameValue
      do {
        let left = Int32(clamping: max(1, deadline - Self.milliseconds()))
        reply = try MessageChannel.value(of: channel.receiveText(timeout: left, process: processDescriptor))
        logMessage(reply, from: "module")
      } catch {
        // The time the request had, not what was left of it.
        var what = error.description
        if case .timedOut = error { what = ChannelError.timedOut(Int(timeoutMilliseconds)).description }
        stop(what)
        throw stoppedError(stopReason ?? what)
      }
      guard reply["type"]?.stringValue == "changed" else {
        if channel.hasBufferedInput { try readChanges(from: channel, after: rule) }
        return try checked(reply, to: rule, id: id)
      }
      try keep(change: reply)
    }
  }

  /// The monotonic clock in milliseconds, for a request's deadline.
  static func milliseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
  }

  /// Reads what a module sent unasked, without waiting: each must be a `changed` (§19).
  func readChanges(from channel: MessageChannel, after rule: String? = nil) throws(CommandError) {
    while channel.hasUnaskedInput() {
      let message: FrameValue
      do {
        message = try channel.receive(timeout: timeoutMilliseconds)
        logMessage(message, from: "module")
      } catch {
        stop(error.description)
        throw stoppedError(stopReason ?? error.description)
      }
      guard message["type"]?.stringValue == "changed" else {
        throw violation(
          rule.map { "it answered `\($0)` with more than one message" }
            ?? "it sent a message nobody asked for (a second reply to an earlier request?)")
      }
      try keep(change: message)
    }
  }

  /// Keeps a change a live source saw until its session takes it between commands.
  private func keep(change message: FrameValue) throws(CommandError) {
    // Changes come in at points the host chooses only from a module it can ask (`sync`).
    guard hello.liveSources == true else {
      throw violation(
        "it sent a change unasked (`changed`), and its hello does not declare `liveSources: true`: a module with "
          + "live sources says so, and answers `sync` (§19)")
    }
    let change: WireChanged
    do throws(WireProblems) {
      change = try WireChanged(wire: message)
    } catch {
      throw violation("its `changed` was not what the protocol says: expected \(error.description) (§19)")
    }
    // A change for a session that ended (or never was) has no windows to go to.
    guard let entry = entry(of: change.session), let clock = entry.services?.clock else { return }
    changes.append(change)
    guard changes.count <= ModuleProtocol.maximumWaitingChanges else {
      throw violation("it sent more than \(ModuleProtocol.maximumWaitingChanges) changes between two commands (§11)")
    }
    // Nor more than that in a second of the session's time, taken or not: a flood at an idle
    // prompt is stopped too.
    if Self.passes(ModuleProtocol.maximumWaitingChanges, aSecond: &entry.changeTimes, now: clock.now) {
      throw violation("it sent more than \(ModuleProtocol.maximumWaitingChanges) changes in a second (§11)")
    }
  }

  /// Notes an event at `now` in `times` (the last `limit + 1` kept) and says whether more than
  /// `limit` came within a second of the session's time.
  static func passes(_ limit: Int, aSecond times: inout [Duration], now: Duration) -> Bool {
    times.append(now)
    if times.count > limit + 1 { times.removeFirst(times.count - limit - 1) }
    guard times.count > limit, let first = times.first else { return false }
    return now - first < .seconds(1)
  }

  /// A reply held to the request it answers (§7).
  private func checked(_ reply: FrameValue, to rule: String, id: Int) throws(CommandError) -> ModuleMessage {
    if let echoed = reply["id"], echoed != .integer(id) { throw lateReply(to: id, rule, echoed: echoed.jsonText) }
    return try accepted(ReplyRules.reply(reply, toRequest: rule), to: rule)
  }

  /// A reply read straight from its text, held to the request it answers as the long way holds
  /// a parsed one.
  private func checked(_ reply: ModuleMessage, to rule: String, id: Int) throws(CommandError) -> ModuleMessage {
    if let echoed = reply.id, echoed != id { throw lateReply(to: id, rule, echoed: String(echoed)) }
    return try accepted(ReplyRules.reply(reply, toRequest: rule), to: rule)
  }

  private func lateReply(to id: Int, _ rule: String, echoed: String) -> CommandError {
    violation("it answered request \(id) (`\(rule)`) with the reply to request \(echoed): one came late or twice")
  }

  /// The reply, when it is the kind that answers `rule`; a refusal is kept and thrown.
  private func accepted(_ read: Result<ModuleMessage, WireProblems>, to rule: String) throws(CommandError)
    -> ModuleMessage
  {
    let message: ModuleMessage
    switch read {
    case .success(let read): message = read
    case .failure(let problems):
      throw violation("its reply to `\(rule)` was not what the protocol says: expected \(problems.description)")
    }
    if case .error(let refused) = message {
      refusal = refused
      throw CommandError(refused.message)
    }
    return message
  }

  /// The refusal of the last request, once.
  func takeRefusal() -> WireError? {
    defer { refusal = nil }
    return refusal
  }
}
