import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The module process a check drives.
extension ModuleCheck {
  /// A module process on pipes, for the checks.
  final class Peer {
    let pid: pid_t
    let channel: MessageChannel
    let toModule: Int32
    let fromModule: Int32

    init?(executable: String) {
      // The protocol is the module's stdin and stdout; what it prints on stderr is not checked.
      // Its own process group, so what it starts ends with it (`stop`); told the versions the
      // host speaks, as the host tells it.
      guard
        let process = try? SpawnedProcess(
          executable, environment: ModuleProtocol.moduleEnvironment(), input: .pipe, output: .pipe, error: .null,
          newProcessGroup: true)
      else { return nil }
      let ends = process.releaseDescriptors()
      guard let input = ends.input, let output = ends.output else { return nil }
      pid = process.pid
      toModule = input
      fromModule = output
      MessageChannel.makeNonBlocking(toModule)
      MessageChannel.makeNonBlocking(fromModule)
      channel = MessageChannel(input: fromModule, output: toModule)
    }

    /// Requests that got more than one message back, as `type: what came after`.
    private(set) var extraReplies: [String] = []

    private var lastReply: FrameValue?

    /// Requests whose reply named another request's id, as `type: id`.
    private(set) var wrongIDs: [String] = []
    private var requestCount = 0

    /// The session requests name, for a module that speaks protocol 2 (§16).
    var session: Int?
    /// Whether its hello declares live sources (§19): only then may it send changes unasked.
    var declaresLiveSources = false
    /// The windows open in the module (their keys), for checking its updates (§15).
    var openKeys: Set<String> = []
    /// The timers the module asked for and has not had fired or cancelled, by id, with when they
    /// are due and the order they were set in (§14); how many it set and cancelled; updates
    /// naming no open window. (By id, so a reply setting 100,000 costs 100,000 steps, not their
    /// square.)
    private(set) var pendingTimers: [String: (due: Int, order: Int)] = [:]
    private(set) var timersSet = 0
    private(set) var timersCancelled = 0
    /// The most timers pending at once (§11 limits them).
    private(set) var mostPending = 0
    private(set) var updatesSeen = 0
    private(set) var strayUpdates: [String] = []
    /// The documents requests named (what the module may write outside a window's command), and
    /// what it wrote or asked for beyond what it may: another document, a timer more than a day
    /// away (§9, §11).
    private(set) var handedDocuments: Set<String> = []
    /// What each window said it holds unsaved (§20), by key, as of its last result.
    private(set) var unsaved: [String: String] = [:]
    private(set) var overreaches: [String] = []
    /// Windows a command opened (§17), and keys it opened one under that an open window had.
    private(set) var windowsOpened = 0
    private(set) var reusedKeys: [String] = []

    /// Changes the module sent unasked (§19), the most between two requests, and problems.
    private(set) var changesSeen = 0
    private(set) var mostChanges = 0
    private(set) var changeProblems: [String] = []
    /// The events changes carried, to hand back (`live`, §19).
    private(set) var eventsSeen: [FrameValue] = []
    private var changesSinceRequest = 0

    private func see(change message: FrameValue) {
      changesSeen += 1
      changesSinceRequest += 1
      mostChanges = max(mostChanges, changesSinceRequest)
      let change: WireChanged
      do throws(WireProblems) {
        change = try WireChanged(wire: message)
      } catch {
        changeProblems += error.problems
        return
      }
      if change.session != session { changeProblems.append("a change without this session") }
      if !declaresLiveSources {
        changeProblems.append("a change sent unasked, and the hello does not declare `liveSources: true`")
      }
      for update in change.updates where !openKeys.contains(update.key) { strayUpdates.append(update.key) }
      if let event = change.event { eventsSeen.append(event) }
    }

    /// Takes what a reply asks of the host's clock and windows (protocol 2): a timer is due `at`
    /// its time, or `after` its delay from the `now` the request carried.
    private func follow(_ wire: FrameValue) {
      let timers: [WireTimer]?
      let cancel: [String]?
      let opened: [WireOpenedWindow]?
      let updates: [WireUpdate]?
      switch try? ModuleMessage(wire: wire) {
      case .result(let result)?:
        (timers, cancel, opened, updates) = (result.timers, result.cancel, result.opened, result.updates)
      case .ok(let ok)?:
        (timers, cancel, opened, updates) = (ok.timers, ok.cancel, ok.opened, ok.updates)
        for commit in ok.commits ?? [] where !handedDocuments.contains(commit.document) {
          overreaches.append(
            "a commit of \(TerminalText.visible(commit.document)), a document no request handed it (a module writes "
              + "only its own, §9)")
        }
      default: return
      }
      for id in cancel ?? [] where pendingTimers.removeValue(forKey: id) != nil { timersCancelled += 1 }
      for timer in timers ?? [] {
        if let at = timer.at, at - now > ModuleProtocol.maximumTimerDelay {
          overreaches.append(
            "the timer \(TerminalText.visible(timer.id)) at \(at) ms, more than a day after `now` \(now) ms (§11)")
        }
        timersSet += 1
        pendingTimers[timer.id] = (timer.at ?? (now + (timer.after ?? 0)), timersSet)
      }
      mostPending = max(mostPending, pendingTimers.count)
      for entry in opened ?? [] {
        if openKeys.contains(entry.key) { reusedKeys.append(entry.key) }
        openKeys.insert(entry.key)
        windowsOpened += 1
      }
      for update in updates ?? [] {
        updatesSeen += 1
        if !openKeys.contains(update.key) { strayUpdates.append(update.key) }
      }
    }

    /// The session's time as module-check keeps it: milliseconds, moved to each timer it fires
    /// (every protocol 2 request carries it as `now`).
    private(set) var now = 0

    /// The next timer due (the earliest, the earliest set among equals), taken off the list; the
    /// session's time moves to it.
    func takeNextTimer() -> String? {
      guard let next = pendingTimers.min(by: { ($0.value.due, $0.value.order) < ($1.value.due, $1.value.order) })
      else { return nil }
      pendingTimers[next.key] = nil
      now = max(now, next.value.due)
      return next.key
    }

    /// The request the process the host started had ended by, when it ended while something it
    /// left behind (a child holding its pipes) went on answering (§9).
    private(set) var endedWhileServing: (request: String, status: Int32)?

    func ask(_ message: FrameValue) throws(ChannelError) -> FrameValue {
      // Numbered as the host numbers them (§7); a reply that names an id must name this one.
      requestCount += 1
      var message = message
      if case .object(var object) = message {
        object["id"] = .integer(requestCount)
        if case .string(let document)? = object["document"] { handedDocuments.insert(document) }
        if let session {
          object["session"] = .integer(session)
          object["now"] = .integer(now)
        }
        message = .object(object)
      }
      defer { if session != nil, let reply = lastReply { follow(reply) } }
      lastReply = nil
      try channel.send(message, timeout: 5000)
      var reply = try channel.receive(timeout: 5000)
      // Protocol 2: a change a live source saw may come unasked, before the reply (§19).
      while session != nil, reply["type"]?.stringValue == "changed" {
        see(change: reply)
        reply = try channel.receive(timeout: 5000)
      }
      lastReply = reply
      // What each window says it holds unsaved (§20), as of its last result.
      if reply["type"]?.stringValue == "result", case .string(let key)? = message["key"] {
        unsaved[key] = reply["unsaved"]?.stringValue
      }
      // The process the host started must be the one answering: one that forked and exited
      // leaves a child the host never started on its pipes.
      if endedWhileServing == nil, let ended = exitStatus(within: 0) {
        endedWhileServing = (message["type"]?.stringValue ?? "?", ended)
      }
      if let echoed = reply["id"], echoed != .integer(requestCount) {
        wrongIDs.append("\(message["type"]?.stringValue ?? "?") \(requestCount) answered as \(echoed.jsonText)")
      }
      // One reply per request (§7): anything behind it within a moment is a second message.
      if channel.hasUnaskedInput(within: 30) {
        // What came after is read: a change (protocol 2) is counted, anything else is a second
        // reply, dropped so the next request gets its own.
        var second = false
        while let unasked = try? channel.receive(timeout: 30) {
          if session != nil, unasked["type"]?.stringValue == "changed" { see(change: unasked) } else { second = true }
        }
        if second { extraReplies.append(message["type"]?.stringValue ?? "?") }
      }
      changesSinceRequest = 0
      return reply
    }

    /// The reply, or a description of why there was none (not a reply the checks could take
    /// for the module's own).
    func reply(to message: FrameValue) -> Result<FrameValue, ChannelError> {
      do {
        return .success(try ask(message))
      } catch {
        return .failure(error)
      }
    }

    /// Waits up to `milliseconds` for the process to end: its status, or `nil` if it did not.
    /// The status it ended with, once collected.
    private(set) var status: Int32?

    func exitStatus(within milliseconds: Int) -> Int32? {
      if let status { return status }
      for attempt in 0..<max(1, milliseconds / 10) {
        var result: Int32 = 0
        if waitpid(pid, &result, WNOHANG) == pid {
          status = result
          return result
        }
        if milliseconds > 0, attempt + 1 < max(1, milliseconds / 10) { usleep(10_000) }
      }
      return nil
    }

    private var inputOpen = true

    /// Writes `bytes` as they are (a message framed by hand), waiting up to 2 s for room in the
    /// pipe; whether all of them went.
    func sendRaw(_ bytes: [UInt8]) -> Bool {
      var written = 0
      let deadline = ContinuousClock.now + .seconds(2)
      while written < bytes.count, inputOpen {
        let count = bytes[written...].withUnsafeBytes { write(toModule, $0.baseAddress, $0.count) }
        if count > 0 {
          written += count
          continue
        }
        guard count < 0, errno == EAGAIN || errno == EINTR, ContinuousClock.now < deadline else { return false }
        _ = Descriptors.wait(for: toModule, .writable, milliseconds: 100)
      }
      return written == bytes.count
    }

    /// Closes the module's input (the host's end of it), once.
    func closeInput() {
      guard inputOpen else { return }
      inputOpen = false
      close(toModule)
    }

    func stop() {
      closeInput()
      close(fromModule)
      if exitStatus(within: 1000) == nil {
        kill(pid, SIGKILL)
        _ = exitStatus(within: 1000)
      }
      // Whatever it started (a child it forked) ends with it, as the shell's shutdown does.
      kill(-pid, SIGKILL)
    }
  }
}
